"""Incremental update speed: one edit, then ``build_index`` and the served snapshot's reload.

On a private copy of the vault (a generated one by default; ``--vault`` for a
real one), indexed once with a 384-dimension hashing embedder (``tests.support.fakes``)
because the model's cost per changed chunk (~20 ms) is not what is measured.
Then, ``--repeat`` times each, in a fixed interleaved order:

* edit: a sentence and a link appended to an existing note (then restored);
* add: a new note linking an existing one (a namespace change);
* delete: that note removed again;
* rename: a note moved to another folder (and back).

Each update is timed as ``build_index`` alone and as ``build_index`` plus what
the server does to serve it (``load_index`` + ``VaultGraph`` from the rows).
Prints medians and the load average.

Usage::

    python benchmarks/bench_update.py [--notes 10000] [--vault DIR] [--work DIR] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import generated_vault, hash_embedder, indexed  # noqa: E402
from graphrag.snapshot.graph import VaultGraph  # noqa: E402
from indexer import build_index, load_index  # noqa: E402


def prepare(work: Path, notes: int, source: Path | None) -> tuple[Path, Path]:
    vault, index_dir = work / "vault", work / "index"
    if source is None:
        generated_vault(vault, notes)
    elif not vault.exists():
        shutil.copytree(source, vault)
    indexed(vault, index_dir)
    return vault, index_dir


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--notes", type=int, default=10_000, help="size of the generated vault")
    ap.add_argument("--vault", type=Path, help="a real vault to copy instead of generating one")
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-update"))
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if args.work.resolve().is_relative_to((ROOT.parent / "shared").resolve()):
        raise SystemExit("--work must not be under ../shared (read-only)")
    args.work.mkdir(parents=True, exist_ok=True)
    vault, index_dir = prepare(args.work, args.notes, args.vault)
    embedder = hash_embedder()
    notes = sorted(p for p in vault.rglob("*.md") if not any(s.startswith(".") for s in p.parts))
    timings: dict[str, list[tuple[float, float]]] = {}

    def update(label: str) -> None:
        started = time.perf_counter()
        stats = build_index(vault, index_dir, embedder=embedder)
        built = time.perf_counter()
        index = load_index(index_dir)
        VaultGraph.from_rows(*index.graph_rows(), text_source=index.body)
        index.close()
        timings.setdefault(label, []).append((built - started, time.perf_counter() - started))
        if stats.up_to_date:
            raise SystemExit(f"{label}: the index saw no change")

    def restoring(path: Path, change: Callable[[], None], label: str) -> None:
        original, stat = path.read_bytes(), path.stat()
        try:
            change()
            update(label)
        finally:
            path.write_bytes(original)
            os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            build_index(vault, index_dir, embedder=embedder)

    load_before = os.getloadavg()
    for i in range(args.repeat):
        note, target = notes[(7 + 31 * i) % len(notes)], notes[(100 + 57 * i) % len(notes)]
        restoring(
            note,
            lambda n=note, t=target, i=i: n.write_bytes(
                n.read_bytes() + f"\nEdit {i}, see [[{t.stem}]].\n".encode()
            ),
            "edit (link added)",
        )
        new = vault / f"bench-update-new-{i}.md"
        new.write_text(f"A new note linking [[{target.stem}]].\n", encoding="utf-8")
        update("add a note")
        new.unlink()
        update("delete a note")
        moved = notes[(300 + 13 * i) % len(notes)]
        dest = vault / "bench-update-moved" / moved.name
        dest.parent.mkdir(exist_ok=True)
        try:
            moved.rename(dest)
            update("rename a note")
        finally:
            if dest.exists():
                dest.rename(moved)
            dest.parent.rmdir()
            build_index(vault, index_dir, embedder=embedder)

    load = " / ".join(f"{x:.1f}" for x in load_before)
    after = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n{len(notes)} notes in {vault}; {args.repeat} runs each; load average {load} before, {after} after\n"
    )
    print("| update | build_index s (median) | + reload s (median) | all runs, build+reload |")
    print("| --- | --- | --- | --- |")
    for label, runs in timings.items():
        runs_txt = " ".join(f"{total:.2f}" for _, total in runs)
        print(
            f"| {label} | {statistics.median(b for b, _ in runs):.3f} "
            f"| {statistics.median(t for _, t in runs):.3f} | {runs_txt} |"
        )


if __name__ == "__main__":
    main()
