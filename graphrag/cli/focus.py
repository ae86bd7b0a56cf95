"""``vault-graphrag focus``: the context around one note."""

from __future__ import annotations

import click

from graphrag.cli.common import errors, no_update_option, open_vault, where
from graphrag.cli.served import answer, no_server_option
from graphrag.config import load_settings
from graphrag.focus.render import json_dumps, json_text, render_prompt


@click.command()
@click.argument("note")
@where
@no_update_option
@click.option("--budget", type=click.IntRange(min=0), help="Tokens for related notes.")
@click.option("--json", "fmt", flag_value="json", default=True, help="JSON output (default).")
@click.option("--prompt", "fmt", flag_value="prompt", help="Markdown prompt for an LLM.")
@click.option("--seed", type=int, help="Make the result reproducible.")
@click.option("--explain", is_flag=True, help="Add scores, discovery paths and skipped notes.")
@click.option("--exclude", multiple=True, help="A uri you already have (repeatable; paging).")
@no_server_option
@errors
def focus(
    note: str,
    vault: str,
    index_dir: str | None,
    config: str | None,
    no_update: bool,
    budget: int | None,
    fmt: str,
    seed: int | None,
    explain: bool,
    exclude: tuple[str, ...],
    no_server: bool,
) -> None:
    """The context around NOTE (a uri, path, title or alias) under a token budget.

    The index is updated first if the vault changed (not with --no-update). With `vault-graphrag serve`
    running for the vault, the server answers (the same output, faster).

    \b
    vault-graphrag focus "Shepherd's Hut" --vault sample_vault --budget 800 --prompt
    vault-graphrag focus Places/Huts/Shepherd\\'s\\ Hut --vault sample_vault --json --seed 1
    """
    settings = load_settings(config)
    body = {
        "note": note,
        "budget": budget,
        "seed": seed,
        "explain": explain,
        "exclude": list(exclude),
        "format": fmt,
    }
    served = answer(vault, index_dir, settings, no_server, "/focus", body, update=not no_update)
    if served is not None:
        click.echo(served["prompt"] if fmt == "prompt" else json_dumps(served, indent=2))
        return
    rag = open_vault(vault, index_dir, config, update=not no_update, settings=settings)
    result = rag.focus(
        note, budget=budget, seed=seed, explain=explain, exclude=list(exclude), output=fmt
    )
    click.echo(render_prompt(result) if fmt == "prompt" else json_text(result, indent=2))
