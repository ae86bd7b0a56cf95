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
6. prints requests/s and latency percentiles as a Markdown table;
7. then, unless ``--no-watch-latency``, restarts the server with its file watcher on (as
   ``vault-graphrag serve`` does by default: ``create_app`` starts ``LiveIndex`` with the
   app) and measures what a user sees: the wall time from writing a note's file until the
   change is visible over HTTP. For ``--edits`` notes it appends a wikilink to another note
   plus a sentence, polls ``GET /notes/{uri}/neighbors?direction=out`` every 20 ms until the
   target appears, then restores the file (bytes and mtime) and polls until it is gone again
   (two samples per note). It also creates a new note linking to an existing one (polls
   ``GET /notes/{uri}`` until 200) and deletes it (until 404). Every wait gives up after
   ``--watch-timeout`` seconds (reported as a failure); every changed file is restored.

Usage::

    python benchmarks/bench_server.py [--notes 10000] [--clients 1,4] [--requests 1500]
                                      [--seconds 30] [--work /tmp/bench-server]
                                      [--edits 5] [--no-watch-latency]

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
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import HASH_MODEL, generated_vault, indexed  # noqa: E402

QUESTIONS = (
    "what do my notes say about {}?",
    "how is {} related to the rest of the project",
    "{} decisions and open questions",
    "summary of {}",
)
NEW_NOTE = "bench-watch-new-note.md"  # created and deleted by the watcher measurement
POLL_SECONDS = 0.02


# -- the server side (run in a subprocess: `bench_server.py --serve ...`) ------------------
class RealQueryEmbedder:
    """MiniLM for questions, under the index's model name (so nothing is re-embedded)."""

    def __init__(self) -> None:
        from indexer.embed import SentenceTransformerEmbedder

        self._model = SentenceTransformerEmbedder()
        self.name = HASH_MODEL
        self.dim = 384

    def load(self) -> Any:
        return self._model.load()

    def embed(self, texts: Any, progress: Any = None) -> Any:
        return self._model.embed(texts, progress)


def serve(vault: str, index_dir: str, port: int, watch: bool = False) -> None:
    """``watch``: the file watcher on, started by ``create_app``'s lifespan exactly as
    ``vault-graphrag serve --watch`` does (``LiveIndex``, the configured debounce)."""
    import uvicorn

    from graphrag import VaultRAG
    from graphrag.server import create_app
    from graphrag.server_settings import ServerSettings

    rag = VaultRAG.open(vault, index_dir=index_dir, embedder=RealQueryEmbedder(), update=False)
    rag.snapshot  # noqa: B018 - load the graph before accepting requests
    settings = ServerSettings(
        watch=watch,
        watch_debounce_ms=rag.settings.server.watch_debounce_ms,
        preload_model=True,
        port=port,
    )
    app = create_app(rag, settings)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


# -- the client side ------------------------------------------------------------------------
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


# -- the watcher: from a file written to the change visible over HTTP ----------------------
def get_json(conn: http.client.HTTPConnection, path: str) -> tuple[int, Any]:
    conn.request("GET", path)
    resp = conn.getresponse()
    data = resp.read()
    try:
        return resp.status, json.loads(data)
    except ValueError:
        return resp.status, None


def server_status(port: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        return get_json(conn, "/status")[1] or {}
    finally:
        conn.close()


def out_links(conn: http.client.HTTPConnection, uri: str) -> set[str] | None:
    """The uris ``uri`` points at (parent and link targets), or None if not a 200."""
    status, data = get_json(conn, f"/notes/{quote(uri, safe='/')}/neighbors?direction=out")
    return {n["uri"] for n in data} if status == 200 and isinstance(data, list) else None


def poll(port: int, seen: Callable[[http.client.HTTPConnection], bool], started: float, timeout: float) -> float | None:
    """Seconds from ``started`` (perf_counter) until ``seen`` is true, polling every 20 ms;
    None after ``timeout`` seconds."""
    deadline = started + timeout
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        while time.perf_counter() < deadline:
            try:
                if seen(conn):
                    return time.perf_counter() - started
            except (OSError, http.client.HTTPException):
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            time.sleep(POLL_SECONDS)
        return None
    finally:
        conn.close()


def wait_idle(port: int, timeout: float, settle: float = 0.3) -> None:
    """Until the watcher has no update running (twice, ``settle`` s apart), so each sample
    starts from a quiet server. Bounded by ``timeout``."""
    deadline = time.monotonic() + timeout
    quiet = 0
    while time.monotonic() < deadline and quiet < 2:
        quiet = quiet + 1 if not server_status(port).get("updating") else 0
        time.sleep(settle if quiet else POLL_SECONDS)


def write_restoring_mtime(path: Path, data: bytes, stat: os.stat_result) -> None:
    path.write_bytes(data)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))


