"""``vault-graphrag index``, ``doctor`` and ``status``: building an index and looking at it."""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any

import click

from graphrag.cli.common import (
    config_option,
    errors,
    index_dir_option,
    open_vault,
    progress_bar,
    vault_argument,
)

if TYPE_CHECKING:
    from indexer.build import IndexStats


@click.command()
@vault_argument
@index_dir_option
@config_option
@click.option("--full", is_flag=True, help="Re-parse and re-embed everything.")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar or warnings.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
@errors
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
    rag = open_vault(vault, index_dir, config, update=False)
    progress, close = progress_bar(quiet)
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
        f"  chunks {s.chunks} (embedded {s.chunks_embedded}, reused {s.chunks_reused}"
        + (f", resumed {s.chunks_resumed} from a killed run" if s.chunks_resumed else "")
        + ")",
    ]
    if s.full_reason:
        lines.insert(1, f"  full re-index: {s.full_reason}")
    if s.other_vault:
        lines.insert(
            1, f"  the index was made for another folder, {s.other_vault}; now for this one"
        )
    if s.templates_excluded:
        lines.append(
            f"  templates folder not indexed: {', '.join(s.templates_excluded)} "
            "(index.exclude_templates)"
        )
    for line in s.leftovers_removed:  # what a killed run had left in the index folder
        lines.append(f"  cleaned up: {line}")
    if s.warnings:
        lines.append(f"  warnings {len(s.warnings)} (run `vault-graphrag doctor` for details)")
    return "\n".join(lines)


@click.command()
@vault_argument
@config_option
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@errors
def doctor(vault: str, config: str | None, as_json: bool) -> None:
    """List vault health: unresolved links, ambiguous names, invalid front matter, orphans.

    \b
    vault-graphrag doctor ~/Notes
    vault-graphrag doctor ~/Notes --json | jq .unresolved_links
    """
    rag = open_vault(vault, None, config, update=False)
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


@click.command()
@vault_argument
@index_dir_option
@config_option
@click.option("--json", "as_json", is_flag=True, help="Everything as JSON, for scripts.")
@errors
def status(vault: str, index_dir: str | None, config: str | None, as_json: bool) -> None:
    """Show the index: when it was updated, its model and counts, and whether the
    vault changed since (without updating it).

    \b
    vault-graphrag status ~/Notes
    vault-graphrag status ~/Notes --index-dir /tmp/notes-index --json
    """
    from indexer.fresh import index_is_current
    from indexer.store import tidy_index

    rag = open_vault(vault, index_dir, config, update=False)
    # What killed runs left (a temp generation is a full SQLite copy) goes now, not at the
    # next update; with the lock taken by a running update, only dead processes' files.
    removed = tidy_index(rag.index_dir)
    data = rag.status()
    data["leftovers_removed"] = removed
    made_for = rag.snapshot.index.manifest.get("vault")
    if rag.vault is not None and made_for and made_for != str(rag.vault):
        data["made_for"] = made_for  # another vault's index, or this vault moved
    if rag.vault is not None:
        current = index_is_current(
            rag.vault, rag.index_dir, rag.settings.index_config, rag.embedder
        )
        data["vault_changed"] = not current
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(status_text(data))


def status_text(data: dict[str, Any]) -> str:
    """``status`` for people: local times, counts on a few lines, whether to re-index."""
    counts = data.get("counts") or {}
    updated = data.get("updated")
    when = (
        time.strftime("%Y-%m-%d %H:%M:%S %Z", time.localtime(updated))
        if isinstance(updated, int | float)
        else "unknown"
    )
    lines = [
        f"vault     {data.get('vault') or '(unknown: an index folder was given)'}",
        f"index     {data.get('index_dir')} ({data.get('generation')})",
        *([f"made for  {data['made_for']} (another folder)"] if data.get("made_for") else []),
        f"updated   {when}",
        f"model     {data.get('model')}",
        f"notes     {counts.get('notes', 0)} in {counts.get('folders', 0)} folders, "
        f"{counts.get('chunks', 0)} chunks, {counts.get('tags', 0)} tags, "
        f"{counts.get('attachments', 0)} attachments",
        f"links     {counts.get('links_resolved', 0)} resolved, "
        f"{counts.get('links_unresolved', 0)} unresolved",
    ]
    for line in data.get("leftovers_removed") or ():
        lines.append(f"cleaned   {line}")
    changed = data.get("vault_changed")
    if changed is not None:
        lines.append(
            "vault     changed since: the next query, focus or search updates the index "
            "(or run `vault-graphrag index`)"
            if changed
            else "vault     unchanged since"
        )
    return "\n".join(lines)
