"""Focus-mode latency with the graph already loaded.

For obsidian-hub (in the ``--vaults`` folder) and synthetic vaults of 10k and 100k notes
(benchmarks/gen_vault.py), indexed once into CACHE with a cheap 16-dim fake
embedder (focus mode reads no vectors), time ``VaultRAG.focus`` on notes picked
at random (fixed seed) at a 2000-token budget: a first pass over the notes
(cold per-note token caches) and a second pass (warm), p50 and p95 of each.

Usage::

    python benchmarks/bench_focus.py --cache /tmp/bench-focus --vaults ../shared/vaults
        [--notes 200] [--sizes 10000,100000]
    python benchmarks/bench_focus.py --cache /tmp/smoke --smoke   # seconds (CI)
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import generated_vault, indexed  # noqa: E402
from graphrag import VaultRAG  # noqa: E402
from tests.support.fakes import HashEmbedder  # noqa: E402


def ensure_index(vault: Path, index_dir: Path) -> None:
    indexed(vault, index_dir, HashEmbedder(dim=16, name="bench/fake16"))


def ensure_vault(cache: Path, notes: int) -> Path:
    return generated_vault(cache / f"vault-{notes}", notes)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def bench(name: str, vault: Path, index_dir: Path, count: int, budget: int) -> dict:
    ensure_index(vault, index_dir)
    start = time.perf_counter()
    rag = VaultRAG.open(index_dir, update=False, embedder=HashEmbedder(dim=16, name="bench/fake16"))
    graph = rag.graph
    load_s = time.perf_counter() - start
    uris = sorted(n.uri for n in graph.notes())
    picks = random.Random(0).sample(uris, min(count, len(uris)))
    row: dict = {"vault": name, "notes": len(uris), "load_s": round(load_s, 2)}
    for label in ("cold", "warm"):
        times, related = [], []
        for i, uri in enumerate(picks):
            t0 = time.perf_counter()
            result = rag.focus(uri, budget=budget, seed=i)
            times.append((time.perf_counter() - t0) * 1000)
            related.append(len(result.related_notes))
        row[f"{label}_p50_ms"] = round(statistics.median(times), 2)
        row[f"{label}_p95_ms"] = round(percentile(times, 0.95), 2)
    row["related_median"] = statistics.median(related)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, required=True, help="where vaults and indexes live")
    parser.add_argument("--notes", type=int, default=200, help="focus calls per pass")
    parser.add_argument("--budget", type=int, default=2000)
    parser.add_argument("--sizes", default="10000,100000", help="synthetic vault sizes")
    parser.add_argument("--vaults", type=Path, help="the folder holding obsidian-hub")
    parser.add_argument("--smoke", action="store_true", help="one 300-note vault, 5 notes")
    args = parser.parse_args()
    if args.smoke:
        args.sizes, args.notes = "300", 5
    args.cache.mkdir(parents=True, exist_ok=True)
    rows = []
    if args.vaults is not None:
        hub = args.vaults / "obsidian-hub"
        if not hub.is_dir():
            parser.error(f"{hub}: no such vault (--vaults names the folder holding it)")
        rows.append(bench("obsidian-hub", hub, args.cache / "index-hub", args.notes, args.budget))
        print(rows[-1], flush=True)
    elif not args.smoke:
        print("obsidian-hub: not measured (give --vaults)", flush=True)
    for size in (int(s) for s in args.sizes.split(",") if s):
        vault = ensure_vault(args.cache, size)
        rows.append(
            bench(f"synthetic-{size}", vault, args.cache / f"index-{size}", args.notes, args.budget)
        )
        print(rows[-1], flush=True)
    keys = list(rows[0])
    print("| " + " | ".join(keys) + " |")
    print("|" + "---|" * len(keys))
    for r in rows:
        print("| " + " | ".join(str(r[k]) for k in keys) + " |")
    print(f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
