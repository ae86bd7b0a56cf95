"""Where query mode's time goes: CPU milliseconds per question, by part of ``run_query``.

In process, the index warmed as ``serve`` warms it before its first request
(``LiveIndex.warm``), each question asked once. Two sets:

* ``10k``: the 10,000-note vault of ``gen_vault.py`` indexed with the hashing embedder
  (``bench_ask.py``'s, in ``--work``), 300 questions made from note titles as
  ``bench_ask.py`` makes them, after 30 unrecorded ones; budget 2,000, prompt output
  (what ``/ask`` retrieves). The hashing embedder embeds the questions, so the model
  is left out.
* ``hub``: ``--index-dir`` (obsidian-hub), ``bench_tail.py``'s 100 questions (40 hub
  titles, 60 random titles), default budget, JSON output; the configured embedder.

The parts are timed by wrapping the functions ``run_query`` calls (nested parts, such
as copy detection within packing, are listed indented); then the CPU time per
question, p50/p90/p99 (``--slowest N`` lists the slowest questions).

    python benchmarks/bench_query_parts.py --set 10k --work /tmp/bench-ask
    python benchmarks/bench_query_parts.py --set hub --index-dir /tmp/team/idx/obsidian-hub
    python benchmarks/bench_query_parts.py --smoke   # sample_vault, hash embedder (CI)
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_server import QUESTIONS  # noqa: E402
from benchmarks.common import (  # noqa: E402
    generated_vault,
    hash_embedder,
    indexed,
    smoke_index,
    tail_questions,
)

# (module, owner or None, function, label); nested parts are indented in the table.
PARTS = [
    ("graphrag.query.mode", None, "select_entries", "entries"),
    ("graphrag.query.entry", None, "fuzzy_matches", "  misspelled titles"),
    ("graphrag.snapshot.corpus", "Corpus", "chunk_scores", "vector scan"),
    ("graphrag.snapshot.lexical", "LexicalIndex", "score", "BM25"),
    ("graphrag.query.mode", None, "_discover", "traversal"),
    ("graphrag.query.mode", None, "link_context", "link context"),
    ("graphrag.query.mode", None, "rank", "rerank"),
    ("graphrag.query.mode", None, "text_ranking", "text ranking"),
    ("graphrag.query.mode", None, "fused_ranking", "hybrid ranking (fill)"),
    ("graphrag.query.mode", None, "search_hits", "search hits"),
    ("graphrag.query.pack", "Packer", "pack_entries", "packing: entries"),
    ("graphrag.query.pack", "Packer", "pack_related", "packing: related notes, hits"),
    ("graphrag.query.pack", "Packer", "pack_lists", "packing: lists"),
    ("graphrag.query.pack", "Packing", "copy_of", "  copy detection"),
    ("graphrag.query.pack", "Packing", "cost", "  token counts"),
    ("graphrag.query.mode", None, "connection_lines", "connection lines"),
]


def timed(f: Callable[..., Any], label: str, spent: Counter[str]) -> Callable[..., Any]:
    def run(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            spent[label] += time.process_time() - start

    return run


def wrap_parts(spent: Counter[str]) -> None:
    """Time each part into ``spent`` (CPU seconds by label)."""
    import importlib

    for module_name, owner_name, name, label in PARTS:
        module = importlib.import_module(module_name)
        owner: Any = getattr(module, owner_name) if owner_name else module
        if hasattr(owner, name):
            setattr(owner, name, timed(getattr(owner, name), label, spent))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--set", choices=("10k", "hub"), default="10k")
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-ask"))
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--slowest", type=int, default=0, help="list the N slowest questions")
    args = ap.parse_args(argv)
    from graphrag import VaultRAG
    from graphrag.serve import memory
    from graphrag.serve.live import LiveIndex

    budget: int | None
    if args.smoke:
        _vault, index_dir = smoke_index()
        rag = VaultRAG.open(index_dir, update=False)
        titles = sorted(n.title for n in rag.graph.notes())
        questions, warm, budget, output = titles[:6], titles[6:8], 2000, "prompt"
    elif args.set == "10k":
        vault = generated_vault(args.work / "vault-10000", 10_000)
        index_dir = args.work / "index-10000"
        indexed(vault, index_dir)
        rag = VaultRAG.open(index_dir, embedder=hash_embedder(), update=False)
        titles = sorted(n.title for n in rag.graph.notes())
        random.Random(0).shuffle(titles)
        asked = [QUESTIONS[i % len(QUESTIONS)].format(t) for i, t in enumerate(titles[:330])]
        questions, warm, budget, output = asked[30:], asked[:30], 2000, "prompt"
    else:
        if args.index_dir is None:
            ap.error("--set hub needs --index-dir")
        rag = VaultRAG.open(args.index_dir, update=False)
        hubs, picked = tail_questions(rag, 40, 60)
        questions, warm, budget, output = hubs + picked, [], None, "json"
    LiveIndex(rag).warm(counts=True)
    memory.freeze_heap()
    for q in questions:
        rag.embed_query(q)
    for q in warm:
        rag.query(q, budget, output=output)
    spent: Counter[str] = Counter()
    wrap_parts(spent)
    totals = []
    for q in questions:
        start = time.process_time()
        rag.query(q, budget, output=output)
        totals.append(time.process_time() - start)
    per_question = list(totals)
    n = len(questions)
    totals.sort()
    print(
        f"{'smoke' if args.smoke else args.set}: {n} questions, CPU ms per question, "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print("| part | mean ms |")
    print("| --- | --- |")
    for _module, _owner, _name, label in PARTS:
        if label in spent:
            print(f"| {label} | {spent[label] / n * 1000:.2f} |")
    print(f"| **total** (p50 {totals[n // 2] * 1000:.1f}) | {sum(totals) / n * 1000:.2f} |")
    p50, p90, p99 = (totals[min(n - 1, round(p * (n - 1)))] * 1000 for p in (0.5, 0.9, 0.99))
    print(
        f"\nCPU ms per question: p50 {p50:.1f}, p90 {p90:.1f}, p99 {p99:.1f}, p99/p50 {p99 / p50:.2f}"
    )
    if args.slowest:
        for spent_q, q in sorted(zip(per_question, questions, strict=True), reverse=True)[
            : args.slowest
        ]:
            print(f"  {spent_q * 1000:.1f} ms  {q}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
