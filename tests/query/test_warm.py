"""The warm-up makes the link hubs' link tables and the longest notes' whole-text
shingles (``query.warm``); questions then read them, and answer as without."""

from __future__ import annotations

from graphrag.query import copies, score, warm
from graphrag.query.render import json_text, render_prompt
from tests.support.query_vault import NOW, make_rag

FILLER = "words about the garden and the kitchen and the long winter evenings"
HUB = {
    "Hub.md": "# Hub\n\n"
    + "".join(f"## Part {k}\n\n- [[Note {k}]]: {FILLER} number {k}.\n\n" for k in range(12)),
    **{
        f"Notes/Note {k}.md": f"# Note {k}\n\nBack to [[Hub]]. {FILLER} {k}.\n"
        + ("\n".join(f"Line {j} of a long note, {FILLER}." for j in range(40)) if k < 3 else "")
        for k in range(12)
    },
}
QUESTIONS = ["hub", "note 1 garden", "long note kitchen", "winter evenings"]


def answers(rag: object) -> list[str]:
    return [
        json_text(r) + render_prompt(r)
        for q in QUESTIONS
        for budget in (300, 1000, 4000)
        for r in [rag.query(q, budget, seed=1, now=NOW)]  # type: ignore[attr-defined]
    ]


def test_the_warm_up_makes_hub_tables_and_long_shingles_questions_then_read(tmp_path, monkeypatch):
    from graphrag.serve.live import LiveIndex

    monkeypatch.setattr(warm, "WARM_LINKS", 10)
    monkeypatch.setattr(warm, "WARM_BODY_CHARS", 2_000)
    cold = answers(make_rag(tmp_path / "cold", HUB))

    rag = make_rag(tmp_path / "warm", HUB)
    tables: list[str] = []
    bodies: list[str] = []
    read = score.LinkTable.read

    def reading(corpus: object, uri: str) -> score.LinkTable:
        tables.append(uri)
        return read(corpus, uri)  # type: ignore[arg-type]

    monkeypatch.setattr(score.LinkTable, "read", staticmethod(reading))
    LiveIndex(rag).warm(counts=True)
    corpus = rag.snapshot.corpus
    kept = copies.body_shingles(corpus, rag.snapshot.index)
    long = {u for i, u in enumerate(corpus.uris) if corpus.body_chars[i] >= 2_000}
    assert tables == ["Hub"]  # the one note with ten links or more
    assert set(kept._pinned) == long and len(long) >= 3
    body = kept.body

    def counting(uri: str) -> str:
        bodies.append(uri)
        return body(uri)

    kept.body = counting
    tables.clear()
    assert answers(rag) == cold  # the same answers as without the warm-up
    assert "Hub" not in tables  # read once, at the warm-up
    assert not long & set(bodies)  # made once, at the warm-up, and kept
    assert all(kept(u) == copies.shingles(body(u)) for u in long)


def test_pinned_shingles_outlive_the_lru():
    texts = {u: f"{u} one two three four five six seven eight nine ten" for u in "abcd"}
    read: list[str] = []

    def body(uri: str) -> str:
        read.append(uri)
        return texts[uri]

    kept = copies.BodyShingles(body, size=1)
    assert kept.pin(["a", "b"]) == 2 and kept.pin(["a"]) == 0
    for uri in "cdcd":
        kept(uri)
    read.clear()
    assert kept("a") == copies.shingles(texts["a"]) and kept("b") == copies.shingles(texts["b"])
    assert read == []
