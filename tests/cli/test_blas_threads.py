"""A command that does one question's arithmetic, run as the process, gives numpy's BLAS
one thread before numpy is imported (``graphrag.cli.main.ONE_BLAS_THREAD``); other
commands, a user's own setting and the CLI called from code are left alone."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.support.fakes import HASH_BACKEND
from tests.support.files import ROOT

main = importlib.import_module("graphrag.cli.main")  # the package exports main()

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "VAULTRAG_EMBEDDING__BACKEND": HASH_BACKEND}
ENV.pop(main.BLAS_THREADS, None)
# Says on stderr what the setting was when numpy was first imported (OpenBLAS reads it
# then), or that numpy never was.
PROBE = """
import atexit, os, sys
seen = []
def hook(event, args):
    if event == "import" and args[0] == "numpy" and not seen:
        seen.append(os.environ.get("OPENBLAS_NUM_THREADS"))
sys.addaudithook(hook)
atexit.register(lambda: print("at numpy:", seen[0] if seen else "no numpy", file=sys.stderr))
sys.argv.pop(1)
sys.argv[0] = "vault-graphrag"
from graphrag.cli import cli
cli()  # as the installed script calls it: no arguments
"""


def at_numpy(*args: str, env: dict[str, str] = ENV) -> str:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, "-", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stderr.strip().splitlines()[-1]


@pytest.fixture(scope="module")
def index_dir(sample_index: Path) -> str:
    return str(sample_index)


@pytest.mark.parametrize(
    "command",
    [
        ("query", "Who runs the aging cellar?"),
        ("search", "aging cellar", "--mode", "semantic"),
        ("focus", "Shepherd's Hut"),
        ("ask", "Who runs the aging cellar?", "--prompt-only"),
    ],
)
def test_a_question_from_the_shell_has_one_blas_thread_before_numpy(index_dir, command) -> None:
    where = ("--vault", str(ROOT / "sample_vault"), "--index-dir", index_dir, "--no-server")
    assert at_numpy(*command, *where) == "at numpy: 1"


def test_other_commands_and_a_users_setting_are_left_alone(index_dir) -> None:
    vault = str(ROOT / "sample_vault")
    assert at_numpy("status", vault, "--index-dir", index_dir) in (
        "at numpy: None",
        "at numpy: no numpy",
    )
    where = ("--vault", vault, "--index-dir", index_dir, "--no-server")
    mine = {**ENV, main.BLAS_THREADS: "3"}
    assert at_numpy("query", "Who runs the aging cellar?", *where, env=mine) == "at numpy: 3"


def test_ask_with_a_model_keeps_blas_threads() -> None:
    # A model an llm plugin runs in this process may use them.
    assert not main.one_question("ask", ["Who?", "-m", "some-model"])
    assert main.one_question("ask", ["Who?", "--prompt-only"])
    assert not main.one_question("index", ["vault"])


def test_the_cli_called_from_code_changes_no_environment(index_dir, monkeypatch) -> None:
    monkeypatch.delenv(main.BLAS_THREADS, raising=False)
    monkeypatch.setenv("VAULTRAG_EMBEDDING__BACKEND", HASH_BACKEND)
    where = ["--vault", str(ROOT / "sample_vault"), "--index-dir", index_dir, "--no-server"]
    result = CliRunner().invoke(main.cli, ["search", "aging cellar", "--mode", "lexical", *where])
    assert result.exit_code == 0, result.output
    assert main.BLAS_THREADS not in os.environ
