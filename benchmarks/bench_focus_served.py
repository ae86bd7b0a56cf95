"""``/focus`` over HTTP on a real vault, two checkouts side by side (before / after).

    python benchmarks/bench_focus_served.py VAULT --index-dir PREBUILT_INDEX \
        --tree after=. --tree before=/tmp/old-checkout [--rounds 3] [--requests 300]

Each ``--tree`` is a checkout whose ``vault-graphrag serve`` answers (run with that
folder as the working directory, so its ``graphrag`` is imported); each gets its own
copy of the index (a server writes ``server.json`` into it) and runs without a watcher.
All servers run at once and are measured in turns, round by round, so the machine's
load falls on each alike. Two loads, one client each:

* ``distinct``: every request a note not asked before in this round, with its own seed
  (nothing a per-request cache could answer);
* ``plugin``: what the Obsidian plugin's related pane sends as notes are opened and
  re-opened: ``{"note", "budget": 1500, "seed": 1, "sentences": true}`` over a set of
  ``--revisit`` notes asked in turn.

Printed: a Markdown table of requests/s, p50/p90/p99 ms and the median answer size per
tree and load (each round's figures, then the median over rounds), with the load average.
``--smoke`` is a seconds-long run over sample_vault (CI).
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_soak import wait_preloaded  # noqa: E402
from benchmarks.served import free_port, note_titles, request  # noqa: E402


def start(tree: Path, vault: Path, index_dir: Path) -> tuple[subprocess.Popen, int]:
    port = free_port()
    cmd = [sys.executable, "-m", "graphrag", "serve", str(vault), "--index-dir", str(index_dir)]
    cmd += ["--port", str(port), "--no-watch"]
    env = dict(os.environ, PYTHONPATH=str(tree))
    proc = subprocess.Popen(cmd, cwd=tree, env=env, stderr=subprocess.DEVNULL)
    wait_preloaded(port, proc)
    return proc, port


def drive(port: int, bodies: list[dict]) -> dict[str, float]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    times, sizes = [], []
    started = time.perf_counter()
    for body in bodies:
        t = time.perf_counter()
        status, data = request(conn, "/focus", body)
        times.append(time.perf_counter() - t)
        if status != 200:
            raise SystemExit(f"/focus {body}: {status} {data[:200]!r}")
        sizes.append(len(data))
    wall = time.perf_counter() - started
    conn.close()
    times.sort()

    def pct(p: float) -> float:
        return times[min(len(times) - 1, int(p * len(times)))] * 1000

    return {
        "rps": len(times) / wall,
        "p50": pct(0.5),
        "p90": pct(0.9),
        "p99": pct(0.99),
        "kb": statistics.median(sizes) / 1000,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("vault", type=Path, nargs="?")
    ap.add_argument("--index-dir", type=Path, help="a prebuilt index of VAULT (copied)")
    ap.add_argument("--tree", action="append", default=[], help="NAME=CHECKOUT (repeatable)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--requests", type=int, default=300, help="per load, tree and round")
    ap.add_argument("--revisit", type=int, default=30, help="notes in the plugin load's set")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--smoke", action="store_true", help="sample_vault, a few requests")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="focus-served-"))
    try:
        if args.smoke:
            from benchmarks.common import smoke_index

            args.vault, args.index_dir = smoke_index()
            args.rounds, args.requests, args.revisit = 1, 10, 5
        if args.vault is None or args.index_dir is None:
            ap.error("VAULT and --index-dir are needed (or --smoke)")
        trees = dict(t.split("=", 1) for t in args.tree) or {"this": str(ROOT)}
        servers: dict[str, tuple[subprocess.Popen, int]] = {}
        for name, tree in trees.items():
            index_copy = work / f"index-{name}"
            shutil.copytree(args.index_dir, index_copy, copy_function=shutil.copy2)
            (index_copy / "server.json").unlink(missing_ok=True)
            servers[name] = start(Path(tree).resolve(), args.vault, index_copy)
        notes = [uri for uri, _ in note_titles(args.index_dir)]
        rng = random.Random(args.seed)
        revisit = rng.sample(notes, min(args.revisit, len(notes)))
        rows: dict[tuple[str, str], list[dict[str, float]]] = {}
        for rnd in range(args.rounds):
            picks = [rng.choice(notes) for _ in range(args.requests)]
            loads = {
                "distinct": [{"note": n, "seed": rnd * 100_000 + i} for i, n in enumerate(picks)],
                "plugin": [
                    {
                        "note": revisit[i % len(revisit)],
                        "budget": 1500,
                        "seed": 1,
                        "sentences": True,
                    }
                    for i in range(args.requests)
                ],
            }
            order = list(servers) if rnd % 2 == 0 else list(servers)[::-1]
            for load, bodies in loads.items():
                for name in order:
                    rows.setdefault((name, load), []).append(drive(servers[name][1], bodies))
    finally:
        for proc, _ in locals().get("servers", {}).values():
            proc.terminate()
            proc.wait(30)
        shutil.rmtree(work, ignore_errors=True)
    load_avg = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n{len(notes)} notes, {args.requests} requests per load and round, load average {load_avg}\n"
    )
    print(
        "| tree | load | req/s | p50 ms | p90 ms | p99 ms | answer KB (median) | rounds (req/s) |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (name, load), runs in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
        each = ", ".join(f"{r['rps']:.0f}" for r in runs)
        print(
            f"| {name} | {load} | {med['rps']:.1f} | {med['p50']:.2f} | {med['p90']:.2f} "
            f"| {med['p99']:.2f} | {med['kb']:.1f} | {each} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
