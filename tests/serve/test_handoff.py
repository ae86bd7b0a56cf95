"""A command from the shell asks a running ``serve`` for the same index (server.json).

The real server runs on loopback in a subprocess; every command runs as a user runs
it (a subprocess), once answered by the server and once with ``--no-server``: the
output must be byte for byte the same.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphrag.serve import server_file
from tests.support.fakes import HASH_BACKEND
from tests.support.files import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "VAULTRAG_EMBEDDING__BACKEND": HASH_BACKEND}
# Run a command and report which heavy modules it imported (stderr's last line).
RUNNER = (
    "import sys; from graphrag.cli import cli\n"
    "try:\n    cli(sys.argv[1:], prog_name='vault-graphrag')\n"
    "except SystemExit as exc:\n    code = exc.code\n"
    "else:\n    code = 0\n"
    "print('MODULES', ' '.join(m for m in ('indexer.tokens', 'faiss', 'numpy') if m in sys.modules),"
    " file=sys.stderr)\n"
    "sys.exit(code)\n"
)


def cli(*args: str) -> tuple[int, str, str, set[str]]:
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, *args], cwd=ROOT, env=ENV, capture_output=True, text=True
    )
    err, _, modules = out.stderr.rpartition("MODULES")
    return out.returncode, out.stdout, err, set(modules.split())


@pytest.fixture
def indexed(sample_vault: Path, tmp_path: Path) -> tuple[Path, Path]:
    index_dir = tmp_path / "index"
    subprocess.run(
        [sys.executable, "-m", "graphrag", "index", str(sample_vault), "--index-dir", str(index_dir), "-q"],
        cwd=ROOT, env=ENV, check=True, capture_output=True,
    )  # fmt: skip
    return sample_vault, index_dir


def _start(vault: Path, index_dir: Path) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-m", "graphrag", "serve", str(vault), "--index-dir", str(index_dir),
         "--port", "0", "--no-watch"],
        cwd=ROOT, env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    while not (index_dir / server_file.SERVER_FILE).exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            err = proc.stderr.read() if proc.stderr else b""
            raise AssertionError(f"serve did not announce itself: {err!r}")
        time.sleep(0.05)
    return proc


@pytest.fixture
def served(indexed: tuple[Path, Path]) -> Iterator[tuple[Path, Path, subprocess.Popen]]:
    vault, index_dir = indexed
    proc = _start(vault, index_dir)
    yield vault, index_dir, proc
    if proc.poll() is None:
        proc.terminate()
        proc.wait(timeout=30)


COMMANDS = [
    ("focus", "Shepherd's Hut", "--seed", "1"),
    ("focus", "Shepherd's Hut", "--seed", "1", "--prompt", "--budget", "300", "--explain"),
    ("focus", "No Such Note Anywhere"),
    ("query", "Who runs the aging cellar?", "--seed", "1"),
    ("query", "Who runs the aging cellar?", "--seed", "2", "--prompt", "--tag", "cheese"),
    ("query", "zzqx vvkw", "--seed", "1", "--prompt"),
    ("search", "brine strength", "--mode", "lexical"),
    ("search", "goat bells", "--mode", "hybrid", "--json", "--folder", "Places"),
    ("search", "goat bells", "--mode", "graph"),
    ("ask", "Who runs the aging cellar?", "--prompt-only", "--seed", "1"),
    ("ask", "Who runs the aging cellar?", "--prompt-only", "--json", "--tag", "cheese"),
    ("ask", "zzqx vvkw", "--prompt-only", "--seed", "1", "--budget", "300"),
]


def test_answers_from_the_server_are_the_in_process_answers(
    served: tuple[Path, Path, subprocess.Popen],
) -> None:
    vault, index_dir, _ = served
    where = ("--vault", str(vault), "--index-dir", str(index_dir))
    for command in COMMANDS:
        code, out, err, modules = cli(*command, *where)
        code2, out2, err2, modules2 = cli(*command, *where, "--no-server")
        assert (code, out, err) == (code2, out2, err2), command
        if code == 0:  # served: no token table, vectors or numpy loaded here
            assert not modules & {"indexer.tokens", "faiss", "numpy"}, command
            # in-process: the token table or the vectors (numpy; FAISS only on large indexes)
            assert modules2 & {"indexer.tokens", "faiss", "numpy"}, command


def test_the_file_is_private_and_names_this_server(
    served: tuple[Path, Path, subprocess.Popen],
) -> None:
    _, index_dir, proc = served
    path = index_dir / server_file.SERVER_FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["pid"] == proc.pid and data["port"] > 0 and data["token"] is None
    assert data["index_dir"] == str(index_dir.resolve())


def test_the_file_goes_when_the_server_stops(served: tuple[Path, Path, subprocess.Popen]) -> None:
    _, index_dir, proc = served
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=30)
    assert not (index_dir / server_file.SERVER_FILE).exists()


def test_a_killed_servers_file_is_ignored(served: tuple[Path, Path, subprocess.Popen]) -> None:
    vault, index_dir, proc = served
    proc.kill()
    proc.wait(timeout=30)
    assert (index_dir / server_file.SERVER_FILE).exists()  # nobody removed it
    where = ("--vault", str(vault), "--index-dir", str(index_dir))
    code, out, err, modules = cli("focus", "Shepherd's Hut", "--seed", "1", *where)
    assert code == 0 and json.loads(out)["focusNote"]["title"] == "Shepherd's Hut"
    assert "indexer.tokens" in modules  # answered here


def test_a_refused_port_or_another_index_is_ignored(indexed: tuple[Path, Path]) -> None:
    vault, index_dir = indexed
    where = ("--vault", str(vault), "--index-dir", str(index_dir))
    expected = cli("focus", "Shepherd's Hut", "--seed", "1", *where, "--no-server")[:3]
    from graphrag.config import load_settings

    fingerprint = server_file.fingerprint(load_settings(env=ENV))
    for info in (
        # a live pid (this test) whose port refuses connections
        server_file.ServerInfo(
            os.getpid(), "127.0.0.1", 9, None, str(index_dir.resolve()), fingerprint
        ),
        # a server for another index folder
        server_file.ServerInfo(os.getpid(), "127.0.0.1", 9, None, "/elsewhere", fingerprint),
    ):
        server_file.write(index_dir, info)
        assert cli("focus", "Shepherd's Hut", "--seed", "1", *where)[:3] == expected


def test_a_server_with_other_settings_is_not_asked(
    served: tuple[Path, Path, subprocess.Popen], tmp_path: Path
) -> None:
    vault, index_dir, _ = served
    config = tmp_path / "other.toml"
    config.write_text("[focus]\ndefault_budget = 123\n", encoding="utf-8")
    where = ("--vault", str(vault), "--index-dir", str(index_dir), "--config", str(config))
    code, out, err, modules = cli("focus", "Shepherd's Hut", "--seed", "1", *where)
    assert code == 0 and "indexer.tokens" in modules  # answered here, with its own budget


def test_an_edited_vault_is_indexed_before_the_server_answers(
    served: tuple[Path, Path, subprocess.Popen],
) -> None:
    """The server runs without its watcher here: the command asks it to update first,
    as it would have updated the index itself."""
    vault, index_dir, _ = served
    (vault / "Fresh Note.md").write_text("# Fresh Note\n[[Shepherd's Hut]]\n", encoding="utf-8")
    where = ("--vault", str(vault), "--index-dir", str(index_dir))
    code, out, err, modules = cli("focus", "Fresh Note", "--seed", "1", *where)
    assert code == 0, err
    assert json.loads(out)["focusNote"]["uri"] == "Fresh Note"
    assert "indexer.tokens" not in modules


def test_ask_sends_this_shells_system_prompt(
    served: tuple[Path, Path, subprocess.Popen], tmp_path: Path
) -> None:
    """[llm] settings do not stop a server being asked (they do not shape retrieval), so
    the prompt ``--system`` or ``[llm] system_prompt_file`` names goes with the request."""
    vault, index_dir, _ = served
    system = tmp_path / "system.txt"
    system.write_text("Answer in haiku.\n", encoding="utf-8")
    config = tmp_path / "llm.toml"
    config.write_text(f"[llm]\nsystem_prompt_file = {json.dumps(str(system))}\n", encoding="utf-8")
    where = ("--vault", str(vault), "--index-dir", str(index_dir))
    for extra in (("--config", str(config)), ("--system", str(system))):
        command = ("ask", "Who runs the aging cellar?", "--prompt-only", "--seed", "1", *extra)
        code, out, err, modules = cli(*command, *where)
        assert (code, out, err) == cli(*command, *where, "--no-server")[:3]
        assert out.startswith("SYSTEM:\nAnswer in haiku.\n\nPROMPT:\n")
        assert not modules & {"indexer.tokens", "faiss"}  # the server built it
