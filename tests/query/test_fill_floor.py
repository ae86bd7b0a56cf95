"""The fill's floor (graphrag/query/fill.py ``FillForms.hit_floor``): a hit of the fill
shown as a search hit costs, in JSON, at least the note's floor (its details by the
index's counts, or counted when the index has none for them: an excerpt, embeds
inlined) and the hit's keys around its uri and details, less what seams may merge. A
form whose floor is more than is left is settled unbuilt, so the fill's choices are the
ones it makes building every form: the same answers, copies included."""

from __future__ import annotations

from collections import Counter

import pytest

from graphrag.api import VaultRAG
from graphrag.details.passages import Passage
from graphrag.query import fill
from graphrag.query.render import doc_json
from tests.support.query_vault import answers_by_budget, make_rag

QUESTION = "[[Themes]] colours and fonts for a theme"


def _card(i: int) -> str:
    # Three sections of ~600 characters: the fill's smaller forms show the best one, or
    # an excerpt of it (200 characters: no stored count holds for that text).
    def section(k: int) -> str:
        words = " ".join(f"trait{i}x{k}y{j}" for j in range(45))
        return f'## Part {k}\n\nA theme card about colours and fonts, "part {k}": {words}.\n'

    # Some with a title the file name does not spell (a key of their own), some with a
    # creation date their properties show (then ``createdAt`` is left out of the JSON).
    head = ""
    if i % 4 == 1:
        head = f'---\ntitle: "Card {i:02d}: the \\"{i}\\" theme"\n---\n'
    elif i % 4 == 2:
        head = f"---\ncreated: 2024-03-{i % 28 + 1:02d}\nmood: calm\n---\n"
    return head + f"# Card {i:02d}\n\n" + "\n".join(section(k) for k in range(3))


def _vault() -> dict[str, str]:
    files = {f"Cards/Card {i:02d}.md": _card(i) for i in range(40)}
    # Copies: a folder repeating some cards, so the fill meets hits whose passage is shown.
    files.update({f"Mirror/Copy {i:02d}.md": _card(i) for i in range(0, 40, 5)})
    # Uris JSON escapes, and a note embedding another (its text is not the stored one).
    files['Odd/Quote "q" é.md'] = _card(41)
    files["Odd/Embeds.md"] = "# Embeds\n\nA theme of colours and fonts: ![[Card 03]]\n\n" + _card(
        42
    )
    links = " ".join(f"[[Card {i:02d}]]" for i in range(0, 40, 3))
    files["Themes.md"] = f"# Themes\n\nTheme cards on colours and fonts: {links}\n"
    return files


@pytest.fixture(scope="module")
def rag(tmp_path_factory: pytest.TempPathFactory) -> VaultRAG:
    return make_rag(
        tmp_path_factory.mktemp("fill-floor"), _vault(), query={"show_properties": True}
    )


def _answers(rag: VaultRAG) -> list[tuple[str, str]]:
    return answers_by_budget(rag, QUESTION, range(300, 4001, 100))


def test_the_hit_floor_is_never_more_than_the_hit_costs(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every form of every fill hit weighed (none settled): its floor against its JSON."""
    weighed: list[tuple[int, int, bool]] = []

    def hit_beyond(self: fill.FillForms, packing: fill.Spending, uri: str, p: Passage) -> bool:
        floor = self.hit_floor(packing.tokenizer, uri, p)
        hit = self.hit(uri, p.text, p.cut)
        counted = self.details.floor(uri, p, packing.tokenizer) is None
        weighed.append((floor, packing.tokenizer.count(doc_json(hit)), counted))
        return False

    monkeypatch.setattr(fill.FillForms, "hit_beyond", hit_beyond)
    _answers(rag)
    counted = [w for w in weighed if w[2]]
    assert len(weighed) > 100 and len(counted) > 20  # excerpts and embeds among them
    assert all(floor <= cost for floor, cost, _ in weighed)
    # Tight enough to settle: the keys are counted (a search hit's are ~20 tokens here).
    assert min(cost - floor for floor, cost, _ in weighed) < 15


def test_the_fill_chooses_as_it_does_building_every_form(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    settled: Counter[str] = Counter()
    real = fill.FillForms.hit_beyond

    def counting(self: fill.FillForms, packing: fill.Spending, uri: str, p: Passage) -> bool:
        got = real(self, packing, uri, p)
        if got:
            kind = "counted" if self.details.floor(uri, p, packing.tokenizer) is None else "stored"
            settled[kind] += 1
        return got

    monkeypatch.setattr(fill.FillForms, "hit_beyond", counting)
    floored = _answers(rag)
    monkeypatch.setattr(fill.FillForms, "hit_beyond", lambda *a: False)
    assert _answers(rag) == floored
    assert settled["counted"] > 0 and settled["stored"] > 0
    assert any('"copies"' in text for text, _ in floored)
