"""Cold commands from the shell, against the floor, in one interleaved run.

Each command is a fresh process, as a person (or a script in a loop) runs it:

* ``focus``, ``search --mode lexical|semantic|hybrid``, ``query`` and
  ``ask --prompt-only`` on VAULT (its index built beforehand; ``--no-server``);
* the floor (``--floor``, default ``benchmarks/floor_embed.py``: Python, import
  onnxruntime, load the model, tokenize, one embedding) and ``python -c pass``;
* with ``--before TREE``, each command once more from another checkout's code (a
  folder holding its ``graphrag`` and ``indexer``, e.g. ``git archive`` of an older
  commit), in the same rounds: the before/after ratio is paired like the floor's.

Before timing, the project's packages in each tree are compiled to bytecode
(``compileall``), as installing them does (pip compiles at install; an editable
install writes ``__pycache__`` on first use). Without it, a process run with
``PYTHONDONTWRITEBYTECODE=1`` (set in some shells and containers) or from a fresh
``git archive`` compiles ~90 of the project's modules every run, ~0.16 s of a cold
``query`` here, which the floor (all site-packages, compiled) never pays.
``--no-compile`` times the trees as they are.

The commands run in turn, round after round, the order rotated each round, so a
slow spell of the machine touches every command alike; each command's ratio to
the floor is taken round by round (the same round's floor) and its median quoted,
for wall time and for CPU time (user + system of the finished process).

    python benchmarks/bench_cold.py --vaults ../shared/vaults --vault obsidian-help \\
        --index-dir /tmp/idx/obsidian-help [--runs 7] [--served] [--before DIR] [--out FILE] \\
        [--no-compile]
    python benchmarks/bench_cold.py --smoke   # sample_vault, one round, no floor (CI)

The index must be current (the script checks): the figures are for answering, not
indexing. The embedding backend is the configured one (``VAULTRAG_EMBEDDING__BACKEND``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
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
        "search semantic": [*cli, "search", question, "--mode", "semantic", *where],
        "search hybrid": [*cli, "search", question, "--mode", "hybrid", *where],
        "query": [*cli, "query", question, *where, "--seed", "1"],
        "ask --prompt-only": [*cli, "ask", question, *where, "--prompt-only", "--seed", "1"],
    }


BEFORE = " (before)"  # suffix of a command run from the --before tree


PACKAGES = ("graphrag", "indexer")  # the project's code in a tree


def compile_tree(tree: Path) -> None:
    """Write the bytecode of ``tree``'s packages, as installing them does (``compileall``
    writes it whatever ``PYTHONDONTWRITEBYTECODE`` says), with the interpreter that runs
    the commands, so its ``__pycache__`` entries are the ones that interpreter reads."""
    folders = [str(tree / name) for name in PACKAGES if (tree / name).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *folders], check=True)


def timed(cmd: list[str], cwd: Path = ROOT) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of one run of ``cmd`` as a whole process. ``cwd`` is
    the checkout whose code ``python -m graphrag`` runs (its folder comes first)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{shlex.join(cmd)} failed:\n{done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return seconds, cpu


Times = dict[str, list[tuple[float, float]]]


def run(
    cmds: dict[str, list[str]], rounds: int, before: Path | None = None, warmup: int = 0
) -> Times:
    """Every command once a round, order rotated; with ``before``, each ``python -m
    graphrag`` command also from that tree (named NAME + BEFORE). ``warmup`` untimed
    rounds first: what a command keeps for later ones (the blocks of embedded notes,
    cached by the code's path, so once per tree) is made before the timing, since a
    cold command here is a fresh process, not the first run after an install."""
    runs: dict[str, tuple[list[str], Path]] = {}
    for name, cmd in cmds.items():
        runs[name] = (cmd, ROOT)
        if before is not None and cmd[1:3] == ["-m", "graphrag"]:
            runs[name + BEFORE] = (cmd, before)
    for _ in range(warmup):
        for name in runs:
            timed(*runs[name])
    times: Times = {name: [] for name in runs}
    names = list(runs)
    for r in range(rounds):
        k = r % len(names)
        for name in names[k:] + names[:k]:
            times[name].append(timed(*runs[name]))
    return times


def _ratio(ts: list[tuple[float, float]], base: list[tuple[float, float]], i: int) -> str:
    return f"{statistics.median(t[i] / b[i] for t, b in zip(ts, base, strict=True)):.2f}x"


def table(times: Times, floor: str | None) -> str:
    """Medians, and ratios taken round by round: to the floor, and to the same command
    from the --before tree."""
    lines = [
        "| command | wall s (min / median / max) | CPU s (median) | wall / floor "
        "| CPU / floor | wall / before | CPU / before |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for name, ts in times.items():
        walls = [t[0] for t in ts]
        cpu = statistics.median(t[1] for t in ts)
        to_floor = ["", ""]
        if floor is not None and name != floor:
            to_floor = [_ratio(ts, times[floor], 0), _ratio(ts, times[floor], 1)]
        to_before = ["", ""]
        if name + BEFORE in times:
            to_before = [_ratio(ts, times[name + BEFORE], 0), _ratio(ts, times[name + BEFORE], 1)]
        lines.append(
            f"| {name} | {min(walls):.2f} / {statistics.median(walls):.2f} / {max(walls):.2f} "
            f"| {cpu:.2f} | {' | '.join(to_floor)} | {' | '.join(to_before)} |"
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
    ap.add_argument("--warmup", type=int, default=1, help="untimed rounds first")
    ap.add_argument("--floor", default=f"{sys.executable} {FLOOR}", help="the floor command")
    ap.add_argument("--out", type=Path, help="append the table to this Markdown file")
    ap.add_argument("--before", type=Path, help="also run each command from this checkout's code")
    ap.add_argument("--smoke", action="store_true", help="sample_vault, one round, no floor")
    ap.add_argument(
        "--no-compile",
        action="store_true",
        help="time the trees' code as it is (no compileall of graphrag and indexer first)",
    )
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
        args.warmup = 0
        args.no_compile = True  # nothing is timed for real: leave the checkout as it is
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
    before = args.before.resolve() if args.before else None
    if before is not None and not (before / "graphrag" / "__init__.py").is_file():
        ap.error(f"{before}: no graphrag package there")
    if not args.no_compile:
        for tree in (ROOT, before):
            if tree is not None:
                compile_tree(tree)
    start_load = os.getloadavg()
    times = run(cmds, args.runs, before, args.warmup)
    text = table(times, floor)
    load = os.getloadavg()
    bytecode = "as found" if args.no_compile else "compiled before timing"
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        bytecode += ", PYTHONDONTWRITEBYTECODE set"
    text += (
        f"\n\n{args.runs} rounds after {args.warmup} untimed; {os.cpu_count()} cores, load "
        f"average {start_load[0]:.1f} at the start, {load[0]:.1f} (5 min {load[1]:.1f}) at the "
        f"end; embedding backend "
        f"{os.environ.get('VAULTRAG_EMBEDDING__BACKEND', 'auto (settings)')}; the project's "
        f"bytecode {bytecode}.\n"
    )
    print(text)
    print(json.dumps({k: [[round(x, 3) for x in t] for t in v] for k, v in times.items()}))
    if args.out:
        with open(args.out, "a", encoding="utf-8") as fh:
            fh.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
