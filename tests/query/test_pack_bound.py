"""The packer's bound (``Packer.left_out``): once a note's details alone hold more
tokens than are left, the note is not built, compared for copies in its built form,
or counted rendered, and the result is the same as without the bound (copies
included: a note that cannot fit is still named on the note holding its text)."""

from __future__ import annotations

from collections import Counter

import pytest

from graphrag.query import pack
from graphrag.query.render import json_text, render_prompt, renderer
from tests.support.query_vault import make_rag


def _hub() -> dict[str, str]:
    # A hub entry linking 30 cards of ~100 words each, and a folder that copies five of
    # them (linked from the hub too): late candidates that cannot fit, and copies.
    def card(i: int) -> str:
        words = " ".join(f"trait{i}x{j}" for j in range(90))
        return f"# Card {i:02d}\n\nA theme card about colours and fonts. {words}\n"

    files = {f"Cards/Card {i:02d}.md": card(i) for i in range(30)}
    files.update({f"Mirror/Copy {i:02d}.md": card(i) for i in range(0, 30, 6)})
    links = " ".join(f"[[Card {i:02d}]]" for i in range(30))
    mirrors = " ".join(f"[[Copy {i:02d}]]" for i in range(0, 30, 6))
    files["Themes.md"] = f"# Themes\n\nEvery theme card: {links} {mirrors}\n"
    return files


def _answers(rag, budgets):
    out = []
    for budget in budgets:
        for output in ("json", "prompt"):
            r = rag.query("Themes colours and fonts", budget=budget, seed=0, output=output)
            out.append((json_text(r), render_prompt(r), r.tokens_used))
    return out


def test_the_bound_leaves_the_packing_as_it_was_and_builds_fewer_notes(tmp_path, monkeypatch):
    rag = make_rag(tmp_path, _hub())
    budgets = range(400, 2401, 100)
    built: Counter[str] = Counter()
    real_query_note = pack.query_note

    def counted(*args, **kwargs):
        built["notes"] += 1
        return real_query_note(*args, **kwargs)

    monkeypatch.setattr(pack, "query_note", counted)
    real_name_copy = pack.Packing.name_copy
    real_left_out = pack.Packer.left_out

    def left_out(self, packing, uri, title, first):
        def name_copy(at, u, t):
            built["copies named unbuilt"] += 1
            return real_name_copy(packing, at, u, t)

        packing.name_copy = name_copy  # only while the bound settles this note
        try:
            return real_left_out(self, packing, uri, title, first)
        finally:
            del packing.name_copy

    monkeypatch.setattr(pack.Packer, "left_out", left_out)
    bounded = _answers(rag, budgets)
    with_bound = built.copy()

    built.clear()
    monkeypatch.setattr(pack.Packer, "left_out", lambda *a: False)
    unbounded = _answers(rag, budgets)

    assert bounded == unbounded
    assert with_bound["notes"] < built["notes"] / 2  # most late candidates are not built
    assert with_bound["copies named unbuilt"] > 0  # the copy path of the bound was taken
    assert any("copies" in text for text, _, _ in bounded)


@pytest.mark.parametrize("output", ["json", "prompt"])
def test_a_note_whose_details_do_not_fit_costs_more_than_is_left(tmp_path, output):
    """What the bound assumes: a note's rendered cost is at least its details' count."""
    rag = make_rag(tmp_path, _hub())
    for budget in (600, 1500):
        r = rag.query("Themes colours and fonts", budget=budget, seed=0, output=output)
        render = pack.Packing(0, renderer(output), rag.tokenizer, 99).cost
        for doc in (*r.entries, *r.related):
            assert render(doc) >= rag.tokenizer.count(doc.note.details)
