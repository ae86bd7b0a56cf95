"""The candidate scenarios of the Doughnut Graph RAG design, one test each."""

from __future__ import annotations

import pytest

from graphrag.config.focus import FocusSettings
from graphrag.errors import NoteNotFoundError
from graphrag.focus.mode import build_focus_note, focus, listed_children
from graphrag.focus.render import note_json
from graphrag.results.focus import GraphRAGResult
from graphrag.results.notes import Relation
from indexer.tokens import get_tokenizer
from tests.support.graph_builders import CALM, NOW, Vault

TOK = get_tokenizer()
BIG = 100_000


def run(graph, uri, budget=BIG, settings=CALM, **kwargs) -> GraphRAGResult:
    kwargs.setdefault("seed", 1)
    return focus(graph, uri, budget, settings, TOK, now=NOW, **kwargs)


def relations(result: GraphRAGResult) -> dict[str, Relation]:
    return {n.uri: n.relation for n in result.related_notes}


def cost(result: GraphRAGResult, uri: str) -> int:
    return TOK.count(note_json(next(n for n in result.related_notes if n.uri == uri)))


def test_retrieving_just_the_focus_note():
    g = Vault().note("Solo", "Just me.\n\nTwo paragraphs.", tags=["alone"]).build()
    result = run(g, "Solo")
    assert result.related_notes == ()
    data = result.to_json()["focusNote"]
    assert data["details"] == "Just me.\n\nTwo paragraphs."
    assert data["relationToFocusNote"] == "Self"
    assert data["parentUriAndTitle"] is None
    assert data["tags"] == ["alone"]
    for key in ("contextualPath", "children", "priorSiblings", "youngerSiblings"):
        assert data[key] == []


def test_focus_with_direct_parent():
    g = Vault().note("Projects").note("Projects/Alpha", parent="Projects").build()
    result = run(g, "Projects/Alpha")
    assert relations(result) == {"Projects": Relation.Parent}
    data = result.to_json()["focusNote"]
    assert data["parentUriAndTitle"] == {"uri": "Projects", "title": "Projects"}


def test_parent_not_fitting_budget():
    g = Vault().note("Projects", "long " * 400).note("Projects/Alpha", parent="Projects").build()
    result = run(g, "Projects/Alpha", budget=50, explain=True)
    assert result.related_notes == ()
    (skipped,) = result.skipped
    assert (skipped.uri, skipped.reason) == ("Projects", "budget")
    assert skipped.tokens > 50
    # the focus note still names its parent
    assert result.focus_note.parent.uri == "Projects"


def test_related_details_truncated():
    long = "".join(f"{i % 10}" for i in range(2500))
    g = Vault().note("P", long).note("P/F", long, parent="P").build()
    result = run(g, "P/F")
    (parent,) = result.related_notes
    assert parent.details == long[:1000] + "…"
    assert parent.to_json()["detailsTruncated"] is True
    assert result.focus_note.details == long  # never truncated


def test_short_related_details_stay_whole():
    # "Adjusting Note Details (Truncated vs Full)": only long notes are cut.
    g = Vault().note("P", "short body").note("P/F", parent="P").build()
    (parent,) = run(g, "P/F").related_notes
    assert parent.details == "short body"
    assert "detailsTruncated" not in parent.to_json()


def test_focus_with_direct_object():
    g = (
        Vault()
        .note("Alpha", links=["Ann"], props={"author": "Bob"})
        .note("Ann")
        .note("Bob")
        .build()
    )
    result = run(g, "Alpha")
    assert relations(result) == {"Ann": Relation.Object, "Bob": Relation.Object}
    bob = next(n for n in result.related_notes if n.uri == "Bob").to_json()
    assert bob["predicate"] == "author"
    assert bob["subjectUriAndTitle"] == {"uri": "Alpha", "title": "Alpha"}
    links = result.to_json()["focusNote"]["outboundLinks"]
    assert {"uri": "Bob", "title": "Bob", "predicate": "author"} in links
    assert {"uri": "Ann", "title": "Ann"} in links


