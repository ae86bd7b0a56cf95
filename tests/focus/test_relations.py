"""The discovery-path -> relation table, row by row, and the priority order (docs/architecture.md, "Focus mode: relations")."""

from __future__ import annotations

import random

import pytest

from graphrag.config.focus import FocusSettings
from graphrag.focus.relations import TABLE, classify, rank
from graphrag.focus.selectors import RankedSelector
from graphrag.focus.traverse import traverse
from graphrag.results.notes import Relation
from tests.support.graph_builders import Vault

HOP = {"P": "parent", "C": "child", "O": "object", "I": "inbound"}


def hops(spelled: str) -> tuple[str, ...]:
    return tuple(HOP[ch] for ch in spelled)


ROWS = [
    ("", Relation.Self),
    ("P", Relation.Parent),
    ("C", Relation.Child),
    ("O", Relation.Object),
    ("I", Relation.InboundReference),
    ("CO", Relation.ObjectOfReifiedChild),
    ("IP", Relation.SubjectOfInboundReference),
    ("PP", Relation.AncestorInContextualPath),
    ("PPP", Relation.AncestorInContextualPath),
    ("OP", Relation.AncestorInObjectContextualPath),
    ("OPP", Relation.AncestorInObjectContextualPath),
    ("PPC", Relation.SiblingOfParent),
    ("OPPC", Relation.SiblingOfParentOfObject),
    ("PPCC", Relation.ChildOfSiblingOfParent),
    ("OPPCC", Relation.ChildOfSiblingOfParentOfObject),
    ("IPP", Relation.InboundReferenceContextualPath),
    ("IPPP", Relation.InboundReferenceContextualPath),
    ("IPC", Relation.SiblingOfSubjectOfInboundReference),
    ("COI", Relation.InboundReferenceToObjectOfReifiedChild),
    ("CC", Relation.GrandChild),
    ("CCC", Relation.GrandChild),
    # no named row: remote
    ("OO", Relation.RemotelyRelated),
    ("OI", Relation.RemotelyRelated),
    ("PO", Relation.RemotelyRelated),
    ("OC", Relation.RemotelyRelated),
    ("PCO", Relation.RemotelyRelated),
    ("IPCC", Relation.RemotelyRelated),
    ("CCO", Relation.RemotelyRelated),
]


@pytest.mark.parametrize(("spelled", "relation"), ROWS, ids=[r[0] or "empty" for r in ROWS])
def test_path_maps_to_relation(spelled, relation):
    assert classify(hops(spelled)) == relation


def test_sibling_path_splits_on_sibling_order():
    assert classify(hops("PC"), prior=True) == Relation.PriorSibling
    assert classify(hops("PC"), prior=False) == Relation.YoungerSibling
    # prior is meaningless elsewhere
    assert classify(hops("PPC"), prior=True) == Relation.SiblingOfParent


def test_every_path_relation_has_a_row():
    named = {relation for _, relation, _ in TABLE if isinstance(relation, Relation)}
    named |= {Relation.PriorSibling, Relation.YoungerSibling, Relation.RemotelyRelated}
    not_paths = {
        Relation.SharesTag,
        Relation.OnPathBetweenEntries,
        Relation.MatchesQuestion,
        Relation.SharesPropertyValue,
        Relation.SimilarContent,
    }
    assert named == set(Relation) - not_paths


def test_priority_order_is_the_seeds():
    seed_order = [
        "Self",
        "Parent",
        "Child",
        "Object",
        "InboundReference",
        "PriorSibling",
        "YoungerSibling",
        "ObjectOfReifiedChild",
        "SubjectOfInboundReference",
        "AncestorInContextualPath",
        "AncestorInObjectContextualPath",
        "SiblingOfParent",
        "SiblingOfParentOfObject",
        "ChildOfSiblingOfParent",
        "ChildOfSiblingOfParentOfObject",
        "InboundReferenceContextualPath",
        "SiblingOfSubjectOfInboundReference",
        "InboundReferenceToObjectOfReifiedChild",
        "GrandChild",
        "RemotelyRelated",
    ]
    ranked = sorted((r for r in Relation if r.value in seed_order), key=rank)
    assert [r.value for r in ranked] == seed_order
    assert rank(Relation.RemotelyRelated) < rank(Relation.SharesTag)


def test_prior_and_younger_are_relative_to_the_focus_in_a_traversal():
    v = Vault().note("P")
    kids = v.children("P", 5)
    g = v.build()
    result = traverse(g, [kids[2]], FocusSettings(max_depth=3), random.Random(0))
    relation = {c.uri: c.relation for c in result.candidates}
    assert relation[kids[0]] == relation[kids[1]] == Relation.PriorSibling
    assert relation[kids[3]] == relation[kids[4]] == Relation.YoungerSibling


def test_direct_link_beats_the_sibling_path():
    # S is a sibling of F (PC, 2 hops) and also links to F (I, 1 hop).
    v = Vault().note("P").note("P/F", parent="P").note("P/S", parent="P", links=["P/F"])
    result = traverse(v.build(), ["P/F"], FocusSettings(), random.Random(0))
    s = next(c for c in result.candidates if c.uri == "P/S")
    assert (s.relation, s.depth) == (Relation.InboundReference, 1)


def test_path_is_fixed_at_its_first_discovery():
    # U is reached at depth 2 through two links (remote) before the depth-3 path
    # that would make it the parent's sibling: the first, shorter path stands.
    v = Vault().note("G").note("G/P", parent="G").note("G/U", parent="G")
    v.note("G/P/F", parent="G/P", links=["O1"]).note("O1", links=["G/U"])
    result = traverse(v.build(), ["G/P/F"], FocusSettings(), random.Random(0))
    u = next(c for c in result.candidates if c.uri == "G/U")
    assert (u.relation, u.depth, u.hops) == (Relation.RemotelyRelated, 2, ("object", "object"))


def test_shorter_path_wins_over_higher_priority_at_the_same_depth():
    # At depth 3, X is both a third-round backlink of R (inbound, inbound: 2 hops,
    # remote) and a sibling of F's parent (parent, parent, child: 3 hops). The
    # ranking selector holds X back until depth 3 so both paths meet there.
    v = Vault().note("G").note("G/P", parent="G", order=1).note("G/X", parent="G", order=2)
    v.note("G/P/F", parent="G/P").note("R", links=["G/P/F"]).link("G/X", "R")
    for i in range(3):
        v.note(f"Other{i}", links=["R"])
    result = traverse(
        v.build(),
        ["G/P/F"],
        FocusSettings(),
        random.Random(0),
        selector=RankedSelector(lambda uri: -1.0 if uri == "G/X" else 0.0),
    )
    x = next(c for c in result.candidates if c.uri == "G/X")
    assert (x.depth, x.hops, x.relation) == (3, ("inbound", "inbound"), Relation.RemotelyRelated)
