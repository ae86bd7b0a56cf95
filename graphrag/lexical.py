"""BM25 over note text (title, aliases, body) with Snowball stemming, via bm25s.

Built on first use from a snapshot and cached with its ``Corpus``. Building
costs seconds at 100k notes (tokenising and stemming ~150 MB of text), so the
index is also saved beside the generation it was built from
(``gen-NNNNNN/lexical/``) and loaded from there next time: a generation never
changes once committed, so the saved index can never go stale. A read-only
index folder just means building every time a process starts.

Scores come for every note at once (one sparse column sum per query term), so
they blend with vector similarities note by note. ``coverage`` says how many of
the query's distinct terms a note contains: one shared common word is not
evidence enough to make a note an entry.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .corpus import Corpus

log = logging.getLogger(__name__)

FOLDER = "lexical"
# Bumped when tokenisation changes, so an older saved index is rebuilt.
FORMAT = 1


@dataclass(frozen=True, slots=True)
class LexicalScores:
    scores: np.ndarray  # BM25 per note (corpus order); 0 where no term matches
    matched: np.ndarray  # distinct query terms found in each note
    terms: int  # distinct terms in the query after stop words

    def coverage(self) -> np.ndarray:
        if self.terms == 0:
            return np.zeros_like(self.scores)
        return self.matched / self.terms

    def normalised(self) -> np.ndarray:
        top = float(self.scores.max()) if len(self.scores) else 0.0
        return self.scores / top if top > 0 else np.zeros_like(self.scores)


class LexicalIndex:
    def __init__(self, retriever: object, language: str) -> None:
        self.retriever = retriever
        self.language = language
        self._stemmer = _stemmer(language)

    def tokens(self, text: str) -> list[str]:
        return self.token_lists([text])[0]

    def token_lists(self, texts: list[str]) -> list[list[str]]:
        """``tokens`` of each text, in one call: bm25s's own overhead per call (progress
        bars it does not show, vocabulary dicts) outweighs tokenizing a short chunk."""
        import bm25s

        if not texts:
            return []
        out = bm25s.tokenize(
            texts, stopwords="en", stemmer=self._stemmer, return_ids=False, show_progress=False
        )
        return [list(dict.fromkeys(t for t in words if t)) for words in out]

    def score(self, text: str, size: int) -> LexicalScores:
        """BM25 of every note for ``text``; ``size`` is the corpus's note count."""
        terms = self.tokens(text)
        r = self.retriever
        vocab = r.vocab_dict  # type: ignore[attr-defined]
        ids = [vocab[t] for t in terms if t in vocab]
        scores = np.zeros(size, dtype=np.float32)
        matched = np.zeros(size, dtype=np.float32)
        if ids:
            scores = np.asarray(r.get_scores_from_ids(ids), dtype=np.float32)  # type: ignore[attr-defined]
            indices, indptr = r.scores["indices"], r.scores["indptr"]  # type: ignore[attr-defined]
            for t in ids:
                matched[indices[indptr[t] : indptr[t + 1]]] += 1
        return LexicalScores(scores, matched, len(terms))


def lexical_index(corpus: Corpus, language: str = "english") -> LexicalIndex:
    """The corpus's BM25 index: cached, else loaded from the generation, else built."""
    return corpus.derived(f"lexical:{language}", lambda: _load_or_build(corpus, language))


def _load_or_build(corpus: Corpus, language: str) -> LexicalIndex:
    import bm25s

    folder = corpus.generation / FOLDER
    stamp = {"format": FORMAT, "language": language, "notes": len(corpus)}
    try:
        if json.loads((folder / "stamp.json").read_text(encoding="utf-8")) == stamp:
            retriever = bm25s.BM25.load(str(folder), show_progress=False, verbosity=0)
            return LexicalIndex(retriever, language)
    except (OSError, ValueError, KeyError):
        pass  # not saved yet, or unreadable: build it
    index = build_lexical(corpus, language)
    _save(index, folder, stamp)
    return index


def build_lexical(corpus: Corpus, language: str = "english") -> LexicalIndex:
    import bm25s

    texts = [""] * len(corpus)
    db = corpus.connect()
    try:
        for uri, title, aliases, body in db.execute("SELECT uri, title, aliases, body FROM notes"):
            i = corpus.index_of.get(uri)
            if i is not None:
                names = " ".join([title or "", *json.loads(aliases or "[]")])
                texts[i] = f"{names}\n{body or ''}"
    finally:
        db.close()
    stemmer = _stemmer(language)
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    return LexicalIndex(retriever, language)


def _save(index: LexicalIndex, folder: Path, stamp: dict) -> None:
    """Write to a temporary folder and rename it into place; give up quietly on a
    read-only or full disk (the index in memory works all the same)."""
    tmp = folder.with_name(f".{folder.name}.{os.getpid()}.tmp")
    try:
        shutil.rmtree(tmp, ignore_errors=True)
        index.retriever.save(str(tmp), show_progress=False)  # type: ignore[attr-defined]
        (tmp / "stamp.json").write_text(json.dumps(stamp), encoding="utf-8")
        shutil.rmtree(folder, ignore_errors=True)
        os.replace(tmp, folder)
    except OSError as exc:
        log.info("lexical index not saved in %s: %s", folder, exc)
        with contextlib.suppress(OSError):
            shutil.rmtree(tmp, ignore_errors=True)


def _stemmer(language: str) -> object | None:
    if not language:
        return None
    import Stemmer

    return Stemmer.Stemmer(language)
