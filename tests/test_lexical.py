"""The BM25 index (graphrag/lexical.py): bm25s's scores, rebuilt incrementally per generation,
saved beside the generation, and built by the live index right after an update."""

from __future__ import annotations

import json
from pathlib import Path

import bm25s
import numpy as np
import pytest
import Stemmer

from graphrag import lexical
from graphrag.api import VaultRAG
from graphrag.config import load_settings
from graphrag.corpus import Corpus, build_corpus, cached_corpus, corpus_for
from graphrag.lexical import (
    FOLDER,
    FORMAT,
    LexicalIndex,
    build_lexical,
    lexical_built,
    lexical_index,
)
from graphrag.live import LiveIndex
from tests.conftest import write
from tests.fakes import HashEmbedder

QUESTIONS = [
    "goat milk",
    "How do we make cheese in the Käsekeller?",
    "milk milk goat",  # a repeated word counts once
    "shepherd's hut roof repair",
    "who leads the descent festival",
    "assembly board meeting minutes 2023",
    "brine salt wheel",
    "pastures",
    "the and of",  # stop words only
    "zeppelin",  # in no note
    "",
]
EDITED = "Dairy/Goat Herd.md"


@pytest.fixture(autouse=True)
def _no_recent_index():
    """Every test starts with no in-process index to build from."""
    lexical._RECENT.clear()
    yield
    lexical._RECENT.clear()


@pytest.fixture
def rag(sample_vault: Path, tmp_path: Path) -> VaultRAG:
    # Notes BM25 must handle: one with no text, one with stop words only.
    write(sample_vault, "Empty.md", "")
    write(sample_vault, "Stop Words.md", "---\ntitle: the\n---\nand of the it is\n")
    return VaultRAG.open(
        sample_vault,
        index_dir=tmp_path / "idx",
        settings=load_settings(env={}),
        embedder=HashEmbedder(),
    )


