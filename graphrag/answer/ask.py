"""Answers and summaries: retrieved context, one prompt, the model's answer.

Retrieval is the caller's (``VaultRAG.ask`` and ``VaultRAG.summarise`` pass it in
as a function), so the model is resolved first: an unknown model fails before any
work, and nothing is sent unless a model was named.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from graphrag.answer.models import generate, model_options, resolve, system_prompt
from graphrag.answer.prompts import (
    Context,
    Prompt,
    ask_prompt,
    cited,
    focus_context,
    query_context,
    summary_prompt,
)
from graphrag.config.llm import LLMSettings
from graphrag.results.focus import GraphRAGResult
from graphrag.results.query import QueryResult

if TYPE_CHECKING:
    import llm


@dataclass(frozen=True)
class Answer:
    """A model's answer (or summary), the notes it was given and the prompt it was sent."""

    text: str
    sources: tuple[tuple[str, str], ...]
    context: Context
    prompt: Prompt
    model: str
    seconds: float = 0.0
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def cited(self) -> list[str]:
        """The sources the answer links to, in the order of ``sources``."""
        return cited(self.text, [uri for uri, _ in self.sources])

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "answer": self.text,
            "sources": [{"uri": u, "title": t} for u, t in self.sources],
            "cited": self.cited,
            "model": self.model,
            "seconds": round(self.seconds, 3),
        }
        if self.usage:
            out["usage"] = self.usage
        out["prompt"] = self.prompt.to_json()
        out["context"] = self.context.to_json()
        return out


def ask(
    question: str,
    retrieve: Callable[[], QueryResult],
    settings: LLMSettings,
    *,
    model: str | llm.Model | None = None,
    system: str | None = None,
    options: Mapping[str, Any] | None = None,
    on_chunk: Callable[[str], None] | None = None,
    dry_run: bool = False,
) -> Answer:
    """Query-mode context for ``question`` (from ``retrieve``, rendered as a prompt),
    one prompt, the model's answer.

    ``dry_run`` builds the prompt and sends nothing (no model needed): the answer
    text is empty.
    """
    chosen = None
    opts: dict[str, Any] = {}
    if not dry_run:
        chosen = resolve(settings, model)  # before retrieval: fail fast, send nothing
        opts = model_options(chosen, settings, options)
    context = query_context(retrieve())
    prompt = ask_prompt(context, question, system or system_prompt(settings, "ask"))
    if chosen is None:
        return Answer("", context.sources, context, prompt, "")
    return _answer(chosen, context, prompt, opts, on_chunk)


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
    context = focus_context(retrieve(), settings.focus_list_limit)
    prompt = summary_prompt(
        context, system or system_prompt(settings, "summary"), settings.summary_task
    )
    return _answer(chosen, context, prompt, opts, on_chunk)


def _answer(
    chosen: llm.Model,
    context: Context,
    prompt: Prompt,
    opts: dict[str, Any],
    on_chunk: Callable[[str], None] | None,
) -> Answer:
    start = time.perf_counter()
    text, usage = generate(chosen, prompt, opts, on_chunk)
    return Answer(
        text, context.sources, context, prompt, chosen.model_id, time.perf_counter() - start, usage
    )
