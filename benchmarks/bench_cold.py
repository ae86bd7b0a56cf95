"""Cold commands from the shell, against the floor, in one interleaved run.

Each command is a fresh process, as a person (or a script in a loop) runs it:

* ``focus``, ``search --mode lexical``, ``search --mode hybrid``, ``query`` and
  ``ask --prompt-only`` on VAULT (its index built beforehand; ``--no-server``);
* the floor (``--floor``, default ``benchmarks/floor_embed.py``: Python, import
  onnxruntime, load the model, tokenize, one embedding) and ``python -c pass``.

The commands run in turn, round after round, the order rotated each round, so a
slow spell of the machine touches every command alike; each command's ratio to
the floor is taken round by round (the same round's floor) and its median quoted.

    python benchmarks/bench_cold.py --vaults ../shared/vaults --vault obsidian-help \\
        --index-dir /tmp/idx/obsidian-help [--runs 7] [--served] [--out FILE]
    python benchmarks/bench_cold.py --smoke   # sample_vault, one round, no floor (CI)

The index must be current (the script checks): the figures are for answering, not
indexing. The embedding backend is the configured one (``VAULTRAG_EMBEDDING__BACKEND``).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import smoke_index  # noqa: E402

QUESTION = "how do I embed a file"
NOTE = "Embed files"
FLOOR = ROOT / "benchmarks" / "floor_embed.py"


def commands(
    vault: Path, index_dir: Path, note: str, question: str, served: bool = False
) -> dict[str, list[str]]:
    cli = [sys.executable, "-m", "graphrag"]
    where = ["--vault", str(vault), "--index-dir", str(index_dir)]
    if not served:
        where.append("--no-server")
    return {
        "focus": [*cli, "focus", note, *where, "--seed", "1"],
        "search lexical": [*cli, "search", question, "--mode", "lexical", *where],
        "search hybrid": [*cli, "search", question, "--mode", "hybrid", *where],
        "query": [*cli, "query", question, *where, "--seed", "1"],
        "ask --prompt-only": [*cli, "ask", question, *where, "--prompt-only", "--seed", "1"],
    }


def timed(cmd: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed:\n{done.stderr.decode(errors='replace')}")
    return seconds


def run(cmds: dict[str, list[str]], rounds: int) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {name: [] for name in cmds}
    names = list(cmds)
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            times[name].append(timed(cmds[name]))
    return times


def table(times: dict[str, list[float]], floor: str | None) -> str:
    lines = [
        "| command | min s | median s | max s | median ratio to the floor (same round) |",
        "| --- | --- | --- | --- | --- |",
    ]
    for name, ts in times.items():
        ratio = ""
        if floor is not None and name != floor:
            ratio = (
                f"{statistics.median(t / f for t, f in zip(ts, times[floor], strict=True)):.2f}x"
            )
        lines.append(
            f"| {name} | {min(ts):.2f} | {statistics.median(ts):.2f} | {max(ts):.2f} | {ratio} |"
        )
    return "\n".join(lines)


def _current(vault: Path, index_dir: Path) -> bool:
    from graphrag.api import make_embedder
    from graphrag.config import load_settings
    from indexer.fresh import index_is_current

    settings = load_settings()
    embedder = make_embedder(settings.embedding)
    return index_is_current(vault, index_dir, settings.index_config, embedder)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vaults", type=Path, help="the folder holding the vault")
    ap.add_argument("--vault", default="obsidian-help", help="the vault's folder name")
    ap.add_argument("--index-dir", type=Path, help="its index (built and current)")
    ap.add_argument("--note", default=NOTE)
    ap.add_argument("--question", default=QUESTION)
    ap.add_argument("--runs", type=int, default=7, help="rounds")
    ap.add_argument("--floor", default=f"{sys.executable} {FLOOR}", help="the floor command")
    ap.add_argument("--out", type=Path, help="append the table to this Markdown file")
    ap.add_argument("--smoke", action="store_true", help="sample_vault, one round, no floor")
    ap.add_argument(
        "--served",
        action="store_true",
        help="let the commands ask a running `vault-graphrag serve` for the index",
    )
    args = ap.parse_args(argv)
    if args.smoke:
        vault, index_dir = smoke_index()
        cmds = commands(vault, index_dir, "Shepherd's Hut", "Who runs the aging cellar?")
        floor = None
        args.runs = 1
    else:
        if args.vaults is None or args.index_dir is None:
            ap.error("give --vaults and --index-dir (or --smoke)")
        vault = args.vaults / args.vault
        if not vault.is_dir():
            ap.error(f"{vault}: no such vault")
        if not _current(vault, args.index_dir):
            ap.error(f"{args.index_dir}: not a current index of {vault}; run vault-graphrag index")
        cmds = commands(vault, args.index_dir, args.note, args.question, args.served)
        floor = "floor"
        cmds[floor] = shlex.split(args.floor)
    cmds["python -c pass"] = [sys.executable, "-c", "pass"]
    times = run(cmds, args.runs)
    text = table(times, floor)
    load = os.getloadavg()
    text += (
        f"\n\n{args.runs} rounds; {os.cpu_count()} cores, load average {load[0]:.1f} "
        f"(5 min {load[1]:.1f}) at the end; embedding backend "
        f"{os.environ.get('VAULTRAG_EMBEDDING__BACKEND', 'auto (settings)')}.\n"
    )
    print(text)
    print(json.dumps({k: [round(t, 3) for t in v] for k, v in times.items()}))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
