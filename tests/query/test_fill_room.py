"""The fill's last tokens (graphrag/query/fill.py ``FillForms.fill_note``): a hit of
``hybrid_search``'s ranking that does not fit whole in what is left shows a shorter form
of itself (its best passage, then ``MIN_ENTRY_CHARS`` of it) before a note ranked below it
is tried."""

from __future__ import annotations

from graphrag.api import VaultRAG
from graphrag.query.pack import MIN_ENTRY_CHARS, Packing
from graphrag.query.render import renderer
from tests.support.apiary import TOOLS, apiary_packer, hit_cost


def _packing(rag: VaultRAG, budget: int) -> Packing:
    return Packing(budget, renderer("json"), rag.tokenizer, rag.settings.query.documents)


def test_a_fill_hit_longer_than_what_is_left_shows_a_shorter_form_of_itself(tmp_path):
    packer, rag = apiary_packer(tmp_path)
    # The tools leave one token less than the almanac takes whole in its room.
    tools = sum(hit_cost(packer, rag, u) for u in TOOLS)
    budget = tools + hit_cost(packer, rag, "Almanac") - 1
    assert packer.related_limit("Almanac", budget) == rag.settings.focus.truncate_length
    whole = packer.search_note("Almanac", packer.related_limit("Almanac", budget))
    packing = _packing(rag, budget)
    packer.pack_related(packing, [*TOOLS, "Almanac", "Kitchen/Recipe"], fill=True)
    shown = [d.uri for d in packing.docs]
    assert shown[: len(TOOLS)] == TOOLS
    # The almanac, next in the ranking, comes in shorter (its best passage or less), not
    # skipped for the short recipe ranked below it.
    assert "Almanac" in shown
    almanac = packing.docs[shown.index("Almanac")].note.details
    assert "honey harvest" in almanac
    assert len(almanac) < len(whole.note.details)
    assert packing.used <= budget
    assert all(s.uri != "Almanac" for s in packing.skipped)


def test_a_fill_hit_is_whole_when_it_fits_and_skipped_when_nothing_of_it_fits(tmp_path):
    packer, rag = apiary_packer(tmp_path)
    tools = sum(hit_cost(packer, rag, u) for u in TOOLS)
    budget = tools + hit_cost(packer, rag, "Almanac")
    packing = _packing(rag, budget)
    packer.pack_related(packing, [*TOOLS, "Almanac"], fill=True)
    whole = packer.search_note("Almanac", packer.related_limit("Almanac", budget))
    assert packing.docs[-1].uri == "Almanac"
    assert packing.docs[-1].note.details == whole.note.details
    # Less left than MIN_ENTRY_CHARS of it takes: skipped, and the shorter recipe after it
    # still fits.
    smallest = hit_cost(packer, rag, "Almanac", MIN_ENTRY_CHARS)
    recipe = hit_cost(packer, rag, "Kitchen/Recipe")
    assert recipe < smallest
    packing = _packing(rag, tools + smallest - 1)
    packer.pack_related(packing, [*TOOLS, "Almanac", "Kitchen/Recipe"], fill=True)
    shown = [d.uri for d in packing.docs]
    assert "Almanac" not in shown
    assert shown[-1] == "Kitchen/Recipe"
