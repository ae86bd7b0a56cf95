"""The tail of query latency on a real vault: p50, p90, p99 of ``query`` and lexical search.

Questions are the titles of the notes with the most links (their entry notes are link
hubs: the case that made ``link_context`` quadratic) and of notes picked at random, in
process, each asked once (its embedding included), the index loaded and warmed first
as ``serve`` warms it before its first request (``LiveIndex.warm``): wall time, and the
process's CPU time per question (steadier than wall time on a loaded machine). Also:
how much of a lexical search is choosing its snippets (``lexical_hits``) rather than
BM25 scoring.

    python benchmarks/bench_tail.py --vaults ../shared/vaults --vault obsidian-hub \\
        --index-dir /tmp/idx/obsidian-hub [--hubs 40] [--random 60]
    python benchmarks/bench_tail.py --smoke   # sample_vault, hash embedder (CI)

Also printed: the garbage collector's work while the questions ran (collections per
generation and the wall time in them, which lands on whichever question is running),
and with ``--slowest N`` the N slowest questions (wall and CPU ms).
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import smoke_index, tail_questions  # noqa: E402


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p * (len(ordered) - 1)))] * 1000


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vaults", type=Path)
    ap.add_argument("--vault", default="obsidian-hub")
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--hubs", type=int, default=40)
    ap.add_argument("--random", type=int, default=60)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--slowest", type=int, default=0, help="list the N slowest questions")
    ap.add_argument(
        "--hash384", action="store_true", help="an index made with bench's hash embedder"
    )
    args = ap.parse_args(argv)
    if args.smoke:
        vault, index_dir = smoke_index()
        args.hubs, args.random = 3, 3
    else:
        if args.vaults is None or args.index_dir is None:
            ap.error("give --vaults and --index-dir (or --smoke)")
        vault, index_dir = args.vaults / args.vault, args.index_dir
    from graphrag import VaultRAG
    from graphrag.search import searches
    from graphrag.serve import memory
    from graphrag.serve.live import LiveIndex

    embedder = None
    if args.hash384:
        from benchmarks.common import hash_embedder

        embedder = hash_embedder()
    rag = VaultRAG.open(index_dir, update=False, embedder=embedder)
    hubs, picked = tail_questions(rag, args.hubs, args.random)
    questions = hubs + picked
    # What `serve` does before its first request (the start-up preload): vectors, query
    # arrays, BM25, every note's details counted (so tiktoken's encoder is built), then
    # the warm heap frozen so full collections skip it.
    LiveIndex(rag).warm(counts=True)
    memory.freeze_heap()  # as serve's preload ends
    rag.query("warm up", seed=0)
    rag.lexical_search("warm up")
    query_times, lexical_times, snippet_times = [], [], []
    hits = searches.lexical_hits

    def timed_hits(*a: object, **k: object) -> object:
        start = time.perf_counter()
        out = hits(*a, **k)  # type: ignore[arg-type]
        snippet_times.append(time.perf_counter() - start)
        return out

    searches.lexical_hits = timed_hits  # type: ignore[assignment]
    cpu_times: list[float] = []
    collections = [[0, 0.0] for _ in range(3)]  # per generation: how many, seconds
    started = [0.0]

    def collecting(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            collections[info["generation"]][0] += 1
            collections[info["generation"]][1] += time.perf_counter() - started[0]

    gc.callbacks.append(collecting)
    for q in questions:
        start, cpu = time.perf_counter(), time.process_time()
        rag.query(q, seed=1)
        query_times.append(time.perf_counter() - start)
        cpu_times.append(time.process_time() - cpu)
        start = time.perf_counter()
        rag.lexical_search(q)
        lexical_times.append(time.perf_counter() - start)
    gc.callbacks.remove(collecting)
    print(
        f"{vault.name}: {len(hubs)} hub titles + {len(picked)} random titles, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print("| call | p50 ms | p90 ms | p99 ms | p99 / p50 |")
    print("| --- | --- | --- | --- | --- |")
    for name, ts in (
        ("query", query_times),
        ("  query, CPU time", cpu_times),
        ("lexical search", lexical_times),
        ("  of which choosing snippets", snippet_times),
    ):
        print(
            f"| {name} | {pct(ts, 0.5):.1f} | {pct(ts, 0.9):.1f} | {pct(ts, 0.99):.1f} "
            f"| {pct(ts, 0.99) / max(pct(ts, 0.5), 1e-9):.1f} |"
        )
    share = statistics.median(s / t for s, t in zip(snippet_times, lexical_times, strict=True))
    print(f"\nmedian share of a lexical search spent choosing snippets: {share:.0%}")
    print(
        "garbage collections while asking (generation: count, ms): "
        + ", ".join(f"{g}: {n}, {t * 1000:.1f}" for g, (n, t) in enumerate(collections))
    )
    slowest = sorted(zip(query_times, cpu_times, questions, strict=True), reverse=True)
    for wall, cpu, q in slowest[: args.slowest]:
        print(f"  {wall * 1000:.1f} ms ({cpu * 1000:.1f} CPU)  {q}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
