"""What a command says while it indexes: "indexing N notes", then a bar per phase."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from click.testing import CliRunner

import graphrag.api
from graphrag.cli import cli
from graphrag.cli.progress import ProgressBar
from indexer import build_index
from tests.support.fakes import HashEmbedder
from tests.support.files import write


@pytest.fixture(autouse=True)
def fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(graphrag.api, "make_embedder", lambda settings: HashEmbedder())


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "command",
    [
        ("focus", "Shepherd's Hut"),
        ("query", "Who runs the aging cellar?"),
        ("search", "brine", "--mode", "lexical"),
    ],
)
def test_the_first_command_on_a_new_vault_says_it_indexes(
    sample_vault: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    where = ("--vault", str(sample_vault), "--index-dir", str(tmp_path / "idx"), "--no-server")
    code, _, err = run(*command, *where)
    assert code == 0
    assert "indexing 37 notes" in err
    code, _, err = run(*command, *where)
    assert code == 0 and "indexing" not in err  # nothing changed: nothing said
    write(sample_vault, "One More.md", "# One more\n")
    code, _, err = run(*command, *where)
    assert "indexing 1 note\n" in err


def test_build_index_reports_parsing_then_embedding(sample_vault: Path, tmp_path: Path) -> None:
    calls: list[tuple[str, int, int]] = []
    build_index(
        sample_vault, tmp_path / "idx", embedder=HashEmbedder(), progress=lambda *c: calls.append(c)
    )
    phases = [c[0] for c in calls]
    assert calls[0] == ("parsing", 0, 37) and ("parsing", 37, 37) in calls
    assert phases.index("embedding") > max(i for i, p in enumerate(phases) if p == "parsing")
    done = [d for p, d, _ in calls if p == "parsing"]
    assert done == sorted(done)


def test_the_line_is_said_once_and_bars_only_on_a_terminal() -> None:
    out = io.StringIO()
    bar = ProgressBar(bars=False, stream=out)
    for phase, done, total in [
        ("parsing", 0, 2),
        ("parsing", 2, 2),
        ("embedding", 0, 5),
        ("embedding", 5, 5),
    ]:
        bar(phase, done, total)
    bar.close()
    assert out.getvalue() == "indexing 2 notes\n"
    out = io.StringIO()
    bar = ProgressBar(bars=True, stream=out)
    bar("parsing", 0, 3)
    bar("parsing", 3, 3)
    bar("embedding", 0, 4)
    bar("embedding", 4, 4)
    bar.close()
    text = out.getvalue()
    assert text.startswith("indexing 3 notes\n")
    assert "parsing: 100%" in text and "3/3" in text and "embedding: 100%" in text and "4/4" in text
