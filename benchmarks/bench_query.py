"""Query latency on synthetic vaults (10k and 100k notes), in process, index loaded.

For each size N the script generates a vault with ``benchmarks/gen_vault.py``
(reused from ``--cache`` when already there) and indexes it once. Embedding
100k notes with MiniLM on 2 cores takes about an hour, so the *index* is built
with ``RandomEmbedder``: a deterministic random unit vector of dimension 384
per chunk text (the real model's dimension, so the matrix sizes and search
costs are the real ones). Every *query* is embedded by the real model
(``indexer.embed.SentenceTransformerEmbedder``), and that time is included in
every figure below. Queries are unique strings, so no cache hides the model.

Reported per size, p50 and p95 over ``--queries`` questions:

* ``query()`` (budget 4000, JSON output), ``semantic_search``, ``lexical_search``,
  ``hybrid_search``, ``hierarchical_search`` and, for comparison, the full
  search it replaces (``semantic_search``) and the query embedding alone;
* one-off costs: loading the index, the first query (building the per-snapshot
  arrays), building vs loading the lexical index, building the hub table;
* memory: the chunk vectors' layout (``graphrag/snapshot/chunk_vectors.py``) and its size,
  beside FAISS's own copy of the vectors;
* for a size scanned in float16 (``--agreement`` questions, default 50): how far
  its answers are from the float32 scan's (top-10 overlap of ``semantic_search``
  and of ``query``'s notes, identical ``query`` results, the largest score error).

Usage::

    python benchmarks/bench_query.py --cache /tmp/vault-graphrag-bench [--sizes 10000 100000]
        [--queries 100] [--agreement 50] [--out benchmarks/RESULTS.md]
    python benchmarks/bench_query.py --cache /tmp/smoke --smoke   # seconds, no model (CI)
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import generated_vault, indexed  # noqa: E402
from graphrag.api import VaultRAG  # noqa: E402
from graphrag.query.mode import run_query  # noqa: E402
from graphrag.query.request import QueryRequest  # noqa: E402
from graphrag.search.hubs import build_hubs  # noqa: E402
from graphrag.search.searches import Scope, semantic_search  # noqa: E402
from graphrag.snapshot import corpus as corpus_module  # noqa: E402
from graphrag.snapshot import lexical_file  # noqa: E402
from graphrag.snapshot.chunk_vectors import HalfVectors  # noqa: E402
from graphrag.snapshot.corpus import Corpus, build_corpus  # noqa: E402
from graphrag.snapshot.lexical import build_lexical, lexical_index  # noqa: E402
from indexer.embed import SentenceTransformerEmbedder  # noqa: E402

DIM = 384
MAX_QUESTIONS = 60  # per row: the engine rows need them all in embed_query's cache (64)
WORDS = [
    "budget",
    "garden",
    "river",
    "harbor",
    "recipe",
    "festival",
    "library",
    "mountain",
    "signal",
    "journey",
    "market",
    "history",
    "climate",
    "museum",
    "pattern",
    "research",
    "season",
    "strategy",
    "teacher",
    "travel",
]


class RandomEmbedder:
    """A unit vector per text, seeded by the text's hash: same text, same vector."""

    name = "bench/random-384"
    dim = DIM

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        out = np.empty((len(texts), DIM), dtype=np.float32)
        for i, text in enumerate(texts):
            seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")
            out[i] = np.random.default_rng(seed).standard_normal(DIM)
        if progress is not None:
            progress(len(texts))
        return out / np.linalg.norm(out, axis=1, keepdims=True)


def prepare(cache: Path, notes: int) -> tuple[Path, Path, float]:
    vault, index = cache / f"vault-{notes}", cache / f"index-{notes}"
    return vault, index, indexed(generated_vault(vault, notes), index, RandomEmbedder())


