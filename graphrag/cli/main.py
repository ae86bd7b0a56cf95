"""The ``vault-graphrag`` command line: parse options, call ``VaultRAG``, print."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from functools import wraps
from typing import Any

import click

from graphrag.api import VaultRAG
from graphrag.config import Settings, load_settings
from graphrag.errors import AmbiguousNoteError, NoteNotFoundError, VaultRAGError
from graphrag.focus.render import json_text, render_prompt
from indexer import IndexStats


def _errors(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Our errors become one-line messages with a non-zero exit, never tracebacks."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (NoteNotFoundError, AmbiguousNoteError) as exc:
            raise click.ClickException(str(exc)) from exc
        except VaultRAGError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper


def _settings(config: str | None) -> Settings:
    return load_settings(config)


def _progress_bar(quiet: bool) -> tuple[Callable[[str, int, int], None] | None, Callable[[], None]]:
    """A tqdm bar on a terminal, nothing in pipes, CI or with --quiet."""
    if quiet or not sys.stderr.isatty():
        return None, lambda: None
    from tqdm import tqdm

    state: dict[str, Any] = {}

    def update(stage: str, done: int, total: int) -> None:
        bar = state.get("bar")
        if bar is None:
            bar = state["bar"] = tqdm(total=total, desc=stage, unit="chunk", file=sys.stderr)
        bar.update(done - bar.n)

    def close() -> None:
        if "bar" in state:
            state["bar"].close()

    return update, close


vault_option = click.option(
    "--vault",
    required=True,
    type=click.Path(exists=True, file_okay=False),
    help="The vault folder (or an index folder).",
)
index_dir_option = click.option(
    "--index-dir",
    type=click.Path(file_okay=False),
    help="Where the index lives (default: VAULT/.graphrag).",
)
config_option = click.option(
    "--config", type=click.Path(exists=True, dir_okay=False), help="A TOML settings file."
)


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


@cli.command()
@click.argument("vault", type=click.Path(exists=True, file_okay=False))
@index_dir_option
@config_option
@click.option("--full", is_flag=True, help="Re-parse and re-embed everything.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or warnings.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@_errors
def index(
    vault: str,
    index_dir: str | None,
    config: str | None,
    full: bool,
    quiet: bool,
    as_json: bool,
) -> None:
    """Index VAULT (incrementally: only changed notes are parsed and embedded).

    \b
    vault-graphrag index ~/Notes
    vault-graphrag index ~/Notes --index-dir /tmp/notes-index --full
    """
    rag = VaultRAG.open(vault, settings=_settings(config), index_dir=index_dir, update=False)
    progress, close = _progress_bar(quiet)
    try:
        stats = rag.index(full=full, progress=progress)
    finally:
        close()
    if as_json:
        click.echo(json.dumps(stats.to_json(), indent=2, ensure_ascii=False))
        return
    if not quiet:
        for warning in stats.warnings:
            click.echo(f"warning: {warning}", err=True)
    click.echo(format_stats(stats))


def format_stats(s: IndexStats) -> str:
    head = "index up to date" if s.up_to_date else "indexed"
    lines = [
        f"{head} in {s.seconds:.2f} s",
        f"  notes {s.notes} (added {s.added}, changed {s.changed}, removed {s.removed}, "
        f"unchanged {s.unchanged})",
        f"  folders {s.folders} ({s.virtual_folders} without a folder note)",
        f"  links resolved {s.links_resolved}, unresolved {s.links_unresolved} "
        f"(re-resolved for {s.relinked} notes); attachments {s.attachments}; tags {s.tags}",
        f"  chunks {s.chunks} (embedded {s.chunks_embedded}, reused {s.chunks_reused})",
    ]
    if s.full_reason:
        lines.insert(1, f"  full re-index: {s.full_reason}")
    if s.warnings:
        lines.append(f"  warnings {len(s.warnings)} (run `vault-graphrag doctor` for details)")
    return "\n".join(lines)


@cli.command()
@click.argument("vault", type=click.Path(exists=True, file_okay=False))
@config_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@_errors
def doctor(vault: str, config: str | None, as_json: bool) -> None:
    """List vault health: unresolved links, ambiguous names, invalid front matter, orphans.

    \b
    vault-graphrag doctor ~/Notes
    vault-graphrag doctor ~/Notes --json | jq .unresolved_links
    """
    rag = VaultRAG.open(vault, settings=_settings(config), update=False)
    report = rag.doctor()
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        return
    click.echo(f"{report.notes} notes")
    click.echo(f"unresolved links: {len(report.unresolved_links)}")
    for item in report.unresolved_links:
        click.echo(f"  {item['source']}:{item['line']}  [[{item['target']}]]")
    click.echo(f"ambiguous names: {len(report.ambiguous_names)}")
    for item in report.ambiguous_names:
        click.echo(f"  {item['name']}: {', '.join(item['notes'])}")
    click.echo(f"invalid front matter: {len(report.invalid_front_matter)}")
    for item in report.invalid_front_matter:
        click.echo(f"  {item['path']}: {item['reason']}")
    click.echo(f"orphans (no links in or out): {len(report.orphans)}")
    for uri in report.orphans:
        click.echo(f"  {uri}")
    for warning in report.other_warnings:
        click.echo(f"warning: {warning}")


@cli.command()
@click.argument("vault", type=click.Path(exists=True, file_okay=False))
@index_dir_option
@config_option
@_errors
def status(vault: str, index_dir: str | None, config: str | None) -> None:
    """Show the index's generation, model and counts (without updating it).

    \b
    vault-graphrag status ~/Notes
    vault-graphrag status ~/Notes --index-dir /tmp/notes-index
    """
    rag = VaultRAG.open(vault, settings=_settings(config), index_dir=index_dir, update=False)
    click.echo(json.dumps(rag.status(), indent=2, ensure_ascii=False))


@cli.command()
@click.argument("note")
@vault_option
@index_dir_option
@config_option
@click.option("--budget", type=click.IntRange(min=0), help="Tokens for related notes.")
@click.option("--json", "fmt", flag_value="json", default=True, help="JSON output (default).")
@click.option("--prompt", "fmt", flag_value="prompt", help="Markdown prompt for an LLM.")
@click.option("--seed", type=int, help="Make the result reproducible.")
@click.option("--explain", is_flag=True, help="Add scores, discovery paths and skipped notes.")
@click.option("--exclude", multiple=True, help="A uri you already have (repeatable; paging).")
@_errors
def focus(
    note: str,
    vault: str,
    index_dir: str | None,
    config: str | None,
    budget: int | None,
    fmt: str,
    seed: int | None,
    explain: bool,
    exclude: tuple[str, ...],
) -> None:
    """The context around NOTE (a uri, path, title or alias) under a token budget.

    The index is updated first if the vault changed.

    \b
    vault-graphrag focus "Shepherd's Hut" --vault sample_vault --budget 800 --prompt
    vault-graphrag focus Places/Huts/Shepherd\\'s\\ Hut --vault sample_vault --json --seed 1
    """
    rag = VaultRAG.open(vault, settings=_settings(config), index_dir=index_dir)
    result = rag.focus(
        note, budget=budget, seed=seed, explain=explain, exclude=list(exclude), output=fmt
    )
    click.echo(render_prompt(result) if fmt == "prompt" else json_text(result, indent=2))


def main() -> None:
    cli(prog_name="vault-graphrag")


from graphrag.cli.serve import mcp, serve  # noqa: E402 - registered last, after the group exists

cli.add_command(serve)
cli.add_command(mcp)
from graphrag.cli.llm import ask, batch; cli.add_command(ask); cli.add_command(batch)  # noqa: E402, E702, I001
from graphrag.cli.query import evaluate, query, search  # noqa: E402, I001

cli.add_command(query)
cli.add_command(search)
cli.add_command(evaluate)
from graphrag.cli.plugin import plugin  # noqa: E402, I001

cli.add_command(plugin)
