"""``vault-graphrag batch``: contexts, prompts and answers for many items.

Thin like the rest of the CLI: parse options, call ``batch.run_batch``, print.
Registered in ``cli.main``; ``ask`` is ``cli/ask.py``.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from graphrag.answer.models import get_model, model_name, read_prompt_file
from graphrag.api import VaultRAG
from graphrag.batch.run import MODES, BatchStats, Item, note_items, read_items, run_batch
from graphrag.cli.ask import model_option, options_option, seed_option, system_option
from graphrag.cli.common import errors, no_update_option, where
from graphrag.config import load_settings


@click.command()
@click.argument("input_file", required=False, type=click.Path(exists=True, dir_okay=False))
@where
@no_update_option
@click.option("--out", required=True, type=click.Path(dir_okay=False), help="JSON Lines output.")
@click.option(
    "--mode",
    type=click.Choice(["auto", *MODES]),
    help="auto (default with INPUT): query lines -> query, note lines -> focus.",
)
@click.option("--folder", multiple=True, help="Without INPUT: every note under this folder.")
@click.option("--tag", multiple=True, help="Without INPUT: every note with this tag.")
@model_option
@options_option
@click.option("--no-model", is_flag=True, help="Contexts and prompts only, even with [llm] model.")
@click.option("--budget", type=click.IntRange(min=0), help="Tokens for each context.")
@seed_option
@system_option
@click.option(
    "--workers",
    type=click.IntRange(min=0),
    default=1,
    show_default=True,
    help="Retrieval processes (0: one per core).",
)
@click.option(
    "--model-workers",
    type=click.IntRange(min=1),
    default=1,
    show_default=True,
    help="Model calls at once (raise it for hosted APIs).",
)
@click.option("--retry-errors", is_flag=True, help="Run again the items that failed before.")
@click.option("--progress/--no-progress", default=None, help="Progress bar (default: on a tty).")
@errors
def batch(
    input_file: str | None,
    vault: str,
    index_dir: str | None,
    config: str | None,
    no_update: bool,
    out: str,
    mode: str | None,
    folder: tuple[str, ...],
    tag: tuple[str, ...],
    model: str | None,
    options: tuple[tuple[str, str], ...],
    no_model: bool,
    budget: int | None,
    seed: int | None,
    system: str | None,
    workers: int,
    model_workers: int,
    retry_errors: bool,
    progress: bool | None,
) -> None:
    """Contexts, prompts and (with a model) answers or summaries for many items, into OUT.

    INPUT is JSON Lines: {"id": 1, "query": "..."} or {"id": "a", "note": "..."}
    (focus lines may add "question"). Without INPUT, --folder/--tag pick notes
    (id = uri) and the mode defaults to summarise. Each OUT line holds the id, the
    context JSON, the prompt, the answer or summary, timing and any error.
    Resumable: ids already in OUT are skipped, so after Ctrl-C run it again.

    \b
    vault-graphrag batch questions.jsonl --vault ~/Notes --out answers.jsonl -m llama3.2
    vault-graphrag batch --folder Projects --vault ~/Notes --out sums.jsonl -m llama3.2
    vault-graphrag batch notes.jsonl --mode focus --vault ~/Notes --out ctx.jsonl --workers 2
    """
    settings = load_settings(config)
    if bool(input_file) == bool(folder or tag):
        raise click.UsageError("give INPUT, or --folder/--tag to pick notes (not both)")
    if not input_file and mode in ("auto", "query"):
        raise click.UsageError("--folder/--tag pick notes: use --mode summarise or focus")
    name = None if no_model else model_name(settings.llm, model)
    chosen = get_model(name) if name else None  # fail fast on an unknown model
    system_text = read_prompt_file(system) if system else None
    rag = VaultRAG.open(vault, settings=settings, index_dir=index_dir, update=not no_update)
    items: list[Item] = (
        read_items(input_file, mode or "auto")
        if input_file
        else note_items(rag, folder, tag, mode or "summarise")
    )
    if not items:
        where = "the input file" if input_file else "--folder/--tag"
        raise click.ClickException(f"nothing to do: no items in {where}")
    bar = _Bar(sys.stderr.isatty() if progress is None else progress)
    try:
        stats = run_batch(
            rag,
            items,
            out,
            model=chosen,
            options=dict(options),
            budget=budget,
            seed=seed,
            system=system_text,
            workers=workers or _cores(),
            model_workers=model_workers,
            retry_errors=retry_errors,
            progress=bar.update,
            notify=bar.message,
        )
    except KeyboardInterrupt:
        bar.close()
        click.echo(f"interrupted; {out} holds whole lines only: run again to continue", err=True)
        sys.exit(130)
    bar.close()
    click.echo(_summary(stats, out), err=True)
    if stats.interrupted:
        sys.exit(130)


def _cores() -> int:
    import os

    return os.cpu_count() or 1


def _summary(stats: BatchStats, out: str) -> str:
    model = f" with {stats.model}" if stats.model else " (no model: contexts and prompts)"
    text = (
        f"{stats.done} written to {out}{model}, {stats.errors} with errors, "
        f"{stats.skipped} already there; {stats.seconds:.1f} s, {stats.rate:.1f}/s"
    )
    if stats.interrupted:
        text += f"\ninterrupted with {stats.total - stats.done - stats.skipped} to go: run again"
    return text


class _Bar:
    """tqdm on stderr (rate and ETA); errors print above it as they happen."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.bar: Any = None

    def update(self, counts: dict[str, Any]) -> None:
        error = counts.get("lastError")
        if error:
            self.message(f"error: {error}")
        if not self.enabled:
            return
        if self.bar is None:
            from tqdm import tqdm

            todo = counts["total"] - counts["skipped"]
            self.bar = tqdm(total=todo, unit="item", file=sys.stderr, dynamic_ncols=True)
        self.bar.update(counts["done"] - self.bar.n)
        if counts["errors"]:
            self.bar.set_postfix(errors=counts["errors"], refresh=False)

    def message(self, text: str) -> None:
        if self.bar is not None:
            self.bar.write(text, file=sys.stderr)
        else:
            click.echo(text, err=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
