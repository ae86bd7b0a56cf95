"""Note lookups' results: ``get_note``'s record and ``neighbors``' list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphrag.results.notes import UriAndTitle, iso_utc


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
