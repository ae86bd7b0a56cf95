"""A note two entries link to (``linked_by_entries``) that does not fit whole takes a
smaller form in query mode's own order (graphrag/query/pack.py, ``Packer.pack_related``'s
``shrink``), as the fill's hits do, before the order goes on: the text ranking the
fill follows does not reach it early, so the order's end would leave it out. Other
notes left out for room still end the order (tests/query/test_order_end.py)."""

from __future__ import annotations

from graphrag.focus.traverse import Candidate
from graphrag.query.pack import Packer
from graphrag.query.score import Found, Ranked
from graphrag.results.notes import Relation
from graphrag.results.query import QueryNote
from tests.query.test_order_end import _packing
from tests.support.apiary import LARGE, TOOLS, apiary_packer, hit_cost


def _budget(packer: Packer, rag) -> int:
    # The tools leave room for the short recipe and for a shorter almanac, not for the
    # almanac whole.
    tools = sum(hit_cost(packer, rag, u) for u in TOOLS)
    budget = tools + hit_cost(packer, rag, "Almanac") - 1
    assert packer.related_limit("Almanac", budget) == packer.related_limit("Almanac", LARGE)
    return budget


def test_a_join_that_does_not_fit_whole_shows_a_smaller_form_in_the_order(tmp_path):
    packer, rag = apiary_packer(tmp_path, copy=True)
    budget = _budget(packer, rag)
    packing = _packing(rag, budget)
    packer.pack_related(
        packing, [*TOOLS, "Almanac", "Kitchen/Recipe"], shrink=frozenset({"Almanac"})
    )
    shown = [d.uri for d in packing.docs]
    assert shown[: len(TOOLS) + 1] == [*TOOLS, "Almanac"]
    assert packing.used <= budget
    assert packing.costs[len(TOOLS)] < hit_cost(packer, rag, "Almanac")
    assert not any(s.uri == "Almanac" for s in packing.skipped)


def test_a_note_not_to_shrink_still_ends_the_order(tmp_path):
    packer, rag = apiary_packer(tmp_path, copy=True)
    packing = _packing(rag, _budget(packer, rag))
    packer.pack_related(
        packing, [*TOOLS, "Almanac", "Kitchen/Recipe"], shrink=frozenset({"Kitchen/Recipe"})
    )
    assert [d.uri for d in packing.docs] == TOOLS
    assert any(s.uri == "Almanac" and s.reason == "budget" for s in packing.skipped)


def test_a_join_reached_through_the_graph_shrinks_as_a_related_note(tmp_path):
    # The same walk over the fill's forms (``FillForms.shrunk``), built as a related note:
    # its relation to the entry it was reached from, not a search hit.
    packer, rag = apiary_packer(tmp_path, copy=True)
    budget = _budget(packer, rag)
    packing = _packing(rag, budget)
    packer.pack_related(packing, TOOLS)
    cand = Candidate("Almanac", 1, (), (), TOOLS[0], Relation.Object, 0)
    join = Ranked(Found(cand, True, (TOOLS[0], "Almanac"), ""), None)  # type: ignore[arg-type]
    whole = packing.cost(packer.search_note("Almanac", packer.related_limit("Almanac", budget)))
    assert whole > packing.left
    packer.pack_related(packing, [join], shrink=frozenset({"Almanac"}))
    assert [d.uri for d in packing.docs] == [*TOOLS, "Almanac"]
    shown = packing.docs[-1]
    assert isinstance(shown, QueryNote) and shown.note.relation == Relation.Object
    assert shown.focus.uri == TOOLS[0] and packing.used <= budget
