"""Hierarchical search (docs/architecture.md, "Searches"):
find the relevant hubs first, then search only the chunks under them.

Hubs, built once per corpus:

* ``folder:F``: every note under folder ``F`` (and ``F``'s folder note beside it).
  Notes are in uri order, so a folder is one contiguous block of chunk rows,
  searched as a slice of the matrix with no copy;
* ``tag:T``: the notes tagged ``T`` or a tag nested under it;
* ``note:N``: a hub note (a map of content) with at least ``hub_min_links``
  outbound links or children, standing for itself and the notes it points to.

A hub is represented by the normalised mean of its chunks' vectors. Step 1
scores all hubs (a few thousand at 100k notes: well under a millisecond) and
takes the best ``hub_count``, most similar first, while the chunks they cover
stay within ``hub_max_fraction`` of the corpus; hubs smaller than
``hub_min_notes`` notes, or larger than that fraction on their own, are not
hubs. Step 2 is the brute-force search restricted to those chunk rows. With no
usable hub (a tiny or flat vault) it is a full search.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphrag.config.query import QuerySettings
from graphrag.results.search import SearchResult
from graphrag.search.searches import Scope, top_notes, vector_hit
from graphrag.snapshot.chunk_vectors import inner_products
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph


@dataclass(frozen=True)
class HubTable:
    names: list[str]
    vectors: np.ndarray  # (hubs, dim), normalised
    ranges: list[tuple[tuple[int, int], ...]]  # contiguous chunk-row blocks per hub
    rows: list[np.ndarray | None]  # scattered chunk rows per hub (tags, hub notes)
    sizes: np.ndarray  # chunk rows per hub


def hub_table(corpus: Corpus, graph: VaultGraph, settings: QuerySettings) -> HubTable:
    key = f"hubs:{settings.hub_min_notes}:{settings.hub_min_links}:{settings.hub_max_fraction}"
    return corpus.derived(key, lambda: build_hubs(corpus, graph, settings))


def build_hubs(corpus: Corpus, graph: VaultGraph, s: QuerySettings) -> HubTable:
    total = max(corpus.chunk_count, 1)
    limit = s.hub_max_fraction * total
    start = corpus.chunk_start
    names: list[str] = []
    vectors: list[np.ndarray] = []
    ranges: list[tuple[tuple[int, int], ...]] = []
    rows: list[np.ndarray | None] = []
    sizes: list[int] = []

    def add(
        name: str, blocks: tuple[tuple[int, int], ...], scattered: np.ndarray | None, notes: int
    ) -> None:
        size = sum(hi - lo for lo, hi in blocks) + (len(scattered) if scattered is not None else 0)
        if notes < s.hub_min_notes or size == 0 or size > limit:
            return
        mean = corpus.vector_sum(blocks, scattered)
        norm = float(np.linalg.norm(mean))
        if norm == 0:
            return
        names.append(name)
        vectors.append((mean / norm).astype(np.float32))
        ranges.append(blocks)
        rows.append(scattered)
        sizes.append(size)

    def note_rows(indices: np.ndarray) -> np.ndarray:
        parts = [np.arange(start[i], start[i + 1]) for i in np.unique(indices)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)

    folders = sorted({u.rsplit("/", 1)[0] for u in corpus.uris if "/" in u} | _parents(corpus.uris))
    for folder in folders:
        lo, hi = corpus.folder_range(folder)
        blocks = [(int(start[lo]), int(start[hi]))]
        beside = corpus.index_of.get(folder)
        if beside is not None:
            blocks.append((int(start[beside]), int(start[beside + 1])))
        add(f"folder:{folder}", tuple(blocks), None, hi - lo + (beside is not None))
    # The indexer gives a note its nested tags' ancestors, so members of ``a`` include
    # the notes tagged ``a/b``.
    for tag in sorted(graph.tag_members):
        idx = corpus.indices(graph.tag_members[tag])
        add(f"tag:{tag}", (), note_rows(idx), len(idx))
    for uri in corpus.uris:
        targets = [link.target for link in graph.outlinks(uri)] + list(graph.children(uri))
        if len(targets) < s.hub_min_links:
            continue
        idx = corpus.indices(dict.fromkeys([uri, *targets]))
        add(f"note:{uri}", (), note_rows(idx), len(idx))
    dim = corpus.dim
    return HubTable(
        names=names,
        vectors=np.stack(vectors) if vectors else np.zeros((0, dim), dtype=np.float32),
        ranges=ranges,
        rows=rows,
        sizes=np.array(sizes, dtype=np.int64),
    )


def _merged(blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Half-open ranges merged where they overlap (a folder and its subfolder)."""
    out: list[tuple[int, int]] = []
    for lo, hi in sorted(blocks):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        elif hi > lo:
            out.append((lo, hi))
    return out


def _parents(uris: list[str]) -> set[str]:
    """Every ancestor folder of every note (``a/b/c`` -> ``a``, ``a/b``)."""
    out: set[str] = set()
    for u in uris:
        parts = u.split("/")[:-1]
        for n in range(1, len(parts)):
            out.add("/".join(parts[:n]))
    return out


def hierarchical_search(
    scope: Scope, query: str, query_vec: np.ndarray, top_k: int
) -> SearchResult:
    s = scope.settings
    corpus = scope.corpus
    table = hub_table(corpus, scope.graph, s)
    q = np.asarray(query_vec, dtype=np.float32).reshape(-1)
    chosen: list[int] = []
    if len(table.names):
        budget = s.hub_max_fraction * corpus.chunk_count
        covered = 0
        for h in np.argsort(-inner_products(table.vectors, q), kind="stable"):
            if len(chosen) == s.hub_count:
                break
            if covered + table.sizes[h] <= budget:
                chosen.append(int(h))
                covered += int(table.sizes[h])
    if not chosen:
        from graphrag.search.searches import semantic_search

        full = semantic_search(scope, query, q, top_k)
        return SearchResult(query, "hierarchical", full.hits, hubs=(), message=full.message)

    # Step 2: scores only for the chosen hubs' chunk rows; the rest stay at -inf.
    blocks = [block for h in chosen for block in table.ranges[h]]
    scattered = [r for h in chosen if (r := table.rows[h]) is not None and len(r)]
    merged = _merged(blocks)
    rows = np.unique(np.concatenate(scattered)) if scattered else None
    chunk_scores = corpus.subset_scores(q, merged, rows)
    touched = [np.arange(lo, hi) for lo, hi in merged] + ([rows] if rows is not None else [])
    notes = corpus.notes_of_rows(np.concatenate(touched)) if touched else np.zeros(0, np.int64)
    sims = corpus.note_sims(chunk_scores, notes)
    order = top_notes(sims, top_k, scope.allowed, -1.0)
    hits = tuple(vector_hit(scope, i, float(sims[i]), chunk_scores) for i in order)
    return SearchResult(
        query,
        "hierarchical",
        hits,
        hubs=tuple(table.names[h] for h in chosen),
        message=None if hits else "no note under the chosen hubs matches",
    )
