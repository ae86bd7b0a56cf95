"""Scoring and selection under a token budget (docs/architecture.md, "Focus mode: score", "budget")."""

from __future__ import annotations

import math
import random

import pytest

from graphrag.budget import ELLIPSIS, select, truncate
from graphrag.config.focus import FocusSettings
from graphrag.focus.mode import focus
from graphrag.focus.render import note_block, note_json
from graphrag.focus.score import depth_bonus, recency_bonus, score
from graphrag.results.notes import RelatedNote, Relation
from indexer.tokens import get_tokenizer
from tests.support.graph_builders import CALM, NOW, Vault

TOK = get_tokenizer()
DAY = 86_400.0


def test_seed_example_parent_at_depth_1_thirty_days_old():
    parts = score(Relation.Parent, 1, NOW - 30 * DAY, NOW, CALM, random.Random(0))
    assert parts.relationship == 1000.0
    assert parts.depth == 20.0
    assert parts.recency == pytest.approx(5 * math.exp(-30 / 365))
    assert parts.total == pytest.approx(1024.6, abs=0.01)


def test_seed_example_cousin_at_depth_2_two_years_old():
    parts = score(Relation.ChildOfSiblingOfParent, 2, NOW - 730 * DAY, NOW, CALM, random.Random(0))
    assert parts.total == pytest.approx(500 + 14 + 5 * math.exp(-2))


def test_jitter_is_bounded_and_reproducible():
    settings = FocusSettings()
    draws = [
        score(Relation.Child, 1, NOW, NOW, settings, random.Random(s)).jitter for s in range(50)
    ]
    assert all(-0.5 <= j <= 0.5 for j in draws)
    assert len(set(draws)) > 40
    again = score(Relation.Child, 1, NOW, NOW, settings, random.Random(7)).jitter
    assert again == draws[7]


def test_relation_groups_dominate_depth_and_recency():
    settings = FocusSettings()
    weakest_core = score(Relation.Child, 3, 1.0, NOW, settings, random.Random(1)).total
    best_structural = score(Relation.PriorSibling, 1, NOW, NOW, settings, random.Random(2)).total
    assert weakest_core > best_structural


def test_depth_bonus_and_recency_edges():
    assert [depth_bonus(d, CALM) for d in (1, 2, 3)] == [1.0, 0.7, 0.4]
    assert depth_bonus(5, CALM) == 0.4  # a raised max_depth keeps the smallest bonus
    assert recency_bonus(None, NOW, CALM) == 0.0  # unknown creation time
    assert recency_bonus(NOW + 10 * DAY, NOW, CALM) == 1.0  # the future is "new"
    assert recency_bonus(NOW - 365 * DAY, NOW, CALM) == pytest.approx(math.exp(-1))


def test_truncate_at_the_limit():
    assert truncate("x" * 1000, 1000) == ("x" * 1000, False)
    text, cut = truncate("x" * 1001, 1000)
    assert cut and text == "x" * 1000 + ELLIPSIS


def _note(uri: str, words: int) -> RelatedNote:
    return RelatedNote(uri, uri, " ".join(["word"] * words), Relation.Child)


def test_a_note_too_big_is_skipped_and_the_next_tried():
    notes = [_note("a", 10), _note("huge", 500), _note("b", 10)]
    cost = {n.uri: TOK.count(note_json(n)) for n in notes}
    budget = cost["a"] + cost["b"]
    chosen = select(notes, budget, note_json, TOK)
    assert [n.uri for n in chosen.selected] == ["a", "b"]
    assert chosen.tokens_used == budget
    (skipped,) = chosen.skipped
    assert (skipped.uri, skipped.reason, skipped.tokens) == ("huge", "budget", cost["huge"])


def test_a_lower_bound_skips_notes_without_measuring_them():
    notes = [_note("a", 10), _note("huge", 500), _note("b", 10)]
    measured = []

    def render(note):
        measured.append(note.uri)
        return note_json(note)

    chosen = select(notes, 100, render, TOK, at_least=lambda n: TOK.count(n.details))
    assert [n.uri for n in chosen.selected] == ["a", "b"]
    assert measured == ["a", "b"]
    assert chosen.skipped[0].tokens is None  # not measured


def test_budget_zero_selects_nothing():
    chosen = select([_note("a", 1)], 0, note_json, TOK)
    assert chosen.selected == () and chosen.tokens_used == 0


def _family(body_words: int = 40) -> Vault:
    body = " ".join(f"w{i}" for i in range(body_words))
    v = Vault().note("P", body).note("P/F", "focus " * 3000, parent="P", links=["O"])
    v.note("O", body).note("R", body, links=["P/F"]).note("P/F/K", body, parent="P/F")
    for name in ("A", "B", "C"):
        v.note(f"P/{name}", body, parent="P")
    return v


@pytest.mark.parametrize("output", ["json", "prompt"])
@pytest.mark.parametrize("budget", [0, 60, 150, 400, 5000])
def test_tokens_used_is_the_rendered_size_of_what_was_emitted(output, budget):
    result = focus(_family().build(), "P/F", budget, CALM, TOK, seed=1, now=NOW, output=output)
    if output == "json":
        sizes = [TOK.count(note_json(n)) for n in result.related_notes]
    else:
        sizes = [TOK.count(note_block(n, "F")) for n in result.related_notes]
    assert result.tokens_used == sum(sizes) <= budget
    if budget == 0:
        assert result.related_notes == ()
    if budget == 5000:
        assert len(result.related_notes) == 7  # everything fits


def test_focus_note_is_not_counted_against_the_budget():
    # The focus body alone is ~3000 tokens; a ~125-token note must still fit in 150.
    result = focus(_family().build(), "P/F", 150, CALM, TOK, seed=1, now=NOW)
    assert TOK.count(result.focus_note.details) > 1000
    assert result.related_notes
    assert result.related_notes[0].relation in {Relation.Parent, Relation.Child, Relation.Object}


def test_selection_follows_score_order():
    result = focus(
        _family().build(), "P/F", 5000, FocusSettings(), TOK, seed=3, explain=True, now=NOW
    )
    scores = [n.explain.score for n in result.related_notes]
    assert scores == sorted(scores, reverse=True)
