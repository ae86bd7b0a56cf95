"""HTTP server speed: ``/focus`` and ``/query`` under N concurrent clients on loopback.

What it does:

1. makes a synthetic vault with ``benchmarks/gen_vault.py`` (default 10,000 notes) unless
   one is already in ``--work``;
2. indexes it with a deterministic 384-dimension hashing embedder (``tests.fakes``), because
   embedding 10k notes with the real model takes minutes and is not what is measured here;
3. starts the server in a subprocess on a free 127.0.0.1 port (``create_app`` + uvicorn, one
   worker, no watcher). Its query embedder is the real MiniLM model under the index's model
   name, so ``/query`` pays the real question-embedding cost against the 384-d index;
4. drives each endpoint with ``--clients`` threads (keep-alive connections), bounded by
   ``--requests`` per endpoint and ``--seconds``, after ``--warmup`` unrecorded requests;
5. times ``/focus`` (one client) while ``POST /index`` re-indexes one edited note (restored
   afterwards; ``--no-update`` skips this);
6. prints requests/s and latency percentiles as a Markdown table.

Usage::

    python benchmarks/bench_server.py [--notes 10000] [--clients 1,4] [--requests 1500]
                                      [--seconds 30] [--work /tmp/bench-server]

Only loopback traffic; every loop is bounded in count and time.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODEL_NAME = "bench/hash-384"  # the name the index is built under (and served with)
QUESTIONS = (
    "what do my notes say about {}?",
    "how is {} related to the rest of the project",
    "{} decisions and open questions",
    "summary of {}",
)


# -- the server side (run in a subprocess: `bench_server.py --serve ...`) ------------------
class RealQueryEmbedder:
    """MiniLM for questions, under the index's model name (so nothing is re-embedded)."""

    def __init__(self) -> None:
        from indexer.embed import SentenceTransformerEmbedder

        self._model = SentenceTransformerEmbedder()
        self.name = MODEL_NAME
        self.dim = 384

    def load(self) -> Any:
        return self._model.load()

    def embed(self, texts: Any, progress: Any = None) -> Any:
        return self._model.embed(texts, progress)


def serve(vault: str, index_dir: str, port: int) -> None:
    import uvicorn

    from graphrag import VaultRAG
    from graphrag.server import create_app
    from graphrag.server_settings import ServerSettings

    rag = VaultRAG.open(vault, index_dir=index_dir, embedder=RealQueryEmbedder(), update=False)
    rag.snapshot  # noqa: B018 - load the graph before accepting requests
    app = create_app(rag, ServerSettings(watch=False, preload_model=True, port=port))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


# -- the client side ------------------------------------------------------------------------
def prepare(work: Path, notes: int) -> tuple[Path, Path]:
    vault, index_dir = work / "vault", work / "index"
    if not (vault / ".generated").exists():
        subprocess.run(
            [sys.executable, str(ROOT / "benchmarks" / "gen_vault.py"), str(vault), "--notes", str(notes), "--force"],
            check=True,
        )
        (vault / ".generated").write_text(str(notes))
    if not (index_dir / "manifest.json").exists():
        from indexer import build_index
        from tests.fakes import HashEmbedder

        started = time.perf_counter()
        stats = build_index(vault, index_dir, embedder=HashEmbedder(dim=384, name=MODEL_NAME))
        print(f"indexed {stats.notes} notes, {stats.chunks} chunks in {time.perf_counter() - started:.1f} s")
    return vault, index_dir


def note_titles(index_dir: Path) -> list[tuple[str, str]]:
    manifest = json.loads((index_dir / "manifest.json").read_text())
    db = sqlite3.connect(index_dir / manifest["generation"] / "index.sqlite")
    rows = db.execute("SELECT uri, title FROM notes ORDER BY uri").fetchall()
    db.close()
    return rows


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(conn: http.client.HTTPConnection, path: str, body: dict) -> tuple[int, bytes]:
    data = json.dumps(body).encode()
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    return resp.status, resp.read()


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
        return latencies[min(len(latencies) - 1, int(p * len(latencies)))] * 1000 if latencies else 0.0

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


def wait_ready(port: int, proc: subprocess.Popen, timeout: float = 180) -> None:
    """Until the server answers and its background preload (model, vectors, counts) is done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/status")
            if json.loads(conn.getresponse().read()).get("preloaded"):
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("server did not start")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-server"))
    ap.add_argument("--clients", default="1,4", help="comma-separated client counts, e.g. 1,2,4")
    ap.add_argument("--requests", type=int, default=1500, help="per endpoint and client count")
    ap.add_argument("--seconds", type=float, default=30, help="per endpoint, at most")
    ap.add_argument("--warmup", type=int, default=200, help="unrecorded requests per endpoint")
    ap.add_argument("--budget", type=int, default=2000)
    ap.add_argument(
        "--no-update", dest="update", action="store_false",
        help="skip timing /focus while one edited note is re-indexed",
    )
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--serve", nargs=3, metavar=("VAULT", "INDEX_DIR", "PORT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve[0], args.serve[1], int(args.serve[2]))
        return

    args.work.mkdir(parents=True, exist_ok=True)
    vault, index_dir = prepare(args.work, args.notes)
    rows = note_titles(index_dir)
    rng = random.Random(args.seed)
    rng.shuffle(rows)
    focus_bodies = [{"note": uri, "budget": args.budget} for uri, _ in rows]
    query_bodies = [
        {"question": rng.choice(QUESTIONS).format(title), "budget": args.budget} for _, title in rows
    ]

    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(vault), str(index_dir), str(port)], env=env
    )
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
        print(f"\nPOST /index after editing one note took {update_seconds:.1f} s (answers kept coming meanwhile).")


if __name__ == "__main__":
    main()
