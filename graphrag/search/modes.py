"""The search modes, listed once: the CLI, the HTTP API and the MCP server offer these."""

from __future__ import annotations

from typing import Literal, get_args

# Modes whose result is one ranked list of notes (``SearchResult``).
RankedMode = Literal["semantic", "lexical", "hybrid", "hierarchical"]
# Every mode; ``graph`` returns anchors with their parents and children (``GraphSearchResult``).
SearchMode = Literal[RankedMode, "graph"]

SEARCH_MODES: tuple[str, ...] = get_args(SearchMode)
RANKED_MODES: tuple[str, ...] = get_args(RankedMode)
# The one mode that needs no embedding model (BM25 only).
WITHOUT_MODEL = frozenset({"lexical"})
# ``--hops`` / ``hops`` of graph mode: the CLI, the HTTP API and MCP take 0..MAX_HOPS.
MAX_HOPS = 3
