"""What the benchmark scripts share: a generated vault, indexed once with a fake embedder.

Embedding thousands of notes with the real model takes minutes and is not what
the scripts measure, so their indexes are built with ``tests.support.fakes.HashEmbedder``
under a model name of their own.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchmarks.gen_vault import generate_vault
from indexer import build_index
from indexer.embed import Embedder
from tests.support.fakes import HashEmbedder

if TYPE_CHECKING:
    from graphrag.api import VaultRAG

ROOT = Path(__file__).resolve().parents[1]
HASH_MODEL = "bench/hash-384"  # the 384-d hashing embedder the server benchmarks index with


def hash_embedder() -> HashEmbedder:
    return HashEmbedder(dim=384, name=HASH_MODEL)


def generated_vault(vault: Path, notes: int, seed: int = 0) -> Path:
    """``gen_vault.py``'s vault of ``notes`` notes at ``vault``, generated unless a
    finished one is there (``.generated`` is written last, so a killed run starts over)."""
    if not (vault / ".generated").exists():
        shutil.rmtree(vault, ignore_errors=True)
        generate_vault(str(vault), notes, seed=seed)
        (vault / ".generated").write_text(str(notes))
    return vault


def indexed(vault: Path, index_dir: Path, embedder: Embedder | None = None) -> float:
    """Index ``vault`` into ``index_dir`` unless an index is there; seconds it took (0 if none)."""
    if (index_dir / "manifest.json").exists():
        return 0.0
    started = time.perf_counter()
    stats = build_index(vault, index_dir, embedder=embedder or hash_embedder())
    seconds = time.perf_counter() - started
    print(
        f"indexed {stats.notes} notes ({stats.chunks} chunks) of {vault} in {seconds:.1f} s",
        flush=True,
    )
    return seconds


# Questions about obsidian-help, for the benchmarks that run a stream of them.
HELP_QUESTIONS = [
    "how do I embed a file",
    "sync my vault between devices",
    "what is a canvas",
    "keyboard shortcuts for search",
    "how do I link to a heading",
    "publish a site with a custom domain",
    "templates with dates",
    "graph view filters",
]


def tail_questions(rag: Any, hubs: int, random_notes: int) -> tuple[list[str], list[str]]:
    """The titles of the ``hubs`` notes with the most links, and of ``random_notes``
    notes picked at random (seed 0): bench_tail's question set, whose hub titles are
    the slow questions on a vault of link hubs."""
    import random

    db = rag.snapshot.index.db
    top = [
        rag.graph.info(uri).title
        for uri, _ in db.execute(
            "SELECT source, COUNT(*) c FROM links WHERE hierarchy = 0 GROUP BY source "
            "ORDER BY c DESC, source LIMIT ?",
            (hubs,),
        )
    ]
    notes = sorted(n.uri for n in rag.graph.notes())
    picked = random.Random(0).sample(notes, min(random_notes, len(notes)))
    return top, [rag.graph.info(u).title for u in picked]


def rss_mb(pid: int | str = "self") -> float:
    """Resident memory of a process (this one by default), from /proc."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def smoke_index() -> tuple[Path, Path]:
    """(sample_vault, a fresh index of it in a temp folder): a benchmark's ``--smoke`` run,
    indexed by the CLI in a subprocess with the configured embedder (the tests set it)."""
    import subprocess
    import sys
    import tempfile

    root = Path(__file__).resolve().parent.parent
    vault = root / "sample_vault"
    index_dir = Path(tempfile.mkdtemp(prefix="bench-smoke-")) / "index"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "graphrag",
            "index",
            str(vault),
            "--index-dir",
            str(index_dir),
            "-q",
        ],
        cwd=root,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return vault, index_dir


def qa_parser(description: str, qa_help: str, budgets: str) -> argparse.ArgumentParser:
    """The arguments of a script that asks a question set of a vault: the set, ``--vault``,
    ``--budget`` (default ``budgets``) and ``--smoke`` (sample_vault's set, at 1,000)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("qa", nargs="?", help=qa_help)
    parser.add_argument("--vault", help="the vault or index folder the set is asked of")
    parser.add_argument("--budget", default=budgets)
    parser.add_argument("--smoke", action="store_true", help="the sample vault, one budget")
    return parser


@contextmanager
def opened_qa(
    parser: argparse.ArgumentParser, args: argparse.Namespace
) -> Iterator[tuple[VaultRAG, Path, list[int]]]:
    """The vault (never updated: a shared index stays as it is), the set and the budgets
    ``qa_parser``'s ``args`` name; with ``--smoke``, sample_vault indexed in a temp folder."""
    from graphrag.api import VaultRAG

    with tempfile.TemporaryDirectory() as tmp:
        if args.smoke:
            rag = VaultRAG.open(ROOT / "sample_vault", index_dir=Path(tmp) / "idx")
            yield rag, ROOT / "benchmarks" / "qa" / "sample_vault.jsonl", [1000]
            return
        if not args.qa or not args.vault:
            parser.error("a question set and --vault are needed (or --smoke)")
        rag = VaultRAG.open(args.vault, update=False)
        yield rag, Path(args.qa), [int(b) for b in args.budget.split(",")]
