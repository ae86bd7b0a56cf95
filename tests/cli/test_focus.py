"""``vault-graphrag focus NOTE``: which names find a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from graphrag.cli import cli
from graphrag.errors import NoteNotFoundError
from tests.support.files import SAMPLE_VAULT
from tests.support.query_vault import make_rag


def focus(name: str, index: Path) -> Result:
    """``focus NAME`` on sample_vault's index, as it is."""
    args = ["focus", name, "--vault", str(SAMPLE_VAULT), "--index-dir", str(index)]
    return CliRunner().invoke(cli, [*args, "--no-update", "--no-server", "--budget", "0"])


@pytest.mark.parametrize(
    ("name", "uri"),
    [
        ("Places", "Places/index"),
        ("Places/Huts", "Places/Huts/index"),
        ("places/huts/", "Places/Huts/index"),
        ("Projects", "Projects/README"),
        (str(SAMPLE_VAULT / "Places" / "Huts"), "Places/Huts/index"),  # the folder's path
    ],
)
def test_a_folder_is_its_folder_note_as_a_link_to_it_is(
    sample_index: Path, name: str, uri: str
) -> None:
    result = focus(name, sample_index)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["focusNote"]["uri"] == uri


def test_a_folder_without_a_folder_note_is_still_not_a_note(sample_index: Path) -> None:
    result = focus("Places/Pastures", sample_index)
    assert result.exit_code == 1
    assert "no note matches 'Places/Pastures'; closest: Places/Pastures/Upper" in result.stderr


@pytest.mark.parametrize(
    "name",
    [
        "[[Shepherd's Hut]]",
        "![[Shepherd's Hut]]",
        "[[Shepherd's Hut|the hut]]",
        "Shepherd's Hut#Water",
        "[[Places/Huts/Shepherd's Hut#^roof|roof]]",
        "Shepherd's Hut#^block",
    ],
)
def test_a_link_pasted_from_obsidian_names_its_note(sample_index: Path, name: str) -> None:
    result = focus(name, sample_index)
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["focusNote"]["uri"] == "Places/Huts/Shepherd's Hut"


def test_a_note_named_with_hash_or_bar_is_still_found_by_its_own_name(tmp_path: Path) -> None:
    files = {name: f"# {name}\n\nText.\n" for name in ("C.md", "C# notes.md", "A.md", "A|B.md")}
    rag = make_rag(tmp_path, files)
    assert rag.resolve_note("C# notes") == "C# notes"
    assert rag.resolve_note("[[C# notes]]") == "C# notes"
    assert rag.resolve_note("A|B") == "A|B"
    assert rag.resolve_note("C#Intro") == "C"  # no note is named so: the link's note
    with pytest.raises(NoteNotFoundError) as missing:
        rag.resolve_note("[[Nowhere#Intro|x]]")
    assert "no note matches '[[Nowhere#Intro|x]]'" in str(missing.value)
