"""The ``vault-graphrag`` command line: the group, and every command registered on it.

One module per command group (``graphrag.cli.index``, ``focus``, ``query``, ``llm``,
``serve``, ``plugin``); what they share is in ``graphrag.cli.common``.
"""

from __future__ import annotations

import logging

import click

from graphrag.cli.focus import focus
from graphrag.cli.index import doctor, index, status
from graphrag.cli.llm import ask, batch
from graphrag.cli.plugin import plugin
from graphrag.cli.query import evaluate, query, search
from graphrag.cli.serve import mcp, serve


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


for command in (
    index,
    focus,
    query,
    search,
    ask,
    batch,
    evaluate,
    doctor,
    status,
    serve,
    mcp,
    plugin,
):
    cli.add_command(command)


def main() -> None:
    cli(prog_name="vault-graphrag")
