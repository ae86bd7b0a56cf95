"""Answers and summaries: retrieved context, one prompt, the model's answer.

Retrieval is the caller's (``VaultRAG.ask`` and ``VaultRAG.summarise`` pass it in
as a function), so the model is resolved first: an unknown model fails before any
work, and nothing is sent unless a model was named.

An answer is made in two steps, so the HTTP server can stream it: ``prepare`` (the
model, retrieval, the prompt) and ``complete`` (the model call, its text streamed to
``on_chunk``, stoppable with ``cancel``). When retrieval finds nothing, ``complete``
answers that nothing in the vault matches and calls no model: the model would only
say the same, after the question had left the machine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from graphrag.answer.citations import cited
from graphrag.answer.history import Turn
from graphrag.answer.models import agenerate, generate, model_options, resolve, system_prompt
from graphrag.answer.prompts import (
    Context,
    Prompt,
    ask_prompt,
    focus_context,
    query_context,
    summary_prompt,
)
from graphrag.config.llm import LLMSettings
from graphrag.results.focus import GraphRAGResult
from graphrag.results.query import QueryResult

if TYPE_CHECKING:
    import llm

NOTHING_FOUND = "Nothing in the vault matches this question ({why}), so no model was asked."


@dataclass(frozen=True)
class Prepared:
    """Everything before the model call: the chosen model, the context and the prompt.

    ``model`` is None for a dry run. ``aliases``: each source's aliases and title, for
    reading the answer's citations."""

    question: str
    context: Context
    prompt: Prompt
    model: llm.Model | None
    options: dict[str, Any] = field(default_factory=dict)
    aliases: Mapping[str, Sequence[str]] = field(default_factory=dict)
    seconds: float = 0.0  # retrieval and prompt

    @property
    def nothing_found(self) -> bool:
        return not self.context.sources

    @property
    def model_id(self) -> str:
        return self.model.model_id if self.model is not None else ""

    def nothing_found_text(self) -> str:
        why = getattr(self.context.result, "message", None) or "no note is relevant to it"
        return NOTHING_FOUND.format(why=why)

    def sources_json(self) -> list[dict[str, str]]:
        relations = self.context.relations
        return [
            {"uri": uri, "title": title, "relation": relations[i] if i < len(relations) else ""}
            for i, (uri, title) in enumerate(self.context.sources)
        ]

    def context_json(self) -> dict[str, Any]:
        """What the client learns before the answer: the mode, the model, the notes given
        to it and how each came to be there, and the tokens they take."""
        result = self.context.result
        return {
            "mode": self.context.kind,
            "question": self.question,
            "model": self.model_id,
            "sources": self.sources_json(),
            "tokens": {"budget": result.budget, "used": result.tokens_used},
        }


@dataclass(frozen=True)
class Answer:
    """A model's answer (or summary), the notes it was given and the prompt it was sent.

    ``cited``: the sources the answer links to (``citations.cited``), in prompt order;
    ``seconds``: the model's time, ``retrieval_seconds`` the time before it."""

    text: str
    sources: tuple[tuple[str, str], ...]
    context: Context
    prompt: Prompt
    model: str
    seconds: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)
    cited: tuple[str, ...] = ()
    retrieval_seconds: float = 0.0
    nothing_found: bool = False
    question: str = ""

    def sources_json(self) -> list[dict[str, Any]]:
        """The notes given to the model, those the answer cites first (in prompt order),
        each with how it came into the context and whether it is cited."""
        relations = self.context.relations
        rows = [
            {
                "uri": uri,
                "title": title,
                "relation": relations[i] if i < len(relations) else "",
                "cited": uri in self.cited,
            }
            for i, (uri, title) in enumerate(self.sources)
        ]
        return [r for r in rows if r["cited"]] + [r for r in rows if not r["cited"]]

    def done_json(self) -> dict[str, Any]:
        """The end of a streamed answer (``/ask``'s ``done`` event)."""
        usage = None
        if self.usage:
            usage = {"input": self.usage.get("input"), "output": self.usage.get("output")}
        return {
            "answer": self.text,
            "cited": list(self.cited),
            "sources": self.sources_json(),
            "usage": usage,
            "seconds": {
                "retrieval": round(self.retrieval_seconds, 4),
                "model": round(self.seconds, 4),
            },
            "nothingFound": self.nothing_found,
        }

    def to_json(self) -> dict[str, Any]:
        """``ask --json``: the question, mode and model, ``done_json``, then the prompt
        and the retrieval result it was built from."""
        return {
            "question": self.question,
            "mode": self.context.kind,
            "model": self.model,
            **self.done_json(),
            "prompt": self.prompt.to_json(),
            "context": self.context.to_json(),
        }


