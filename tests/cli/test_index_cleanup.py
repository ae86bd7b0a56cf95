"""What ``index`` and ``status`` say about folders left out and leftovers removed (issue 13, 14)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_index import fake_model, run  # noqa: F401 - the fixture is used by name
from tests.support.files import write


def dead_pid() -> int:
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    return gone.pid


def test_index_summary_names_the_templates_folder(
    sample_vault: Path,
    tmp_path: Path,
    fake_model: list,  # noqa: F811
) -> None:
    write(sample_vault, ".obsidian/templates.json", '{"folder": "Templates"}')
    code, out, err = run("index", str(sample_vault), "--index-dir", str(tmp_path / "idx"))
    assert code == 0, out + err
    assert "templates folder not indexed: Templates (index.exclude_templates)" in out
    assert "notes 36 " in out  # the sample vault less Templates/Meeting Template


@pytest.fixture
def killed_run(sample_vault: Path, tmp_path: Path, fake_model: list) -> tuple[Path, int]:  # noqa: F811
    """An index, and the temp generation a killed run (pid returned) left beside it."""
    index_dir = tmp_path / "idx"
    assert run("index", str(sample_vault), "--index-dir", str(index_dir))[0] == 0
    pid = dead_pid()
    (index_dir / f".gen-000002.tmp-{pid}").mkdir()
    return index_dir, pid


def test_index_summary_reports_leftovers_it_removed(
    sample_vault: Path, killed_run: tuple[Path, int]
) -> None:
    index_dir, pid = killed_run
    (index_dir / f".manifest.json.{pid}.tmp").write_text("{}")
    code, out, err = run("index", str(sample_vault), "--index-dir", str(index_dir))
    assert code == 0, out + err
    assert out.startswith("index up to date")
    assert (
        f"cleaned up: {index_dir / f'.gen-000002.tmp-{pid}'}: left by an interrupted run "
        f"(process {pid}); removed"
    ) in out
    assert not (index_dir / f".manifest.json.{pid}.tmp").exists()


def test_status_removes_and_reports_leftovers(
    sample_vault: Path, killed_run: tuple[Path, int]
) -> None:
    index_dir, pid = killed_run
    (index_dir / "gen-000005").mkdir()  # renamed into place, but the manifest never named it
    code, out, err = run("status", str(sample_vault), "--index-dir", str(index_dir), "--json")
    assert code == 0, out + err
    removed = json.loads(out)["leftovers_removed"]
    assert sorted(removed) == sorted(
        [
            f"{index_dir / f'.gen-000002.tmp-{pid}'}: left by an interrupted run (process {pid}); removed",
            f"{index_dir / 'gen-000005'}: a generation the manifest never named (an interrupted commit); "
            "removed",
        ]
    )
    assert sorted(p.name for p in index_dir.iterdir()) == [".lock", "gen-000001", "manifest.json"]
    (index_dir / f".gen-000003.tmp-{pid}").mkdir()
    code, out, err = run("status", str(sample_vault), "--index-dir", str(index_dir))
    assert f"cleaned   {index_dir / f'.gen-000003.tmp-{pid}'}: left by" in out
