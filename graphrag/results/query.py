"""Result dataclasses of query mode and the searches, and their JSON shape.

Query mode reuses focus mode's shapes: an entry note is a ``FocusNote`` (its
lists capped, since several entries share one budget) and a related note is a
``RelatedNote`` whose ``relationToFocusNote`` is relative to ``focusUri``, the
entry it was reached from. Scores and paths appear only with ``explain``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphrag.results.focus import FocusNote, RelatedNote, SkippedNote, UriAndTitle, iso_utc


def _r(x: float) -> float:
    return round(float(x), 4)


@dataclass(frozen=True, slots=True)
class EntryExplain:
    score: float
    vector: float
    lexical: float
    tags: float
    title: float

    def to_json(self) -> dict[str, Any]:
        return {
            "score": _r(self.score),
            "parts": {
                "vector": _r(self.vector),
                "lexical": _r(self.lexical),
                "tags": _r(self.tags),
                "title": _r(self.title),
            },
        }


@dataclass(frozen=True, slots=True)
class EntryNote:
    """``matched_by`` names what made the note an entry: vector, lexical, tag, title."""

    note: FocusNote
    matched_by: tuple[str, ...]
    details_truncated: bool = False
    explain: EntryExplain | None = None

    @property
    def uri(self) -> str:
        return self.note.uri

    @property
    def title(self) -> str:
        return self.note.title

    def to_json(self, with_explain: bool = True) -> dict[str, Any]:
        base = self.note.to_json()
        out: dict[str, Any] = {}
        for key, value in base.items():
            out[key] = value
            if key == "details" and self.details_truncated:
                out["detailsTruncated"] = True
        out["matchedBy"] = list(self.matched_by)
        if with_explain and self.explain is not None:
            out["explain"] = self.explain.to_json()
        return out


@dataclass(frozen=True, slots=True)
class QueryExplain:
    score: float
    relevance: float  # normalised graph relevance, 0..1
    similarity: float  # cosine of the note's best chunk with the query
    recency: float
    relevance_parts: dict[str, float]
    distance: int
    path: str

    def to_json(self) -> dict[str, Any]:
        return {
            "score": _r(self.score),
            "parts": {
                "relevance": _r(self.relevance),
                "similarity": _r(self.similarity),
                "recency": _r(self.recency),
            },
            "relevanceParts": {k: _r(v) for k, v in self.relevance_parts.items()},
            "distance": self.distance,
            "path": self.path,
        }


@dataclass(frozen=True, slots=True)
class QueryNote:
    """A related note: ``path`` runs from the entry (``focus``) to this note."""

    note: RelatedNote
    focus: UriAndTitle
    shared_tags: tuple[str, ...]
    distance: int
    path: tuple[UriAndTitle, ...]
    explain: QueryExplain | None = None

    @property
    def uri(self) -> str:
        return self.note.uri

    @property
    def title(self) -> str:
        return self.note.title

    def to_json(self, with_explain: bool = True) -> dict[str, Any]:
        out = self.note.to_json(with_explain=False)
        out["focusUri"] = self.focus.uri
        out["sharedTags"] = list(self.shared_tags)
        if with_explain and self.explain is not None:
            out["explain"] = self.explain.to_json()
        return out


@dataclass(frozen=True, slots=True)
class QueryResult:
    """``message`` says why there is nothing to show (empty entries); ``skipped`` is
    set only with ``explain``."""

    query: str
    entries: tuple[EntryNote, ...]
    related: tuple[QueryNote, ...]
    budget: int
    tokens_used: int
    connections: tuple[str, ...] = ()
    message: str | None = None
    filters: dict[str, Any] | None = None
    skipped: tuple[SkippedNote, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "entryNotes": [e.to_json() for e in self.entries],
            "relatedNotes": [n.to_json() for n in self.related],
            "tokens": {"budget": self.budget, "used": self.tokens_used},
        }
        if self.message:
            out["message"] = self.message
        if self.filters:
            out["filters"] = self.filters
        if self.skipped is not None:
            out["skipped"] = [s.to_json() for s in self.skipped]
        return out


# -- searches --------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SearchHit:
    """One note found by a search; ``heading``/``snippet`` are its best chunk, and
    ``ranks`` (hybrid) its 1-based rank in each fused ranking."""

    uri: str
    title: str
    score: float
    heading: str = ""
    snippet: str = ""
    ranks: dict[str, int] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "title": self.title, "score": _r(self.score)}
        if self.heading:
            out["heading"] = self.heading
        if self.snippet:
            out["snippet"] = self.snippet
        if self.ranks is not None:
            out["ranks"] = dict(self.ranks)
        return out


@dataclass(frozen=True, slots=True)
class SearchResult:
    """``hubs`` (hierarchical search): the folders, tags or hub notes searched under."""

    query: str
    mode: str
    hits: tuple[SearchHit, ...]
    hubs: tuple[str, ...] | None = None
    message: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "mode": self.mode,
            "results": [h.to_json() for h in self.hits],
        }
        if self.hubs is not None:
            out["hubs"] = list(self.hubs)
        if self.message:
            out["message"] = self.message
        return out


@dataclass(frozen=True, slots=True)
class GraphSearchResult:
    """The seed's ``graph_search``: anchors, then what ``hops`` steps reach.

    ``parents``: notes the anchors point up or out to (parent, link targets);
    ``children``: notes pointing at them (children, backlinks)."""

    query: str
    focus: tuple[SearchHit, ...]
    parents: tuple[UriAndTitle, ...]
    children: tuple[UriAndTitle, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "query": self.query,
            "focus": [h.to_json() for h in self.focus],
            "parents": [p.to_json() for p in self.parents],
            "children": [c.to_json() for c in self.children],
        }


@dataclass(frozen=True, slots=True)
class Neighbour:
    """``relation``: ``parent`` / ``link`` (outbound) or ``child`` / ``backlink`` (inbound);
    ``kind`` is set for targets that are not notes (folder, ghost, attachment)."""

    uri: str
    title: str
    relation: str
    predicate: str | None = None
    kind: str | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"uri": self.uri, "title": self.title, "relation": self.relation}
        if self.predicate:
            out["predicate"] = self.predicate
        if self.kind:
            out["kind"] = self.kind
        return out


@dataclass(frozen=True, slots=True)
class NoteRecord:
    """One note as stored: metadata, front matter, its neighbours and its text."""

    uri: str
    title: str
    path: str | None
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    properties: dict[str, Any]
    created_at: float | None
    modified_at: float | None
    parent: UriAndTitle | None
    neighbours: tuple[Neighbour, ...]
    details: str

    def to_json(self) -> dict[str, Any]:
        return {
            "uri": self.uri,
            "title": self.title,
            "path": self.path,
            "aliases": list(self.aliases),
            "tags": list(self.tags),
            "properties": self.properties,
            "createdAt": iso_utc(self.created_at),
            "modifiedAt": iso_utc(self.modified_at),
            "parentUriAndTitle": self.parent.to_json() if self.parent else None,
            "neighbours": [n.to_json() for n in self.neighbours],
            "details": self.details,
        }
