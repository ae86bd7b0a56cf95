"""What the start-up work changed must not change a byte of any answer: each command's
output on sample_vault with every count made by tiktoken's encoder (as before
``indexer/bpe.py``) and with the first counts made in Python (as a command from the
shell makes them now) is the same."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

import graphrag.api
from graphrag.cli import cli
from indexer import tokens
from tests.support.fakes import HashEmbedder

COMMANDS = [
    ("focus", "Shepherd's Hut", "--seed", "1", "--explain"),
    ("focus", "Shepherd's Hut", "--seed", "1", "--prompt", "--budget", "600"),
    ("query", "Who runs the aging cellar?", "--seed", "1", "--explain"),
    ("query", "Who runs the aging cellar?", "--seed", "2", "--prompt", "--budget", "800"),
    ("search", "brine strength", "--mode", "lexical", "--json"),
    ("search", "goat bells", "--mode", "hybrid", "--json"),
    ("ask", "Where does the hut get its water?", "--prompt-only", "--json", "--seed", "1"),
]


def outputs(vault: Path, index_dir: Path) -> list[str]:
    tokens.get_tokenizer.cache_clear()  # a new process: a new tokenizer
    where = ("--vault", str(vault), "--index-dir", str(index_dir), "--no-server")
    out = []
    for command in COMMANDS:
        result = CliRunner().invoke(cli, [*command, *where], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        out.append(result.stdout)
    return out


def test_answers_are_the_same_whoever_counts_the_tokens(
    sample_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(graphrag.api, "make_embedder", lambda settings: HashEmbedder())
    index_dir = tmp_path / "index"
    indexed = CliRunner().invoke(cli, ["index", str(sample_vault), "--index-dir", str(index_dir)])
    assert indexed.exit_code == 0, indexed.output
    python = outputs(sample_vault, index_dir)
    assert tokens.get_tokenizer("cl100k_base")._enc is None  # answered with Python counts alone
    monkeypatch.setattr(tokens, "PYTHON_CHARS", 0)
    assert outputs(sample_vault, index_dir) == python
    assert tokens.get_tokenizer("cl100k_base")._enc is not None
    tokens.get_tokenizer.cache_clear()
