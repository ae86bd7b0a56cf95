"""Embedding backends side by side: do their vectors agree, and how fast is each here?

``agreement``: every question of the sets in ``benchmarks/qa/`` and every chunk of
their vaults, embedded by sentence-transformers in bfloat16 and float32 and by the
ONNX export. Prints, per pair of backends, the cosine (min / median) and the largest
difference of any component between the question vectors, and per set how many
questions get the same top 10 notes (a note scores its best chunk's cosine, as
semantic search ranks them) when the index and the question come from different
backends, against the index and question both from the reference backend.

``throughput``: texts per second for each backend on the same chunk texts, in
interleaved rounds (median of the rounds), loading time apart. ``onnx-sliced`` is the
ONNX backend as a build calls it: in slices, each appended and fsync'd to an
``embedding.partial`` file (``indexer/partial_vectors.py``), so its ratio to ``onnx``
is what resuming a killed build costs an uninterrupted one.

Usage::

    python benchmarks/bench_embed.py agreement [--vaults DIR] [--sets kepano,dendron]
    python benchmarks/bench_embed.py throughput [--vault DIR] [--texts 256] [--rounds 3]
    python benchmarks/bench_embed.py throughput --backends onnx,onnx-sliced --texts 3072
    python benchmarks/bench_embed.py ... --smoke      # tiny sizes, seconds (CI)
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from indexer import build_index, load_index  # noqa: E402
from indexer.chunk import vector_id  # noqa: E402
from indexer.embed import Embedder, OnnxEmbedder, SentenceTransformerEmbedder  # noqa: E402
from indexer.partial_vectors import PartialVectors, embed_in_slices  # noqa: E402
from tests.support.fakes import HashEmbedder  # noqa: E402

QA = ROOT / "benchmarks" / "qa"
# Each question set and the vault it was written for (a name under --vaults, or a path).
SETS = {
    "sample_vault": ROOT / "sample_vault",
    "kepano": "kepano-obsidian",
    "dendron": "dendron-site",
    "obsidian-help": "obsidian-help",
    "dnd-srd": "dnd-srd-wiki",
}


class Sliced:
    """An embedder called as a build calls it: slices, each kept in a partial file."""

    def __init__(self, inner: Embedder, folder: Path) -> None:
        self.inner, self.folder = inner, folder
        self.name, self.dim = inner.name, inner.dim

    def load(self) -> None:
        self.inner.load()  # type: ignore[attr-defined]

    def embed(self, texts: list[str], progress: object = None) -> np.ndarray:
        partial = PartialVectors.open(self.folder, self.inner)
        partial.remove()  # every round embeds all of them, as a first build does
        ids = [vector_id(t) for t in texts]
        return embed_in_slices(self.inner, ids, texts, {}, partial)


def backends(names: list[str], cache: str) -> dict[str, Embedder]:
    made: dict[str, Embedder] = {}
    for name in names:
        if name == "onnx":
            made[name] = OnnxEmbedder(cache_dir=cache)
        elif name == "onnx-sliced":
            folder = Path(tempfile.mkdtemp(prefix="bench-embed-partial-"))
            made[name] = Sliced(OnnxEmbedder(cache_dir=cache), folder)  # type: ignore[assignment]
        else:
            made[name] = SentenceTransformerEmbedder(dtype=name.split("-")[1], device="cpu")
    for name, embedder in made.items():
        started = time.perf_counter()
        embedder.load()  # type: ignore[attr-defined]
        print(f"{name}: loaded in {time.perf_counter() - started:.1f} s", flush=True)
    return made


def vault_chunks(vault: Path, work: Path) -> tuple[list[str], list[str]]:
    """(embedded text, note uri) of every chunk, via an index built with a fake embedder."""
    build_index(vault, work / vault.name, embedder=HashEmbedder(dim=8))
    snap = load_index(work / vault.name)
    rows = snap.db.execute(
        "SELECT c.uri, n.title, c.heading_path, c.text FROM chunks c JOIN notes n USING (uri)"
    ).fetchall()
    texts, uris = [], []
    for uri, title, path, text in rows:
        prefix = f"{title}\n{path}\n\n" if path else f"{title}\n\n"
        texts.append((prefix + text) if text else prefix.strip())
        uris.append(uri)
    return texts, uris


def top_notes(chunk_vecs: np.ndarray, uris: list[str], query: np.ndarray, k: int = 10) -> list[str]:
    scores = chunk_vecs @ query
    best: dict[str, float] = {}
    for uri, score in zip(uris, scores.tolist(), strict=True):
        if score > best.get(uri, -2.0):
            best[uri] = score
    return sorted(best, key=lambda u: (-best[u], u))[:k]


def agreement(args: argparse.Namespace) -> None:
    names = ["torch-bfloat16", "torch-float32", "onnx"]
    made = backends(names, args.onnx_dir)
    chosen = args.sets.split(",") if args.sets else list(SETS)
    work = Path(tempfile.mkdtemp(prefix="bench-embed-"))
    rows = []
    for set_name in chosen:
        where = SETS[set_name]
        vault = where if isinstance(where, Path) else args.vaults / where
        qa = QA / f"{set_name}.jsonl"
        if not vault.is_dir() or not qa.is_file():
            print(f"{set_name}: skipped (no {vault if not vault.is_dir() else qa})")
            continue
        questions = [json.loads(line)["question"] for line in qa.read_text().splitlines() if line]
        texts, uris = vault_chunks(vault, work)
        if args.smoke:
            questions, texts, uris = questions[:3], texts[:20], uris[:20]
        q = {n: made[n].embed(questions) for n in names}
        c = {n: made[n].embed(texts) for n in names}
        same = {}
        for index_b, query_b in (
            ("torch-bfloat16", "onnx"),
            ("onnx", "onnx"),
            ("torch-float32", "onnx"),
        ):
            for ref in ("torch-bfloat16", "torch-float32"):
                pairs = [
                    (top_notes(c[ref], uris, q[ref][i]), top_notes(c[index_b], uris, q[query_b][i]))
                    for i in range(len(questions))
                ]
                as_set = sum(set(a) == set(b) for a, b in pairs)
                in_order = sum(a == b for a, b in pairs)
                same[f"index {index_b} + query {query_b} vs {ref}"] = f"{as_set} ({in_order})"
        rows.append((set_name, len(questions), len(texts), same))
        print(set_name, len(questions), "questions", len(texts), "chunks", same, flush=True)
    # Every question of every set, whether or not its vault was ranked above.
    every = [
        json.loads(line)["question"]
        for path in sorted(QA.glob("*.jsonl"))
        for line in path.read_text().splitlines()
        if line.strip()
    ][: 3 if args.smoke else None]
    print(
        f"\nquestion vectors, all {len(every)} questions of {len(list(QA.glob('*.jsonl')))} sets:"
    )
    stacked = {n: made[n].embed(every) for n in names}
    for a, b in (
        ("onnx", "torch-float32"),
        ("onnx", "torch-bfloat16"),
        ("torch-float32", "torch-bfloat16"),
    ):
        cos = (stacked[a] * stacked[b]).sum(axis=1)
        diff = np.abs(stacked[a] - stacked[b]).max()
        print(f"| {a} vs {b} | {len(cos)} | {cos.min():.7f} | {np.median(cos):.7f} | {diff:.1e} |")
    print("\nquestions with the same top 10 notes (in the same order):")
    for set_name, n_q, n_c, same in rows:
        print(f"| {set_name} | {n_q} | {n_c} | " + " | ".join(str(v) for v in same.values()) + " |")
    print("columns:", " | ".join(rows[0][3]) if rows else "")


def throughput(args: argparse.Namespace) -> None:
    names = args.backends.split(",")
    work = Path(tempfile.mkdtemp(prefix="bench-embed-"))
    texts, _ = vault_chunks(args.vault, work)
    texts = texts[: args.texts]
    made = backends(names, args.onnx_dir)
    for embedder in made.values():  # warm each once, on a few texts
        embedder.embed(texts[:8])
    seconds: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(args.rounds):
        for name in names:
            started = time.perf_counter()
            made[name].embed(texts)
            seconds[name].append(time.perf_counter() - started)
    print(f"{len(texts)} chunk texts of {args.vault.name}, {args.rounds} interleaved rounds")
    base = statistics.median(seconds[names[0]])
    for name in names:
        med = statistics.median(seconds[name])
        print(
            f"| {name} | {len(texts) / med:.1f} texts/s | {med:.2f} s "
            f"(min {min(seconds[name]):.2f}, max {max(seconds[name]):.2f}) | {med / base:.2f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=["agreement", "throughput"])
    parser.add_argument("--vaults", type=Path, default=ROOT.parent / "shared" / "vaults")
    parser.add_argument("--sets", default="", help="comma-separated set names (default: all)")
    parser.add_argument("--vault", type=Path, default=ROOT / "sample_vault")
    parser.add_argument("--texts", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default="torch-bfloat16,torch-float32,onnx")
    parser.add_argument("--onnx-dir", default="", help="ONNX export cache (default: the user's)")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: checks the script runs")
    args = parser.parse_args()
    if args.smoke:
        args.texts, args.rounds = min(args.texts, 16), 1
    agreement(args) if args.mode == "agreement" else throughput(args)


if __name__ == "__main__":
    main()
