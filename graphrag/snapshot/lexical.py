"""BM25 over note text (title, aliases, body) with Snowball stemming.

bm25s is only the tokenizer (its regex, English stop words, PyStemmer), and only
when notes are indexed: questions and snippets are tokenized by ``words``, the same
rules without importing bm25s (and scipy). The index is ours: per term, the notes holding it and how often (a CSC postings matrix),
and per note its length in tokens. A query is scored at query time from those
(``score``), exactly as bm25s's default BM25 ("lucene": k1 1.5, b 0.75) scores it,
float32 for float32.

Why not bm25s's own eager index: it precomputes every (note, term) score, which
depend on the number of notes, the average length and every term's document
frequency, so one edited note changes them all and the index is rebuilt from
scratch (seconds at 10k notes). Ours keeps the raw counts, so a new generation
reuses the previous index's postings for every note whose (uri, content hash) is
unchanged and tokenizes only new and changed notes: after a one-note edit the
new generation's index is ready in tens of milliseconds. The most recent index
of each index folder is kept for that (``_RECENT``); term ids stay stable across
generations (the vocabulary grows; a term no note uses any more has no postings)
until the dead terms exceed half the live ones: then that generation's index gets a
new, compacted ``Vocabulary`` of its own (its postings' term ids renumbered; the
older indexes keep theirs untouched). A previous index is reused only if it was
tokenized the same way (``tokenizer``: our FORMAT, the stemmer language, bm25s's
and PyStemmer's versions); after an upgrade the index is built from scratch.

An index is also saved beside the generation it was built from, as one file
(``lexical_file``: written atomically, checked in full when read) and loaded from
there next time: a generation never changes once committed, so the saved index
can never go stale. A read-only index
folder just means building every time a process starts.

Scores come for every note at once, so they blend with vector similarities note
by note. ``coverage`` says how many of the query's distinct terms a note
contains: one shared common word is not evidence enough to make a note an entry.
"""

from __future__ import annotations

import functools
import itertools
import json
import logging
import math
import os
import re
import sys
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphrag.snapshot import lexical_file
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.stopwords import QUESTION_STOPWORDS

log = logging.getLogger(__name__)

# Bumped when tokenisation or the saved layout changes, so an older saved index is rebuilt.
FORMAT = 3
STOPWORDS = "en"  # bm25s's English stop word list
# bm25s's defaults (method "lucene"): the same scores as ``bm25s.BM25()``.
K1 = 1.5
B = 0.75
# Index folders whose most recent BM25 index is kept to build the next generation's from.
RECENT_FOLDERS = 4
# Changed notes above this share of the corpus: read every note's text in one pass.
READ_ALL_SHARE = 0.25
# Terms no note uses any more above this share of the used ones: a new, compacted vocabulary.
DEAD_TERMS_SHARE = 0.5

Key = tuple[str, str | None]  # (uri, content hash); no hash: never reused


@functools.cache
def _version(package: str) -> str | None:
    """``importlib.metadata.version(package)``, read the way it reads it (the first
    ``*.dist-info`` of that name on ``sys.path``, its METADATA's ``Version``) without
    importing ``importlib.metadata``: that import is ~25 ms of every command that
    opens the BM25 index. Anything unusual (an egg, a zip) asks importlib.metadata."""
    want = re.sub(r"[-_.]+", "_", package).lower()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            stem, dot, kind = name.rpartition(".")
            if kind.lower() not in ("dist-info", "egg-info") or not dot:
                continue
            if re.sub(r"[-_.]+", "_", stem.partition("-")[0]).lower() != want:
                continue
            if kind.lower() == "dist-info":
                version = _metadata_version(Path(entry or ".") / name / "METADATA")
                if version is not None:
                    return version
            return _version_from_importlib(package)
    return _version_from_importlib(package)


def _metadata_version(path: Path) -> str | None:
    try:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if not line.strip():
                    break  # the headers end at the first blank line
                key, _, value = line.partition(":")
                if key.strip().lower() == "version":
                    return value.strip()
    except (OSError, UnicodeDecodeError):
        pass
    return None


def _version_from_importlib(package: str) -> str | None:
    import importlib.metadata

    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return None


def tokenizer(language: str) -> dict[str, Any]:
    """What decides a note's tokens: an index built under another one is never reused
    (nor loaded), since its unchanged notes would keep the old tokens."""
    return {
        "format": FORMAT,
        "language": language,
        "stopwords": STOPWORDS,
        "bm25s": _version("bm25s"),
        "PyStemmer": _version("PyStemmer"),
    }


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


