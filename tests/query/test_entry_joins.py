"""Where the entries' links meet (graphrag/query/fusion.py, ``linked_by_entries``): a note
that two or more entries link to is one of the leaders ``supported_first`` tries first,
with the bridges, the search's seeds and the graph's best note."""

from __future__ import annotations

from graphrag.query.fusion import linked_by_entries
from tests.support.query_vault import make_rag, uris

QUESTION = "the baker and the smith sell their wares at the fair: which body do both pay dues to"


def _market() -> dict[str, str]:
    # Each entry's best passage (its first section) links two notes: bridges. Its second
    # section links the guild both belong to, and two notes of its own trade that share
    # the question's words. The guild's text shares none: only the two links find it.
    return {
        "Baker.md": "# Baker\n\nThe baker sells bread wares at the fair, baked in the [[Oven]] "
        "from [[Flour]].\n\n## Trade\n\nA member of the [[Market Guild]]; grain from the "
        "[[Mill]], bread on the [[Cart]].\n",
        "Smith.md": "# Smith\n\nThe smith sells iron wares at the fair, forged on the [[Anvil]] "
        "with [[Coal]].\n\n## Trade\n\nA member of the [[Market Guild]]; ore from the "
        "[[Mine]], nails from the [[Forge]].\n",
        "Market Guild.md": "# Market Guild\n\nMeets on the first Monday; keeps the ledger of "
        "stalls.\n",
        "Oven.md": "# Oven\n\nThe oven where the baker bakes bread.\n",
        "Flour.md": "# Flour\n\nFlour the baker buys.\n",
        "Anvil.md": "# Anvil\n\nThe anvil where the smith forges iron.\n",
        "Coal.md": "# Coal\n\nCoal the smith buys.\n",
        "Mill.md": "# Mill\n\nThe mill sells flour wares at the fair.\n",
        "Cart.md": "# Cart\n\nThe cart sells bread wares at the fair.\n",
        "Mine.md": "# Mine\n\nThe mine sells ore wares at the fair.\n",
        "Forge.md": "# Forge\n\nThe forge sells nail wares at the fair.\n",
        **{
            f"Fairs/Fair {i}.md": f"# Fair {i}\n\nA fair where wares sell, stall {i}.\n"
            for i in range(6)
        },
    }


def test_the_notes_two_entries_link_to(tmp_path):
    rag = make_rag(tmp_path, _market(), index={"chunk_tokens": 40})
    assert linked_by_entries(rag.graph, ["Baker", "Smith"]) == {"Market Guild"}
    # One entry's links are not a join, and an entry is never one (it is shown already).
    assert linked_by_entries(rag.graph, ["Baker"]) == frozenset()
    assert linked_by_entries(rag.graph, ["Baker", "Smith", "Market Guild"]) == frozenset()


def test_the_note_the_entries_meet_in_comes_before_one_entrys_neighbours(tmp_path):
    # Small chunks: each section is a passage of its own, so only the first section's
    # links are bridges.
    rag = make_rag(tmp_path, _market(), index={"chunk_tokens": 40})
    for budget in (450, 500):
        result = rag.query(QUESTION, budget=budget, seed=0)
        assert uris(result.entries)[:2] == ["Baker", "Smith"], budget
        related = uris(result.related)
        # Without the rule the guild (no words of the question, one graph vote) came after
        # the mill and the forge (one entry's links, both views rank them) and did not fit
        # at these budgets; as a leader it is tried right after the bridges and seeds.
        assert "Market Guild" in related, budget
        assert "Mill" not in related or related.index("Market Guild") < related.index("Mill")
    # With room for everything, it is there either way.
    assert "Market Guild" in uris(rag.query(QUESTION, budget=600, seed=0).related)
