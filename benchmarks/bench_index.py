"""Indexing speed on real vaults.

For each vault (default: every folder under ../shared/vaults), on a private copy
in a temp dir (the shared vaults are read-only, and one note gets edited):

* parse+resolve+graph: ``indexer.parse_vault`` (both cores), median of 3;
* full index with the real model, and the chunk count;
* bare embedding: the same chunk texts through the same embedder, nothing else;
* no-change re-index, median of 3;
* one changed note re-indexed (model already loaded in this process).

Usage::

    python benchmarks/bench_index.py [VAULT ...] [--skip-embed] [--out FILE]
        [--backend auto|onnx|torch] [--dtype auto|float32|bfloat16] [--pairs N]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from indexer import build_index, load_index, parse_vault  # noqa: E402
from indexer.config import EmbeddingSettings  # noqa: E402
from indexer.embed import Embedder, make_embedder  # noqa: E402

SHARED = ROOT.parent / "shared" / "vaults"


def timed(fn, repeat: int = 1) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def bench_vault(vault: Path, embedder: Embedder | None, pairs: int = 1) -> dict:
    work = Path(tempfile.mkdtemp(prefix="bench-index-"))
    try:
        copy = work / "vault"
        shutil.copytree(vault, copy)
        size_mb = sum(p.stat().st_size for p in copy.rglob("*.md")) / 1e6
        parse_s, (built, notes, _) = timed(lambda: parse_vault(copy), repeat=3)
        row = {
            "vault": vault.name,
            "notes": len(notes),
            "MB": round(size_mb, 1),
            "edges": built.graph.number_of_edges(),
            "parse_graph_s": round(parse_s, 2),
        }
        if embedder is None:
            return row
        # Full index and bare embedding in turns (A B A B ...): on a shared machine the
        # load drifts by tens of percent within minutes, and each pair sees the same.
        ratios, fulls, bares = [], [], []
        for n in range(pairs):
            index_dir = work / f"index-{n}"
            full_s, stats = timed(lambda d=index_dir: build_index(copy, d, embedder=embedder))
            texts = chunk_texts(index_dir)
            bare_s, _ = timed(lambda t=texts: embedder.embed(t))
            fulls.append(full_s)
            bares.append(bare_s)
            ratios.append(full_s / bare_s if bare_s else float("nan"))
        full_s, bare_s = statistics.median(fulls), statistics.median(bares)
        nochange_s, _ = timed(lambda: build_index(copy, index_dir, embedder=embedder), repeat=3)
        victim = max(copy.rglob("*.md"), key=lambda p: p.stat().st_size)
        with open(victim, "a", encoding="utf-8") as fh:
            fh.write("\n\nAn added closing paragraph about benchmark edits.\n")
        one_s, one = timed(lambda: build_index(copy, index_dir, embedder=embedder))
        row.update(
            chunks=stats.chunks,
            full_index_s=round(full_s, 1),
            bare_embed_s=round(bare_s, 1),
            ratio=round(statistics.median(ratios), 3),
            pair_ratios=" ".join(f"{r:.3f}" for r in ratios),
            nochange_s=round(nochange_s, 3),
            one_change_s=round(one_s, 3),
            one_change_embedded=one.chunks_embedded,
        )
        return row
    finally:
        shutil.rmtree(work, ignore_errors=True)


def chunk_texts(index_dir: Path) -> list[str]:
    """The exact texts that were embedded (title + heading path + body), one per vector."""
    snap = load_index(index_dir)
    rows = snap.db.execute(
        "SELECT c.vec_id, n.title, c.heading_path, c.text FROM chunks c JOIN notes n USING (uri)"
    ).fetchall()
    seen: dict[int, str] = {}
    for vec_id, title, path, text in rows:
        prefix = f"{title}\n{path}\n\n" if path else f"{title}\n\n"
        seen.setdefault(vec_id, (prefix + text) if text else prefix.strip())
    return list(seen.values())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vaults", nargs="*", type=Path)
    parser.add_argument("--skip-embed", action="store_true", help="parse+graph only")
    parser.add_argument("--out", type=Path, help="append the Markdown table to this file")
    parser.add_argument(
        "--backend", default="auto", help="embedding.backend (auto, onnx, torch, ...)"
    )
    parser.add_argument("--dtype", default="auto", help="embedding.dtype (torch backend)")
    parser.add_argument(
        "--pairs", type=int, default=1, help="full index + bare embedding pairs (median ratio)"
    )
    args = parser.parse_args()
    vaults = args.vaults or sorted(p for p in SHARED.iterdir() if p.is_dir() and p.name[0] != "_")
    embedder = None
    if not args.skip_embed:
        embedder = make_embedder(EmbeddingSettings(backend=args.backend, dtype=args.dtype))
        start = time.perf_counter()
        embedder.load()  # type: ignore[attr-defined]
        kind = f"{getattr(embedder, 'backend', '?')} {getattr(embedder, 'effective_dtype', '?')}"
        print(f"model load {time.perf_counter() - start:.1f} s ({kind})")
    rows = []
    for vault in vaults:
        row = bench_vault(vault, embedder, args.pairs)
        print(row, flush=True)
        rows.append(row)
    keys = list(rows[0])
    table = ["| " + " | ".join(keys) + " |", "|" + "---|" * len(keys)]
    table += ["| " + " | ".join(str(r.get(k, "")) for k in keys) + " |" for r in rows]
    print("\n".join(table))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write("\n".join(table) + "\n")


if __name__ == "__main__":
    main()
