"""The benchmark scripts still run: each in its smoke mode (tiny sizes, seconds).

A benchmark that nobody runs rots (``bench_query.py`` stopped importing once); these
runs catch a renamed import, a changed signature or a missing vault early. They
check the scripts work, not how fast anything is.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from csv import DictReader
from pathlib import Path

import pytest

from benchmarks.interned import interned_table
from indexer.tokens import COUNT_CACHE_ENTRIES
from tests.support.fakes import HASH_BACKEND
from tests.support.files import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "VAULTRAG_EMBEDDING__BACKEND": HASH_BACKEND}


def bench(*args: str) -> str:
    out = subprocess.run(
        [sys.executable, *args], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_bench_query(tmp_path: Path) -> None:
    out = bench("benchmarks/bench_query.py", "--cache", str(tmp_path), "--smoke")
    assert "| query (budget 4000) |" in out and "300 notes" in out


def test_bench_focus(tmp_path: Path) -> None:
    out = bench("benchmarks/bench_focus.py", "--cache", str(tmp_path), "--smoke")
    assert "| synthetic-300 | 300 |" in out


def test_bench_focus_names_a_missing_vault(tmp_path: Path) -> None:
    out = subprocess.run(
        [sys.executable, "benchmarks/bench_focus.py", "--cache", str(tmp_path), "--vaults",
         str(tmp_path / "nowhere"), "--smoke"],
        cwd=ROOT, env=ENV, capture_output=True, text=True,
    )  # fmt: skip
    assert out.returncode != 0 and "obsidian-hub: no such vault" in out.stderr


def test_bench_cold() -> None:
    out = bench("benchmarks/bench_cold.py", "--smoke")
    times = json.loads(out.strip().splitlines()[-1])
    assert set(times) >= {"focus", "query", "search lexical", "ask --prompt-only"}


@pytest.mark.parametrize("minutes", ["0.1"])
def test_bench_soak(tmp_path: Path, minutes: str) -> None:
    csv = tmp_path / "soak.csv"
    smaps = tmp_path / "smaps.json"
    out = bench("benchmarks/bench_soak.py", str(ROOT / "sample_vault"), "--minutes", minutes,
                "--edit-every", "2", "--out", str(csv), "--smaps", str(smaps))  # fmt: skip
    summary = json.loads(out)
    assert summary["requests"] > 0 and summary["rss_end_mb"] > 0
    assert csv.read_text(encoding="utf-8").startswith("seconds,rss_mb,requests")
    (at_end,) = json.loads(smaps.read_text(encoding="utf-8")).values()  # shorter than 5 min
    assert at_end["[heap]"] > 1 and sum(at_end.values()) < summary["rss_end_mb"] * 1.2


def test_bench_soak_probe(tmp_path: Path) -> None:
    probe = tmp_path / "probe.jsonl"
    bench("benchmarks/bench_soak.py", str(ROOT / "sample_vault"), "--minutes", "0.1",
          "--probe", str(probe), "--probe-seconds", "1")  # fmt: skip
    rows = [json.loads(line) for line in probe.read_text(encoding="utf-8").splitlines()]
    assert rows and all("error" not in row for row in rows)
    last = rows[-1]
    assert last["smaps"]["[heap]"] > 1 and last["malloc"]["in_use_mb"] > 1
    counts = [cache for cache in last["caches"] if cache["type"] == "CountCache"]
    assert [cache["limit"] for cache in counts] == [COUNT_CACHE_ENTRIES] and counts[0]["n"] > 0


def test_soak_replica(tmp_path: Path) -> None:
    csv = tmp_path / "replica.csv"
    out = bench("benchmarks/soak_replica.py", str(ROOT / "sample_vault"), "--rounds", "3",
                "--per-round", "6", "--out", str(csv), "--trace", "2",
                "--edits", "toggle", "--overlap")  # fmt: skip
    summary = json.loads(out)
    assert summary["rounds"] == 3 and summary["rss_end_mb"] > 0
    assert summary["count_entries_end"] > 0 and summary["chunks_end"] >= summary["chunks_start"]
    rows = list(DictReader(csv.read_text(encoding="utf-8").splitlines()))
    assert len(rows) == 4 and {"rss_mb", "heap_mb", "in_use_mb"} <= set(rows[0])
    if interned_table():  # readable here (nm, CPython 3.11): the replica's columns too
        assert int(rows[-1]["interned_entries"]) >= int(rows[-1]["interned_used"]) > 0


def test_soak_replica_edits(tmp_path: Path) -> None:
    from benchmarks.soak_replica import edit

    note, originals = tmp_path / "n.md", {}
    note.write_text("# N\n\nbody\n", encoding="utf-8")
    edit(note, 1, "toggle", originals)
    toggled = note.read_text(encoding="utf-8")
    edit(note, 2, "toggle", originals)
    assert toggled != "# N\n\nbody\n" == note.read_text(encoding="utf-8")  # the vault as it was
    edit(note, 3, "append", originals)
    edit(note, 4, "append", originals)
    assert note.read_text(encoding="utf-8").count("soak edit") == 2  # the soak's: it grows


def test_bench_memory() -> None:
    out = bench("benchmarks/bench_memory.py", "--smoke", "--smaps", "--tracemalloc")
    assert "| index opened, graph loaded" in out and "| query model" in out
    assert "| 2 edits, each indexed" in out and "largest additions" in out
    assert "Python heap (tracemalloc)" in out


def test_bench_tail() -> None:
    out = bench("benchmarks/bench_tail.py", "--smoke")
    assert "| query |" in out and "choosing snippets" in out


def test_bench_ask(tmp_path: Path) -> None:
    out = bench("benchmarks/bench_ask.py", "--smoke", "--work", str(tmp_path))
    assert "300 notes, 10 questions each" in out and "| `/ask` to first `delta` |" in out


def test_bench_focus_served() -> None:
    out = bench("benchmarks/bench_focus_served.py", "--smoke")
    assert "| this | distinct |" in out and "| this | plugin |" in out


def test_bench_query_parts() -> None:
    out = bench("benchmarks/bench_query_parts.py", "--smoke")
    assert "| packing: related notes, hits |" in out and "| **total** (p50" in out


def test_same_answers() -> None:
    out = bench("benchmarks/same_answers.py", "--smoke")
    assert "6 questions (3 hubs), 36 runs, differing 0" in out


def test_answer_coverage() -> None:
    out = bench("benchmarks/answer_coverage.py", "--smoke")
    assert "| budget | answer words in the context | in the gold notes' text |" in out
    row = next(line for line in out.splitlines() if line.startswith("| 1000 |"))
    whole, gold = (float(cell) for cell in row.strip("| \n").split("|")[1:])
    assert 0 < gold <= whole <= 100  # the gold notes' text is part of the context


def test_note_costs() -> None:
    out = bench("benchmarks/note_costs.py", "--smoke")
    assert "| key | entry | related | hit | vector |" in out
    row = next(line for line in out.splitlines() if line.startswith("| a note, all keys |"))
    means = [float(cell) for cell in row.strip("| \n").split("|")[1:]]
    assert means[0] > 0 and means[-1] > 0  # entries and the baseline's notes were counted
    bound = next(line for line in out.splitlines() if line.startswith("notes per 1,000"))
    graphrag, free, cut, vector = (float(x) for x in re.findall(r"\b\d+\.\d\d\b", bound))
    assert 0 < graphrag <= free <= cut and vector > 0  # taking tokens away only raises it


def test_bench_chunk() -> None:
    out = bench("benchmarks/bench_chunk.py", "--kb", "2", "--pairs", "1")
    assert all(f"| {shape} | 2 | {ROOT} |" in out for shape in ("list", "prose", "blob"))
    out = bench("benchmarks/bench_chunk.py", "--vaults", "sample_vault", "--tree", str(ROOT))
    notes = len(list((ROOT / "sample_vault").rglob("*.md")))
    assert f"| sample_vault | {ROOT} | {notes} |" in out