def test_focus_and_its_immediate_children():
    v = Vault().note("F")
    v.note("F/Second", parent="F", order=2).note("F/First", parent="F", order=1)
    result = run(v.build(), "F")
    assert relations(result) == {"F/First": Relation.Child, "F/Second": Relation.Child}
    assert [c.uri for c in result.focus_note.children] == ["F/First", "F/Second"]


def test_focus_and_its_immediate_siblings():
    v = Vault().note("P")
    kids = v.children("P", 5)
    result = run(v.build(), kids[2])
    got = relations(result)
    assert [got[k] for k in (kids[0], kids[1])] == [Relation.PriorSibling] * 2
    assert [got[k] for k in (kids[3], kids[4])] == [Relation.YoungerSibling] * 2
    assert [s.uri for s in result.focus_note.prior_siblings] == kids[:2]
    assert [s.uri for s in result.focus_note.younger_siblings] == kids[3:]


def test_every_sibling_lists_the_others_from_one_list_made_per_graph():
    v = Vault().note("P")
    kids = v.children("P", 6)
    graph = v.build()
    made = listed_children(graph, "P")
    for i, kid in enumerate(kids):
        note = build_focus_note(graph, kid)
        assert [s.uri for s in note.prior_siblings] == kids[:i]
        assert [s.uri for s in note.younger_siblings] == kids[i + 1 :]
        assert note.prior_siblings + (made[i],) + note.younger_siblings == made
    assert build_focus_note(graph, "P").children is made is listed_children(graph, "P")


def test_focus_with_referring_notes():
    v = Vault().note("F")
    for i in range(5):
        v.note(f"R{i}", links=["F"])
    result = run(v.build(), "F", settings=FocusSettings(jitter_range=0, max_depth=1))
    refs = [n for n in result.related_notes if n.relation == Relation.InboundReference]
    assert len(refs) == 2  # capped at depth 1 ...
    assert len(result.focus_note.inbound_references) == 5  # ... but all are listed


def test_referring_note_through_a_property_names_the_link():
    g = Vault().note("F").note("Review", props={"reviews": "F"}).build()
    (review,) = run(g, "F").related_notes
    data = review.to_json()
    assert data["relationToFocusNote"] == "InboundReference"
    assert data["objectUriAndTitle"] == {"uri": "F", "title": "F"}
    assert data["predicate"] == "reviews"


def test_prioritizing_relationships_by_importance():
    g = _everything().build()
    result = run(g, "Home/P/F", settings=FocusSettings(), seed=5)
    weights = [FocusSettings().relation_weights[n.relation.value] for n in result.related_notes]
    assert weights == sorted(weights, reverse=True)
    assert result.related_notes[0].relation in {Relation.Parent, Relation.Object, Relation.Child}


def test_dropping_lower_priority_notes_within_budget():
    g = _everything().build()
    full = run(g, "Home/P/F")
    core = [n.uri for n in full.related_notes if n.relation in (Relation.Parent, Relation.Object)]
    budget = sum(cost(full, uri) for uri in core) + 5
    result = run(g, "Home/P/F", budget=budget)
    assert [n.uri for n in result.related_notes][: len(core)] == core
    assert not any(n.relation == Relation.YoungerSibling for n in result.related_notes)


def test_exhausting_budget_before_all_relationships_are_retrieved():
    g = _everything().build()
    full = run(g, "Home/P/F")
    result = run(g, "Home/P/F", budget=300, explain=True)
    assert 0 < len(result.related_notes) < len(full.related_notes)
    assert result.tokens_used <= 300
    assert any(s.reason == "budget" for s in result.skipped)


def test_budget_limits_in_a_complex_graph():
    g = _everything(width=30).build()
    previous = 0
    for budget in (100, 400, 1600, 6400):
        result = run(g, "Home/P/F", budget=budget)
        assert result.tokens_used == sum(cost(result, n.uri) for n in result.related_notes)
        assert result.tokens_used <= budget
        assert len(result.related_notes) >= previous
        previous = len(result.related_notes)


def test_minimal_subset_when_the_budget_is_very_small():
    g = _everything().build()
    full = run(g, "Home/P/F")
    smallest_core = min(cost(full, n.uri) for n in full.related_notes[:3])
    result = run(g, "Home/P/F", budget=smallest_core)
    assert len(result.related_notes) == 1
    assert result.related_notes[0].relation in {Relation.Parent, Relation.Object, Relation.Child}