def watch_sample(
    port: int, what: str, note: str, act: Callable[[], None], seen: Callable[[http.client.HTTPConnection], bool],
    timeout: float,
) -> dict[str, Any]:
    """Do ``act`` (a file write) and time it until ``seen``; with the watcher's own record."""
    wait_idle(port, timeout)
    before = server_status(port).get("updates", 0)
    wall = time.time()
    started = time.perf_counter()
    act()
    seconds = poll(port, seen, started, timeout)
    wait_idle(port, timeout)  # the update records itself after the new snapshot is served
    status = server_status(port)
    updates = status.get("updates", 0) - before
    last = (status.get("last_update") or {}) if updates else {}
    return {
        "what": what,
        "note": note,
        "seconds": seconds,
        "updates": updates,
        "update_after": round(last["started"] - wall, 2) if "started" in last else None,
        "update_took": last.get("seconds"),
        "error": last.get("error"),
    }


def watch_latency(
    port: int, vault: Path, rows: list[tuple[str, str]], edits: int, timeout: float, seed: int
) -> list[dict[str, Any]]:
    """Edit ``edits`` notes (a link and a sentence appended, then restored) and create and
    delete one note, each timed from the write until the server shows it."""
    rng = random.Random(seed + 1)
    stems: dict[str, int] = {}
    for uri, _ in rows:
        stem = uri.rsplit("/", 1)[-1].casefold()
        stems[stem] = stems.get(stem, 0) + 1
    # Link targets a plain [[name]] resolves to unambiguously (what Obsidian inserts).
    targets = [(u, t) for u, t in rows if stems[u.rsplit("/", 1)[-1].casefold()] == 1]
    editable = [u for u, _ in rows if (vault / f"{u}.md").is_file()]
    rng.shuffle(editable)
    samples: list[dict[str, Any]] = []
    originals: dict[Path, tuple[bytes, os.stat_result]] = {}
    new_note = vault / NEW_NOTE
    try:
        for uri in editable[:edits]:
            path = vault / f"{uri}.md"
            # A new connection each time: uvicorn drops one idle for 5 s (keep-alive timeout).
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            before = out_links(conn, uri) or set()
            conn.close()
            target_uri, target_title = next(
                (u, t) for u, t in (rng.choice(targets) for _ in range(1000)) if u != uri and u not in before
            )
            name = target_uri.rsplit("/", 1)[-1]
            label = f"{uri} -> {name}" + (f" ({target_title})" if target_title != name else "")
            data, stat = path.read_bytes(), path.stat()
            originals[path] = (data, stat)
            edited = data + (
                f"\n\nSee also [[{name}]]: it came up again while reviewing this (bench_server.py).\n"
            ).encode()

            def linked(c: http.client.HTTPConnection, uri: str = uri, t: str = target_uri) -> bool:
                return t in (out_links(c, uri) or ())

            def unlinked(c: http.client.HTTPConnection, uri: str = uri, t: str = target_uri) -> bool:
                links = out_links(c, uri)
                return links is not None and t not in links

            samples.append(watch_sample(port, "edit: link added", label, lambda p=path, e=edited: p.write_bytes(e), linked, timeout))
            samples.append(
                watch_sample(
                    port, "restore: link gone", label,
                    lambda p=path, d=data, s=stat: write_restoring_mtime(p, d, s), unlinked, timeout,
                )
            )
            del originals[path]

        target_uri, _ = rng.choice(targets)
        name = target_uri.rsplit("/", 1)[-1]
        new_uri = NEW_NOTE[:-3]
        text = f"# A new note\n\nStarted from [[{name}]]; more to follow (bench_server.py).\n"

        def exists(c: http.client.HTTPConnection) -> bool:
            return get_json(c, f"/notes/{quote(new_uri)}")[0] == 200

        def gone(c: http.client.HTTPConnection) -> bool:
            return get_json(c, f"/notes/{quote(new_uri)}")[0] == 404

        label = f"{new_uri} -> {name}"
        samples.append(watch_sample(port, "new note: 200", label, lambda: new_note.write_text(text), exists, timeout))
        samples.append(watch_sample(port, "deleted: 404", label, lambda: new_note.unlink(missing_ok=True), gone, timeout))
    finally:
        left = bool(originals) or new_note.exists()
        for path, (data, stat) in originals.items():
            write_restoring_mtime(path, data, stat)
        new_note.unlink(missing_ok=True)
        if left:  # interrupted: bring the index back in line with the restored vault
            try:
                request(http.client.HTTPConnection("127.0.0.1", port, timeout=600), "/index", {"wait": True})
            except (OSError, http.client.HTTPException):
                print("could not re-index after restoring the vault; the index may be stale", file=sys.stderr)
    return samples


