"""Where a server's memory goes: resident size after each step of serving a vault.

One process does what ``vault-graphrag serve`` does, step by step, and reads its own
``VmRSS`` after each: the libraries, the graph, the per-snapshot arrays (chunk
vectors, FAISS's copy), the BM25 index, the token table, the query model (the
configured backend; ``--torch`` adds sentence-transformers for comparison), a run of
queries, then ``--reloads`` new snapshots of the same index with queries between
(what a watcher's updates do: caches kept for old generations would show here), and
``--edits`` rounds of what the watcher does on an edit (append a line to a note, update
the index, warm the new snapshot) on a private copy of the vault and index. After each
step the process trims its heap as the server does every 30 s (``serve/memory.py``), so
a row is what is held, not what glibc kept of freed memory. ``--tracemalloc`` adds the
Python heap's largest holders at the end, by file (what is left of RSS is native:
ONNX Runtime, FAISS, numpy's arrays, tiktoken, SQLite's page cache); ``--smaps``, what
each step added by mapping (the heap, anonymous memory, each library and model file).

    VAULTRAG_EMBEDDING__BACKEND=onnx python benchmarks/bench_memory.py \\
        --vaults ../shared/vaults --vault obsidian-help --index-dir /tmp/idx/obsidian-help
    python benchmarks/bench_memory.py --smoke   # sample_vault, hash embedder (CI)
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_soak import smaps_by_mapping  # noqa: E402
from benchmarks.common import HELP_QUESTIONS as QUESTIONS  # noqa: E402
from benchmarks.common import rss_mb, smoke_index  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vaults", type=Path)
    ap.add_argument("--vault", default="obsidian-help")
    ap.add_argument("--index-dir", type=Path)
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--reloads", type=int, default=5)
    ap.add_argument("--edits", type=int, default=10, help="edit-and-update rounds (0: none)")
    ap.add_argument("--torch", action="store_true", help="also load sentence-transformers")
    ap.add_argument("--tracemalloc", action="store_true", help="the Python heap's holders")
    ap.add_argument("--smaps", action="store_true", help="what each step added, by mapping")
    ap.add_argument("--smoke", action="store_true")
    args = ap.parse_args(argv)
    if args.tracemalloc:
        tracemalloc.start()
    steps: list[tuple[str, float]] = [
        ("python, numpy and the indexer (this script's imports)", rss_mb())
    ]
    maps: list[dict[str, float]] = [smaps_by_mapping(os.getpid())] if args.smaps else []
    from graphrag.serve.memory import limit_arenas, trim

    limit_arenas()  # as serve does before its threads start

    def step(name: str) -> None:
        trim()
        steps.append((name, rss_mb()))
        if args.smaps:
            maps.append(smaps_by_mapping(os.getpid()))

    from graphrag import VaultRAG

    if args.smoke:
        vault, index_dir = smoke_index()
        args.queries, args.reloads, args.edits = 5, 2, 2
    else:
        if args.vaults is None or args.index_dir is None:
            ap.error("give --vaults and --index-dir (or --smoke)")
        vault, index_dir = args.vaults / args.vault, args.index_dir
    work = Path(tempfile.mkdtemp(prefix="bench-memory-"))
    if args.edits:  # edits write: a private copy (copy2 keeps mtimes, so it stays current)
        shutil.copytree(vault, work / "vault", copy_function=shutil.copy2)
        shutil.copytree(index_dir, work / "index", copy_function=shutil.copy2)
        vault, index_dir = work / "vault", work / "index"
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
    if args.edits:
        from graphrag.serve.live import LiveIndex

        live = LiveIndex(rag)
        notes = sorted(vault.rglob("*.md"))
        for i in range(args.edits):
            with open(notes[(i * 7) % len(notes)], "a", encoding="utf-8") as fh:
                fh.write(f"\nan edit by bench_memory {i}\n")
            live.update(reason="bench_memory")
            rag.query(f"{QUESTIONS[i % len(QUESTIONS)]} edit {i}", seed=1)
        step(f"{args.edits} edits, each indexed and the new snapshot warmed, a query after")
    if args.torch:
        from indexer.st_embed import SentenceTransformerEmbedder

        SentenceTransformerEmbedder().load()
        step("+ sentence-transformers model (torch), for comparison")
    held = tracemalloc.take_snapshot() if args.tracemalloc else None
    shutil.rmtree(work, ignore_errors=True)
    width = max(len(name) for name, _ in steps)
    print(f"| {'step'.ljust(width)} | RSS MB | added MB |")
    print(f"| {'-' * width} | --- | --- |")
    before = 0.0
    for name, mb in steps:
        print(f"| {name.ljust(width)} | {mb:.0f} | {mb - before:+.0f} |")
        before = mb
    if maps:
        print(
            "\nWhat each step added, by mapping (MB; [heap] and [anon] are malloc's and mmap's):\n"
        )
        print("| step | largest additions |")
        print("| --- | --- |")
        for (name, _), before_map, after_map in zip(steps[1:], maps[:-1], maps[1:], strict=True):
            added = {k: v - before_map.get(k, 0.0) for k, v in after_map.items()}
            top = sorted(((v, k) for k, v in added.items() if abs(v) >= 1), reverse=True)[:4]
            print(f"| {name} | {', '.join(f'{k} {v:+.0f}' for v, k in top)} |")
    if held is not None:
        stats = held.statistics("filename")
        total = sum(st.size for st in stats) / 1e6
        print(f"\nPython heap (tracemalloc): {total:.1f} MB in all; the largest holders:\n")
        print("| file | MB | blocks |")
        print("| --- | --- | --- |")
        for st in stats[:15]:
            name = st.traceback[0].filename
            short = name.split("site-packages/")[-1].split("/work/main/")[-1]
            print(f"| {short} | {st.size / 1e6:.1f} | {st.count} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
