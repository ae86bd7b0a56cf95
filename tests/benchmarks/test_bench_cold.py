"""bench_cold's ratios are paired round by round: to the floor, and to the same command
from the --before tree."""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path

bench_cold = importlib.import_module("benchmarks.bench_cold")


def test_ratios_are_medians_of_same_round_ratios() -> None:
    times = {
        # (wall, cpu) per round; the floor's speed drifts, the command keeps 2x of it
        "query": [(2.0, 1.0), (4.0, 2.0), (8.0, 4.0)],
        "query (before)": [(4.0, 1.5), (8.0, 3.0), (16.0, 6.0)],
        "floor": [(1.0, 0.5), (2.0, 1.0), (4.0, 2.0)],
    }
    rows = {
        line.split(" | ")[0].strip("| "): line.split(" | ")
        for line in bench_cold.table(times, "floor").splitlines()[2:]
    }
    query = rows["query"]
    assert query[1] == "2.00 / 4.00 / 8.00" and query[2] == "2.00"
    assert query[3:5] == ["2.00x", "2.00x"]  # wall and CPU over the floor, round by round
    assert query[5] == "0.50x" and query[6].startswith("0.67x")  # over the before tree
    assert rows["query (before)"][3:5] == ["4.00x", "3.00x"]


def test_before_runs_each_graphrag_command_from_the_other_tree(tmp_path, monkeypatch) -> None:
    ran: list[tuple[str, object]] = []
    monkeypatch.setattr(bench_cold, "timed", lambda cmd, cwd: ran.append((cmd[-1], cwd)) or (1, 1))
    cmds = {"query": ["python", "-m", "graphrag", "q"], "floor": ["python", "floor.py"]}
    times = bench_cold.run(cmds, rounds=2, before=tmp_path)
    assert set(times) == {"query", "query (before)", "floor"}
    assert ("q", tmp_path) in ran and ("q", bench_cold.ROOT) in ran
    assert ("floor.py", bench_cold.ROOT) in ran and ("floor.py", tmp_path) not in ran
    assert len(ran) == 6
    ran.clear()
    times = bench_cold.run(cmds, rounds=2, before=tmp_path, warmup=1)
    assert len(ran) == 9 and all(len(t) == 2 for t in times.values())  # warm-up untimed


def test_trees_are_compiled_as_installed_even_without_bytecode_writing(
    tmp_path, monkeypatch
) -> None:
    # A tree timed without its bytecode compiles every module every run, which the
    # floor (site-packages, compiled at install) never does.
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    for name in ("graphrag", "indexer"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "__init__.py").write_text("X = 1\n", encoding="utf-8")
    bench_cold.compile_tree(tmp_path)
    for name in ("graphrag", "indexer"):
        source = tmp_path / name / "__init__.py"
        assert Path(importlib.util.cache_from_source(str(source))).is_file()