def start_server(vault: Path, index_dir: Path, port: int, watch: bool) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    command = [sys.executable, __file__, "--serve", str(vault), str(index_dir), str(port)]
    return subprocess.Popen(command + (["--serve-watch"] if watch else []), env=env)


def wait_watching(port: int, timeout: float = 300) -> None:
    """Until the watcher runs and its start-up update (it catches changes made before it
    was armed) is done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = server_status(port)
        if status.get("watching") and status.get("updates", 0) >= 1 and not status.get("updating"):
            return
        time.sleep(0.2)
    raise SystemExit("the watcher did not start (or its first update did not finish)")


def print_watch(samples: list[dict[str, Any]], timeout: float, loads: tuple[str, str], debounce: Any) -> None:
    print(
        f"\nWatcher on (debounce {debounce}): seconds from writing the file until the change "
        f"is visible over HTTP (polled every {POLL_SECONDS * 1000:.0f} ms). "
        f"Load average before {loads[0]}, after {loads[1]}.\n"
    )
    print("| change | note -> link target | seconds | updates | update began after write, s | update took, s |")
    print("| --- | --- | --- | --- | --- | --- |")
    for s in samples:
        seconds = f"{s['seconds']:.2f}" if s["seconds"] is not None else f"FAILED (> {timeout:g} s)"
        error = f" error: {s['error']}" if s["error"] else ""
        print(
            f"| {s['what']} | `{s['note']}` | {seconds} | {s['updates']} | {s['update_after']} "
            f"| {s['update_took']}{error} |"
        )
    edits = [s for s in samples if s["what"].startswith(("edit", "restore"))]
    ok = [s["seconds"] for s in edits if s["seconds"] is not None]
    failed = len(edits) - len(ok)
    if ok:
        median = statistics.median(ok)
        over = sum(1 for x in ok if x > 2) + failed
        print(
            f"\nEdit/restore of an existing note: median {median:.2f} s over {len(ok)} samples "
            f"(min {min(ok):.2f}, max {max(ok):.2f}; {failed} failed); target within 2 s: "
            f"median {'met' if median <= 2 else 'NOT met'}, {over} of {len(edits)} samples over 2 s."
        )
    elif edits:
        print(f"\nEdit/restore of an existing note: all {failed} samples failed; target: within 2 s -> NOT met.")
    for s in samples:
        if not s["what"].startswith(("edit", "restore")):
            took = f"{s['seconds']:.2f} s" if s["seconds"] is not None else "FAILED"
            print(f"{s['what']}: {took}")


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
    ap.add_argument(
        "--no-watch-latency", dest="watch_latency", action="store_false",
        help="skip timing, with the watcher on, how soon an edited file shows over HTTP",
    )
    ap.add_argument("--edits", type=int, default=5, help="notes edited (and restored) with the watcher on")
    ap.add_argument("--watch-timeout", type=float, default=60, help="seconds before a change counts as missed")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--serve", nargs=3, metavar=("VAULT", "INDEX_DIR", "PORT"), help=argparse.SUPPRESS)
    ap.add_argument("--serve-watch", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.serve:
        serve(args.serve[0], args.serve[1], int(args.serve[2]), watch=args.serve_watch)
        return

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
        {"question": rng.choice(QUESTIONS).format(title), "budget": args.budget} for _, title in rows
    ]

    # A note left behind by an interrupted run: remove it now; the watcher's start-up
    # update (or the next one) drops it from the index.
    (vault / NEW_NOTE).unlink(missing_ok=True)
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
        print(f"\nPOST /index after editing one note took {update_seconds:.1f} s (answers kept coming meanwhile).")
    if args.watch_latency:
        sys.stdout.flush()
        from graphrag.config import load_settings
        from graphrag.live import QUIET_STEP_MS

        debounce = f"{load_settings().server.watch_debounce_ms} ms, quiet step {QUIET_STEP_MS} ms"
        port = free_port()
        proc = start_server(vault, index_dir, port, watch=True)
        try:
            wait_ready(port, proc)
            wait_watching(port)
            before = " / ".join(f"{x:.1f}" for x in os.getloadavg())
            samples = watch_latency(port, vault, note_titles(index_dir), args.edits, args.watch_timeout, args.seed)
            after = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        finally:
            proc.terminate()
            proc.wait(30)
        print_watch(samples, args.watch_timeout, (before, after), debounce)


if __name__ == "__main__":
    main()
