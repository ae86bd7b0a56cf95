"""The BM25 index saved beside its generation: one ``lexical.npz``, written atomically,
checked in full when read.

One file, not several, so a reader can never mix two builds saved at once (a rename
replaces it whole). The postings are integer arrays; the stamp (what tokenized the
notes), the vocabulary and the notes' keys are JSON in uint8 arrays: no pickle.
Anything that does not add up is reported as None, and the caller rebuilds.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from indexer.store import temp_beside

log = logging.getLogger(__name__)

FILE = "lexical.npz"  # in the generation folder
OLD_FOLDER = "lexical"  # FORMAT 1 and 2 saved a folder: ignored, removed when saving
ARRAYS = ("indptr", "docs", "tfs", "lengths")  # and JSON as uint8: "stamp", "terms", "notes"


@dataclass(frozen=True)
class Saved:
    """A saved index's contents: term -> notes postings (CSC), each note's length in
    tokens, the vocabulary in term-id order, and each note's (uri, content hash)."""

    terms: list[str]
    indptr: np.ndarray
    docs: np.ndarray
    tfs: np.ndarray
    lengths: np.ndarray
    keys: list[tuple[str, str | None]]


def _json_bytes(value: object) -> np.ndarray:
    return np.frombuffer(json.dumps(value, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)


def _json_of(array: np.ndarray) -> Any:
    if array.dtype != np.uint8 or array.ndim != 1:
        raise ValueError("not JSON bytes")
    return json.loads(array.tobytes().decode("utf-8"))


def read(path: Path, stamp: dict[str, Any], uris: list[str]) -> Saved | None:
    """The index saved at ``path`` if it is whole, has this ``stamp``, covers exactly
    these note ``uris`` and is consistent; else None. Every member is read in full, so
    the zip's CRCs are checked; one open file, so a concurrent save cannot mix in."""
    try:
        with np.load(path, allow_pickle=False) as saved:
            if _json_of(saved["stamp"]) != stamp:
                log.info("lexical index %s: another version's or language's; rebuilding", path)
                return None
            indptr, docs, tfs, lengths = (saved[name] for name in ARRAYS)
            terms = _json_of(saved["terms"])
            notes = _json_of(saved["notes"])
        hashes = notes["hashes"]
        problem = _inconsistent(indptr, docs, tfs, lengths, len(uris))
        if problem is None and (notes["uris"] != uris or len(hashes) != len(uris)):
            problem = "notes of another generation"
        if problem is None and (
            len(set(terms)) != len(terms)  # a term twice
            or len(terms) != len(indptr) - 1
            or not set(map(type, terms)) <= {str}
        ):
            problem = "vocabulary does not match the postings"
        if problem is None and not set(map(type, hashes)) <= {str, type(None)}:
            problem = "bad note hashes"
        if problem is not None:
            log.warning("lexical index %s: %s; rebuilding", path, problem)
            return None
    except FileNotFoundError:
        return None  # not saved yet
    except Exception as exc:  # a damaged zip raises many kinds (even NotImplementedError)
        log.warning("lexical index %s unreadable (%r); rebuilding", path, exc)
        return None
    return Saved(
        terms,
        indptr.astype(np.int64, copy=False),
        docs.astype(np.int32, copy=False),
        tfs.astype(np.int32, copy=False),
        lengths.astype(np.int32, copy=False),
        list(zip(uris, hashes, strict=True)),
    )


def _inconsistent(
    indptr: np.ndarray, docs: np.ndarray, tfs: np.ndarray, lengths: np.ndarray, n: int
) -> str | None:
    """What is wrong with saved postings of ``n`` notes (None: nothing found)."""
    for name, a in zip(ARRAYS, (indptr, docs, tfs, lengths), strict=True):
        if a.ndim != 1 or a.dtype.kind not in "iu":
            return f"{name} is not a vector of integers"
    if len(indptr) < 1 or int(indptr[0]) != 0 or int(indptr[-1]) != len(docs):
        return "indptr does not span the postings"
    if (np.diff(indptr) < 0).any():
        return "indptr decreases"
    if len(tfs) != len(docs) or len(lengths) != n:
        return "array lengths differ"
    if len(docs) and (int(docs.min()) < 0 or int(docs.max()) >= n):
        return "postings of notes that do not exist"
    if len(tfs) and int(tfs.min()) <= 0:
        return "term frequencies not positive"
    if n and int(lengths.min()) < 0:
        return "negative note lengths"
    # Every token is one term's: the frequencies add up to the notes' lengths (the sums,
    # not note by note: that would double the time a load takes, and the zip's CRCs
    # already catch damage; this is for files that are whole but wrong).
    if int(tfs.sum(dtype=np.int64)) != int(lengths.sum(dtype=np.int64)):
        return "note lengths do not match the postings"
    return None


def write(path: Path, stamp: dict[str, Any], saved: Saved) -> None:
    """Write one file beside it and rename it into place (atomic), unless a valid one is
    already there (another process saved this generation's first: kept, so readers never
    see it change); give up quietly on a read-only or full disk (the index in memory
    works all the same). The old layout's folder goes, best effort."""
    old = path.with_name(OLD_FOLDER)
    if old.is_dir():
        shutil.rmtree(old, ignore_errors=True)
    uris = [u for u, _ in saved.keys]
    if path.exists() and read(path, stamp, uris) is not None:
        return
    tmp = temp_beside(path, str(threading.get_ident()))  # a str: pathlib would intern it
    try:
        with open(tmp, "wb") as out:
            np.savez(
                out,
                stamp=_json_bytes(stamp),
                terms=_json_bytes(saved.terms),
                notes=_json_bytes({"uris": uris, "hashes": [h for _, h in saved.keys]}),
                indptr=saved.indptr,
                docs=saved.docs,
                tfs=saved.tfs,
                lengths=saved.lengths,
            )
        os.replace(tmp, path)
    except OSError as exc:
        log.info("lexical index not saved in %s: %s", path, exc)
        with contextlib.suppress(OSError):
            os.unlink(tmp)
