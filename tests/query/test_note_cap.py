"""``max_documents`` and a large budget (graphrag/query/fusion.py ``fill_hits`` and pack.py
``Packer.pack_related``): unset, query mode chooses 15 notes and ``hybrid_search``'s
ranking fills what the budget has left past them; set, it is a hard cap."""

from __future__ import annotations

from graphrag.config.query import DEFAULT_DOCUMENTS
from graphrag.results.notes import Relation
from graphrag.results.query import QueryResult
from tests.support.query_vault import json_tokens, make_rag, uris

QUESTION = "when do beekeepers harvest honey from the hives"
TOOLS = [f"Tool {i:02d}" for i in range(20)]


def _apiary() -> dict[str, str]:
    # Short notes: twenty share most of the question's words (evidence), eight share one
    # word only (no evidence of their own, but in hybrid_search's ranking).
    files = {
        "Bees/Harvest.md": "# Harvest\n\nBeekeepers harvest honey from the hives in August.\n",
    }
    for name in TOOLS:
        files[f"Bees/{name}.md"] = (
            f"# {name}\n\nBeekeepers harvest honey from the hives with {name.lower()}.\n"
        )
    for i in range(8):
        files[f"Kitchen/Recipe {i}.md"] = (
            f"# Recipe {i}\n\nA cake sweetened with honey, baked {i} times a year.\n"
        )
    return files


def _shown(result: QueryResult) -> list[str]:
    return [*uris(result.entries), *uris(result.related)]


def test_the_fill_goes_past_the_default_cap_while_tokens_remain(tmp_path):
    rag = make_rag(tmp_path, _apiary())
    assert rag.settings.query.max_documents is None
    result = rag.query(QUESTION, budget=8000, seed=0)
    shown = _shown(result)
    # Every note fits in 8,000 tokens: 15 notes no longer leave the budget unspent. The
    # beekeeping notes past the fifteenth come first, in hybrid_search's order, then the
    # recipes that share one word of the question.
    assert sorted(shown) == sorted(p.removesuffix(".md") for p in _apiary())
    bees = [u for u in shown if u.startswith("Bees/")]
    assert shown[: len(bees)] == bees
    assert result.tokens_used == json_tokens(rag, result) <= 8000
    # Query mode's own notes stop at 15: every note after them is a search hit of the fill.
    chosen = DEFAULT_DOCUMENTS - len(result.entries)
    assert {n.note.relation for n in result.related[chosen:]} == {Relation.MatchesQuestion}


def test_a_cap_the_user_sets_is_hard(tmp_path):
    rag = make_rag(tmp_path, _apiary(), query={"max_documents": 15})
    assert len(_shown(rag.query(QUESTION, budget=8000, seed=0))) == 15
    three = make_rag(tmp_path / "three", _apiary(), query={"max_documents": 3})
    assert len(_shown(three.query(QUESTION, budget=8000, seed=0))) == 3


def test_the_budget_still_ends_the_fill(tmp_path):
    rag = make_rag(tmp_path, _apiary())
    small = rag.query(QUESTION, budget=600, seed=0)
    large = rag.query(QUESTION, budget=8000, seed=0)
    assert len(_shown(small)) < len(_shown(large))
    assert small.tokens_used == json_tokens(rag, small) <= 600
    # A larger budget holds everything the smaller one did.
    assert set(_shown(small)) <= set(_shown(large))
