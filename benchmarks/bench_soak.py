"""Server memory over a soak: ``vault-graphrag serve`` under a bounded load with edits.

    python benchmarks/bench_soak.py VAULTS_DIR/obsidian-help --minutes 60 --out soak.csv \
        [--index-dir PREBUILT_INDEX] [--rate 2] [--edit-every 30] [--smaps F] [--probe F]

The vault is copied (edits never touch the original; ``cp -p`` keeps mtimes, so a
prebuilt index given with ``--index-dir``, also copied, stays current). The real
server runs as a subprocess with its watcher on; a client sends ``--rate`` requests a
second in turn (``/query``, ``/search`` hybrid, ``/focus`` on a random note) and
appends a line to a random note every ``--edit-every`` seconds, which the watcher
re-indexes. The server's resident memory (``VmRSS``) is sampled every 10 s into the
CSV. Printed: RSS after start-up, at 10 and 30 minutes and at the end, the growth
between the 10th minute and the end (the issue's "flat between the 10th and the 60th
minute"), the medians of the five minutes up to those points, and the largest sample.
``--smaps FILE`` also writes where the resident memory is every 5 minutes (and at the
end): ``/proc/PID/smaps`` summed by mapping (the heap and anonymous memory, each shared
library, the model's files). ``--probe FILE`` runs the server under
``benchmarks/soak_probe.py``, whose sampler writes what the memory is made of (malloc's
arenas, every bounded cache's fill, the garbage collector; with ``--trace N`` tracemalloc's
growth since minute 10 by allocation site) as JSON lines. ``--minutes 0.2`` is the smoke
run the tests use.
"""

from __future__ import annotations

import argparse
import csv
import http.client
import json
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

from benchmarks.common import HELP_QUESTIONS as QUESTIONS  # noqa: E402
from benchmarks.common import rss_mb  # noqa: E402
from benchmarks.served import free_port, get_json, note_titles, request  # noqa: E402


def wait_preloaded(port: int, proc: subprocess.Popen, timeout: float = 600) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            status, data = get_json(conn, "/status")
            conn.close()
            if status == 200 and data.get("preloaded"):
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("the server did not finish preloading")


SMAPS_MINUTES = tuple(range(5, 61, 5))  # and at the end


def smaps_by_mapping(pid: int) -> dict[str, float]:
    """Resident MB of a process by what is mapped: "[heap]", "[anon]" (anonymous
    mappings: malloc's other arenas, mmap'd arrays, ONNX Runtime's buffers), or the file's
    name (shared libraries, the model's weights)."""
    sizes: dict[str, float] = {}
    name = "[anon]"
    for line in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        first = line.split(maxsplit=6)
        if first and "-" in first[0] and not first[0].endswith(":"):  # a mapping's header
            # Not ``Path(...).name``: pathlib interns every part it parses, and in the
            # server (soak_probe.py) that used up the interned-string table as it measured.
            name = first[5].rsplit("/", 1)[-1] if len(first) > 5 else "[anon]"
        elif first and first[0] == "Rss:":
            sizes[name] = sizes.get(name, 0.0) + int(first[1]) / 1024
    return dict(
        sorted(((k, round(v, 1)) for k, v in sizes.items() if v >= 0.5), key=lambda kv: -kv[1])
    )


def work_copy(source: Path, index: Path | None, prefix: str) -> tuple[Path, Path, Path]:
    """A temporary folder holding a copy of the vault (the soak edits it: the source is
    never written) and of its index if one is given, without a running server's file."""
    work = Path(tempfile.mkdtemp(prefix=prefix))
    vault = work / "vault"
    shutil.copytree(source, vault, copy_function=shutil.copy2)
    index_dir = work / "index"
    if index:
        shutil.copytree(index, index_dir, copy_function=shutil.copy2)
        (index_dir / "server.json").unlink(missing_ok=True)
    return work, vault, index_dir


