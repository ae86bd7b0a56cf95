"""``vault-graphrag query``, ``search`` and ``eval``: questions over a vault.

Thin like the rest of the CLI: parse options, call one ``VaultRAG`` method (or
``evaluate.run_eval``), print. Registered in ``cli.main``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import click

from graphrag.cli.common import (
    config_option,
    errors,
    filter_options,
    index_dir_option,
    no_update_option,
    open_vault,
    vault_option,
)
from graphrag.cli.served import answer, no_server_option, served_filters
from graphrag.config import load_settings
from graphrag.search.modes import MAX_HOPS, SEARCH_MODES


def _common(fn: Callable[..., Any]) -> Callable[..., Any]:
    """--vault, --index-dir, --config, --no-update and the filters, shared by query and
    search."""
    return vault_option(index_dir_option(config_option(no_update_option(filter_options(fn)))))


@click.command()
@click.argument("question")
@_common
@click.option("--budget", type=click.IntRange(min=0), help="Tokens for all notes returned.")
@click.option("--json", "fmt", flag_value="json", default=True, help="JSON output (default).")
@click.option("--prompt", "fmt", flag_value="prompt", help="The CONTEXT: prompt for an LLM.")
@click.option("--seed", type=int, help="Make the result reproducible.")
@click.option("--explain", is_flag=True, help="Add score parts, paths and left-out notes.")
@no_server_option
@errors
def query(
    question: str,
    vault: str,
    index_dir: str | None,
    config: str | None,
    no_update: bool,
    filters: dict[str, Any],
    budget: int | None,
    fmt: str,
    seed: int | None,
    explain: bool,
    no_server: bool,
) -> None:
    """The notes that best answer QUESTION, and how they relate, under a token budget.

    Entry notes come from vector, lexical, #tag and title matches; related notes
    from the graph around them. The budget covers both. The index is updated
    first if the vault changed (not with --no-update). With `vault-graphrag serve`
    running for the vault, the server answers (the same output, without loading the
    model here).

    \b
    vault-graphrag query "Who runs the aging cellar?" --vault sample_vault --budget 2000
    vault-graphrag query "#project status" --vault sample_vault --prompt --seed 1
    vault-graphrag query "salt" --vault sample_vault --folder Dairy --created 2019..2020
    """
    settings = load_settings(config)
    body = {
        "question": question,
        "budget": budget,
        "seed": seed,
        "explain": explain,
        "filters": served_filters(filters),
        "format": fmt,
    }
    served = answer(vault, index_dir, settings, no_server, "/query", body, update=not no_update)
    if served is not None:
        if served.get("message"):
            click.echo(served["message"], err=True)
        if fmt == "prompt":
            click.echo(served["prompt"], nl=False)
        else:
            click.echo(json.dumps(served, indent=2, ensure_ascii=False))
        return
    rag = open_vault(vault, index_dir, config, update=not no_update, settings=settings)
    result = rag.query(
        question, budget=budget, seed=seed, explain=explain, filters=filters, output=fmt
    )
    if result.message:
        click.echo(result.message, err=True)
    if fmt == "prompt":
        from graphrag.query.render import render_prompt

        click.echo(render_prompt(result), nl=False)
    else:
        click.echo(json.dumps(result.to_json(), indent=2, ensure_ascii=False))


@click.command()
@click.argument("text")
@_common
@click.option(
    "--mode",
    type=click.Choice(SEARCH_MODES),
    default="hybrid",
    show_default=True,
    help="semantic (vectors), lexical (BM25), hybrid (both fused by RRF), graph or hierarchical.",
)
@click.option("-k", "--top-k", type=click.IntRange(min=1), help="How many notes (default 10).")
@click.option(
    "--hops",
    type=click.IntRange(min=0, max=MAX_HOPS),
    default=1,
    show_default=True,
    help="graph mode: steps from the anchors.",
)
@click.option("--json", "as_json", is_flag=True, help="JSON output.")
@no_server_option
@errors
def search(
    text: str,
    vault: str,
    index_dir: str | None,
    config: str | None,
    no_update: bool,
    filters: dict[str, Any],
    mode: str,
    top_k: int | None,
    hops: int,
    as_json: bool,
    no_server: bool,
) -> None:
    """Notes matching TEXT: by meaning, words, both fused, graph or hub-first. The index
    is updated first if the vault changed (not with --no-update).

    \b
    vault-graphrag search "brine strength" --vault sample_vault --mode lexical -k 5
    vault-graphrag search "goat bells" --vault sample_vault --mode graph --hops 1 --json
    vault-graphrag search "cheese aging" --vault sample_vault --mode hierarchical --tag dairy
    """
    settings = load_settings(config)
    body = {
        "query": text,
        "mode": mode,
        "top_k": top_k,
        "hops": hops,
        "filters": served_filters(filters),
    }
    data = answer(vault, index_dir, settings, no_server, "/search", body, update=not no_update)
    if data is None:
        rag = open_vault(vault, index_dir, config, update=not no_update, settings=settings)
        result = rag.search(text, mode, top_k=top_k, filters=filters, hops=hops)
        data = result.to_json()
    if as_json:
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    if mode == "graph":
        for key in ("focus", "parents", "children"):
            click.echo(f"{key}:")
            for item in data[key]:
                click.echo(f"  {item['title']} ({item['uri']})")
        return
    if data.get("hubs") is not None:
        click.echo("hubs: " + (", ".join(data["hubs"]) or "none (searched everything)"))
    if data.get("message"):
        click.echo(data["message"], err=True)
    for n, hit in enumerate(data["results"], start=1):
        click.echo(f"{n:>2}. {hit['score']:.4f}  {hit['title']} ({hit['uri']})")
        if hit.get("snippet"):
            where = f"{hit['heading']}: " if hit.get("heading") else ""
            click.echo(f"    {where}{hit['snippet']}")


class BudgetList(click.ParamType):
    """``2000`` or ``1000,2000,4000``: token budgets, each a whole number >= 0."""

    name = "BUDGET[,BUDGET...]"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> tuple[int, ...]:
        if isinstance(value, tuple):
            return value
        out = []
        for part in str(value).split(","):
            part = part.strip()
            try:
                budget = int(part)
            except ValueError:
                self.fail(
                    f"{part!r} is not a whole number (use e.g. 2000 or 1000,2000,4000)", param, ctx
                )
            if budget < 0:
                self.fail(f"{budget} is negative", param, ctx)
            out.append(budget)
        return tuple(out)


@click.command(name="eval")
@click.argument("questions", required=False, type=click.Path(exists=True, dir_okay=False))
@click.option(
    "--vault",
    type=click.Path(exists=True, file_okay=False),
    help="The vault folder (or an index folder) the QUESTIONS are about.",
)
@click.option(
    "--from-links",
    "from_links",
    type=click.Path(exists=True, file_okay=False),
    metavar="VAULT",
    help="Ask questions made from VAULT's own links instead of QUESTIONS (no labels needed).",
)
@click.option(
    "--links",
    "limit",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    help="With --from-links: at most this many questions.",
)
@index_dir_option
@config_option
@click.option(
    "--budget",
    "budgets",
    type=BudgetList(),
    multiple=True,
    help="Token budgets: one, or a comma list (1000,2000,4000); repeatable. Default 1000, 2000, 4000.",
)
@click.option(
    "--system",
    "systems",
    multiple=True,
    help="graphrag, vector, bm25 or hybrid (repeatable; default all).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for query mode.")
@click.option("--markdown", is_flag=True, help="A Markdown table instead of columns.")
@click.option("--json", "as_json", is_flag=True, help="Every outcome as JSON.")
@click.option("--misses", type=int, metavar="BUDGET", help="Also list missed gold notes at BUDGET.")
@click.option(
    "--no-update",
    "no_update",
    is_flag=True,
    help="Score the index as it is, even if the vault changed since it was made (an index "
    "shared read-only, or one being compared); by default it is brought up to date first.",
)
@errors
def evaluate(
    questions: str | None,
    vault: str | None,
    from_links: str | None,
    limit: int,
    index_dir: str | None,
    config: str | None,
    budgets: tuple[tuple[int, ...], ...],
    systems: tuple[str, ...],
    seed: int,
    markdown: bool,
    as_json: bool,
    misses: int | None,
    no_update: bool,
) -> None:
    """Recall of the gold notes in each system's context, on a JSONL question set
    or on questions made from the vault's own links (--from-links: each link's
    passage asks for its target, with the link hidden from the graph).

    \b
    vault-graphrag eval benchmarks/qa/sample_vault.jsonl --vault sample_vault
    vault-graphrag eval benchmarks/qa/sample_vault.jsonl --vault sample_vault --budget 2000 --misses 2000
    vault-graphrag eval benchmarks/qa/sample_vault.jsonl --vault sample_vault --budget 1000,2000,4000
    vault-graphrag eval --from-links ~/Notes --budget 1000,2000,4000 --links 300
    """
    from graphrag.eval import report as eval_report
    from graphrag.eval import run as ev
    from graphrag.eval.systems import SYSTEMS

    if (questions is None) == (from_links is None):
        raise click.UsageError("give a QUESTIONS file (with --vault) or --from-links VAULT")
    if questions is not None and vault is None:
        raise click.UsageError("QUESTIONS needs --vault: the vault they are about")
    chosen = tuple(b for group in budgets for b in group) or ev.DEFAULT_BUDGETS
    if from_links is not None:
        from graphrag.eval.from_links import run_from_links

        rag = open_vault(from_links, index_dir, config, update=not no_update)
        report = run_from_links(rag, chosen, systems or SYSTEMS, seed, limit=limit)
    else:
        assert questions is not None and vault is not None
        rag = open_vault(vault, index_dir, config, update=not no_update)
        report = ev.run_eval(rag, questions, budgets=chosen, systems=systems or SYSTEMS, seed=seed)
    if report.unknown_gold:  # a typo in a gold uri would otherwise only lower recall
        click.echo(
            "warning: gold notes not in the index, counted as missed: "
            + ", ".join(report.unknown_gold),
            err=True,
        )
    if as_json:
        click.echo(json.dumps(report.to_json(), indent=2, ensure_ascii=False))
        return
    click.echo(
        eval_report.render_markdown(report) if markdown else eval_report.render_text(report),
        nl=False,
    )
    if misses is not None:
        click.echo()
        click.echo(eval_report.render_misses(report, misses), nl=False)
