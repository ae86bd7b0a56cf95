"""``vault-graphrag ask``: an answer from a language model over the retrieved notes.

Thin like the rest of the CLI: parse options, call ``VaultRAG.ask``, print. With
``--prompt-only`` a running ``vault-graphrag serve`` for the same index builds the
prompt (``cli/served.py``): nothing is loaded here. An answer from a model is always
made in this process, with this shell's ``llm`` keys and plugins. The options the
``batch`` command shares are defined here, so ``ask`` imports nothing of ``batch``.
"""

from __future__ import annotations

import json
from typing import Any

import click

from graphrag.cli.common import errors, filter_options, no_update_option, where
from graphrag.cli.served import answer, no_server_option, served_filters
from graphrag.config import Settings, load_settings

model_option = click.option(
    "-m",
    "--model",
    help="An llm model id or alias (default: [llm] model). `llm models` lists them.",
)
options_option = click.option(
    "-o",
    "--option",
    "options",
    type=(str, str),
    multiple=True,
    help="A model option, e.g. -o temperature 0.2 (repeatable; over [llm] options).",
)
system_option = click.option(
    "--system",
    type=click.Path(exists=True, dir_okay=False),
    help="A file whose text replaces the built-in system prompt.",
)
seed_option = click.option("--seed", type=int, help="Make the retrieval reproducible.")


@click.command()
@click.argument("question")
@where
@no_update_option
@filter_options
@model_option
@options_option
@click.option("--budget", type=click.IntRange(min=0), help="Tokens for the context.")
@seed_option
@system_option
@click.option("--prompt-only", is_flag=True, help="Print the exact prompt; send nothing.")
@click.option("--json", "as_json", is_flag=True, help="Print answer, sources, prompt, context.")
@no_server_option
@errors
def ask(
    question: str,
    vault: str,
    index_dir: str | None,
    config: str | None,
    no_update: bool,
    filters: dict[str, Any],
    model: str | None,
    options: tuple[tuple[str, str], ...],
    budget: int | None,
    seed: int | None,
    system: str | None,
    prompt_only: bool,
    as_json: bool,
    no_server: bool,
) -> None:
    """Answer QUESTION from the vault with a language model, citing notes as [[links]].

    Builds the query-mode context (from the notes the filters keep), sends one
    prompt (a system prompt explaining the notes, their relations and the
    citation rule; the context; the question), streams the answer, then lists
    the sources as [[uri]] links: the cited ones first, then the others the
    model was given, marked "(not cited)". The model is -m or [llm] model; with
    neither, nothing is sent. When no note matches, it says so and sends nothing.
    With --prompt-only and `vault-graphrag serve` running for the vault, the
    server builds the prompt (the same output, faster).

    \b
    vault-graphrag ask "Which huts have a spring nearby?" --vault ~/Notes -m llama3.2
    vault-graphrag ask "What is left to do?" --vault ~/Notes --folder Projects --tag open
    vault-graphrag ask "What did I plan for May?" --vault ~/Notes --prompt-only --json
    llm install llm-ollama   # then -m any model `ollama list` shows, kept local
    """
    from graphrag.answer.models import read_prompt_file

    settings = load_settings(config)
    system_text = read_prompt_file(system) if system else None
    if prompt_only:
        body = {
            "question": question,
            "budget": budget,
            "seed": seed,
            "filters": served_filters(filters),
            "system": ask_system(settings, system_text),
            "prompt_only": True,
            "stream": False,
        }
        served = answer(vault, index_dir, settings, no_server, "/ask", body, update=not no_update)
        if served is not None:
            print_prompt(served, as_json)
            return
    # Answered here: a model is always called from this process.
    from graphrag.answer.models import get_model, model_name
    from graphrag.api import VaultRAG

    chosen = None
    if not prompt_only:  # resolve first: an unconfigured model fails before any work
        chosen = get_model(model_name(settings.llm, model))
    rag = VaultRAG.open(vault, settings=settings, index_dir=index_dir, update=not no_update)
    stream = None if as_json or prompt_only else lambda chunk: click.echo(chunk, nl=False)
    result = rag.ask(
        question,
        model=chosen,
        budget=budget,
        seed=seed,
        system=system_text,
        options=dict(options),
        filters=filters,
        on_chunk=stream,
        dry_run=prompt_only,
    )
    if prompt_only and as_json:
        click.echo(json.dumps(prompt_json(result.to_json()), indent=2, ensure_ascii=False))
    elif prompt_only:
        click.echo(result.prompt.text(), nl=False)
    elif as_json:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))
    elif result.nothing_found:
        click.echo()
    else:
        click.echo("\n\nSources:")
        for source in result.sources_json():
            mark = "" if source["cited"] else " (not cited)"
            click.echo(f"- [[{source['uri']}]]{mark}")


def ask_system(settings: Settings, system_text: str | None) -> str:
    """The system prompt this process would send: ``--system``, else ``[llm]
    system_prompt_file``, else the built-in one (the server is told it, so its own
    settings file cannot change the prompt)."""
    from graphrag.answer.models import system_prompt
    from graphrag.answer.prompts import QUERY_SYSTEM

    return system_text or system_prompt(settings.llm, "ask") or QUERY_SYSTEM


def print_prompt(data: dict[str, Any], as_json: bool) -> None:
    """``--prompt-only`` output from ``ask --json``'s shape (``Answer.to_json``)."""
    if as_json:
        click.echo(json.dumps(prompt_json(data), indent=2, ensure_ascii=False))
        return
    from graphrag.answer.prompts import Prompt

    prompt = data["prompt"]
    click.echo(Prompt(prompt["system"], prompt["prompt"]).text(), nl=False)


def prompt_json(data: dict[str, Any]) -> dict[str, Any]:
    """``ask --prompt-only --json``: what would be sent, and from which notes."""
    keep = ("question", "mode", "sources", "prompt", "context")
    out = {key: data[key] for key in keep}
    out["sources"] = [{k: v for k, v in s.items() if k != "cited"} for s in out["sources"]]
    return out
