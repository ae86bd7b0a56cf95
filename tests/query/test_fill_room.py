"""The fill's last tokens (graphrag/query/fill.py ``FillForms.fill_note``): a hit of
``hybrid_search``'s ranking that does not fit whole in what is left shows a shorter form
of itself (its best passage, then ``MIN_ENTRY_CHARS`` of it) before a note ranked below it
is tried."""

from __future__ import annotations

from pathlib import Path

from graphrag.api import VaultRAG
from graphrag.eval.baselines import NoteBuilder
from graphrag.query.pack import MIN_ENTRY_CHARS, Packer, Packing
from graphrag.query.render import doc_json, renderer
from tests.support.query_vault import make_rag

QUESTION = "when do beekeepers harvest honey from the hives"
TOOLS = [f"Bees/Tool {i:02d}" for i in range(30)]
LARGE = 4000  # a budget where a related note's room is truncate_length


def _apiary() -> dict[str, str]:
    files = {
        f"{uri}.md": f"# {uri[5:]}\n\nBeekeepers harvest honey from the hives with "
        f"{uri[5:].lower()}. " + " ".join(f"t{i}w{j}" for j in range(60)) + "\n"
        for i, uri in enumerate(TOOLS)
    }
    # A long note: whole, it takes a related note's full room at a large budget.
    para = "The honey harvest waits until the comb is capped; " + " ".join(
        f"w{j}" for j in range(40)
    )
    files["Almanac.md"] = "# Almanac\n\n" + "\n\n".join(
        para.replace("w", f"m{k}w") for k in range(12)
    )
    files["Kitchen/Recipe.md"] = "# Recipe\n\nA cake sweetened with honey.\n"
    return files


def _packer(tmp_path: Path) -> tuple[Packer, VaultRAG]:
    rag = make_rag(tmp_path, _apiary())
    snap = rag.snapshot
    scores = rag.embed_query(QUESTION) @ snap.corpus.matrix.T
    return NoteBuilder(snap.index, snap.graph, snap.corpus, scores, rag.settings).packer, rag


def _cost(packer: Packer, rag: VaultRAG, uri: str, room: int | None = None) -> int:
    limit = packer.related_limit(uri, LARGE) if room is None else room
    return rag.tokenizer.count(doc_json(packer.search_note(uri, limit)))


def _packing(rag: VaultRAG, budget: int) -> Packing:
    return Packing(budget, renderer("json"), rag.tokenizer, rag.settings.query.documents)


def test_a_fill_hit_longer_than_what_is_left_shows_a_shorter_form_of_itself(tmp_path):
    packer, rag = _packer(tmp_path)
    # The tools leave one token less than the almanac takes whole in its room.
    tools = sum(_cost(packer, rag, u) for u in TOOLS)
    budget = tools + _cost(packer, rag, "Almanac") - 1
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
    packer, rag = _packer(tmp_path)
    tools = sum(_cost(packer, rag, u) for u in TOOLS)
    budget = tools + _cost(packer, rag, "Almanac")
    packing = _packing(rag, budget)
    packer.pack_related(packing, [*TOOLS, "Almanac"], fill=True)
    whole = packer.search_note("Almanac", packer.related_limit("Almanac", budget))
    assert packing.docs[-1].uri == "Almanac"
    assert packing.docs[-1].note.details == whole.note.details
    # Less left than MIN_ENTRY_CHARS of it takes: skipped, and the shorter recipe after it
    # still fits.
    smallest = _cost(packer, rag, "Almanac", MIN_ENTRY_CHARS)
    recipe = _cost(packer, rag, "Kitchen/Recipe")
    assert recipe < smallest
    packing = _packing(rag, tools + smallest - 1)
    packer.pack_related(packing, [*TOOLS, "Almanac", "Kitchen/Recipe"], fill=True)
    shown = [d.uri for d in packing.docs]
    assert "Almanac" not in shown
    assert shown[-1] == "Kitchen/Recipe"