def percentiles(times: list[float]) -> tuple[float, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return statistics.median(ordered) * 1000, p95 * 1000


def questions(rag: VaultRAG, n: int, salt: str) -> list[str]:
    rng = random.Random(f"{salt}-{n}")
    titles = sorted(note.title for note in rag.graph.notes())
    out = []
    for i in range(n):
        a, b = rng.sample(WORDS, 2)
        out.append(f"What does {rng.choice(titles)} say about {a} and {b}? ({salt} {i})")
    return out


def rss_mb() -> float:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def agreement(rag: VaultRAG, corpus: Corpus, n: int) -> dict:
    """The float16 layout's answers against a float32 corpus of the same snapshot."""
    snap = rag.snapshot
    saved = corpus_module.HALF_ROWS
    corpus_module.HALF_ROWS = 1 << 62
    try:
        exact = build_corpus(snap.index, snap.graph)
    finally:
        corpus_module.HALF_ROWS = saved
    s = rag.settings

    def search(c: Corpus, q: str, vec: np.ndarray) -> list[str]:
        scope = Scope(snap.index, snap.graph, c, s.query)
        return [h.uri for h in semantic_search(scope, q, vec, 10).hits]

    def query(c: Corpus, q: str, vec: np.ndarray) -> dict:
        return run_query(
            QueryRequest.parse(q, s, 4000, seed=0, now=1.7e9),
            index=snap.index,
            graph=snap.graph,
            corpus=c,
            vector=vec,
            tokenizer=rag.tokenizer,
        ).to_json()

    def notes(result: dict) -> list[str]:
        return [n["uri"] for n in (*result["entryNotes"], *result["relatedNotes"])][:10]

    def overlap(a: list[str], b: list[str]) -> float:
        return len(set(a) & set(b)) / max(len(a), len(b)) if a or b else 1.0

    search_overlap, query_overlap, same, error = [], [], 0, 0.0
    for q in questions(rag, n, "agreement"):
        vec = rag.embed_query(q)
        error = max(error, float(np.abs(corpus.chunk_scores(vec) - exact.chunk_scores(vec)).max()))
        a, b = search(exact, q, vec), search(corpus, q, vec)
        search_overlap.append(overlap(a, b))
        qa, qb = query(exact, q, vec), query(corpus, q, vec)
        na, nb = notes(qa), notes(qb)
        query_overlap.append(overlap(na, nb))
        same += qa == qb
    return {
        "questions": n,
        "search_top10": statistics.mean(search_overlap),
        "search_min": min(search_overlap),
        "query_top10": statistics.mean(query_overlap),
        "query_min": min(query_overlap),
        "query_identical": same,
        "max_error": error,
    }


def bench_size(
    cache: Path, notes: int, n_queries: int, embedder: SentenceTransformerEmbedder, n_agree: int
) -> dict:
    vault, index, index_s = prepare(cache, notes)
    started = time.perf_counter()
    rag = VaultRAG.open(index, embedder=embedder, update=False)
    snapshot = rag.snapshot
    _ = snapshot.index.vectors  # the lazy FAISS load is part of opening
    load_s = time.perf_counter() - started

    before = rss_mb()
    started = time.perf_counter()
    corpus = snapshot.corpus
    corpus_s = time.perf_counter() - started
    corpus_mb = rss_mb() - before
    lexical_dir = snapshot.index.generation / lexical_file.FILE
    started = time.perf_counter()
    build_lexical(corpus)
    lexical_build_s = time.perf_counter() - started
    lexical_index(corpus)  # saves it beside the generation if not there yet
    fresh = build_corpus(snapshot.index, snapshot.graph)
    started = time.perf_counter()
    lexical_index(fresh)
    lexical_load_s = time.perf_counter() - started if lexical_dir.exists() else float("nan")
    del fresh
    started = time.perf_counter()
    build_hubs(corpus, snapshot.graph, rag.settings.query)
    hubs_s = time.perf_counter() - started
    for i in range(5):  # the model's first calls, and the hub table
        rag.hierarchical_search(f"warm up {i}", top_k=10)
        rag.query(f"warm up {i}", budget=4000, seed=0)

    row: dict = {
        "notes": len(corpus),
        "chunks": corpus.chunk_count,
        "index_s": index_s,
        "load_s": load_s,
        "corpus_s": corpus_s,
        "lexical_build_s": lexical_build_s,
        "lexical_load_s": lexical_load_s,
        "hubs_s": hubs_s,
        "layout": "float16" if isinstance(corpus.vectors, HalfVectors) else "float32",
        "vectors_mb": corpus.vectors.nbytes() / 2**20,
        "faiss_mb": len(snapshot.index.vectors) * corpus.dim * 4 / 2**20,
        "corpus_mb": corpus_mb,
    }
    calls: dict[str, Callable[[str], object]] = {
        "embedding only (embed_query)": rag.embed_query,
        "query (budget 4000)": lambda q: rag.query(q, budget=4000, seed=0),
        "semantic_search (full)": lambda q: rag.semantic_search(q, top_k=10),
        "hierarchical_search": lambda q: rag.hierarchical_search(q, top_k=10),
        "hybrid_search": lambda q: rag.hybrid_search(q, top_k=10),
        "lexical_search": lambda q: rag.lexical_search(q, top_k=10),
    }
    # The same calls with the question's vector already cached: the engine alone.
    engine: dict[str, Callable[[str], object]] = {
        "query, vector given": lambda q: rag.query(q, budget=4000, seed=0),
        "semantic_search, vector given": lambda q: rag.semantic_search(q, top_k=10),
        "hierarchical_search, vector given": lambda q: rag.hierarchical_search(q, top_k=10),
    }
    # Rows are interleaved question by question, so a change of the machine's load
    # during the run weighs on every row alike.
    n = min(n_queries, MAX_QUESTIONS)
    times: dict[str, list[float]] = {name: [] for name in [*calls, *engine]}
    hub_share = []
    asked = {name: questions(rag, n, name) for name in calls}
    for i in range(n):
        for name, call in calls.items():
            t0 = time.perf_counter()
            result = call(asked[name][i])
            times[name].append(time.perf_counter() - t0)
            if name == "hierarchical_search":
                hub_share.append(len(result.hubs or ()))  # type: ignore[attr-defined]
    shared = questions(rag, n, "engine")
    for q in shared:
        rag.embed_query(q)  # fills the cache of the last 64 questions
    for q in shared:
        for name, call in engine.items():
            t0 = time.perf_counter()
            call(q)
            times[name].append(time.perf_counter() - t0)
    for name, ts in times.items():
        row[name] = percentiles(ts)
    row["hubs_per_search"] = statistics.mean(hub_share) if hub_share else 0
    row["rss_mb"] = rss_mb()
    if n_agree and isinstance(corpus.vectors, HalfVectors):
        row["agreement"] = agreement(rag, corpus, n_agree)
    return row


def table(rows: list[dict]) -> str:
    names = [k for k in rows[0] if isinstance(rows[0][k], tuple)]
    head = "| call | " + " | ".join(f"{r['notes']:,} notes p50 / p95 (ms)" for r in rows) + " |"
    lines = [head, "| --- |" + " --- |" * len(rows)]
    for name in names:
        cells = [f"{r[name][0]:.1f} / {r[name][1]:.1f}" for r in rows]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines.append("")
    lines.append("| one-off | " + " | ".join(f"{r['notes']:,} notes" for r in rows) + " |")
    lines.append("| --- |" + " --- |" * len(rows))
    for key, label in (
        ("chunks", "chunks (rows of the vector matrix)"),
        ("index_s", "indexing with random vectors, s (0 = reused)"),
        ("load_s", "open the index (graph + FAISS), s"),
        ("corpus_s", "per-snapshot arrays (first query), s"),
        ("lexical_build_s", "build the BM25 index, s"),
        ("lexical_load_s", "load the saved BM25 index, s"),
        ("hubs_s", "build the hub table, s"),
        ("layout", "chunk vectors scanned as"),
        ("vectors_mb", "chunk vectors in memory, MB"),
        ("faiss_mb", "FAISS's vectors (the snapshot's), MB"),
        ("corpus_mb", "process memory added by the per-snapshot arrays, MB"),
        ("rss_mb", "process memory after the run, MB"),
    ):
        cells = [_cell(key, r[key]) for r in rows]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    for r in rows:
        a = r.get("agreement")
        if a:
            lines.append(
                f"\nfloat16 scan vs float32 at {r['notes']:,} notes, {a['questions']} questions: "
                f"semantic_search top-10 overlap {a['search_top10']:.1%} (lowest {a['search_min']:.0%}), "
                f"query's first 10 notes {a['query_top10']:.1%} (lowest {a['query_min']:.0%}), "
                f"identical query results {a['query_identical']}/{a['questions']}, "
                f"largest chunk-score difference {a['max_error']:.1e}."
            )
    return "\n".join(lines)


def _cell(key: str, value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, int):
        return f"{value:,}"
    return f"{value:.0f}" if key.endswith("_mb") else f"{value:.2f}"


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", type=Path, default=Path("/tmp/vault-graphrag-bench"))
    ap.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument(
        "--agreement", type=int, default=50, help="questions comparing float16 with float32"
    )
    ap.add_argument("--out", type=Path, help="append the table to this Markdown file")
    ap.add_argument(
        "--smoke",
        action="store_true",
        help="a 300-note vault, 5 questions, random question vectors: checks the script runs",
    )
    args = ap.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    embedder: Any
    if args.smoke:
        args.sizes, args.queries, args.agreement = [300], 5, 0
        embedder = RandomEmbedder()
    else:
        embedder = SentenceTransformerEmbedder()
        embedder.load()
    start = os.getloadavg()[0]
    rows = [bench_size(args.cache, n, args.queries, embedder, args.agreement) for n in args.sizes]
    load = os.getloadavg()
    text = (
        f"{table(rows)}\n\nMachine: {os.cpu_count()} cores, load average {start:.1f} at the start "
        f"and {load[0]:.1f} (5 min: {load[1]:.1f}) at the end of the run; "
        f"query model {embedder.name} ({getattr(embedder, 'effective_dtype', 'float32')}); "
        f"{min(args.queries, MAX_QUESTIONS)} unique questions per call and size.\n"
    )
    print(text)
    if args.out:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
