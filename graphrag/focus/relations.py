"""Discovery path -> ``Relation``: the table of docs/architecture.md, "Focus mode: relations", as data.

A discovery path is the sequence of the four fundamental hops the BFS took from
the focus: ``parent`` (P), ``child`` (C), ``object`` (O: an outbound link) and
``inbound`` (I: a backlink). Derived relations are spelled in those hops, so a
sibling is ``PC`` (up to the parent, down to another child) and Doughnut's
single "Sibling" step costs two hops. Consequences, kept on purpose:

* ``SiblingOfParent`` (PPC) is 3 hops, reachable at the default ``max_depth`` 3.
* ``ChildOfSiblingOfParent`` (PPCC) and ``SiblingOfParentOfObject`` (OPPC) are 4
  hops and ``ChildOfSiblingOfParentOfObject`` (OPPCC) 5: they only appear when
  ``max_depth`` is raised. Counting a sibling step as one hop instead would make
  depth mean two different things and break the per-depth caps.
* ``SiblingOfSubjectOfInboundReference`` is IPC: in Doughnut the subject of an
  inbound reference is the referring note's parent, and its "siblings" are the
  subject's children (Doughnut's handler takes ``subject.getChildren()``), i.e.
  the referring note's siblings -- Doughnut's "referring cousins".

Prior vs younger sibling (``PC`` only) is decided against the note the path went
up from -- the focus -- by sibling order: before it is prior, after it younger.
"""

from __future__ import annotations

import re
from functools import lru_cache

from graphrag.results.notes import Relation

PARENT = "parent"
CHILD = "child"
OBJECT = "object"
INBOUND = "inbound"
HOPS = (PARENT, CHILD, OBJECT, INBOUND)
_LETTER = {PARENT: "P", CHILD: "C", OBJECT: "O", INBOUND: "I"}

_SIBLING = "sibling"  # PC: resolved to PriorSibling / YoungerSibling by sibling order

# (pattern over hop letters, relation, what the path means). Patterns are
# disjoint, so row order only matters for reading. Any path no row matches is
# RemotelyRelated (Doughnut's rule: "any path with 3+ hops not matching above"; this
# vault also applies it to unnamed 2-hop paths such as OO, the object's object).
TABLE: tuple[tuple[str, Relation | str, str], ...] = (
    ("", Relation.Self, "the focus itself"),
    ("P", Relation.Parent, "the focus's parent"),
    ("C", Relation.Child, "a child of the focus"),
    ("O", Relation.Object, "a note the focus links to"),
    ("I", Relation.InboundReference, "a note that links to the focus"),
    ("PC", _SIBLING, "another child of the focus's parent"),
    ("CO", Relation.ObjectOfReifiedChild, "a note a child of the focus links to"),
    ("IP", Relation.SubjectOfInboundReference, "the parent of a note linking to the focus"),
    ("PP+", Relation.AncestorInContextualPath, "grandparent and above"),
    ("OP+", Relation.AncestorInObjectContextualPath, "ancestors of a linked note"),
    ("PPC", Relation.SiblingOfParent, "siblings of the parent (nearest first)"),
    ("OPPC", Relation.SiblingOfParentOfObject, "siblings of a linked note's parent"),
    ("PPCC", Relation.ChildOfSiblingOfParent, "cousins: children of the parent's siblings"),
    ("OPPCC", Relation.ChildOfSiblingOfParentOfObject, "children of those"),
    ("IPP+", Relation.InboundReferenceContextualPath, "ancestors of a referring note"),
    ("IPC", Relation.SiblingOfSubjectOfInboundReference, "siblings of a referring note"),
    (
        "COI",
        Relation.InboundReferenceToObjectOfReifiedChild,
        "other notes linking to what a child links to",
    ),
    ("CC+", Relation.GrandChild, "grandchildren and below"),
)

_COMPILED = tuple((re.compile(pattern), relation) for pattern, relation, _ in TABLE)

# Among equally short paths the relation earlier in this list wins.
PRIORITY: dict[Relation, int] = {relation: rank for rank, relation in enumerate(Relation)}


def letters(hops: tuple[str, ...]) -> str:
    return "".join(_LETTER[h] for h in hops)


@lru_cache(maxsize=1024)
def classify(hops: tuple[str, ...], prior: bool = False) -> Relation:
    """The relation of a note reached from the focus by ``hops``.

    ``prior`` matters only for the sibling path (``parent, child``): ``True`` when
    the sibling comes before the note the path went up from in sibling order.
    """
    spelled = letters(hops)
    for pattern, relation in _COMPILED:
        if pattern.fullmatch(spelled):
            if relation == _SIBLING:
                return Relation.PriorSibling if prior else Relation.YoungerSibling
            assert isinstance(relation, Relation)
            return relation
    return Relation.RemotelyRelated


def rank(relation: Relation) -> int:
    """Lower is more important (the declaration order of ``Relation``)."""
    return PRIORITY[relation]
