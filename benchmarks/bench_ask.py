"""Time to the first ``delta`` of a streamed ``POST /ask`` (retrieval + prompt + first chunk).

What it does:

1. makes the 10,000-note vault of ``gen_vault.py`` (``--notes``) unless one is in ``--work``,
   and indexes it with the 384-d hashing embedder (``benchmarks/common.py``);
2. starts the server in a subprocess (``served.py``: ``create_app`` + uvicorn on 127.0.0.1,
   no watcher; the real MiniLM model embeds questions, as in ``bench_server.py``);
3. asks ``--requests`` distinct questions (made from note titles, none asked before, after
   ``--warmup`` unrecorded ones) with ``"model": "echo"`` (llm-echo: answers at once, so
   the time is ours, not a model's), one client on a keep-alive connection, alternating
   with ``POST /query`` on the same kind of question, and reads each stream to its end;
4. prints the milliseconds to the ``context`` event, to the first ``delta`` and to
   ``done``, the server's own retrieval time (``done``'s ``seconds.retrieval``), the
   first delta minus that (HTTP, the answer thread, the model's first piece), and
   ``/query``'s, as percentiles.

Usage::

    python benchmarks/bench_ask.py [--notes 10000] [--requests 300] [--warmup 30]
                                   [--work /tmp/bench-server]
    python benchmarks/bench_ask.py --smoke --work DIR   # 300 notes, 10 questions (CI)

Only loopback traffic; every loop is bounded.
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_server import QUESTIONS  # noqa: E402
from benchmarks.common import generated_vault, indexed  # noqa: E402
from benchmarks.served import free_port, note_titles, request, start_server, wait_ready  # noqa: E402


def ask_times(conn: http.client.HTTPConnection, question: str) -> dict[str, float]:
    """Milliseconds from sending the request to each event's first line, and the server's
    own retrieval time (``done``'s ``seconds.retrieval``) as ``retrieval``."""
    body = json.dumps({"question": question, "model": "echo", "budget": 2000}).encode()
    start = time.perf_counter()
    conn.request("POST", "/ask", body=body, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    if resp.status != 200:
        raise SystemExit(f"/ask answered {resp.status}: {resp.read()[:300]!r}")
    seen: dict[str, float] = {}
    while True:
        line = resp.readline()
        if not line:
            break
        if line.startswith(b"event: "):
            name = line[7:].strip().decode()
            seen.setdefault(name, (time.perf_counter() - start) * 1000)
            if name in ("done", "error"):
                data = json.loads(resp.readline().removeprefix(b"data: "))
                if name == "done":
                    seen["retrieval"] = data["seconds"]["retrieval"] * 1000
                resp.read()  # the rest of the stream: the connection is reused
                break
    if "error" in seen or "delta" not in seen:
        raise SystemExit(f"/ask for {question!r} gave no delta or an error: {sorted(seen)}")
    return seen


def query_ms(conn: http.client.HTTPConnection, question: str) -> float:
    start = time.perf_counter()
    status, _ = request(conn, "/query", {"question": question, "budget": 2000})
    if status != 200:
        raise SystemExit(f"/query answered {status}")
    return (time.perf_counter() - start) * 1000


def percentiles(values: list[float]) -> str:
    cut = statistics.quantiles(values, n=100)
    return f"{statistics.median(values):.1f} | {cut[89]:.1f} | {cut[98]:.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--notes", type=int, default=10_000)
    ap.add_argument("--requests", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-server"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--smoke", action="store_true", help="300 notes, 10 questions: the script works (CI)"
    )
    args = ap.parse_args()
    if args.smoke:
        args.notes, args.requests, args.warmup = 300, 10, 2

    vault = generated_vault(args.work / f"vault-{args.notes}", args.notes)
    index_dir = args.work / f"index-{args.notes}"
    indexed(vault, index_dir)
    titles = [t for _, t in note_titles(index_dir)]
    rng = random.Random(args.seed)
    rng.shuffle(titles)
    needed = 2 * (args.requests + args.warmup)
    questions = [QUESTIONS[i % len(QUESTIONS)].format(t) for i, t in enumerate(titles[:needed])]

    port = free_port()
    proc = start_server(vault, index_dir, port, watch=False)
    try:
        wait_ready(port, proc)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        asks: list[dict[str, float]] = []
        queries: list[float] = []
        for i in range(args.requests + args.warmup):
            timed = ask_times(conn, questions[2 * i])
            took = query_ms(conn, questions[2 * i + 1])
            if i >= args.warmup:
                asks.append(timed)
                queries.append(took)
        conn.close()
    finally:
        proc.terminate()
        proc.wait(30)

    print(f"\n{args.notes} notes, {len(asks)} questions each, one client, model echo\n")
    print("| measure | p50 ms | p90 ms | p99 ms |")
    print("| --- | --- | --- | --- |")
    labels = {
        "retrieval": "`/ask`: retrieval and prompt, in the server",
        "context": "`/ask` to `context`",
        "delta": "`/ask` to first `delta`",
        "done": "`/ask` to `done`",
    }
    for name, label in labels.items():
        print(f"| {label} | {percentiles([a[name] for a in asks])} |")
    print(f"| `/query` (whole answer) | {percentiles(queries)} |")
    overhead = [a["delta"] - a["retrieval"] for a in asks]
    print(f"| first `delta` minus retrieval | {percentiles(overhead)} |")


if __name__ == "__main__":
    main()
