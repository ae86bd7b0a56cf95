"""The ``vault-graphrag`` command line: the group, and every command registered on it.

One module per command group (``graphrag.cli.index``, ``focus``, ``query``, ``ask``,
``llm``, ``serve``, ``plugin``); what they share is in ``graphrag.cli.common``. A command's
module is imported when that command runs (``LazyCommands``), so ``focus`` never
pays for what ``ask``, ``serve`` or ``batch`` import (docs/architecture.md, start-up).
"""

from __future__ import annotations

import atexit
import importlib
import logging
import os
import sys
import threading
from collections.abc import Iterator
from typing import Any, NoReturn

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
# Commands that only read the index: their process ends at once when they are done
# (``main``), without tearing down the interpreter.
QUICK_EXIT = frozenset({"focus", "query", "search", "ask"})
# Commands whose arithmetic is one question's (a vector against the index's), run as
# the process (``main``): numpy's BLAS gets one thread. OpenBLAS starts a thread per
# core when numpy is imported, ~80 ms of CPU and ~30 ms of a cold command here
# (benchmarks/RESULTS.md, "Cold commands, session 9"), which a product of one vector
# never repays (the same reason ONNX Runtime runs a question on one thread). ``ask``
# only with --prompt-only: a model an ``llm`` plugin runs in this process keeps its
# threads. A setting of the user's own is kept; the answers are the same bits.
ONE_BLAS_THREAD = frozenset({"focus", "query", "search"})
BLAS_THREADS = "OPENBLAS_NUM_THREADS"
_ran: list[str | None] = [None]  # the command this process ran (set by the group)
_process: list[bool] = [False]  # whether this process is the command line (``main``)
COMMAND_ARGS = "graphrag.command_args"  # ctx.meta key: the command's own arguments


class Group(click.Group):
    """The command group; called with no arguments, as the installed ``vault-graphrag``
    script calls it, it is the process's ``main``."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if args or kwargs:  # from code (tests, a caller's own argv): plain click
            return super().__call__(*args, **kwargs)
        main()

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name, command, rest = super().resolve_command(ctx, args)
        ctx.meta[COMMAND_ARGS] = rest  # the group's callback sees none of them otherwise
        return name, command, rest


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


@click.group(cls=Group)
@click.version_option(package_name="vault-graphrag")
@click.option("-v", "--verbose", is_flag=True, help="Log what happens to stderr.")
@click.pass_context
def cli(ctx: click.Context, verbose: bool) -> None:
    """Hybrid vector + graph retrieval over a Markdown (Obsidian) vault, offline.

    \b
    vault-graphrag index ~/Notes
    vault-graphrag focus "Project Alpha" --vault ~/Notes --budget 2000 --prompt
    """
    logging.basicConfig(level=logging.INFO if verbose else logging.WARNING)
    # bm25s sets its own logger to DEBUG on import, which would print to every run.
    logging.getLogger("bm25s").setLevel(logging.INFO if verbose else logging.WARNING)
    _ran[0] = ctx.invoked_subcommand
    if _process[0] and one_question(ctx.invoked_subcommand, ctx.meta.get(COMMAND_ARGS, [])):
        # Before the command runs: no command module imports numpy when it is loaded.
        os.environ.setdefault(BLAS_THREADS, "1")


def one_question(command: str | None, args: list[str]) -> bool:
    """Whether ``command`` with ``args`` does only one question's arithmetic."""
    return command in ONE_BLAS_THREAD or (command == "ask" and "--prompt-only" in args)


cli.commands = LazyCommands(COMMANDS)


def main() -> NoReturn:
    """Run the command line as this process, and end it.

    After a command that only reads (``QUICK_EXIT``) has written its output, the
    process ends with ``os._exit`` once the output is flushed and the ``atexit``
    handlers have run: the interpreter's teardown (freeing every object, clearing ~400
    modules, ONNX Runtime's and OpenBLAS's own shutdown) is work nobody waits for, and
    it cost a cold ``query`` ~12% of its CPU (benchmarks/RESULTS.md, issue 16). With
    another thread still running, or an exit message to print, Python exits as usual.
    """
    _process[0] = True
    try:
        cli.main(prog_name="vault-graphrag")
    except SystemExit as exc:
        code = exc.code
        if _ran[0] not in QUICK_EXIT or not (code is None or isinstance(code, int)):
            raise
    else:  # standalone click always exits; kept for a caller that changes that
        code = 0
    leave(code or 0)


def leave(code: int) -> NoReturn:
    """End the process with ``code`` without the interpreter's teardown (see ``main``),
    in Python's own order: other threads first (while one runs, Python exits as usual:
    it waits for them), then the ``atexit`` handlers (logging's flush), then the output."""
    if any(t.is_alive() and not t.daemon for t in threading.enumerate()[1:]):
        sys.exit(code)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: Python's own exit reports it
        sys.exit(code)
    os._exit(code)
