"""Where query mode's own order ends (graphrag/query/pack.py, ``Packer.pack_related``):
at its first note left out for room. Past it, its notes would get in by being short,
not by rank; the fill (``hybrid_search``'s ranking, best first, each hit in a smaller
form when it does not fit whole) spends what is left. A later note whose passage is
shown already is still named as a copy: that costs a name, not a slot."""

from __future__ import annotations

from graphrag.api import VaultRAG
from graphrag.query.pack import Packing
from graphrag.query.render import renderer
from tests.support.apiary import TOOLS, apiary_packer, hit_cost


def _packing(rag: VaultRAG, budget: int) -> Packing:
    # Room for more notes than the tools: the budget, not ``max_documents``, ends the order.
    return Packing(budget, renderer("json"), rag.tokenizer, 2 * len(TOOLS))


def test_query_modes_order_ends_at_its_first_note_that_does_not_fit(tmp_path):
    packer, rag = apiary_packer(tmp_path, copy=True)
    tools = sum(hit_cost(packer, rag, u) for u in TOOLS)
    # The tools leave room for the short recipe, not for the almanac whole.
    budget = tools + hit_cost(packer, rag, "Almanac") - 1
    assert packer.related_limit("Almanac", budget) == rag.settings.focus.truncate_length
    assert hit_cost(packer, rag, "Kitchen/Recipe") < budget - tools
    packing = _packing(rag, budget)
    packer.pack_related(packing, [*TOOLS, "Almanac", "Kitchen/Recipe"])
    # The recipe, ranked below the almanac, does not take the last tokens by being short.
    assert [d.uri for d in packing.docs] == TOOLS
    assert any(s.uri == "Almanac" and s.reason == "budget" for s in packing.skipped)
    # The fill, in its own order, shows the almanac in a shorter form.
    packer.pack_related(packing, ["Almanac", "Kitchen/Recipe"], fill=True)
    assert [d.uri for d in packing.docs][len(TOOLS)] == "Almanac"
    assert packing.used <= budget


def test_a_note_past_the_end_of_the_order_is_still_named_as_a_copy(tmp_path):
    packer, rag = apiary_packer(tmp_path, copy=True)
    tools = sum(hit_cost(packer, rag, u) for u in TOOLS)
    budget = tools + hit_cost(packer, rag, "Almanac") - 1
    packing = _packing(rag, budget)
    packer.pack_related(packing, [*TOOLS, "Almanac", "Kitchen/Recipe", "Shed/Tool 00"])
    assert [d.uri for d in packing.docs] == TOOLS
    holder = packing.docs[0]
    assert holder.uri == "Bees/Tool 00"
    assert [c.uri for c in holder.copies] == ["Shed/Tool 00"]


def test_the_order_goes_on_while_its_notes_fit(tmp_path):
    packer, rag = apiary_packer(tmp_path, copy=True)
    order = [*TOOLS, "Almanac", "Kitchen/Recipe"]
    budget = sum(hit_cost(packer, rag, u) for u in order) + 50
    packing = _packing(rag, budget)
    packer.pack_related(packing, order)
    assert [d.uri for d in packing.docs] == order