def test_focus_with_its_contextual_path():
    v = Vault().note("Root").note("Root/Area", parent="Root")
    v.note("Root/Area/P", parent="Root/Area").note("Root/Area/P/F", parent="Root/Area/P")
    result = run(v.build(), "Root/Area/P/F")
    assert [u.uri for u in result.focus_note.contextual_path] == [
        "Root",
        "Root/Area",
        "Root/Area/P",
    ]
    assert relations(result) == {
        "Root/Area/P": Relation.Parent,
        "Root/Area": Relation.AncestorInContextualPath,
        "Root": Relation.AncestorInContextualPath,
    }


def test_focus_with_its_objects_contextual_path():
    v = Vault().note("F", links=["People/Staff/Ann"]).note("People")
    v.note("People/Staff", parent="People").note("People/Staff/Ann", parent="People/Staff")
    assert relations(run(v.build(), "F")) == {
        "People/Staff/Ann": Relation.Object,
        "People/Staff": Relation.AncestorInObjectContextualPath,
        "People": Relation.AncestorInObjectContextualPath,
    }


def test_splitting_retrieval_across_requests():
    v = Vault().note("F", "focus")
    children = v.children("F", 10, body="child " * 40)
    g = v.build()
    seen: list[str] = []
    pages = 0
    while True:
        page = run(g, "F", budget=150, exclude=tuple(seen))
        new = [n.uri for n in page.related_notes]
        if not new:
            break
        assert not set(new) & set(seen)  # never what the caller already has
        seen.extend(new)
        pages += 1
        assert pages < 20
    assert pages > 1
    assert sorted(seen) == children  # paging reaches past one call's per-depth caps


def test_reified_child_objects():
    v = Vault().note("F").note("F/Task", parent="F", props={"tool": "Hammer"}).note("Hammer")
    result = run(v.build(), "F")
    hammer = next(n for n in result.related_notes if n.uri == "Hammer")
    assert hammer.relation == Relation.ObjectOfReifiedChild
    assert hammer.to_json()["subjectUriAndTitle"] == {"uri": "F/Task", "title": "Task"}
    assert hammer.predicate == "tool"


def test_parent_siblings():
    v = Vault().note("G")
    aunts = v.children("G", 5, prefix="P")
    v.note(f"{aunts[2]}/F", parent=aunts[2])
    got = relations(run(v.build(), f"{aunts[2]}/F"))
    assert got[aunts[2]] == Relation.Parent
    assert got["G"] == Relation.AncestorInContextualPath
    # the grandparent's cap at depth 3 is 2: the parent's nearest siblings
    assert {u for u, r in got.items() if r == Relation.SiblingOfParent} == {aunts[1], aunts[3]}


def test_object_parent_siblings():
    v = Vault().note("F", links=["G/P/X"]).note("G").note("G/P", parent="G")
    v.note("G/P/X", parent="G/P").note("G/Q", parent="G")
    got = relations(run(v.build(), "F", settings=FocusSettings(jitter_range=0, max_depth=4)))
    assert got["G/Q"] == Relation.SiblingOfParentOfObject
    # at the default depth the 4-hop relation is out of reach
    assert "G/Q" not in relations(run(v.build(), "F"))


def test_parent_sibling_children():
    v = Vault().note("G").note("G/P", parent="G").note("G/P/F", parent="G/P")
    v.note("G/U", parent="G").note("G/U/Cousin", parent="G/U")
    got = relations(run(v.build(), "G/P/F", settings=FocusSettings(jitter_range=0, max_depth=4)))
    assert got["G/U"] == Relation.SiblingOfParent
    assert got["G/U/Cousin"] == Relation.ChildOfSiblingOfParent


def test_object_parent_sibling_children():
    v = Vault().note("F", links=["G/P/X"]).note("G").note("G/P", parent="G")
    v.note("G/P/X", parent="G/P").note("G/Q", parent="G").note("G/Q/Kid", parent="G/Q")
    got = relations(run(v.build(), "F", settings=FocusSettings(jitter_range=0, max_depth=5)))
    assert got["G/Q/Kid"] == Relation.ChildOfSiblingOfParentOfObject