class Vocabulary:
    """Term -> id, append-only. Shared by an index and the indexes built from it, so a
    term keeps its id; an index ignores ids past its own ``terms`` count (added later).
    Never renumbered in place: a compaction makes a new one (``build_lexical``)."""

    def __init__(self, terms: Sequence[str] = ()) -> None:
        self.terms: list[str] = list(terms)
        self.ids: dict[str, int] = {t: i for i, t in enumerate(self.terms)}
        self._lock = threading.Lock()

    def add(self, words: Sequence[str]) -> tuple[np.ndarray, int]:
        """The ids of ``words`` (new words get the next ids) and the size afterwards."""
        with self._lock:
            ids, terms = self.ids, self.terms
            out = np.empty(len(words), dtype=np.int64)
            for k, word in enumerate(words):
                i = ids.get(word)
                if i is None:
                    i = len(terms)
                    terms.append(word)
                    ids[word] = i
                out[k] = i
            return out, len(terms)

    def first(self, count: int) -> list[str]:
        """A copy of the first ``count`` terms (an index's own; others may be appending)."""
        with self._lock:
            return self.terms[:count]


class LexicalIndex:
    """Postings (term -> notes, term frequencies) and note lengths, in corpus order."""

    def __init__(
        self,
        language: str,
        vocab: Vocabulary,
        indptr: np.ndarray,
        docs: np.ndarray,
        tfs: np.ndarray,
        lengths: np.ndarray,
        keys: list[Key],
        generation: str = "",
        tokenized: dict[str, Any] | None = None,
    ) -> None:
        self.language = language
        # How the notes were tokenized (``tokenizer``): reused only under the same one.
        self.tokenizer = tokenized if tokenized is not None else tokenizer(language)
        self._stemmer = _stemmer(language)
        self.vocab = vocab
        self.indptr = indptr  # int64, terms + 1: term t's postings are [indptr[t], indptr[t+1])
        self.docs = docs  # int32 note indices
        self.tfs = tfs  # int32 occurrences of the term in the note
        self.lengths = lengths  # int32 tokens per note (stop words out, repeats counted)
        self.keys = keys  # (uri, content hash) per note
        self.generation = generation  # "gen-NNNNNN", to keep the newest in ``_RECENT``
        self._positions: dict[Key, int] | None = None
        # bm25s: avgdl is the mean note length (empty notes count) and each note's length
        # part of the denominator is k1 * (1 - b + b * dl / avgdl), computed in float64.
        total = int(lengths.sum())
        self.avgdl = total / len(lengths) if len(lengths) else 0.0
        if total:
            self._norm = K1 * ((1 - B) + B * lengths.astype(np.float64) / np.float64(self.avgdl))
        else:
            self._norm = np.zeros(len(lengths), dtype=np.float64)

    @property
    def terms(self) -> int:
        return len(self.indptr) - 1

    def __len__(self) -> int:
        return len(self.lengths)

    def positions(self) -> dict[Key, int]:
        """Note index by (uri, hash), for notes that have a hash."""
        if self._positions is None:
            self._positions = {key: i for i, key in enumerate(self.keys) if key[1]}
        return self._positions

    def tokens(self, text: str) -> list[str]:
        return self.token_lists([text])[0]

    def token_lists(self, texts: list[str]) -> list[list[str]]:
        """``tokens`` of each text: its distinct terms in the order they first appear."""
        stem = self._stem
        return [list(dict.fromkeys(t for t in map(stem, words(text)) if t)) for text in texts]

    def stem(self, word: str) -> str:
        """``word`` (lower-cased) as this index stems it."""
        return self._stem(word)

    def _stem(self, word: str) -> str:
        return self._stemmer.stemWord(word) if self._stemmer is not None else word  # type: ignore[attr-defined]

    def count_terms(self, texts: list[str], terms: set[str]) -> list[int]:
        """How many of ``terms`` each text holds: what ``token_lists`` would say, with
        each distinct word stemmed once for all the texts (choosing a search hit's
        snippet tokenized ~100 chunks per query, most of a lexical search's time)."""
        sets = [set(_WORD.findall(t.lower())) for t in texts]
        distinct = sorted(set().union(*sets) - STOPWORDS_EN)
        stemmed = self._stemmer.stemWords(distinct) if self._stemmer is not None else distinct  # type: ignore[attr-defined]
        # The words whose stem is one of the terms: each text is then one set intersection.
        hits = {w: s for w, s in zip(distinct, stemmed, strict=True) if s in terms}
        found = hits.keys()
        return [len({hits[w] for w in ws & found}) for ws in sets]

    def notes_with_all(self, terms: Sequence[str]) -> np.ndarray:
        """The notes (indices, ascending) holding every one of ``terms`` (stemmed, as
        ``tokens`` gives them): none if a term is unknown."""
        out: np.ndarray | None = None
        ids, indptr = self.vocab.ids, self.indptr
        for term in terms:
            tid = ids.get(term)
            if tid is None or tid >= self.terms:
                return np.zeros(0, dtype=np.int64)
            docs = self.docs[int(indptr[tid]) : int(indptr[tid + 1])]
            out = docs if out is None else np.intersect1d(out, docs, assume_unique=True)
        return np.zeros(0, dtype=np.int64) if out is None else np.unique(out)

    def score(self, text: str, size: int) -> LexicalScores:
        """BM25 of every note for ``text``; ``size`` is the corpus's note count.

        Each distinct query term counts once, in the order it first appears (bm25s adds
        the terms' columns in the order given, float32). The words every question is
        made of (``stopwords.QUESTION_STOPWORDS``: how, do, my...) are no terms: they
        would make any note that says "how" look like an answer."""
        stem = self._stem
        terms = list(
            dict.fromkeys(t for w in words(text) if w not in QUESTION_STOPWORDS and (t := stem(w)))
        )
        scores = np.zeros(size, dtype=np.float32)
        matched = np.zeros(size, dtype=np.float32)
        n, ids, indptr = len(self.lengths), self.vocab.ids, self.indptr
        for term in terms:
            tid = ids.get(term)
            if tid is None or tid >= self.terms:
                continue
            lo, hi = int(indptr[tid]), int(indptr[tid + 1])
            if lo == hi:
                continue
            df = hi - lo
            idf = np.float32(math.log(1 + (n - df + 0.5) / (df + 0.5)))  # bm25s: float32 idf
            docs = self.docs[lo:hi]
            tf = self.tfs[lo:hi].astype(np.float64)
            scores[docs] += (idf * (tf / (self._norm[docs] + tf))).astype(np.float32)
            matched[docs] += 1
        return LexicalScores(scores, matched, len(terms))


