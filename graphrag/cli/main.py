"""The ``vault-graphrag`` command line: the group, and every command registered on it.

One module per command group (``graphrag.cli.index``, ``focus``, ``query``, ``ask``,
``llm``, ``serve``, ``plugin``); what they share is in ``graphrag.cli.common``. A command's
module is imported when that command runs (``LazyCommands``), so ``focus`` never
pays for what ``ask``, ``serve`` or ``batch`` import (docs/architecture.md, start-up).
"""

from __future__ import annotations

import importlib
import logging
from collections.abc import Iterator
from typing import Any

import click

# Command name -> "module:attribute" of its click command.
COMMANDS = {
    "index": "graphrag.cli.index:index",
    "focus": "graphrag.cli.focus:focus",
    "query": "graphrag.cli.query:query",
    "search": "graphrag.cli.query:search",
    "ask": "graphrag.cli.ask:ask",
    "batch": "graphrag.cli.llm:batch",
    "eval": "graphrag.cli.query:evaluate",
    "doctor": "graphrag.cli.index:doctor",
    "status": "graphrag.cli.index:status",
    "serve": "graphrag.cli.serve:serve",
    "mcp": "graphrag.cli.serve:mcp",
    "plugin": "graphrag.cli.plugin:plugin",
}


class LazyCommands(dict[str, Any]):
    """``click.Group.commands`` whose values are imported on first lookup."""

    def __init__(self, specs: dict[str, str]) -> None:
        super().__init__(dict.fromkeys(specs))
        self.specs = specs

    def __getitem__(self, name: str) -> click.Command:
        command = super().__getitem__(name)
        if command is None:
            module, _, attr = self.specs[name].partition(":")
            command = getattr(importlib.import_module(module), attr)
            super().__setitem__(name, command)
        return command

    def get(self, name: str, default: Any = None) -> Any:
        return self[name] if name in self else default  # noqa: SIM401 - self.get is this

    def values(self) -> Iterator[click.Command]:  # type: ignore[override]
        return (self[name] for name in self)

    def items(self) -> Iterator[tuple[str, click.Command]]:  # type: ignore[override]
        return ((name, self[name]) for name in self)


@click.group()
@click.version_option(package_name="vault-graphrag")
@click.option("-v", "--verbose", is_flag=True, help="Log what happens to stderr.")
def cli(verbose: bool) -> None:
    """Hybrid vector + graph retrieval over a Markdown (Obsidian) vault, offline.

    \b
    vault-graphrag index ~/Notes
    vault-graphrag focus "Project Alpha" --vault ~/Notes --budget 2000 --prompt
    """
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING)
    # bm25s sets its own logger to DEBUG on import, which would print to every run.
    logging.getLogger("bm25s").setLevel(logging.INFO if verbose else logging.WARNING)


cli.commands = LazyCommands(COMMANDS)


def main() -> None:
    cli(prog_name="vault-graphrag")
