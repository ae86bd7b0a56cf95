"""The related notes' order (graphrag/query/fusion.py, ``supported_first``): a note the
graph ranks alone does not take the room of one of the search's best hits."""

from __future__ import annotations

from graphrag.focus.traverse import Candidate
from graphrag.query.fusion import supported_first
from graphrag.query.score import Found, Ranked
from graphrag.results.notes import Relation
from tests.support.query_vault import make_rag, uris

QUESTION = "how do the alpine goats give milk on a cold morning"

_PLACES = ["Barn", "Fence", "Gate", "Shed", "Trough", "Ladder"]


def _farm() -> dict[str, str]:
    # The milking note answers the question; its "see also" section links six places
    # that say nothing about it (the graph reaches them, one hop, below the similarity
    # floor but close). The cheese note shares the question's words and no link.
    # Two sections, each too long to be merged into one chunk: the links are in the
    # one that does not match the question (no bridges).
    see_also = " ".join(
        f"The {p.lower()} is made of wood, painted in spring, see [[{p}]]." for p in _PLACES
    )
    files = {
        "Goats/Milking.md": "# Milking\n\nThe alpine goats give milk on a cold morning, "
        "milked by hand in the stall. "
        + " ".join(f"stall{j}" for j in range(120))
        + "\n\n## Around the farm\n\n"
        + see_also
        + " "
        + " ".join(f"yard{j}" for j in range(120))
        + "\n",
        "Goats/Breeds.md": "# Breeds\n\nAlpine goats give milk; some breeds give more "
        "in the cold.\n",
        "Goats/Feed.md": "# Feed\n\nOn a cold morning the goats eat hay before they give milk.\n",
        "Dairy/Cheese.md": "# Cheese\n\nThe morning milk of the alpine goats is warmed "
        "and made into cheese the same day.\n",
        "Dairy/Butter.md": "# Butter\n\nGoat milk from a cold morning is churned slowly "
        "into butter.\n",
    }
    for p in _PLACES:
        files[f"Places/{p}.md"] = (
            f"# {p}\n\n" + " ".join(f"{p.lower()}{j} wood paint nails" for j in range(25)) + "\n"
        )
    for i in range(12):
        files[f"Lore/Tale {i:02d}.md"] = (
            f"# Tale {i:02d}\n\n" + " ".join(f"tale{i}x{j}" for j in range(30)) + "\n"
        )
    return files


def test_a_best_search_hit_goes_before_neighbours_only_the_graph_ranks(tmp_path):
    rag = make_rag(tmp_path, _farm())
    for budget in (500, 700):
        result = rag.query(QUESTION, budget=budget, seed=0)
        assert "Goats/Milking" in uris(result.entries)
        related = uris(result.related)
        # The graph's best place leads with the two search hits; the other places come
        # after them. Without the rule the butter note, which only the search ranks, is
        # left out for the budget at 500 and 700 tokens.
        assert related[0].startswith("Places/"), budget
        assert related[1:3] == ["Dairy/Cheese", "Dairy/Butter"], budget


def test_supported_first_keeps_fused_order_within_leaders_and_the_rest():
    def ranked(uri: str) -> Ranked:
        cand = Candidate(uri, 1, (), (), "E", Relation.Object, 0)
        return Ranked(Found(cand, True, ("E", uri), ""), None)  # type: ignore[arg-type]

    a, b, c, d = ranked("A"), ranked("B"), ranked("C"), ranked("D")
    fused = [a, b, "H1", c, "H2", d]
    # A: no support but its fused rank; B: a bridge; C: the graph's best; H2: a seed.
    order = supported_first(fused, ["H2", "C"], [b])
    assert [x if isinstance(x, str) else x.found.cand.uri for x in order] == [
        "B",
        "C",
        "H2",
        "A",
        "H1",
        "D",
    ]