def lexical_index(corpus: Corpus, language: str = "english") -> LexicalIndex:
    """The corpus's BM25 index: cached, else loaded from the generation, else built
    (from the previous generation's index when this process has one)."""
    return corpus.derived(f"lexical:{language}", lambda: _load_or_build(corpus, language))


def lexical_built(corpus: Corpus, language: str = "english") -> bool:
    """Whether the corpus's BM25 index is already in memory (never builds)."""
    return corpus.cached(f"lexical:{language}") is not None


def _load_or_build(corpus: Corpus, language: str) -> LexicalIndex:
    path = corpus.generation / lexical_file.FILE
    index = _load(corpus, language, path)
    if index is None:
        index = build_lexical(corpus, language, previous=_recent(corpus, language))
        _save(corpus, index, path)
    _remember(corpus, language, index)
    return index


# -- building -----------------------------------------------------------------------------
def build_lexical(
    corpus: Corpus, language: str = "english", previous: LexicalIndex | None = None
) -> LexicalIndex:
    """The BM25 index of ``corpus``; notes whose (uri, hash) ``previous`` holds are not
    tokenized again. Without ``previous`` (or one tokenized otherwise), from scratch."""
    n = len(corpus)
    keys: list[Key] = [(uri, None) for uri in corpus.uris]
    has_text = np.zeros(n, dtype=bool)
    db = corpus.connect()
    try:
        for uri, content_hash in db.execute("SELECT uri, hash FROM notes"):
            i = corpus.index_of.get(uri)
            if i is not None:
                keys[i] = (uri, content_hash or None)
                has_text[i] = True
        tokenized = tokenizer(language)
        if previous is not None and previous.tokenizer != tokenized:
            previous = None  # another language, or bm25s / PyStemmer upgraded: all again
        known = previous.positions() if previous is not None else {}
        old_of = np.full(n, -1, dtype=np.int64)  # note i's index in ``previous``
        fresh: list[int] = []
        for i, key in enumerate(keys):
            j = known.get(key) if key[1] else None
            if j is not None:
                old_of[i] = j
            elif has_text[i]:
                fresh.append(i)
        texts = _texts(db, corpus, fresh)
    finally:
        db.close()

    vocab = previous.vocab if previous is not None else Vocabulary()
    f_terms, f_docs, f_tfs, f_lengths, n_terms = _fresh_postings(texts, language, vocab)
    lengths = np.zeros(n, dtype=np.int32)
    fresh_at = np.asarray(fresh, dtype=np.int64)
    lengths[fresh_at] = f_lengths
    f_docs = fresh_at[f_docs].astype(np.int32)

    kept = old_of >= 0
    if previous is not None and kept.any():
        lengths[kept] = previous.lengths[old_of[kept]]
        indptr, docs, tfs = _kept_postings(previous, old_of, kept)
    else:
        indptr = np.zeros(1, dtype=np.int64)
        docs = np.zeros(0, dtype=np.int32)
        tfs = np.zeros(0, dtype=np.int32)
    n_terms = max(n_terms, len(indptr) - 1)
    if len(indptr) < n_terms + 1:  # terms added since ``previous``: no postings yet
        indptr = np.concatenate([indptr, np.full(n_terms + 1 - len(indptr), indptr[-1])])
    if len(f_terms):
        # Fresh postings go at the end of their term's block, in (term, note) order.
        at = indptr[f_terms + 1]
        docs = np.insert(docs, at, f_docs)
        tfs = np.insert(tfs, at, f_tfs)
        added = np.bincount(f_terms, minlength=n_terms)
        indptr = indptr + np.concatenate([[0], np.cumsum(added)])
    vocab, indptr = _compacted(vocab, indptr)
    return LexicalIndex(
        language, vocab, indptr, docs, tfs, lengths, keys, corpus.generation.name, tokenized
    )