def test_notes_in_the_referring_contextual_path():
    v = Vault().note("F").note("A").note("A/B", parent="A").note("A/B/R", parent="A/B", links=["F"])
    result = run(v.build(), "F")
    assert relations(result) == {
        "A/B/R": Relation.InboundReference,
        "A/B": Relation.SubjectOfInboundReference,
        "A": Relation.InboundReferenceContextualPath,
    }


def test_referring_cousins():
    v = Vault().note("F").note("S")
    v.note("S/R0", parent="S").note("S/R1", parent="S", links=["F"]).note("S/R2", parent="S")
    got = relations(run(v.build(), "F"))
    assert got["S"] == Relation.SubjectOfInboundReference
    assert got["S/R0"] == got["S/R2"] == Relation.SiblingOfSubjectOfInboundReference


def test_inbound_reference_to_object_of_reified_child():
    v = Vault().note("F").note("F/C", parent="F", links=["X"]).note("X").note("Other", links=["X"])
    result = run(v.build(), "F")
    other = next(n for n in result.related_notes if n.uri == "Other")
    assert other.relation == Relation.InboundReferenceToObjectOfReifiedChild
    assert other.to_json()["objectUriAndTitle"] == {"uri": "X", "title": "X"}


def test_grandchildren():
    v = Vault().note("F").note("F/C", parent="F").note("F/C/G", parent="F/C")
    assert relations(run(v.build(), "F"))["F/C/G"] == Relation.GrandChild


def test_combining_multiple_relationship_types():
    got = set(relations(run(_everything().build(), "Home/P/F")).values())
    assert {
        Relation.Parent,
        Relation.Object,
        Relation.Child,
        Relation.InboundReference,
        Relation.PriorSibling,
        Relation.YoungerSibling,
        Relation.AncestorInContextualPath,
    } <= got


def test_reporting_skipped_notes():
    g = _everything().build()
    result = run(g, "Home/P/F", budget=200, explain=True)
    budget_skips = [s for s in result.skipped if s.reason == "budget"]
    assert budget_skips and all(s.tokens is None or s.tokens > 0 for s in budget_skips)
    emitted = {n.uri for n in result.related_notes}
    assert not emitted & {s.uri for s in result.skipped}
    capped = run(g, "Home/P/F", settings=FocusSettings(max_total_candidates=3), explain=True)
    assert len(capped.related_notes) <= 3
    assert any(s.reason == "cap" for s in capped.skipped)
    assert "skipped" not in run(g, "Home/P/F").to_json()  # only with explain


def test_focus_lists_are_complete_whatever_the_budget():
    v = Vault().note("F")
    v.children("F", 12)
    result = run(v.build(), "F", budget=0)
    assert result.related_notes == ()
    assert len(result.focus_note.children) == 12


def test_virtual_folders_connect_but_are_not_emitted():
    v = Vault().folder("Dir").note("Dir/F", parent="Dir").note("Dir/G", parent="Dir")
    g = v.build()
    assert relations(run(g, "Dir/F")) == {"Dir/G": Relation.YoungerSibling}
    assert run(g, "Dir/F").focus_note.parent.uri == "Dir"
    shown = relations(run(g, "Dir/F", settings=FocusSettings(emit_virtual_notes=True)))
    assert shown["Dir"] == Relation.Parent


def test_unknown_or_ghost_focus_is_an_error():
    g = Vault().note("F", links=["Ghost"]).build()
    for uri in ("Nope", "Ghost"):
        with pytest.raises(NoteNotFoundError):
            run(g, uri)


def _everything(width: int = 4) -> Vault:
    """A focus with every direct relation and a few derived ones."""
    body = "Some words about this note. " * 4
    v = Vault().note("Home", body).note("Home/P", body, parent="Home")
    for i in range(width):
        v.note(f"Home/P/S{i:02d}", body, parent="Home/P", order=i)
    v.note("Home/P/F", body, parent="Home/P", order=1.5, links=["Obj"])
    v.note("Obj", body).note("Ref", body, links=["Home/P/F"])
    v.children("Home/P/F", width, prefix="K", body=body)
    return v
