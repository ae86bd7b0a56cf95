"""Chunking one long paragraph, and whether two trees cut real notes alike.

Each measurement runs in a fresh process that imports ``indexer`` from the tree given
(``--tree``, default this checkout), so a before-tree and an after-tree are timed with the
same generated text, interleaved pair by pair; the median of ``--pairs`` runs is shown.
The process builds tiktoken's encoder and spends the Python counter's share
(``tokens.PYTHON_CHARS``) before the clock starts, as an indexing run has after its first
notes, and only ``chunk_note`` is timed (no parsing, no embedding). Each row also gives a
digest of the chunks, so two trees that cut alike show the same digest.

Shapes (one paragraph: no newline at all):

* ``list``: words joined by ", ", no sentence end (short units: each span grows by a word);
* ``prose``: sentences of 5-20 words;
* ``blob``: base64 (one "word" longer than a chunk, cut at token boundaries).

``--vaults`` instead chunks every note of each vault (default: every folder under
../shared/vaults) with each tree and prints the notes, chunks and a digest of all of them.

Usage::

    python benchmarks/bench_chunk.py [--tree DIR ...] [--kb 50,100,200,400]
        [--shape list,prose,blob] [--pairs 3] [--limit 256]
    python benchmarks/bench_chunk.py --vaults [VAULT ...] [--tree DIR ...]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "vaults"
WORDS = [
    "cellar",
    "school",
    "house",
    "climate",
    "vent",
    "shelf",
    "board",
    "wheel",
    "brine",
    "salt",
    "water",
    "cheese",
    "rind",
    "milk",
    "curd",
    "whey",
    "press",
    "mould",
    "cloth",
    "knife",
    "ladle",
    "copper",
    "kettle",
    "morning",
    "evening",
    "summer",
    "winter",
    "valley",
    "meadow",
    "herd",
    "cow",
    "goat",
    "sheep",
    "bell",
    "path",
    "stone",
    "wall",
    "roof",
    "beam",
    "door",
    "window",
]


def paragraph(shape: str, kb: int, seed: int = 0) -> str:
    """A single paragraph of about ``kb`` thousand bytes, the same for every tree."""
    rng = random.Random(f"{shape}-{kb}-{seed}")
    size = kb * 1000
    if shape == "blob":
        return base64.b64encode(rng.randbytes(size * 3 // 4)).decode()
    parts: list[str] = []
    total = 0
    while total < size:
        if shape == "list":
            part = rng.choice(WORDS) + ", "
        elif shape == "prose":
            words = [rng.choice(WORDS) for _ in range(rng.randint(5, 20))]
            part = " ".join(words).capitalize() + ". "
        else:
            raise SystemExit(f"unknown shape {shape!r}")
        parts.append(part)
        total += len(part)
    return "".join(parts).rstrip()


def _digest(chunks: list, h: Any = None) -> Any:
    h = h or hashlib.blake2b(digest_size=12)
    for c in chunks:
        fields = (c.seq, c.heading_path, c.text, c.start_line, c.end_line, c.tokens, c.embed_text)
        h.update(json.dumps(fields, ensure_ascii=False).encode("utf-8", "surrogatepass"))
    return h


def _fresh_tokenizer():  # the tree's own TiktokenTokenizer
    from indexer.tokens import PYTHON_CHARS, TiktokenTokenizer

    tokenizer = TiktokenTokenizer("cl100k_base")
    tokenizer.encode("x")  # builds the encoder
    # An indexing run counts its first notes in Python, then everything in tiktoken.
    tokenizer.count(" ".join(f"w{i}" for i in range(PYTHON_CHARS // 4)))
    tokenizer.count("and the first count in tiktoken")
    return tokenizer


def child_paragraph(shape: str, kb: int, limit: int) -> dict:
    from indexer.chunk import chunk_note

    tokenizer = _fresh_tokenizer()
    text = paragraph(shape, kb)
    chunk_note("Warm-up", "- one\n\nTwo, three. Four " * 50, [], tokenizer, limit)
    start = time.perf_counter()
    chunks = chunk_note("Long paragraph", text, [], tokenizer, limit)
    seconds = time.perf_counter() - start
    return {"s": seconds, "chunks": len(chunks), "digest": _digest(chunks).hexdigest()}


def child_vault(vault: Path, limit: int) -> dict:
    from indexer.chunk import chunk_note
    from indexer.parse import parse_note

    tokenizer = _fresh_tokenizer()
    h = hashlib.blake2b(digest_size=12)
    notes = chunks = 0
    start = time.perf_counter()
    for path in sorted(vault.rglob("*.md")):
        rel = path.relative_to(vault).as_posix()
        note = parse_note(rel, path.read_bytes())
        cut = chunk_note(note.title, note.body, note.headings, tokenizer, limit)
        h.update(rel.encode("utf-8", "surrogatepass"))
        _digest(cut, h)
        notes += 1
        chunks += len(cut)
    seconds = time.perf_counter() - start
    return {"notes": notes, "chunks": chunks, "digest": h.hexdigest(), "s": seconds}


def run_child(tree: Path, *args: str) -> dict:
    env = dict(os.environ, BENCH_CHUNK_TREE=str(tree))
    out = subprocess.run(
        [sys.executable, __file__, "--child", *args],
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("vaults", nargs="*", type=Path)
    parser.add_argument("--tree", action="append", type=Path, help="a source tree (repeat)")
    parser.add_argument("--kb", default="50,100,200,400", help="paragraph sizes, KB")
    parser.add_argument("--shape", default="list,prose,blob")
    parser.add_argument("--pairs", type=int, default=3, help="runs per tree, interleaved")
    parser.add_argument("--limit", type=int, default=256, help="index.chunk_tokens")
    parser.add_argument("--vaults", dest="vault_mode", action="store_true")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        tree = os.environ["BENCH_CHUNK_TREE"]
        sys.path.insert(0, tree)
        import indexer

        # An installed checkout must not stand in for the tree asked for.
        assert Path(indexer.__file__).resolve().is_relative_to(Path(tree).resolve())
        if args.vault_mode:
            result = child_vault(args.vaults[0], args.limit)
        else:
            result = child_paragraph(args.shape, int(args.kb), args.limit)
        print(json.dumps(result))
        return

    trees = [t.resolve() for t in args.tree or [ROOT]]
    limit = ["--limit", str(args.limit)]
    if args.vault_mode:
        vaults = args.vaults or sorted(
            p for p in SHARED.iterdir() if p.is_dir() and p.name[0] != "_"
        )
        print("| vault | tree | notes | chunks | digest | s |\n|---|---|---|---|---|---|")
        for vault in vaults:
            for tree in trees:
                r = run_child(tree, "--vaults", str(vault.resolve()), *limit)
                print(
                    f"| {vault.name} | {tree} | {r['notes']} | {r['chunks']} "
                    f"| {r['digest']} | {r['s']:.2f} |",
                    flush=True,
                )
        return

    print(
        "| shape | KB | tree | chunks | digest | median s | runs s |\n|---|---|---|---|---|---|---|"
    )
    for shape in args.shape.split(","):
        for kb in args.kb.split(","):
            runs: dict[Path, list[dict]] = {t: [] for t in trees}
            for _ in range(args.pairs):
                for tree in trees:
                    runs[tree].append(run_child(tree, "--shape", shape, "--kb", kb, *limit))
            for tree, rs in runs.items():
                secs = [r["s"] for r in rs]
                print(
                    f"| {shape} | {kb} | {tree} | {rs[0]['chunks']} | {rs[0]['digest']} "
                    f"| {statistics.median(secs):.3f} | {' '.join(f'{s:.2f}' for s in secs)} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
