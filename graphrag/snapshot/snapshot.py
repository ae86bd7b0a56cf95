"""One index generation in memory: the loaded index and the graph view built from it."""

from __future__ import annotations

from dataclasses import dataclass

from graphrag.snapshot.graph import VaultGraph
from indexer import IndexSnapshot


@dataclass(frozen=True)
class Snapshot:
    """An index generation and the graph view built from it, swapped as one."""

    index: IndexSnapshot
    graph: VaultGraph
