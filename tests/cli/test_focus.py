"""``vault-graphrag focus NOTE``: which names find a note."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from graphrag.cli import cli
from tests.support.files import SAMPLE_VAULT


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
