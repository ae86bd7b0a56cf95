"""HTTP server speed: ``/focus`` and ``/query`` under N concurrent clients on loopback.

What it does:

1. makes a synthetic vault with ``benchmarks/gen_vault.py`` (default 10,000 notes) unless
   one is already in ``--work``;
2. indexes it with a deterministic 384-dimension hashing embedder (``tests.support.fakes``), because
   embedding 10k notes with the real model takes minutes and is not what is measured here;
3. starts the server in a subprocess on a free 127.0.0.1 port (``create_app`` + uvicorn, one
   worker, no watcher). Its query embedder is the real MiniLM model under the index's model
   name, so ``/query`` pays the real question-embedding cost against the 384-d index;
4. drives each endpoint with ``--clients`` threads (keep-alive connections), bounded by
   ``--requests`` per endpoint and ``--seconds``, after ``--warmup`` unrecorded requests;
5. times ``/focus`` (one client) while ``POST /index`` re-indexes one edited note (restored
   afterwards; ``--no-update`` skips this);
6. prints requests/s and latency percentiles as a Markdown table;
7. then, unless ``--no-watch-latency``, restarts the server with its file watcher on and
   times how soon an edit shows over HTTP (``bench_watch.py``: ``--edits`` notes edited and
   restored, one created and deleted; each wait bounded by ``--watch-timeout``).

The server side (a subprocess) and the HTTP helpers are in ``served.py``.

Usage::

    python benchmarks/bench_server.py [--notes 10000] [--clients 1,4] [--requests 1500]
                                      [--seconds 30] [--work /tmp/bench-server]
                                      [--edits 5] [--no-watch-latency]

Only loopback traffic; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks import bench_watch  # noqa: E402
from benchmarks.common import generated_vault, indexed  # noqa: E402
from benchmarks.served import free_port, note_titles, request, start_server, wait_ready  # noqa: E402

QUESTIONS = (
    "what do my notes say about {}?",
    "how is {} related to the rest of the project",
    "{} decisions and open questions",
    "summary of {}",
)


# -- the clients --------------------------------------------------------------------------
def drive(
    port: int,
    path: str,
    bodies: list[dict],
    clients: int,
    limit: int,
    seconds: float,
    until: threading.Thread | None = None,
) -> dict[str, Any]:
    """``clients`` threads share ``limit`` requests; stop at the limit, after ``seconds``,
    or when the ``until`` thread has finished."""
    lock = threading.Lock()
    latencies: list[float] = []
    errors: list[str] = []
    issued = 0
    deadline = time.monotonic() + seconds

    def worker(offset: int) -> None:
        nonlocal issued
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        i = offset
        while time.monotonic() < deadline and (until is None or until.is_alive()):
            with lock:
                if issued >= limit:
                    break
                issued += 1
            body = bodies[i % len(bodies)]
            i += clients
            start = time.perf_counter()
            status, data = request(conn, path, body)
            elapsed = time.perf_counter() - start
            with lock:
                if status == 200:
                    latencies.append(elapsed)
                else:
                    errors.append(f"{status} {data[:200]!r}")
        conn.close()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    latencies.sort()

    def pct(p: float) -> float:
        return (
            latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000 if latencies else 0.0
        )

    return {
        "endpoint": path,
        "clients": clients,
        "requests": len(latencies),
        "errors": len(errors),
        "first_error": errors[0] if errors else "",
        "seconds": round(wall, 2),
        "rps": round(len(latencies) / wall, 1) if wall else 0.0,
        "p50_ms": round(pct(0.50), 2),
        "p90_ms": round(pct(0.90), 2),
        "p99_ms": round(pct(0.99), 2),
        "mean_ms": round(statistics.fmean(latencies) * 1000, 2) if latencies else 0.0,
    }


def during_update(port: int, vault: Path, bodies: list[dict], clients: int) -> tuple[dict, float]:
    """/focus while ``POST /index`` re-indexes one edited note; the note is restored after."""
    note = sorted(vault.rglob("*.md"))[len(bodies) % 97]
    original = note.read_bytes()
    note.write_bytes(original + b"\nOne more line, written by bench_server.py.\n")
    took: list[float] = []

    def reindex() -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        started = time.perf_counter()
        status, data = request(conn, "/index", {"wait": True})
        took.append(time.perf_counter() - started)
        if status != 200:
            raise SystemExit(f"/index failed: {status} {data[:200]!r}")

    try:
        updater = threading.Thread(target=reindex)
        updater.start()
        time.sleep(0.05)
        result = drive(port, "/focus", bodies, clients, 10**6, 600, until=updater)
        result["endpoint"] = "/focus during /index"
        updater.join()
    finally:
        note.write_bytes(original)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        request(conn, "/index", {"wait": True})
    return result, took[0] if took else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-server"))
    ap.add_argument("--clients", default="1,4", help="comma-separated client counts, e.g. 1,2,4")
    ap.add_argument("--requests", type=int, default=1500, help="per endpoint and client count")
    ap.add_argument("--seconds", type=float, default=30, help="per endpoint, at most")
    ap.add_argument("--warmup", type=int, default=200, help="unrecorded requests per endpoint")
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument(
        "--no-update",
        dest="update",
        action="store_false",
        help="skip timing /focus while one edited note is re-indexed",
    )
    ap.add_argument(
        "--no-watch-latency",
        dest="watch_latency",
        action="store_false",
        help="skip timing, with the watcher on, how soon an edited file shows over HTTP",
    )
    ap.add_argument(
        "--edits", type=int, default=5, help="notes edited (and restored) with the watcher on"
    )
    ap.add_argument(
        "--watch-timeout", type=float, default=60, help="seconds before a change counts as missed"
    )
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    if args.work.resolve().is_relative_to("/work/shared"):
        raise SystemExit("--work must not be under /work/shared (this benchmark edits the vault)")
    args.work.mkdir(parents=True, exist_ok=True)
    vault, index_dir = args.work / "vault", args.work / "index"
    indexed(generated_vault(vault, args.notes), index_dir)
    rows = note_titles(index_dir)
    rng = random.Random(args.seed)
    rng.shuffle(rows)
    focus_bodies = [{"note": uri, "budget": args.budget} for uri, _ in rows]
    query_bodies = [
        {"question": rng.choice(QUESTIONS).format(title), "budget": args.budget}
        for _, title in rows
    ]

    port = free_port()
    proc = start_server(vault, index_dir, port, watch=False)
    try:
        wait_ready(port, proc)
        results = []
        counts = [int(c) for c in str(args.clients).split(",")]
        for path, bodies in (("/focus", focus_bodies), ("/query", query_bodies)):
            warm, measured = bodies[: args.warmup], bodies[args.warmup :]
            drive(port, path, warm, max(counts), len(warm), args.seconds)
            for n, clients in enumerate(counts):
                # A fresh slice of notes per run: no run re-asks what an earlier one asked.
                fresh = measured[n * args.requests :] or measured
                results.append(drive(port, path, fresh, clients, args.requests, args.seconds))
        update_seconds = None
        if args.update:
            result, update_seconds = during_update(port, vault, focus_bodies[::-1], 1)
            results.append(result)
    finally:
        proc.terminate()
        proc.wait(30)

    load = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\n{len(rows)} notes, budget {args.budget}, {os.cpu_count()} cores, "
        f"load average {load} (other processes on this machine distort the figures)\n"
    )
    print("| endpoint | clients | requests | errors | req/s | p50 ms | p90 ms | p99 ms |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in results:
        print(
            f"| `{r['endpoint']}` | {r['clients']} | {r['requests']} | {r['errors']} | {r['rps']} "
            f"| {r['p50_ms']} | {r['p90_ms']} | {r['p99_ms']} |"
        )
        if r["first_error"]:
            print(f"first error on {r['endpoint']}: {r['first_error']}")
    if update_seconds is not None:
        print(
            f"\nPOST /index after editing one note took {update_seconds:.1f} s (answers kept coming meanwhile)."
        )
    if args.watch_latency:
        sys.stdout.flush()
        bench_watch.run(vault, index_dir, args.edits, args.watch_timeout, args.seed)


if __name__ == "__main__":
    main()