def run(args: argparse.Namespace) -> dict[str, float]:
    work, vault, index_dir = work_copy(args.vault, args.index_dir, "soak-")
    port = free_port()
    server = ["-m", "graphrag"]
    env = dict(os.environ)
    if args.probe:
        # The same server under benchmarks/soak_probe.py's sampler (tracemalloc with --trace).
        server = [str(ROOT / "benchmarks" / "soak_probe.py")]
        env.update(
            SOAK_PROBE_OUT=str(args.probe.resolve()),
            SOAK_PROBE_TRACE=str(args.trace),
            SOAK_PROBE_SECONDS=str(args.probe_seconds),
        )
    cmd = [sys.executable, *server, "serve", str(vault), "--index-dir", str(index_dir)]
    cmd += ["--port", str(port), "--watch"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stderr=subprocess.DEVNULL, env=env)
    samples: list[tuple[float, float, int, float]] = []
    try:
        wait_preloaded(port, proc)
        notes = note_titles(index_dir)
        rng = random.Random(args.seed)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        start = time.monotonic()
        end = start + args.minutes * 60
        next_sample = next_edit = start
        done = 0
        latencies: list[float] = []
        md = sorted(vault.rglob("*.md"))
        smaps: dict[str, dict[str, float]] = {}
        pending = [m * 60 for m in SMAPS_MINUTES if m < args.minutes] if args.smaps else []
        while (now := time.monotonic()) < end:
            if pending and now - start >= pending[0]:
                smaps[f"{pending.pop(0) / 60:g} min"] = smaps_by_mapping(proc.pid)
            if now >= next_sample:
                lat = statistics.median(latencies) * 1000 if latencies else 0.0
                samples.append((now - start, rss_mb(proc.pid), done, lat))
                latencies.clear()
                next_sample += 10
            if now >= next_edit:
                with open(rng.choice(md), "a", encoding="utf-8") as fh:
                    fh.write(f"\nsoak edit {done} at {time.time():.0f}\n")
                next_edit += args.edit_every
            kind = done % 3
            t = time.perf_counter()
            if kind == 0:
                request(conn, "/query", {"question": rng.choice(QUESTIONS), "seed": 1})
            elif kind == 1:
                request(conn, "/search", {"query": rng.choice(QUESTIONS), "mode": "hybrid"})
            else:
                request(conn, "/focus", {"note": rng.choice(notes)[0], "seed": 1})
            latencies.append(time.perf_counter() - t)
            done += 1
            time.sleep(max(0.0, 1.0 / args.rate - (time.perf_counter() - t)))
        samples.append((time.monotonic() - start, rss_mb(proc.pid), done, 0.0))
        if args.smaps:
            smaps[f"end ({samples[-1][0] / 60:.1f} min)"] = smaps_by_mapping(proc.pid)
            args.smaps.write_text(json.dumps(smaps, indent=1))
    finally:
        proc.terminate()
        proc.wait(timeout=60)
        shutil.rmtree(work, ignore_errors=True)
    if args.out:
        with open(args.out, "w", newline="") as fh:
            out = csv.writer(fh)
            out.writerow(["seconds", "rss_mb", "requests", "median_ms_last_10s"])
            out.writerows((round(s, 1), round(r, 1), n, round(m, 1)) for s, r, n, m in samples)
    at = lambda sec: min(samples, key=lambda s: abs(s[0] - sec))[1]  # noqa: E731
    ten = min(600.0, samples[-1][0])
    end = samples[-1][0]

    def settled(sec: float) -> float:
        # The median of the five minutes up to ``sec``: a sample can fall during an
        # update, which holds its parse and embedding for a moment.
        return statistics.median(s[1] for s in samples if sec - 300 <= s[0] <= sec)

    summary = {
        "rss_start_mb": samples[0][1],
        "rss_10min_mb": at(ten),
        "rss_30min_mb": at(min(1800.0, end)),
        "rss_end_mb": samples[-1][1],
        "growth_10min_to_end_mb": samples[-1][1] - at(ten),
        "median5_10min_mb": settled(ten),
        "median5_30min_mb": settled(min(1800.0, end)),
        "median5_end_mb": settled(end),
        "rss_max_mb": max(s[1] for s in samples),
        "requests": samples[-1][2],
        "minutes": end / 60,
    }
    return summary


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("vault", type=Path)
    parser.add_argument("--index-dir", type=Path, help="a prebuilt index of VAULT (copied)")
    parser.add_argument("--minutes", type=float, default=60)
    parser.add_argument("--rate", type=float, default=2.0, help="requests a second")
    parser.add_argument("--edit-every", type=float, default=30.0, help="seconds between edits")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, help="CSV of the samples")
    parser.add_argument("--smaps", type=Path, help="JSON: resident MB by mapping, 10/30/60 min")
    parser.add_argument("--probe", type=Path, help="JSON lines: benchmarks/soak_probe.py's samples")
    parser.add_argument("--probe-seconds", type=float, default=60.0, help="between probe samples")
    parser.add_argument("--trace", type=int, default=0, help="with --probe: tracemalloc frames")
    args = parser.parse_args(argv)
    if not args.vault.is_dir():
        parser.error(f"{args.vault}: not a folder")
    summary = run(args)
    print(json.dumps({k: round(v, 1) for k, v in summary.items()}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
