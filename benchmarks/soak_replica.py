"""``bench_soak.py``'s hour, accelerated and in one process: what grows, round by round.

    python benchmarks/soak_replica.py VAULTS_DIR/obsidian-help --index-dir PREBUILT \
        [--rounds 120] [--per-round 60] [--seed 0] [--out replica.csv]

The served app (``create_app``, the server's malloc settings, its start-up preload and
heap freeze) answers through Starlette's ``TestClient`` the same requests in the same
turn as the soak (``/query``, ``/search`` hybrid, ``/focus`` on a random note), but with no
pause between them: a round is ``--per-round`` requests (60 = the soak's 30 s at 2 a
second), then a line appended to a random note of a copy of the vault (``--edits
toggle``: the note as it was or with one fixed line more, so the vault does not grow),
the update the watcher would run (in one long-lived thread, as the watcher's; with
``--overlap`` requests go on meanwhile, as in the served soak), and the periodic trim.
So round 20 is the soak's 10th minute and round 120 its 60th, in a few minutes. After
each round one CSV row: resident MB (and of the heap, anonymous mappings and files),
malloc's bytes in use and free, Python's blocks, the token counter's cache entries, the
vault's bytes and chunks, and CPython's table of interned strings (strings alive, slots,
entries used: ``benchmarks/interned.py``). Printed: the soak's summary in rounds (resident MB
at rounds 0, 20, 60, 120, the medians of the ten rounds up to 20 and up to the end, i.e.
the soak's five minutes). ``--trace N``: tracemalloc (N frames) from the start, and on
stderr the allocation sites that grew most from round 20 to the end.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import random
import shutil
import statistics
import sys
import threading
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_soak import smaps_by_mapping, work_copy  # noqa: E402
from benchmarks.common import HELP_QUESTIONS as QUESTIONS  # noqa: E402
from benchmarks.common import rss_mb  # noqa: E402
from benchmarks.served import note_titles  # noqa: E402


def _count_cache_entries(rag: Any) -> int:
    counts = getattr(rag.tokenizer, "_counts", None)
    return len(counts) if counts is not None else -1


def _chunks(rag: Any) -> int:
    db = rag.snapshot.index.db
    return int(db.execute("SELECT count(*) FROM chunks").fetchone()[0])


def run(args: argparse.Namespace) -> list[dict[str, float]]:
    from fastapi.testclient import TestClient

    from benchmarks.interned import interned_table
    from benchmarks.soak_probe import _mallinfo  # here: importing it tracks every cache made
    from graphrag import VaultRAG
    from graphrag.config.server import ServerSettings
    from graphrag.serve import memory
    from graphrag.serve.app import create_app

    work, vault, index_dir = work_copy(args.vault, args.index_dir, "soak-replica-")
    rows: list[dict[str, float]] = []
    base: tracemalloc.Snapshot | None = None
    if args.trace:
        tracemalloc.start(args.trace)
    try:
        rag = VaultRAG.open(str(vault), index_dir=str(index_dir))
        app = create_app(rag, ServerSettings(watch=False, preload_model=True))
        memory.limit_arenas()  # as ``run_announced``: after the app, before its threads
        live = app.state.live
        notes = note_titles(index_dir)
        md = sorted(vault.rglob("*.md"))
        originals: dict[Path, str] = {}
        rng = random.Random(args.seed)
        watcher = ThreadPoolExecutor(1, thread_name_prefix="watch")  # the watcher's thread
        with TestClient(app, base_url="http://localhost") as client:
            deadline = time.monotonic() + 900
            while not client.get("/status").json().get("preloaded"):
                if time.monotonic() > deadline:
                    raise SystemExit("the preload did not finish")
                time.sleep(0.2)
            done = 0

            def ask() -> None:
                nonlocal done
                kind = done % 3
                if kind == 0:
                    body = {"question": rng.choice(QUESTIONS), "seed": 1}
                    client.post("/query", json=body)
                elif kind == 1:
                    body = {"query": rng.choice(QUESTIONS), "mode": "hybrid"}
                    client.post("/search", json=body)
                else:
                    client.post("/focus", json={"note": rng.choice(notes)[0], "seed": 1})
                done += 1

            for round_ in range(args.rounds + 1):
                if round_:
                    for _ in range(args.per_round):
                        ask()
                    edit(rng.choice(md), done, args.edits, originals)
                    update = watcher.submit(live.update, reason="watch")
                    while args.overlap and not update.done():
                        ask()  # as the served soak: requests go on while it updates
                    update.result()
                memory.trim()  # the Trimmer's, every 30 s of the soak
                malloc = _mallinfo()
                where = smaps_by_mapping(os.getpid())
                row = {
                    "round": round_,
                    "rss_mb": round(rss_mb(), 1),
                    "heap_mb": where.get("[heap]", 0.0),
                    "anon_mb": where.get("[anon]", 0.0),
                    "files_mb": round(sum(v for k, v in where.items() if not k.startswith("[")), 1),
                    "in_use_mb": malloc.get("in_use_mb", 0.0),
                    "free_mb": malloc.get("free_mb", 0.0),
                    "mmap_mb": malloc.get("mmap_mb", 0.0),
                    "py_blocks": sys.getallocatedblocks(),
                    "count_entries": _count_cache_entries(rag),
                    "vault_kb": round(sum(p.stat().st_size for p in md) / 1024, 1),
                    "chunks": _chunks(rag),
                    "threads": threading.active_count(),
                }
                interned = interned_table()
                row.update({f"interned_{k}": v for k, v in interned.items()})
                rows.append(row)
                since = min(20, args.rounds // 2)
                if args.trace and round_ in (since, args.rounds):
                    snap = tracemalloc.take_snapshot().filter_traces(
                        [tracemalloc.Filter(False, tracemalloc.__file__)]
                    )
                    if base is None:
                        base = snap
                    else:
                        print_growth(snap.compare_to(base, "traceback"), since)
                if args.verbose:
                    print(json.dumps(row), file=sys.stderr, flush=True)
        watcher.shutdown()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return rows


def edit(note: Path, done: int, how: str, originals: dict[Path, str]) -> None:
    """``append``: a new line, as the soak's edits (the vault grows); ``toggle``: the
    note as it was, or with one fixed line more (a real update, the vault the same)."""
    if how == "append":
        with open(note, "a", encoding="utf-8") as fh:
            fh.write(f"\nsoak edit {done} at {time.time():.0f}\n")
        return
    text = note.read_text(encoding="utf-8")
    original = originals.setdefault(note, text)
    note.write_text(original if text != original else original + "\nsoak edit\n", "utf-8")


def print_growth(diff: list[tracemalloc.StatisticDiff], since: int, top: int = 15) -> None:
    """The allocation sites that grew most from round ``since`` to the end, on stderr."""
    total = sum(d.size_diff for d in diff)
    print(f"traced growth from round {since}: {total / 1024:+.1f} KB", file=sys.stderr)
    for d in diff[:top]:
        where = " <- ".join(
            f"{'/'.join(f.filename.split('/')[-2:])}:{f.lineno}" for f in d.traceback
        )
        print(f"{d.size_diff / 1024:+9.1f} KB {d.count_diff:+7d}  {where}", file=sys.stderr)


def summary(rows: list[dict[str, float]]) -> dict[str, float]:
    by = {int(r["round"]): r for r in rows}
    last = max(by)
    ten = min(20, last)

    def settled(r: int) -> float:
        return statistics.median(by[i]["rss_mb"] for i in range(max(0, r - 10), r + 1) if i in by)

    return {
        "rss_start_mb": by[0]["rss_mb"],
        "rss_round20_mb": by[ten]["rss_mb"],
        "rss_round60_mb": by[min(60, last)]["rss_mb"],
        "rss_end_mb": by[last]["rss_mb"],
        "median10_round20_mb": settled(ten),
        "median10_end_mb": settled(last),
        "growth_median_mb": settled(last) - settled(ten),
        "in_use_round20_mb": by[ten]["in_use_mb"],
        "in_use_end_mb": by[last]["in_use_mb"],
        "count_entries_end": by[last]["count_entries"],
        "chunks_start": by[0]["chunks"],
        "chunks_end": by[last]["chunks"],
        "rounds": last,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--index-dir", type=Path, help="a prebuilt index of VAULT (copied)")
    parser.add_argument("--rounds", type=int, default=120, help="edits (120 = the soak's hour)")
    parser.add_argument("--per-round", type=int, default=60, help="requests between edits")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="CSV, one row a round")
    parser.add_argument(
        "--edits", choices=("append", "toggle"), default="append", help="see ``edit``"
    )
    parser.add_argument(
        "--overlap", action="store_true", help="requests go on while the update runs"
    )
    parser.add_argument("--trace", type=int, default=0, help="tracemalloc frames (growth by site)")
    parser.add_argument("--verbose", action="store_true", help="each row on stderr as it comes")
    args = parser.parse_args(argv)
    if not args.vault.is_dir():
        parser.error(f"{args.vault}: not a folder")
    rows = run(args)
    if args.out:
        with open(args.out, "w", newline="") as fh:
            out = csv.DictWriter(fh, fieldnames=list(rows[0]))
            out.writeheader()
            out.writerows(rows)
    print(json.dumps({k: round(v, 1) for k, v in summary(rows).items()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
