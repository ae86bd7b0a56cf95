"""A read-only command ends its process without the interpreter's teardown, once its
output is flushed and the atexit handlers have run (``graphrag.cli.main.main``)."""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tests.support.fakes import HASH_BACKEND
from tests.support.files import ROOT

main = importlib.import_module("graphrag.cli.main")  # the package exports main()

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "VAULTRAG_EMBEDDING__BACKEND": HASH_BACKEND}
# Says on stderr whether atexit ran and whether teardown freed a module-level object.
PROBE = """
import atexit, sys
atexit.register(lambda: print("atexit ran", file=sys.stderr, flush=True))
class Torn:
    def __del__(self):
        print("torn down", file=sys.stderr, flush=True)
kept = Torn()
sys.argv.pop(1)
sys.argv[0] = "vault-graphrag"
from graphrag.cli import cli
cli()  # as the installed script calls it: no arguments
"""


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=ROOT, env=ENV, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def where(sample_index: Path) -> tuple[str, ...]:
    return ("--vault", str(ROOT / "sample_vault"), "--index-dir", str(sample_index), "--no-server")


def test_a_query_flushes_its_output_runs_atexit_and_skips_teardown(where) -> None:
    done = run("-", "query", "Who runs the aging cellar?", "--seed", "1", *where)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["entryNotes"]  # all of it, through a pipe
    assert "atexit ran" in done.stderr
    assert "torn down" not in done.stderr


def test_an_error_keeps_its_exit_status(where) -> None:
    done = run("-", "query", "cellar", "--budget", "-1", *where)
    assert done.returncode == 2 and "--budget" in done.stderr
    assert "atexit ran" in done.stderr and "torn down" not in done.stderr


def test_a_command_that_writes_exits_as_python_does(where) -> None:
    done = run("-", "status", where[1], "--index-dir", where[3])
    assert done.returncode == 0, done.stderr
    assert "torn down" in done.stderr


def test_a_running_thread_is_waited_for(monkeypatch) -> None:
    ended: list[str] = []
    monkeypatch.setattr(main.os, "_exit", lambda code: ended.append(f"_exit {code}"))
    monkeypatch.setattr(main.atexit, "_run_exitfuncs", lambda: ended.append("atexit"))
    release = threading.Event()
    worker = threading.Thread(target=release.wait)
    worker.start()
    try:
        with pytest.raises(SystemExit) as exc:  # Python's own exit: threads, then atexit
            main.leave(3)
        assert exc.value.code == 3 and ended == []
    finally:
        release.set()
        worker.join()
    main.leave(0)
    assert ended == ["atexit", "_exit 0"]
