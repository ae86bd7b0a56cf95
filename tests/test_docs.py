"""The manual is the --help text: every command documents itself with an example."""

from __future__ import annotations

from pathlib import Path

import click
import pytest

import graphrag
import indexer
from graphrag.cli import cli

COMMANDS = sorted(cli.commands)


def test_the_cli_has_every_command_the_readme_documents() -> None:
    text = (Path(graphrag.__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    for name in COMMANDS:
        assert f"vault-graphrag {name}" in text, f"README does not show `vault-graphrag {name}`"


@pytest.mark.parametrize("name", COMMANDS)
def test_command_has_help_with_an_example(name: str) -> None:
    command = cli.commands[name]
    assert command.help and len(command.help.strip()) > 20, f"{name} has no help text"
    assert "vault-graphrag " in command.help, f"{name}'s help has no example invocation"
    for param in command.params:
        if isinstance(param, click.Option) and not param.hidden:
            assert param.help, f"{name} {param.opts[0]} has no help"


@pytest.mark.parametrize("package", [graphrag, indexer])
def test_public_names_resolve(package) -> None:
    for name in package.__all__:
        assert getattr(package, name) is not None