def prepare(
    question: str,
    retrieve: Callable[[], QueryResult | GraphRAGResult],
    settings: LLMSettings,
    *,
    model: str | llm.Model | None = None,
    system: str | None = None,
    options: Mapping[str, Any] | None = None,
    history: Sequence[Turn] = (),
    aliases_of: Callable[[str], Sequence[str]] | None = None,
    dry_run: bool = False,
) -> Prepared:
    """The model (unless ``dry_run``), then the context (from ``retrieve``: a query-mode
    result retrieved with ``output="prompt"``, or a focus-mode one) and the prompt, with
    the last ``[llm] history_turns`` of ``history``."""
    chosen = None
    opts: dict[str, Any] = {}
    if not dry_run:
        chosen = resolve(settings, model)  # before retrieval: fail fast, send nothing
        opts = model_options(chosen, settings, options)
    start = time.perf_counter()
    result = retrieve()
    if isinstance(result, QueryResult):
        context = query_context(result)
    else:
        context = focus_context(result, settings.focus_list_limit)
    turns = tuple(history)[-settings.history_turns :] if settings.history_turns > 0 else ()
    prompt = ask_prompt(context, question, system or system_prompt(settings, "ask"), turns)
    aliases = {}
    if aliases_of is not None:
        aliases = {uri: tuple(aliases_of(uri)) for uri, _ in context.sources}
    return Prepared(question, context, prompt, chosen, opts, aliases, time.perf_counter() - start)


def complete(
    prepared: Prepared,
    on_chunk: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
) -> Answer:
    """The model's answer to a prepared prompt, streamed to ``on_chunk``; without a model
    (a dry run) the answer is empty, and when nothing was found it says so unasked."""
    base = _unanswered(prepared)
    if prepared.model is None:
        return base
    if prepared.nothing_found:
        text = prepared.nothing_found_text()
        if on_chunk is not None:
            on_chunk(text)
        return replace(base, text=text, model="")
    start = time.perf_counter()
    text, usage = generate(prepared.model, prepared.prompt, prepared.options, on_chunk, cancel)
    return _answered(base, prepared, text, usage, time.perf_counter() - start)


async def complete_async(
    prepared: Prepared,
    model: llm.AsyncModel,
    on_chunk: Callable[[str], None] | None = None,
) -> Answer:
    """``complete`` with ``model``, the async form of ``prepared.model`` (``models.
    async_variant``), for a prepared prompt that goes to a model; cancelling the task
    that awaits it stops the model at once."""
    base = _unanswered(prepared)
    start = time.perf_counter()
    text, usage = await agenerate(model, prepared.prompt, prepared.options, on_chunk)
    return _answered(base, prepared, text, usage, time.perf_counter() - start)


def _unanswered(prepared: Prepared) -> Answer:
    """The answer before any text: the prompt, its notes, the model's name, the timing."""
    return Answer(
        "",
        prepared.context.sources,
        prepared.context,
        prepared.prompt,
        prepared.model_id,
        retrieval_seconds=prepared.seconds,
        nothing_found=prepared.nothing_found,
        question=prepared.question,
    )


def _answered(
    base: Answer, prepared: Prepared, text: str, usage: dict[str, int], seconds: float
) -> Answer:
    found = cited(text, prepared.context.sources, prepared.aliases)
    return replace(base, text=text, seconds=seconds, usage=usage, cited=tuple(found))


def ask(
    question: str,
    retrieve: Callable[[], QueryResult | GraphRAGResult],
    settings: LLMSettings,
    *,
    model: str | llm.Model | None = None,
    system: str | None = None,
    options: Mapping[str, Any] | None = None,
    history: Sequence[Turn] = (),
    aliases_of: Callable[[str], Sequence[str]] | None = None,
    on_chunk: Callable[[str], None] | None = None,
    dry_run: bool = False,
) -> Answer:
    """``prepare`` then ``complete``: the context for ``question``, one prompt, the answer.

    ``dry_run`` builds the prompt and sends nothing (no model needed): the answer
    text is empty.
    """
    prepared = prepare(
        question,
        retrieve,
        settings,
        model=model,
        system=system,
        options=options,
        history=history,
        aliases_of=aliases_of,
        dry_run=dry_run,
    )
    return complete(prepared, on_chunk)


def summarise(
    retrieve: Callable[[], GraphRAGResult],
    settings: LLMSettings,
    *,
    model: str | llm.Model | None = None,
    system: str | None = None,
    options: Mapping[str, Any] | None = None,
    on_chunk: Callable[[str], None] | None = None,
) -> Answer:
    """Focus-mode context (from ``retrieve``) and a summary that uses the related notes."""
    chosen = resolve(settings, model)
    opts = model_options(chosen, settings, options)
    start = time.perf_counter()
    context = focus_context(retrieve(), settings.focus_list_limit)
    prompt = summary_prompt(
        context, system or system_prompt(settings, "summary"), settings.summary_task
    )
    prepared = Prepared("", context, prompt, chosen, opts, {}, time.perf_counter() - start)
    return complete(prepared, on_chunk)
