"""The ``vault-graphrag`` command line: one module per command group."""

from graphrag.cli.main import cli, main

__all__ = ["cli", "main"]
