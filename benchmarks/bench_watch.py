"""How soon an edit shows over HTTP with the server's file watcher on (10k notes by default).

The server runs as ``vault-graphrag serve`` does by default: ``create_app`` starts
``LiveIndex`` with the app. For ``--edits`` notes this appends a wikilink to another
note plus a sentence, polls ``GET /notes/{uri}/neighbors?direction=out`` every 20 ms
until the target appears, then restores the file (bytes and mtime) and polls until it
is gone again (two samples per note). It also creates a new note linking to an
existing one (polls ``GET /notes/{uri}`` until 200) and deletes it (until 404).
Every wait gives up after ``--watch-timeout`` seconds (reported as a failure); every
changed file is restored. ``bench_server.py`` runs this after its own measurements.

Usage::

    python benchmarks/bench_watch.py [--notes 10000] [--work /tmp/bench-server] [--edits 5]
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import generated_vault, indexed  # noqa: E402
from benchmarks.served import (  # noqa: E402
    free_port,
    get_json,
    note_titles,
    request,
    server_status,
    start_server,
    wait_ready,
)

NEW_NOTE = "bench-watch-new-note.md"  # created and deleted by the watcher measurement
POLL_SECONDS = 0.02


def out_links(conn: http.client.HTTPConnection, uri: str) -> set[str] | None:
    """The uris ``uri`` points at (parent and link targets), or None if not a 200."""
    status, data = get_json(conn, f"/notes/{quote(uri, safe='/')}/neighbors?direction=out")
    return {n["uri"] for n in data} if status == 200 and isinstance(data, list) else None


def poll(
    port: int, seen: Callable[[http.client.HTTPConnection], bool], started: float, timeout: float
) -> float | None:
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
    port: int,
    what: str,
    note: str,
    act: Callable[[], None],
    seen: Callable[[http.client.HTTPConnection], bool],
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
                (u, t)
                for u, t in (rng.choice(targets) for _ in range(1000))
                if u != uri and u not in before
            )
            name = target_uri.rsplit("/", 1)[-1]
            label = f"{uri} -> {name}" + (f" ({target_title})" if target_title != name else "")
            data, stat = path.read_bytes(), path.stat()
            originals[path] = (data, stat)
            edited = (
                data
                + (
                    f"\n\nSee also [[{name}]]: it came up again while reviewing this (bench_server.py).\n"
                ).encode()
            )

            def linked(c: http.client.HTTPConnection, uri: str = uri, t: str = target_uri) -> bool:
                return t in (out_links(c, uri) or ())

            def unlinked(
                c: http.client.HTTPConnection, uri: str = uri, t: str = target_uri
            ) -> bool:
                links = out_links(c, uri)
                return links is not None and t not in links

            samples.append(
                watch_sample(
                    port,
                    "edit: link added",
                    label,
                    lambda p=path, e=edited: p.write_bytes(e),
                    linked,
                    timeout,
                )
            )
            samples.append(
                watch_sample(
                    port,
                    "restore: link gone",
                    label,
                    lambda p=path, d=data, s=stat: write_restoring_mtime(p, d, s),
                    unlinked,
                    timeout,
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
        samples.append(
            watch_sample(
                port, "new note: 200", label, lambda: new_note.write_text(text), exists, timeout
            )
        )
        samples.append(
            watch_sample(
                port, "deleted: 404", label, lambda: new_note.unlink(missing_ok=True), gone, timeout
            )
        )
    finally:
        left = bool(originals) or new_note.exists()
        for path, (data, stat) in originals.items():
            write_restoring_mtime(path, data, stat)
        new_note.unlink(missing_ok=True)
        if left:  # interrupted: bring the index back in line with the restored vault
            try:
                request(
                    http.client.HTTPConnection("127.0.0.1", port, timeout=600),
                    "/index",
                    {"wait": True},
                )
            except (OSError, http.client.HTTPException):
                print(
                    "could not re-index after restoring the vault; the index may be stale",
                    file=sys.stderr,
                )
    return samples


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


def print_watch(
    samples: list[dict[str, Any]], timeout: float, loads: tuple[str, str], debounce: Any
) -> None:
    print(
        f"\nWatcher on (debounce {debounce}): seconds from writing the file until the change "
        f"is visible over HTTP (polled every {POLL_SECONDS * 1000:.0f} ms). "
        f"Load average before {loads[0]}, after {loads[1]}.\n"
    )
    print(
        "| change | note -> link target | seconds | updates | update began after write, s | update took, s |"
    )
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
        print(
            f"\nEdit/restore of an existing note: all {failed} samples failed; target: within 2 s -> NOT met."
        )
    for s in samples:
        if not s["what"].startswith(("edit", "restore")):
            took = f"{s['seconds']:.2f} s" if s["seconds"] is not None else "FAILED"
            print(f"{s['what']}: {took}")


def run(vault: Path, index_dir: Path, edits: int, timeout: float, seed: int) -> None:
    """Start a watching server on ``vault``, time the edits, print the table."""
    from graphrag.config import load_settings
    from graphrag.serve.live import QUIET_STEP_MS

    # A note left behind by an interrupted run: remove it now; the watcher's start-up
    # update drops it from the index.
    (vault / NEW_NOTE).unlink(missing_ok=True)
    debounce = f"{load_settings().server.watch_debounce_ms} ms, quiet step {QUIET_STEP_MS} ms"
    port = free_port()
    proc = start_server(vault, index_dir, port, watch=True)
    try:
        wait_ready(port, proc)
        wait_watching(port)
        before = " / ".join(f"{x:.1f}" for x in os.getloadavg())
        samples = watch_latency(port, vault, note_titles(index_dir), edits, timeout, seed)
        after = " / ".join(f"{x:.1f}" for x in os.getloadavg())
    finally:
        proc.terminate()
        proc.wait(30)
    print_watch(samples, timeout, (before, after), debounce)


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-server"))
    ap.add_argument("--edits", type=int, default=5, help="notes edited (and restored)")
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
    run(vault, index_dir, args.edits, args.watch_timeout, args.seed)


if __name__ == "__main__":
    main()