class Tokenized:
    """Counts the note texts ``lexical`` tokenizes (query tokens are not counted)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.texts: list[str] = []
        real = lexical._tokenize_notes

        def counting(texts: list[str], stemmer: object) -> object:
            self.texts.extend(texts)
            return real(texts, stemmer)

        monkeypatch.setattr(lexical, "_tokenize_notes", counting)


def note_texts(corpus: Corpus) -> list[str]:
    """Each note's text as BM25 reads it (title, aliases, newline, body), written out here
    independently of lexical.py."""
    texts = [""] * len(corpus)
    db = corpus.connect()
    for uri, title, aliases, body in db.execute("SELECT uri, title, aliases, body FROM notes"):
        names = " ".join([title or "", *json.loads(aliases or "[]")])
        texts[corpus.index_of[uri]] = f"{names}\n{body or ''}"
    db.close()
    return texts


def bm25s_scores(corpus: Corpus, question: str) -> tuple[np.ndarray, np.ndarray, int]:
    """bm25s's own eager BM25 (default parameters) over the same texts: (scores, distinct
    query terms in each note, distinct query terms)."""
    stemmer = Stemmer.Stemmer("english")
    retriever = bm25s.BM25()
    retriever.index(
        bm25s.tokenize(note_texts(corpus), stopwords="en", stemmer=stemmer, show_progress=False),
        show_progress=False,
    )
    words = bm25s.tokenize(
        [question], stopwords="en", stemmer=stemmer, return_ids=False, show_progress=False
    )[0]
    terms = list(dict.fromkeys(w for w in words if w))
    ids = retriever.get_tokens_ids(terms)
    scores = np.zeros(len(corpus), dtype=np.float32)
    matched = np.zeros(len(corpus), dtype=np.float32)
    if ids:
        scores = retriever.get_scores(ids)
        indices, indptr = retriever.scores["indices"], retriever.scores["indptr"]
        for t in ids:
            matched[indices[indptr[t] : indptr[t + 1]]] += 1
    return scores, matched, len(terms)


def assert_same(a: LexicalIndex, b: LexicalIndex, n: int, questions: list[str]) -> None:
    for q in questions:
        x, y = a.score(q, n), b.score(q, n)
        assert x.terms == y.terms, q
        np.testing.assert_array_equal(x.matched, y.matched, err_msg=q)
        np.testing.assert_allclose(x.scores, y.scores, rtol=1e-6, atol=1e-7, err_msg=q)


def fresh_corpus(rag: VaultRAG) -> Corpus:
    """A new Corpus of the current generation, nothing derived yet (as in a new process)."""
    return build_corpus(rag.snapshot.index, rag.snapshot.graph)


# -- scores ---------------------------------------------------------------------------------
def test_scores_are_bm25s_scores(rag: VaultRAG) -> None:
    corpus = corpus_for(rag.snapshot)
    index = lexical_index(corpus)
    assert len(index) == len(corpus) > 30
    assert index.lengths[corpus.index_of["Stop Words"]] == 0  # no token at all
    assert index.lengths[corpus.index_of["Empty"]] == 1  # its title
    some = 0
    for q in QUESTIONS:
        scores, matched, terms = bm25s_scores(corpus, q)
        got = index.score(q, len(corpus))
        assert got.scores.dtype == np.float32 and got.scores.shape == (len(corpus),)
        assert got.terms == terms, q
        np.testing.assert_array_equal(got.matched, matched, err_msg=q)
        np.testing.assert_allclose(got.scores, scores, rtol=1e-5, atol=1e-6, err_msg=q)
        some += int((scores > 0).sum())
    assert some > 20  # the questions do match notes
    goat = index.score("goat milk", len(corpus))
    assert goat.scores.max() > 0 and set(np.unique(goat.matched)) <= {0, 1, 2}
    np.testing.assert_array_equal(
        index.score("milk milk goat", len(corpus)).scores,
        index.score("goat milk", len(corpus)).scores,
    )
    assert index.score("the and of", len(corpus)).terms == 0


# -- incremental ------------------------------------------------------------------------------
def test_after_a_one_note_edit_only_that_note_is_tokenized(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = lexical_index(corpus_for(rag.snapshot))
    goat_id = first.vocab.ids["goat"]
    text = (sample_vault / EDITED).read_text(encoding="utf-8")
    write(sample_vault, EDITED, text + "\nThe zeppelin landed on the goat pasture twice.\n")
    assert rag.index().changed == 1

    tokenized = Tokenized(monkeypatch)
    corpus = corpus_for(rag.snapshot)
    index = lexical_index(corpus)
    assert len(tokenized.texts) == 1 and "zeppelin" in tokenized.texts[0]
    assert index.vocab is first.vocab and index.vocab.ids["goat"] == goat_id  # ids stay
    zeppelin = index.score("zeppelin", len(corpus))
    assert np.flatnonzero(zeppelin.scores).tolist() == [corpus.index_of["Dairy/Goat Herd"]]

    scratch = build_lexical(corpus)  # no previous index: every note tokenized
    assert len(tokenized.texts) == 1 + len(corpus)
    assert_same(index, scratch, len(corpus), [*QUESTIONS, "zeppelin pasture", "landed twice"])
    for q in QUESTIONS:
        scores, _, _ = bm25s_scores(corpus, q)
        np.testing.assert_allclose(index.score(q, len(corpus)).scores, scores, rtol=1e-5, atol=1e-6)


def test_removed_and_added_notes(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lexical_index(corpus_for(rag.snapshot))
    (sample_vault / "Glossary.md").unlink()
    write(sample_vault, "Aardvark.md", "# Aardvark\n\nAn aardvark visited the cheese cellar.\n")
    write(
        sample_vault,
        "Zebra.md",
        "---\naliases: [Striped Horse]\n---\nA zebra ate the goat's hay.\n",
    )
    stats = rag.index()
    assert (stats.added, stats.removed, stats.changed) == (2, 1, 0)

    tokenized = Tokenized(monkeypatch)
    corpus = corpus_for(rag.snapshot)
    index = lexical_index(corpus)
    assert sorted(t.split("\n")[0] for t in tokenized.texts) == ["Aardvark", "Zebra Striped Horse"]
    assert "Glossary" not in corpus.index_of
    questions = [*QUESTIONS, "aardvark", "striped horse hay", "glossary"]
    assert_same(index, build_lexical(corpus), len(corpus), questions)
    for q in questions:
        scores, matched, _ = bm25s_scores(corpus, q)
        got = index.score(q, len(corpus))
        np.testing.assert_array_equal(got.matched, matched, err_msg=q)
        np.testing.assert_allclose(got.scores, scores, rtol=1e-5, atol=1e-6, err_msg=q)
    horse = index.score("striped horse", len(corpus))
    assert horse.scores[corpus.index_of["Zebra"]] == horse.scores.max() > 0


def test_a_late_build_for_an_older_generation_keeps_the_newer_index(
    rag: VaultRAG, sample_vault: Path
) -> None:
    old_snapshot = rag.snapshot
    lexical_index(corpus_for(old_snapshot))
    write(sample_vault, "Home.md", "# Home\n\nrewritten entirely\n")
    rag.index()
    newer = lexical_index(corpus_for(rag.snapshot))
    # A reader still on the old generation builds its index late: the newer one stays kept.
    lexical_index(fresh_corpus_of(old_snapshot))
    assert lexical._recent(corpus_for(rag.snapshot), "english") is newer


def fresh_corpus_of(snapshot) -> Corpus:
    corpus = build_corpus(snapshot.index, snapshot.graph)
    for path in (corpus.generation / FOLDER).glob("*"):
        path.unlink()  # not saved: built from the kept index
    return corpus


# -- saved beside the generation -------------------------------------------------------------
def test_the_saved_index_loads_back_without_tokenizing(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = corpus_for(rag.snapshot)
    built = lexical_index(corpus)
    folder = corpus.generation / FOLDER
    assert json.loads((folder / "stamp.json").read_text())["format"] == FORMAT
    assert not list(corpus.generation.glob(".lexical*"))  # no temporary folder left

    lexical._RECENT.clear()  # a new process
    tokenized = Tokenized(monkeypatch)
    fresh = fresh_corpus(rag)
    loaded = lexical_index(fresh)
    assert tokenized.texts == [] and loaded is not built
    np.testing.assert_array_equal(loaded.lengths, built.lengths)
    assert loaded.keys == built.keys
    assert_same(loaded, built, len(corpus), QUESTIONS)
    for q in QUESTIONS:
        x, y = loaded.score(q, len(corpus)), built.score(q, len(corpus))
        np.testing.assert_array_equal(x.scores, y.scores)


def test_an_index_loaded_from_disk_is_built_on_after_an_edit(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lexical_index(corpus_for(rag.snapshot))
    lexical._RECENT.clear()
    lexical_index(fresh_corpus(rag))  # loaded, and kept to build the next one from
    write(sample_vault, EDITED, "# Goats\n\nNew text about a llama.\n")
    rag.index()
    tokenized = Tokenized(monkeypatch)
    corpus = corpus_for(rag.snapshot)
    index = lexical_index(corpus)
    assert len(tokenized.texts) == 1
    assert_same(index, build_lexical(corpus), len(corpus), [*QUESTIONS, "llama goats"])


@pytest.mark.parametrize("stale", ["format", "bm25s-layout", "corrupt"])
def test_a_stale_or_broken_saved_index_is_rebuilt(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch, stale: str
) -> None:
    corpus = corpus_for(rag.snapshot)
    built = lexical_index(corpus)
    folder = corpus.generation / FOLDER
    stamp = json.loads((folder / "stamp.json").read_text())
    if stale == "format":
        (folder / "stamp.json").write_text(json.dumps({**stamp, "format": FORMAT - 1}))
    elif stale == "bm25s-layout":  # what FORMAT 1 saved: bm25s's own files
        for path in folder.iterdir():
            path.unlink()
        (folder / "params.index.json").write_text("{}")
        (folder / "stamp.json").write_text(json.dumps({**stamp, "format": 1}))
    else:
        (folder / "postings.npz").write_bytes(b"not a zip file")

    lexical._RECENT.clear()
    tokenized = Tokenized(monkeypatch)
    rebuilt = lexical_index(fresh_corpus(rag))
    assert len(tokenized.texts) == len(corpus)
    assert_same(rebuilt, built, len(corpus), QUESTIONS)
    assert json.loads((folder / "stamp.json").read_text())["format"] == FORMAT
    assert not (folder / "params.index.json").exists()
    lexical._RECENT.clear()
    tokenized.texts.clear()
    lexical_index(fresh_corpus(rag))
    assert tokenized.texts == []  # the rebuilt one was saved


def test_a_read_only_index_folder_still_works(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr(lexical.np, "savez", refuse)
    corpus = corpus_for(rag.snapshot)
    index = lexical_index(corpus)
    assert index.score("goat milk", len(corpus)).scores.max() > 0
    assert not (corpus.generation / FOLDER).exists()
    assert not list(corpus.generation.glob(".lexical*"))


# -- the live index builds the next generation's right after an update --------------------
def test_an_update_builds_the_new_snapshots_index_when_queries_used_the_old_one(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = LiveIndex(rag)
    write(sample_vault, "Home.md", "# Home\n\nfirst edit\n")
    live.update()
    assert cached_corpus(rag.snapshot) is None  # no query yet: nothing built for nothing

    rag.lexical_search("goat milk")
    tokenized = Tokenized(monkeypatch)
    write(sample_vault, "Home.md", "# Home\n\nsecond edit about an aardvark\n")
    live.update()
    corpus = cached_corpus(rag.snapshot)
    assert corpus is not None and lexical_built(corpus)  # built by the update, not a query
    assert len(tokenized.texts) == 1
    assert rag.lexical_search("aardvark").hits[0].uri == "Home"
    assert len(tokenized.texts) == 1


def test_the_start_up_warm_up_builds_the_query_arrays(rag: VaultRAG) -> None:
    LiveIndex(rag).warm(counts=True)
    corpus = cached_corpus(rag.snapshot)
    assert corpus is not None and lexical_built(corpus)


def test_an_empty_vault(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    rag = VaultRAG.open(vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    corpus = corpus_for(rag.snapshot)
    scored = lexical_index(corpus).score("goat milk", len(corpus))
    assert scored.scores.shape == (0,) and scored.terms == 2
