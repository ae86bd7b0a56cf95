"""JSON shape, prompt text, relation sentences, explain, and reproducibility."""

from __future__ import annotations

import json

import pytest

from graphrag.config.focus import FocusSettings
from graphrag.focus.mode import focus
from graphrag.focus.relations import TABLE
from graphrag.focus.render import (
    PHRASES,
    json_text,
    note_block,
    note_json,
    relation_sentence,
    render_prompt,
)
from graphrag.results.notes import RelatedNote, Relation, UriAndTitle, iso_utc
from indexer.tokens import get_tokenizer
from tests.support.graph_builders import CALM, NOW, Vault

TOK = get_tokenizer()


def projects() -> Vault:
    v = Vault().note("Projects", "All projects.")
    v.note("Projects/Alpha", "Alpha is the first.", parent="Projects", order=1, tags=["work"])
    v.note("Projects/Beta", "Beta follows.", parent="Projects", order=2)
    v.note("Gamma", "Gamma cites Alpha.", links=["Projects/Alpha"])
    v.link("Projects/Alpha", "People/Ann", "owner").note("People/Ann", "Ann. Café ☕")
    v.link("Projects/Alpha", "diagram.png").link("Projects/Alpha", "Someday")
    return v


def run(**kwargs):
    kwargs.setdefault("seed", 4)
    kwargs.setdefault("settings", CALM)
    settings = kwargs.pop("settings")
    return focus(projects().build(), "Projects/Alpha", 4000, settings, TOK, now=NOW, **kwargs)


def test_focus_note_json_shape():
    data = run().to_json()
    assert list(data) == ["focusNote", "relatedNotes"]
    focus_note = data["focusNote"]
    assert list(focus_note) == [
        "uri",
        "title",
        "details",
        "createdAt",
        "parentUriAndTitle",
        "contextualPath",
        "children",
        "priorSiblings",
        "youngerSiblings",
        "inboundReferences",
        "outboundLinks",
        "tags",
        "relationToFocusNote",
    ]
    assert focus_note["createdAt"] == "2024-05-01T00:00:00Z"
    assert focus_note["youngerSiblings"] == [{"uri": "Projects/Beta", "title": "Beta"}]
    assert focus_note["inboundReferences"] == [{"uri": "Gamma", "title": "Gamma"}]
    assert focus_note["tags"] == ["work"]
    assert focus_note["outboundLinks"] == [
        {"uri": "People/Ann", "title": "Ann", "predicate": "owner"},
        {"uri": "diagram.png", "title": "diagram.png", "kind": "attachment"},
        {"uri": "Someday", "title": "Someday", "kind": "ghost"},
    ]


def test_related_note_json_shape():
    notes = {n["uri"]: n for n in run().to_json()["relatedNotes"]}
    parent = notes["Projects"]
    assert list(parent) == [
        "uri",
        "title",
        "details",
        "parentUriAndTitle",
        "createdAt",
        "relationToFocusNote",
    ]
    assert parent["relationToFocusNote"] == "Parent"
    ann = notes["People/Ann"]
    assert ann["subjectUriAndTitle"] == {"uri": "Projects/Alpha", "title": "Alpha"}
    assert ann["predicate"] == "owner"
    # a plain link to the focus: the relation says it all, no link end is spent on it
    assert "objectUriAndTitle" not in notes["Gamma"] and "predicate" not in notes["Gamma"]
    assert "explain" not in parent


def test_explain_adds_scores_paths_and_skipped():
    data = run(explain=True).to_json()
    beta = next(n for n in data["relatedNotes"] if n["uri"] == "Projects/Beta")
    explain = beta["explain"]
    assert explain["path"] == "Alpha -parent-> Projects -child-> Beta"
    assert explain["depth"] == 2
    assert set(explain["parts"]) == {"relationship", "depth", "recency", "jitter"}
    assert explain["score"] == pytest.approx(sum(explain["parts"].values()), abs=1e-3)
    assert data["skipped"] == []
    assert data["tokensUsed"] > 0


def test_explain_is_not_counted_in_the_budget():
    plain, explained = run(), run(explain=True)
    assert plain.tokens_used == explained.tokens_used
    assert [n.uri for n in plain.related_notes] == [n.uri for n in explained.related_notes]


def test_json_text_is_compact_stable_and_keeps_unicode():
    result = run()
    text = json_text(result)
    assert "Café ☕" in text and "\\u" not in text
    assert json.loads(text) == result.to_json()
    for note in result.related_notes:
        assert note_json(note) in text  # the budget counted exactly this substring
    assert json.loads(json_text(result, indent=2)) == result.to_json()


def test_same_seed_gives_byte_identical_output():
    settings = FocusSettings()  # with jitter
    first = json_text(run(seed=123, settings=settings, explain=True))
    second = json_text(run(seed=123, settings=settings, explain=True))
    assert first == second


def test_no_seed_varies_between_runs():
    v = Vault().note("P")
    kids = v.children("P", 12)
    v.children(kids[6], 12, prefix="K")
    g = v.build()
    outputs = {json_text(focus(g, kids[6], 4000, FocusSettings(), TOK, now=NOW)) for _ in range(10)}
    assert len(outputs) > 1


def test_prompt_states_each_relation_in_words_in_rank_order():
    result = run()
    text = render_prompt(result)
    assert text.index("# Focus note: Alpha (Projects/Alpha)") < text.index("# Related notes")
    assert "Alpha is the first." in text
    assert "Projects is the parent of Alpha." in text
    assert "Beta is a younger sibling of Alpha (same parent: Projects)." in text
    assert "Gamma links to Alpha." in text
    assert "Alpha links to Ann through its `owner` property." in text
    assert "- younger siblings: Beta (Projects/Beta)" in text
    assert "Someday (Someday, ghost)" in text
    positions = [text.index(f"## {n.title} ({n.uri})") for n in result.related_notes]
    assert positions == sorted(positions)


def test_prompt_budget_counts_prompt_blocks():
    result = run(output="prompt")
    assert result.tokens_used == sum(
        TOK.count(note_block(n, "Alpha")) for n in result.related_notes
    )
    for note in result.related_notes:
        assert note_block(note, "Alpha") in render_prompt(result)


def _via_for(spelled: str) -> tuple[UriAndTitle, ...]:
    return tuple(UriAndTitle(f"v{i}", f"V{i}") for i in range(max(len(spelled) - 1, 0)))


@pytest.mark.parametrize("row", TABLE, ids=[r[0] or "self" for r in TABLE])
def test_every_table_relation_has_a_complete_sentence(row):
    pattern, relation, _ = row
    spelled = pattern.replace("+", "")
    for rel in (
        [Relation.PriorSibling, Relation.YoungerSibling] if relation == "sibling" else [relation]
    ):
        note = RelatedNote("n", "Note", "", rel, via=_via_for(spelled), predicate="p")
        sentence = relation_sentence(note, "Focus")
        assert "?" not in sentence and "{" not in sentence
        assert "Note" in sentence


def test_every_relation_has_a_phrase():
    assert set(PHRASES) == set(Relation)


def test_iso_utc():
    assert iso_utc(0) is None
    assert iso_utc(NOW) == "2024-06-01T00:00:00Z"


def test_blank_lines_left_by_removed_comments_show_as_one():
    # The indexer keeps a removed %% comment %%'s lines so line numbers stay true.
    g = Vault().note("F", "Intro.\n\n\n\n\nAfter the comment.\n").build()
    details = focus(g, "F", 0, FocusSettings(), get_tokenizer(), seed=0).focus_note.details
    assert details == "Intro.\n\nAfter the comment.\n"
