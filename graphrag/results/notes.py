"""The note shapes every result is made of, and their JSON.

The JSON follows Doughnut's Graph RAG shapes (docs/architecture.md, "Focus mode: output"; camelCase, ``focusNote`` +
``relatedNotes``). Optional keys are left out rather than set to ``null`` when
they carry no information (``detailsTruncated``, ``predicate``, the link ends),
because every key a related note carries is paid for out of the token budget.
``parentUriAndTitle`` and ``createdAt`` are always present (``null`` when
unknown) so consumers can rely on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, NamedTuple


class Relation(StrEnum):
    """How a note relates to the focus note (docs/architecture.md, "Focus mode: relations").

    Declared in priority order; ``relations.PRIORITY`` uses this order
    to break ties between equally short discovery paths.
    """

    Self = "Self"
    # direct relationships
    Parent = "Parent"
    Child = "Child"
    Object = "Object"
    InboundReference = "InboundReference"
    # one-hop derived
    PriorSibling = "PriorSibling"
    YoungerSibling = "YoungerSibling"
    ObjectOfReifiedChild = "ObjectOfReifiedChild"
    SubjectOfInboundReference = "SubjectOfInboundReference"
    # two-hop derived
    AncestorInContextualPath = "AncestorInContextualPath"
    AncestorInObjectContextualPath = "AncestorInObjectContextualPath"
    SiblingOfParent = "SiblingOfParent"
    SiblingOfParentOfObject = "SiblingOfParentOfObject"
    ChildOfSiblingOfParent = "ChildOfSiblingOfParent"
    ChildOfSiblingOfParentOfObject = "ChildOfSiblingOfParentOfObject"
    InboundReferenceContextualPath = "InboundReferenceContextualPath"
    SiblingOfSubjectOfInboundReference = "SiblingOfSubjectOfInboundReference"
    InboundReferenceToObjectOfReifiedChild = "InboundReferenceToObjectOfReifiedChild"
    # remote
    GrandChild = "GrandChild"
    RemotelyRelated = "RemotelyRelated"
    # focus and query mode, not derived from a discovery path: how the vault's property
    # links group notes, and (focus mode) what the embeddings say
    SharesPropertyValue = "SharesPropertyValue"
    SimilarContent = "SimilarContent"
    # query mode: not derived from a discovery path, so they rank below every path relation
    SharesTag = "SharesTag"
    OnPathBetweenEntries = "OnPathBetweenEntries"
    # query mode: found by the question's own match (hybrid search), not through the graph
    MatchesQuestion = "MatchesQuestion"


def iso_utc(timestamp: float | None) -> str | None:
    """Epoch seconds -> ``2024-05-01T09:30:00Z``; ``None`` when the time is unknown (0)."""
    if not timestamp:
        return None
    return (
        datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    )


class UriAndTitle(NamedTuple):
    # A NamedTuple, not a frozen dataclass: a hub's focus note lists thousands of
    # these, and a tuple is built in half the time.
    uri: str
    title: str

    def to_json(self) -> dict[str, Any]:
        return {"uri": self.uri, "title": self.title}


def _ut(value: UriAndTitle | None) -> dict[str, Any] | None:
    return None if value is None else value.to_json()


@dataclass(frozen=True, slots=True)
class OutboundLink:
    """One entry of the focus note's ``outboundLinks``.

    ``kind`` is set only for targets that are not notes (``ghost``, ``attachment``,
    ``folder``), so a plain link stays ``{uri, title}``.
    """

    uri: str
    title: str
    predicate: str | None = None
    kind: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "title": self.title}
        if self.predicate is not None:
            out["predicate"] = self.predicate
        if self.kind is not None:
            out["kind"] = self.kind
        return out


@dataclass(frozen=True, slots=True)
class FocusNote:
    uri: str
    title: str
    details: str
    created_at: float | None
    parent: UriAndTitle | None
    contextual_path: tuple[UriAndTitle, ...] = ()
    children: tuple[UriAndTitle, ...] = ()
    prior_siblings: tuple[UriAndTitle, ...] = ()
    younger_siblings: tuple[UriAndTitle, ...] = ()
    inbound_references: tuple[UriAndTitle, ...] = ()
    outbound_links: tuple[OutboundLink, ...] = ()
    tags: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "title": self.title,
            "details": self.details,
            "createdAt": iso_utc(self.created_at),
            "parentUriAndTitle": _ut(self.parent),
            "contextualPath": [u.to_json() for u in self.contextual_path],
            "children": [u.to_json() for u in self.children],
            "priorSiblings": [u.to_json() for u in self.prior_siblings],
            "youngerSiblings": [u.to_json() for u in self.younger_siblings],
            "inboundReferences": [u.to_json() for u in self.inbound_references],
            "outboundLinks": [link.to_json() for link in self.outbound_links],
            "tags": list(self.tags),
            "relationToFocusNote": Relation.Self.value,
        }


@dataclass(frozen=True, slots=True)
class Explain:
    """Why a related note ranks where it does (only emitted with ``explain``)."""

    score: float
    relationship: float
    depth_part: float
    recency: float
    jitter: float
    depth: int
    path: str

    def to_json(self) -> dict[str, Any]:
        return {
            "score": round(self.score, 4),
            "parts": {
                "relationship": round(self.relationship, 4),
                "depth": round(self.depth_part, 4),
                "recency": round(self.recency, 4),
                "jitter": round(self.jitter, 4),
            },
            "depth": self.depth,
            "path": self.path,
        }


@dataclass(frozen=True, slots=True)
class RelatedNote:
    """A note in ``relatedNotes``.

    ``subject``/``object``/``predicate`` describe the link that the discovery path
    crossed last, as a (subject, predicate, object) triple whose other end is this
    note: reached by following a link (last hop ``object``) -> ``subject`` is the
    linking note; reached as a note that links (last hop ``inbound``) -> ``object``
    is the linked note. ``predicate`` is the property name when that link came
    from a property (``author: "[[Ann]]"``). The far end is left out when it is
    the focus and there is no predicate (plain ``Object`` / ``InboundReference``). ``via`` and ``hops`` are the discovery
    path, kept for the prompt's relation sentence and ``explain``; not in the JSON.
    """

    uri: str
    title: str
    details: str
    relation: Relation
    created_at: float | None = None
    parent: UriAndTitle | None = None
    details_truncated: bool = False
    subject: UriAndTitle | None = None
    object: UriAndTitle | None = None
    predicate: str | None = None
    hops: tuple[str, ...] = ()
    via: tuple[UriAndTitle, ...] = ()
    explain: Explain | None = None

    def to_json(self, with_explain: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "title": self.title, "details": self.details}
        if self.details_truncated:
            out["detailsTruncated"] = True
        out["parentUriAndTitle"] = _ut(self.parent)
        if self.subject is not None:
            out["subjectUriAndTitle"] = self.subject.to_json()
        if self.object is not None:
            out["objectUriAndTitle"] = self.object.to_json()
        if self.predicate is not None:
            out["predicate"] = self.predicate
        out["createdAt"] = iso_utc(self.created_at)
        out["relationToFocusNote"] = self.relation.value
        if with_explain and self.explain is not None:
            out["explain"] = self.explain.to_json()
        return out


@dataclass(frozen=True, slots=True)
class SkippedNote:
    """A candidate left out: ``budget`` (did not fit; ``tokens`` = its rendered size,
    ``None`` when it was not measured because nothing could fit any more) or ``cap``
    (cut by the global candidate cap during traversal)."""

    uri: str
    title: str
    reason: str
    tokens: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "title": self.title, "reason": self.reason}
        if self.tokens is not None:
            out["tokens"] = self.tokens
        return out


def rounded(x: float) -> float:
    """A score as JSON shows it: four decimals."""
    return round(float(x), 4)
