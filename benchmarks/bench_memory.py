"""Where a server's memory goes: resident size after each step of serving a vault.

One process does what ``vault-graphrag serve`` does, step by step, and reads its own
``VmRSS`` after each: the libraries, the graph, the per-snapshot arrays (chunk
vectors, FAISS's copy), the BM25 index, the token table, the query model (the
configured backend; ``--torch`` adds sentence-transformers for comparison), a run of
queries, then ``--reloads`` new snapshots of the same index with queries between
(what a watcher's updates do: caches kept for old generations would show here).

    VAULTRAG_EMBEDDING__BACKEND=onnx python benchmarks/bench_memory.py \\
        --vaults ../shared/vaults --vault obsidian-help --index-dir /tmp/idx/obsidian-help
    python benchmarks/bench_memory.py --smoke   # sample_vault, hash embedder (CI)
"""

from __future__ import annotations

import argparse
import gc
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import HELP_QUESTIONS as QUESTIONS  # noqa: E402
from benchmarks.common import rss_mb, smoke_index  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vaults", type=Path)
    ap.add_argument("--vault", default="obsidian-help")
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--reloads", type=int, default=5)
    ap.add_argument("--torch", action="store_true", help="also load sentence-transformers")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    steps: list[tuple[str, float]] = [("python", rss_mb())]

    def step(name: str) -> None:
        gc.collect()
        steps.append((name, rss_mb()))

    from graphrag import VaultRAG

    if args.smoke:
        vault, index_dir = smoke_index()
        args.queries, args.reloads = 5, 2
    else:
        if args.vaults is None or args.index_dir is None:
            ap.error("give --vaults and --index-dir (or --smoke)")
        vault, index_dir = args.vaults / args.vault, args.index_dir
    import fastapi  # noqa: F401 - the server's framework, as serve imports it
    import uvicorn  # noqa: F401

    from graphrag.serve.app import create_app

    step("libraries (graphrag, FastAPI, uvicorn)")
    rag = VaultRAG.open(vault, index_dir=index_dir, update=False)
    create_app(rag)
    rag.snapshot  # noqa: B018
    step("index opened, graph loaded")

    rag.snapshot.corpus  # noqa: B018 - built on first use
    step("per-snapshot arrays (chunk vectors) and FAISS")
    rag.lexical_search("warm up")
    step("BM25 index")
    rag.tokenizer.count("warm up")
    step("token table (tiktoken)")
    rag.embed_query("warm up")
    step(f"query model ({rag.embedder.name}, {type(rag.embedder).__name__})")
    for i in range(args.queries):
        rag.query(f"{QUESTIONS[i % len(QUESTIONS)]} {i}", seed=1)
        rag.focus(rag.graph.info(sorted(n.uri for n in rag.graph.notes())[i % 50]).uri, seed=1)
    step(f"{args.queries} queries and focus calls")
    for _ in range(args.reloads):
        rag.reload()
        for i in range(10):
            rag.query(f"{QUESTIONS[i % len(QUESTIONS)]} again {i}", seed=1)
    step(f"{args.reloads} reloads (new snapshots), 10 queries after each")
    if args.torch:
        from indexer.st_embed import SentenceTransformerEmbedder

        SentenceTransformerEmbedder().load()
        step("+ sentence-transformers model (torch), for comparison")
    width = max(len(name) for name, _ in steps)
    print(f"| {'step'.ljust(width)} | RSS MB | added MB |")
    print(f"| {'-' * width} | --- | --- |")
    before = 0.0
    for name, mb in steps:
        print(f"| {name.ljust(width)} | {mb:.0f} | {mb - before:+.0f} |")
        before = mb
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
