"""Retrieval evaluation: metrics from first principles, baselines under the budget."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pytest

from graphrag.api import VaultRAG
from graphrag.config import load_settings
from graphrag.errors import InvalidRequestError, QASetError, VaultRAGError
from graphrag.eval.answers import shown_text
from graphrag.eval.baselines import (
    NoteBuilder,
    Packed,
    note_scores,
    pack,
    rank_by_bm25,
    rank_by_vector,
)
from graphrag.eval.context import Retrieved, text_tokens
from graphrag.eval.outcomes import EvalReport, Outcome
from graphrag.eval.questions import Question, load_questions
from graphrag.eval.report import render_markdown, render_misses, render_text
from graphrag.eval.run import run_eval
from graphrag.eval.systems import BM25System, GraphRAGSystem, QueryVectors, VectorSystem
from graphrag.query.pack import Packer
from graphrag.query.render import doc_json, renderer
from graphrag.results.query import QueryNote
from tests.support.fakes import HashEmbedder
from tests.support.files import ROOT, write


def qa_file(path: Path, rows: Sequence[dict | str]) -> Path:
    lines = [r if isinstance(r, str) else json.dumps(r) for r in rows]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


class FixedSystem:
    """Returns the same uris for a question whatever the budget."""

    def __init__(self, name: str, answers: dict[str, tuple[str, ...]], tokens: int = 10) -> None:
        self.name = name
        self.answers = answers
        self.tokens = tokens

    def run(self, questions: Sequence[Question], budgets: Sequence[int]):
        return {
            b: [Retrieved(self.answers.get(q.id, ()), self.tokens) for q in questions]
            for b in budgets
        }


@pytest.fixture
def tiny(tmp_path: Path) -> VaultRAG:
    vault = tmp_path / "tiny"
    write(vault, "A.md", "Alpha note about apples. Links to [[B]].")
    write(vault, "B.md", "Beta note about bananas.")
    write(vault, "C.md", "Gamma note about cherries.")
    return VaultRAG.open(vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())


@pytest.fixture
def sample_rag(sample_vault: Path, tmp_path: Path) -> VaultRAG:
    return VaultRAG.open(sample_vault, index_dir=tmp_path / "sv-idx", embedder=HashEmbedder())


# -- metrics ------------------------------------------------------------------------------
def test_recall_and_all_gold_per_type(tiny: VaultRAG, tmp_path: Path):
    qa = qa_file(
        tmp_path / "qa.jsonl",
        [
            {"id": "s1", "question": "q", "gold": ["A"], "type": "single"},
            {"id": "s2", "question": "q", "gold": ["C"], "type": "single", "extra": 1},
            {"id": "m1", "question": "q", "gold": ["A", "B"], "type": "multi"},
            {"id": "m2", "question": "q", "gold": ["A", "B", "C"], "type": "multi"},
            {"id": "m3", "question": "q", "gold": ["B", "C"], "type": "multi"},
        ],
    )
    stub = FixedSystem(
        "stub",
        {
            "s1": ("A", "B"),  # found: 1/1
            "s2": ("A",),  # 0/1
            "m1": ("B", "A"),  # 2/2, order does not matter
            "m2": ("C", "Z"),  # 1/3; an unknown uri neither helps nor hurts
            "m3": ("B",),  # 1/2
        },
        tokens=7,
    )
    report = run_eval(tiny, qa, budgets=[50, 100], systems=[stub])
    single = report.row("stub", 50, "single")
    assert (single.n, single.recall, single.all_gold) == (2, 0.5, 0.5)
    multi = report.row("stub", 100, "multi")
    assert multi.n == 3
    assert multi.recall == pytest.approx((1 + 1 / 3 + 1 / 2) / 3)
    assert multi.all_gold == pytest.approx(1 / 3)
    overall = report.row("stub", 50)
    assert overall.n == 5
    assert overall.recall == pytest.approx((1 + 0 + 1 + 1 / 3 + 1 / 2) / 5)
    assert overall.all_gold == pytest.approx(2 / 5)
    assert overall.tokens == 7
    by_id = {o.question.id: o for o in report.outcomes_for("stub", 50)}
    assert by_id["m2"].missing == ("A", "B")
    assert by_id["m2"].found == ("C",)
    assert report.types == ("single", "multi")
    assert len(report.outcomes) == 2 * 5


def test_question_types_beyond_single_and_multi_get_their_own_rows(tiny: VaultRAG, tmp_path):
    qa = qa_file(
        tmp_path / "qa.jsonl",
        [
            {"id": "1", "question": "q", "gold": ["A"], "type": "lookup"},
            {"id": "2", "question": "q", "gold": ["B"], "type": "multi"},
            {"id": "3", "question": "q", "gold": ["C"], "type": "aggregate"},
        ],
    )
    report = run_eval(tiny, qa, budgets=[10], systems=[FixedSystem("s", {"1": ("A",)})])
    assert report.types == ("multi", "aggregate", "lookup")
    assert report.row("s", 10, "lookup").recall == 1.0
    assert report.row("s", 10, "aggregate").recall == 0.0
    header = render_markdown(report).splitlines()[0]
    assert "recall multi (n=1)" in header and "recall lookup (n=1)" in header
    assert "recall all (n=3)" in header
    assert "all-gold aggregate" in render_text(report).splitlines()[0]


def test_tables_show_percentages_and_misses(tiny: VaultRAG, tmp_path: Path):
    qa = qa_file(
        tmp_path / "qa.jsonl",
        [
            {"id": "s1", "question": "q", "gold": ["A"], "type": "single"},
            {"id": "m1", "question": "q", "gold": ["A", "B"], "type": "multi"},
        ],
    )
    report = run_eval(tiny, qa, budgets=[1000], systems=[FixedSystem("s", {"s1": ("A",)})])
    md = render_markdown(report).splitlines()
    assert md[2].split("|")[1:-1] == [
        " 1000 ",
        " s ",
        " 100.0 ",
        " 0.0 ",
        " 50.0 ",
        " 100.0 ",
        " 0.0 ",
        " 50.0 ",
        " 10 ",
    ]
    density = next(line for line in md if line.startswith("| budget | system | notes |"))
    assert "| % note text | % lists | % relations | % other metadata |" in density
    misses = render_misses(report, 1000)
    assert "| s1 | single | ok |" in misses
    assert "| m1 | multi | `A`, `B` |" in misses
    data = report.to_json()
    assert data["questions"] == {"single": 1, "multi": 1}
    assert {
        "system": "s",
        "budget": 1000,
        "type": "all",
        "n": 2,
        "recall": 0.5,
        "allGold": 0.5,
        "tokens": 10.0,
        "notes": 0.5,  # one note for s1, none for m1
        "namedCopies": 0.0,
        "notesPer1k": 50.0,
        "recallPer1k": 50.0,
        "textTokens": 0.0,
        "listTokens": 0.0,
        "relationTokens": 0.0,
        "goldFoundAsCopy": 0,
    } in data["rows"]


def test_density_counts_notes_named_as_copies_as_recall_does():
    # One context shows A and names D as holding A's text; the other shows A and D.
    # Both give both notes' text, so both count two notes; D is found either way.
    q = Question("1", "q", ("D",), "single")
    named = Outcome(q, "names", 1000, ("A",), 200, copies=("D",))
    shown = Outcome(q, "shows", 1000, ("A", "D"), 400)
    report = EvalReport("qa", (q,), (1000,), ("names", "shows"), (named, shown))
    names, shows = report.row("names", 1000), report.row("shows", 1000)
    assert names.recall == shows.recall == 1.0
    assert (names.notes, names.named_copies) == (1.0, 1.0)
    assert names.notes_per_1k == 10.0 and shows.notes_per_1k == 5.0
    row = next(r for r in report.to_json()["rows"] if r["system"] == "names")
    assert (row["namedCopies"], row["notesPer1k"]) == (1.0, 10.0)
    density = [line for line in render_markdown(report).splitlines() if "| names |" in line][-1]
    assert density.startswith("| 1000 | names | 1.0 | 1.0 | 10.00 |")


def test_gold_uris_missing_from_the_index_are_reported(tiny: VaultRAG, tmp_path: Path):
    qa = qa_file(
        tmp_path / "qa.jsonl",
        [{"id": "1", "question": "q", "gold": ["A", "Nope"], "type": "single"}],
    )
    report = run_eval(tiny, qa, budgets=[10], systems=[FixedSystem("s", {})])
    assert report.unknown_gold == ("Nope",)


# -- the question file --------------------------------------------------------------------
@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ('{"id": "x", "question": "q", "gold": ["A"], "type": "single"', "not valid JSON"),
        ('["not", "an", "object"]', "JSON object"),
        ('{"id": "x", "question": "q", "gold": [], "type": "single"}', "gold"),
        ('{"id": "x", "question": "q", "gold": "A", "type": "single"}', "gold"),
        ('{"id": "x", "question": "", "gold": ["A"], "type": "single"}', "question"),
        ('{"id": "x", "question": "q", "gold": ["A"]}', "type"),
        ('{"id": "a", "question": "q", "gold": ["A"], "type": "single"}', "duplicate id"),
    ],
)
def test_a_malformed_line_is_an_error_naming_its_number(tmp_path: Path, bad: str, reason: str):
    good = {"id": "a", "question": "q", "gold": ["A"], "type": "single"}
    # a blank line still counts: the number is the file's line number, for an editor
    qa = qa_file(tmp_path / "qa.jsonl", [good, "", bad, {**good, "id": "z"}])
    with pytest.raises(QASetError) as info:
        load_questions(qa)
    assert info.value.line == 3
    assert f"{qa}, line 3" in str(info.value)
    assert reason in str(info.value)
    assert isinstance(info.value, VaultRAGError)  # the CLI turns it into one line


def test_a_bad_file_fails_before_any_retrieval(tmp_path: Path):
    qa = qa_file(tmp_path / "qa.jsonl", ["{oops"])
    with pytest.raises(QASetError, match="line 1"):
        run_eval(tmp_path / "no-such-vault", qa)
    with pytest.raises(QASetError, match="no questions"):
        load_questions(qa_file(tmp_path / "empty.jsonl", [""]))
    with pytest.raises(QASetError, match="cannot read"):
        load_questions(tmp_path / "missing.jsonl")


def test_the_shipped_question_sets_load():
    for name in ("sample_vault.jsonl", "kepano.jsonl"):
        questions = load_questions(ROOT / "benchmarks" / "qa" / name)
        types = {q.type for q in questions}
        assert types == {"single", "multi"}
        assert all(len(q.gold) >= 2 for q in questions if q.type == "multi")
    sample = load_questions(ROOT / "benchmarks" / "qa" / "sample_vault.jsonl")
    assert len(sample) >= 24


def test_unknown_systems_and_bad_budgets_are_refused(tiny: VaultRAG, tmp_path: Path):
    qa = qa_file(
        tmp_path / "qa.jsonl", [{"id": "1", "question": "q", "gold": ["A"], "type": "single"}]
    )
    with pytest.raises(InvalidRequestError, match="unknown system 'bm42'"):
        run_eval(tiny, qa, systems=["vector", "bm42"])
    with pytest.raises(InvalidRequestError, match="budgets"):
        run_eval(tiny, qa, budgets=[-1])
    with pytest.raises(InvalidRequestError, match="each system once"):
        run_eval(tiny, qa, systems=["bm25", "bm25"])


# -- the graphrag system ------------------------------------------------------------------
class _Result:
    def __init__(self, data: dict) -> None:
        self.data = data

    def to_json(self) -> dict:
        return self.data


class _Words:
    def count(self, text: str) -> int:
        return len(text.split())


class _QueryStub:
    """Stands in for VaultRAG.query: records the calls, answers with fixed notes."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int | None]] = []
        self.tokenizer = _Words()

    def query(self, question: str, budget: int, seed: int | None = None) -> _Result:
        self.calls.append((question, budget, seed))
        return _Result(
            {
                "query": question,
                "entryNotes": [
                    {"uri": "A", "details": "one two", "children": [{"uri": "X", "title": "X"}]},
                    {"uri": "B", "details": "three", "copies": [{"uri": "D", "title": "D"}]},
                ],
                "relatedNotes": [
                    {
                        "uri": "C",
                        "details": "four",
                        "relationToFocusNote": "Object",
                        "focusUri": "B",
                    },
                    {"uri": "A", "details": ""},
                ],
                "tokens": {"budget": budget, "used": budget // 2},
            }
        )


def test_graphrag_system_collects_entry_and_related_notes():
    rag = _QueryStub()
    questions = [Question("1", "first?", ("C",), "single"), Question("2", "second?", ("A",), "s")]
    out = GraphRAGSystem(rag, seed=5).run(questions, [100, 200])  # type: ignore[arg-type]
    # uris shown, copies named, and the tokens of the notes' text, of the lists and of
    # the keys saying how a note relates (each a one-word JSON object to _Words)
    # the text each shown note gives the answer words: uri, title (none here), details
    shown = (("A", "A  one two"), ("B", "B  three"), ("C", "C  four"), ("A", "A  "))
    assert out[100][0] == Retrieved(("A", "B", "C"), 50, ("D",), 2 + 1 + 1 + 1, 1, 2, shown)
    assert out[200][1].tokens == 100
    # question by question, so query mode's vector cache serves the other budgets
    assert rag.calls == [
        ("first?", 100, 5),
        ("first?", 200, 5),
        ("second?", 100, 5),
        ("second?", 200, 5),
    ]


# -- baselines ----------------------------------------------------------------------------
def builder_for(rag: VaultRAG, question: str) -> NoteBuilder:
    """Rendered notes for ``question`` exactly as the baselines build them."""
    snapshot = rag.snapshot
    corpus = snapshot.corpus
    qvec = QueryVectors(rag.embedder, [Question("q", question, ("x",), "single")]).matrix[0]
    return NoteBuilder(snapshot.index, snapshot.graph, corpus, corpus.matrix @ qvec, rag.settings)


def packed_form(packer: Packer, budget: int, uri: str, text: str) -> QueryNote:
    """The form of ``uri`` a baseline packed, by its text: in its room or a smaller one."""
    rooms = packer.forms.rooms(uri, packer.related_limit(uri, budget))
    forms = [packer.search_note(uri, room) for room in rooms]
    return next(f for f in forms if shown_text(uri, f.title, f.note.details) == text)


@pytest.mark.parametrize("budget", [0, 150, 700, 3000])
def test_baselines_respect_the_budget_with_the_same_token_counting(
    sample_rag: VaultRAG, budget: int
):
    texts = ["How thick are the walls of the shepherd's hut?", "Who runs the cheese cellar?"]
    questions = [Question(str(i), t, ("x",), "single") for i, t in enumerate(texts)]
    count = sample_rag.tokenizer.count
    for system in (VectorSystem(sample_rag), BM25System(sample_rag)):
        for q, got in zip(questions, system.run(questions, [budget])[budget], strict=True):
            builder = builder_for(sample_rag, q.question)
            build, packer = builder.at(budget), builder.packer
            # what query mode counts for a note in its JSON output is its compact JSON
            assert all(renderer("json")(build(u), 1) == doc_json(build(u)) for u in got.uris)
            notes = [packed_form(packer, budget, u, t) for u, t in got.shown]
            assert got.tokens == sum(count(doc_json(n)) for n in notes)
            assert got.tokens <= budget
            assert len(set(got.uris)) == len(got.uris)
            if budget == 0:
                assert got.uris == ()


def test_packing_follows_rank_order_skips_what_does_not_fit_and_caps_documents(
    sample_rag: VaultRAG,
):
    build = builder_for(sample_rag, "walls of the hut").at(10_000)
    tok = sample_rag.tokenizer
    big, small, mid = "Places/Huts/Shepherd's Hut", "Places/Huts/Spring Box", "Glossary"
    cost = {u: tok.count(doc_json(build(u))) for u in (big, small, mid)}
    assert cost[big] > cost[small]
    # room for the small note only: the big one is skipped, the next one tried
    text = {u: text_tokens(build(u).note.details, tok) for u in (big, small, mid)}
    # a baseline note says its relation too, as a search hit does: found by its own match
    relation = tok.count('{"relationToFocusNote":"MatchesQuestion"}')
    shown = {u: (u, f"{u} {build(u).title} {build(u).note.details}") for u in (big, small, mid)}
    packed = pack([big, small, mid], cost[small] + 5, build, tok, max_documents=10)
    assert packed == Packed((small,), cost[small], text[small], relation, (shown[small],))
    everything = pack([big, small, mid], 10_000, build, tok, max_documents=10)
    assert everything == Packed(
        (big, small, mid),
        sum(cost.values()),
        sum(text.values()),
        3 * relation,
        (shown[big], shown[small], shown[mid]),
    )
    assert 0 < everything.text_tokens < everything.tokens
    assert pack([big, small, mid], 10_000, build, tok, max_documents=2).uris == (big, small)
    # as query mode's fill: a note too big for what is left is tried in a smaller form
    # (its best passage, then 200 characters) before the next note
    shrink = builder_for(sample_rag, "walls of the hut").smaller_at(10_000, tok)
    room = cost[big] - 1
    assert pack([big, small], room, build, tok, max_documents=10).uris == (small,)
    shrunk = pack([big, small], room, build, tok, max_documents=10, smaller=shrink)
    assert shrunk.uris[0] == big and shrunk.tokens <= room
    assert shrunk.shown[0][1] != shown[big][1]
    # a long note shows its best chunks within the related-note length, as in query mode
    note = build(big)
    limit = sample_rag.settings.focus.truncate_length
    assert note.note.details_truncated and len(note.note.details) <= limit + 10


@pytest.mark.parametrize("budget", [1000, 2000])
def test_a_baseline_note_is_rendered_as_query_mode_renders_the_same_search_hit(
    sample_rag: VaultRAG, budget: int
):
    """The baselines measure retrieval, not rendering: a note a baseline packs is the
    note query mode shows when it finds the same note by its own match (a search hit),
    under the same budget: same properties, relation, details and cut."""
    question = "spring box water"
    data = sample_rag.query(question, budget=budget).to_json()
    hits = [
        n
        for n in data["relatedNotes"]
        if n.get("relationToFocusNote") == "MatchesQuestion" and "copies" not in n
    ]
    assert len(hits) >= 2  # the fixture question has search hits to compare
    builder = builder_for(sample_rag, question)
    build, packer = builder.at(budget), builder.packer
    whole = 0
    for hit in hits:
        shown = json.dumps(hit, ensure_ascii=False, separators=(",", ":"))
        # the note in its room, or (the fill's last tokens) in a smaller one
        rooms = packer.forms.rooms(hit["uri"], packer.related_limit(hit["uri"], budget))
        forms = [doc_json(packer.search_note(hit["uri"], room)) for room in rooms]
        assert forms[0] == doc_json(build(hit["uri"]))
        assert shown in forms
        whole += shown == forms[0]
    assert whole >= 2
    # the property lines query mode opens a note with are part of what is compared
    assert any(h["details"].startswith("created: ") for h in hits)
    # and the room a note gets is query mode's for that budget, not a fixed length
    smaller = builder_for(sample_rag, question).at(100)
    assert any(len(smaller(h["uri"]).note.details) < len(h["details"]) for h in hits)


@dataclass
class _Corpus:
    """The parts of a ``Corpus`` the vector ranking reads: notes in uri order, each
    owning a contiguous block of chunk rows."""

    uris: list[str]
    chunk_start: np.ndarray
    matrix: np.ndarray

    def __len__(self) -> int:
        return len(self.uris)


def test_a_note_scores_its_best_chunk():
    corpus = _Corpus(
        uris=["Empty", "Many", "Two"],
        chunk_start=np.array([0, 0, 3, 5]),  # Empty has no chunk; Many rows 0-2; Two rows 3-4
        matrix=np.eye(4, dtype=np.float32)[[0, 1, 2, 1, 3]],
    )
    queries = np.array([[0.9, 0.3, 0.3, 0.0], [0.0, 0.5, 0.0, 0.6]], dtype=np.float32)
    scores = note_scores(corpus, queries)  # type: ignore[arg-type]
    np.testing.assert_allclose(scores, [[-1, 0.9, 0.3], [-1, 0.5, 0.6]])
    # a note without chunks cannot be found by a vector search
    assert rank_by_vector(corpus, queries) == [["Many", "Two"], ["Two", "Many"]]  # type: ignore[arg-type]


def test_vector_baseline_ranks_notes_by_best_chunk_not_by_average(tmp_path: Path):
    vault = tmp_path / "v"
    filler = [" ".join(f"{word}{i}" for i in range(60)) for word in ("lorem", "ipsum", "dolor")]
    # One chunk is about the question; three long sections are about nothing.
    write(
        vault,
        "Long.md",
        "# Zebra\n\nzebra stripes savanna herd\n\n"
        + "".join(f"# Part {k}\n\n{text}\n\n" for k, text in enumerate(filler)),
    )
    # One short chunk that mentions the subject a little (the average would favour it).
    write(vault, "Even.md", "zebra " + " ".join(f"word{i}" for i in range(12)))
    write(vault, "Other.md", "Nothing here is related at all.")
    settings = load_settings(overrides={"index": {"chunk_tokens": 64}})
    rag = VaultRAG.open(
        vault, index_dir=tmp_path / "idx", settings=settings, embedder=HashEmbedder()
    )
    index = rag.snapshot.index
    assert len(index.chunks_of("Long")) >= 4

    question = Question("1", "zebra stripes savanna", ("Long",), "single")
    query = rag.embedder.embed([question.question])[0]

    def chunk_scores(uri: str) -> np.ndarray:
        return index.vectors.get([c.vec_id for c in index.chunks_of(uri)]) @ query

    best = {u: float(chunk_scores(u).max()) for u in ("Long", "Even", "Other")}
    mean = {u: float(chunk_scores(u).mean()) for u in ("Long", "Even", "Other")}
    assert mean["Even"] > mean["Long"]  # the construction separates the two rules

    (ranking,) = VectorSystem(rag).rankings(rag.snapshot.corpus, [question])
    assert ranking == sorted(best, key=lambda u: (-best[u], u))
    assert ranking[0] == "Long"


def test_bm25_ranks_stemmed_matches_and_drops_notes_without_a_shared_term(tmp_path: Path):
    vault = tmp_path / "v"
    write(vault, "Runner.md", "She runs every morning and ran a marathon.")
    write(vault, "Cook.md", "Recipes for soup.")
    write(vault, "Both.md", "Soup kitchens for runners, open in the morning.")
    rag = VaultRAG.open(vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    corpus = rag.snapshot.corpus
    (running, soup, stop) = rank_by_bm25(corpus, ["running", "soup", "the of and"], "english")
    assert running == ["Runner"]  # 'runs' shares the stem; 'runners' does not ('runner')
    assert set(soup) == {"Cook", "Both"}
    assert stop == []  # stop words only: nothing matches


def test_run_eval_on_sample_vault_with_both_baselines(sample_rag: VaultRAG):
    qa = ROOT / "benchmarks" / "qa" / "sample_vault.jsonl"
    report = run_eval(sample_rag, qa, budgets=[500, 4000], systems=("vector", "bm25"))
    questions = load_questions(qa)
    assert report.unknown_gold == ()
    assert len(report.outcomes) == 2 * 2 * len(questions)
    for o in report.outcomes:
        assert o.tokens <= o.budget
    for system in ("vector", "bm25"):
        assert report.row(system, 4000).tokens > report.row(system, 500).tokens
        assert report.row(system, 4000, "multi").n == sum(q.type == "multi" for q in questions)


def test_run_eval_with_query_mode_on_sample_vault(sample_rag: VaultRAG):
    qa = ROOT / "benchmarks" / "qa" / "sample_vault.jsonl"
    report = run_eval(sample_rag, qa, budgets=[800], systems=("graphrag", "vector"), seed=3)
    for o in report.outcomes_for("graphrag", 800):
        assert o.tokens <= 800
        assert o.uris  # every question has entry notes in this vault
    again = run_eval(sample_rag, qa, budgets=[800], systems=("graphrag",), seed=3)
    assert [o.uris for o in again.outcomes] == [
        o.uris for o in report.outcomes_for("graphrag", 800)
    ]


def test_baselines_take_query_modes_document_cap_unless_told_otherwise(
    sample_rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
):
    qa = ROOT / "benchmarks" / "qa" / "sample_vault.jsonl"
    query = sample_rag.settings.query
    # Unset (the default): query mode's fill goes past its 15 notes, and a baseline,
    # all fill, has no cap either.
    assert query.max_documents is None
    free = run_eval(sample_rag, qa, budgets=[20_000], systems=("vector",))
    assert max(len(o.uris) for o in free.outcomes) > query.documents
    three = run_eval(sample_rag, qa, budgets=[20_000], systems=("vector",), max_documents=3)
    assert {len(o.uris) for o in three.outcomes} == {3}
    # A cap the settings set holds on both sides.
    capped = replace(sample_rag.settings, query=replace(query, max_documents=15))
    monkeypatch.setattr(sample_rag, "settings", capped)
    report = run_eval(sample_rag, qa, budgets=[20_000], systems=("vector", "graphrag"))
    for system in ("vector", "graphrag"):
        assert max(len(o.uris) for o in report.outcomes_for(system, 20_000)) == 15
