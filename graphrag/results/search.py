"""The searches' results: ranked hits, and graph search's anchors with their neighbours."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphrag.results.notes import UriAndTitle, rounded


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
        out: dict[str, Any] = {"uri": self.uri, "title": self.title, "score": rounded(self.score)}
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
    """``graph_search``: anchors, then what ``hops`` steps reach.

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