def _compacted(vocab: Vocabulary, indptr: np.ndarray) -> tuple[Vocabulary, np.ndarray]:
    """``vocab`` and ``indptr`` as they are while the terms no note uses (left by edited
    and removed notes) are at most ``DEAD_TERMS_SHARE`` of the used ones; else a new
    Vocabulary of the used terms only, and ``indptr`` without the dead terms' (empty)
    blocks: the postings themselves stay as they are. ``vocab`` is never changed (older
    indexes, maybe queried right now, still use it and its ids)."""
    used = indptr[1:] > indptr[:-1]
    live = int(used.sum())
    if len(used) - live <= DEAD_TERMS_SHARE * live:
        return vocab, indptr
    terms = vocab.first(len(used))
    kept = [terms[t] for t in np.flatnonzero(used).tolist()]
    return Vocabulary(kept), np.concatenate([indptr[:1], indptr[1:][used]])


def _kept_postings(
    previous: LexicalIndex, old_of: np.ndarray, kept: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``previous``'s postings of the notes kept, renumbered to the new corpus order."""
    renumber = np.full(len(previous.lengths), -1, dtype=np.int32)
    renumber[old_of[kept]] = np.flatnonzero(kept)
    docs = renumber[previous.docs]
    dropped = np.flatnonzero(docs < 0)
    indptr = previous.indptr
    if len(dropped):
        indptr = indptr - np.searchsorted(dropped, indptr)
        docs = np.delete(docs, dropped)
        tfs = np.delete(previous.tfs, dropped)
    else:
        tfs = previous.tfs  # never written to: shared
    return indptr, docs, tfs


def _fresh_postings(
    texts: list[str], language: str, vocab: Vocabulary
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]:
    """(terms, notes, tfs) of ``texts`` sorted by (term, note; notes numbered from 0 in
    ``texts`` order), each text's length, and the vocabulary's size."""
    empty = np.zeros(0, dtype=np.int64)
    if not texts:
        return empty, empty, empty.astype(np.int32), empty.astype(np.int32), len(vocab.terms)
    ids, words = _tokenize_notes(texts, _stemmer(language))
    term_of, n_terms = vocab.add(words)
    lengths = np.fromiter((len(d) for d in ids), dtype=np.int64, count=len(ids))
    flat = np.fromiter(itertools.chain.from_iterable(ids), dtype=np.int64, count=int(lengths.sum()))
    terms = term_of[flat]
    notes = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    pairs, tfs = np.unique(terms * len(texts) + notes, return_counts=True)
    return (
        pairs // len(texts),
        pairs % len(texts),
        tfs.astype(np.int32, copy=False),
        lengths.astype(np.int32, copy=False),
        n_terms,
    )


def _tokenize_notes(texts: list[str], stemmer: object | None) -> tuple[list[list[int]], list[str]]:
    """bm25s's tokens of each text as ids into the returned word list (repeats kept).

    The same tokens as ``LexicalIndex.tokens`` (``return_ids=False`` maps the ids back
    to these very words); ids skip that per-token string mapping."""
    import bm25s

    out = bm25s.tokenize(texts, stopwords=STOPWORDS, stemmer=stemmer, show_progress=False)
    words = [""] * len(out.vocab)
    for word, i in out.vocab.items():
        words[i] = word
    return out.ids, words


def note_texts(corpus: Corpus, notes: list[int]) -> list[str]:
    """What BM25 reads of each of ``notes`` (title and aliases, a newline, the body)."""
    db = corpus.connect()
    try:
        return _texts(db, corpus, notes)
    finally:
        db.close()


def _texts(db: object, corpus: Corpus, notes: list[int]) -> list[str]:
    """What BM25 reads of each note: title and aliases, a newline, the body."""
    if not notes:
        return []
    wanted = {corpus.uris[i]: k for k, i in enumerate(notes)}
    texts = [""] * len(notes)
    sql = "SELECT uri, title, aliases, body FROM notes"
    if len(notes) > READ_ALL_SHARE * len(corpus):
        batches: list[list[str]] = [[]]
    else:
        uris = list(wanted)
        batches = [uris[k : k + 500] for k in range(0, len(uris), 500)]
    for batch in batches:
        where = f" WHERE uri IN ({','.join('?' * len(batch))})" if batch else ""
        for uri, title, aliases, body in db.execute(sql + where, batch):  # type: ignore[attr-defined]
            k = wanted.get(uri)
            if k is not None:
                names = " ".join([title or "", *json.loads(aliases or "[]")])
                texts[k] = f"{names}\n{body or ''}"
    return texts


# -- the most recent index of each folder ---------------------------------------------------
_RECENT: OrderedDict[tuple[str, str], LexicalIndex] = OrderedDict()
_RECENT_LOCK = threading.Lock()


def _recent(corpus: Corpus, language: str) -> LexicalIndex | None:
    with _RECENT_LOCK:
        return _RECENT.get((str(corpus.generation.parent), language))


def _remember(corpus: Corpus, language: str, index: LexicalIndex) -> None:
    """Keep ``index`` to build the next generation's from, unless a newer one is kept."""
    key = (str(corpus.generation.parent), language)
    with _RECENT_LOCK:
        kept = _RECENT.get(key)
        if kept is None or kept.generation <= index.generation:
            _RECENT[key] = index
        _RECENT.move_to_end(key)
        while len(_RECENT) > RECENT_FOLDERS:
            _RECENT.popitem(last=False)


# -- saving and loading (``lexical_file``) -------------------------------------------------
def _stamp(corpus: Corpus, language: str) -> dict[str, Any]:
    return {**tokenizer(language), "notes": len(corpus)}


def _load(corpus: Corpus, language: str, path: Path) -> LexicalIndex | None:
    """The index saved at ``path`` for this generation, tokenized as now; else None."""
    saved = lexical_file.read(path, _stamp(corpus, language), corpus.uris)
    if saved is None:
        return None
    return LexicalIndex(
        language,
        Vocabulary(saved.terms),
        saved.indptr,
        saved.docs,
        saved.tfs,
        saved.lengths,
        saved.keys,
        corpus.generation.name,
    )


def _save(corpus: Corpus, index: LexicalIndex, path: Path) -> None:
    terms = index.vocab.first(index.terms)
    saved = lexical_file.Saved(
        terms, index.indptr, index.docs, index.tfs, index.lengths, index.keys
    )
    lexical_file.write(path, {**index.tokenizer, "notes": len(index)}, saved)


# bm25s's tokenizer (``bm25s.tokenize``, the indexing side): scikit-learn's token pattern
# on lower-cased text, then its English stop words out. The same rules here, because
# importing bm25s (scipy) costs ~0.2 s a question; tests check the two agree.
# bm25s's pattern is (?u)\b\w\w+\b; a greedy run of 2+ word characters can only start
# and end at a word boundary in findall, so the boundaries are dropped (a third faster).
_WORD = re.compile(r"\w\w+")
STOPWORDS_EN = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)


def words(text: str) -> list[str]:
    """``text``'s words as bm25s splits them, stop words out, before stemming."""
    return [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS_EN]


def _stemmer(language: str) -> object | None:
    if not language:
        return None
    import Stemmer

    return Stemmer.Stemmer(language)
