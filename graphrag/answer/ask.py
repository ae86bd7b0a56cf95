"""Answers and summaries from a language model over the retrieved context.

One prompt per answer, in two parts:

* the **system** prompt: what the context looks like (the note list, how each
  note relates to the others, its URI) and the rules (answer from the notes only,
  cite notes as ``[[uri]]``). ``--system FILE`` or ``[llm] system_prompt_file``
  replaces it;
* the **user** prompt: the rendered context (query mode: ``query_render``'s
  ``CONTEXT:`` list; focus mode: ``render.render_prompt``), a blank line, then the
  question (``QUESTION: ...`` after a query context, ``# Question`` after a focus
  context) or the summary task (``# Task``).

The model comes from ``llm`` (see ``llm_settings``); its answer streams to
``on_chunk`` as it arrives.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from graphrag.config.llm import LLMSettings, ModelCallError, get_model, model_name, model_options
from graphrag.results.focus import FocusNote, GraphRAGResult

if TYPE_CHECKING:
    import llm

    from graphrag.api import VaultRAG

QUERY_SYSTEM = """\
You answer questions from the user's own notes, taken from their Obsidian vault.

The user's message starts with CONTEXT: a numbered list of documents, most relevant \
first. Entry notes matched the question directly; every other document is related to \
an entry note, and its "Relation" says how (its parent, a child, a note it links to, a \
note linking to it, a sibling, a shared tag...), with its distance in links, the \
tags it shares and its path from the entry note. "URI" is the note's path in the \
vault. "Content" is the note's text; of a long note only the passages that matter \
most, and "…" marks where text was left out. "[Connection]" lines after the list say \
how documents are linked to each other. The question comes last.

Rules:
1. Answer from these documents only. If they do not hold the answer, say so and say \
what they do cover; never make up facts.
2. Cite each note you use as an Obsidian link: its URI in double square brackets, \
such as [[Projects/Alpha]], right after the statement it supports. Cite only URIs \
that appear in the context.
3. Use the relations and connections to combine facts from several notes. Be concise."""

FOCUS_SYSTEM = """\
You answer questions about one note of the user's Obsidian vault and the notes around it.

The user's message starts with the focus note: "# Focus note: Title (uri)", lists of \
the notes it is connected to (parent, children, siblings, inbound references, outbound \
links, tags), then its text. Then come related notes, most relevant first: each is a \
"## Title (uri)" heading, one sentence saying how it relates to the focus note, and \
its text, cut short with an ellipsis (…) when long. The uri is the note's path in the \
vault. The question comes last.

Rules:
1. Answer from these notes only. If they do not hold the answer, say so; never make \
up facts.
2. Cite each note you use as an Obsidian link: its uri in double square brackets, such \
as [[Projects/Alpha]], right after the statement it supports. Cite only uris that \
appear in the context.
3. Be concise."""

SUMMARY_SYSTEM = """\
You summarise notes from the user's Obsidian vault.

The user's message starts with the focus note: "# Focus note: Title (uri)", lists of \
the notes it is connected to (parent, children, siblings, inbound references, outbound \
links, tags), then its text. Then come related notes, most relevant first: each is a \
"## Title (uri)" heading, one sentence saying how it relates to the focus note, and \
its text, cut short with an ellipsis (…) when long. The uri is the note's path in the \
vault. The task comes last.

Rules:
1. Use only what these notes say; never make up facts.
2. Cite each note you use as an Obsidian link: its uri in double square brackets, such \
as [[Projects/Alpha]]. Cite only uris that appear in the context."""

SUMMARY_TASK = (
    "Summarise the focus note {title} ([[{uri}]]) in one or two short paragraphs: what "
    "it says, and how it fits with the related notes (where it sits in the hierarchy, "
    "what it links to, what refers to it). Write the summary only."
)

_WIKILINK = re.compile(r"\[\[([^\]|#^]+)")


@dataclass(frozen=True)
class Prompt:
    """Exactly what is sent: a system prompt and the user prompt."""

    system: str
    prompt: str

    def to_json(self) -> dict[str, str]:
        return {"system": self.system, "prompt": self.prompt}

    def text(self) -> str:
        """Both parts, labelled, for ``--prompt-only``."""
        return f"SYSTEM:\n{self.system.rstrip()}\n\nPROMPT:\n{self.prompt.rstrip()}\n"


@dataclass(frozen=True)
class Context:
    """Retrieved notes: the result (``QueryResult`` or ``GraphRAGResult``) rendered as text."""

    kind: str  # "query" or "focus"
    result: Any
    text: str
    sources: tuple[tuple[str, str], ...]  # (uri, title) in the order the prompt lists them

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = self.result.to_json()
        return data

    @property
    def title(self) -> str:
        return self.sources[0][1] if self.sources else ""

    @property
    def uri(self) -> str:
        return self.sources[0][0] if self.sources else ""


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


# -- contexts --------------------------------------------------------------------------
def query_context(
    rag: VaultRAG, question: str, budget: int | None = None, seed: int | None = None
) -> Context:
    from graphrag.query.render import render_prompt

    result = rag.query(question, budget=budget, seed=seed, output="prompt")
    docs = [*result.entries, *result.related]
    return Context("query", result, render_prompt(result), tuple((d.uri, d.title) for d in docs))


def focus_context(
    rag: VaultRAG,
    note: str,
    budget: int | None = None,
    seed: int | None = None,
    list_limit: int | None = None,
) -> Context:
    """Focus mode's result with the focus note's lists cut to ``list_limit`` (default
    ``[llm] focus_list_limit``): the budget does not count them, and in a big folder
    the sibling lists alone would dwarf it."""
    from graphrag.focus.render import render_prompt

    result: GraphRAGResult = rag.focus(note, budget=budget, seed=seed)
    limit = rag.settings.llm.focus_list_limit if list_limit is None else list_limit
    result = replace(result, focus_note=cap_lists(result.focus_note, limit))
    focus = result.focus_note
    sources = ((focus.uri, focus.title), *((n.uri, n.title) for n in result.related_notes))
    return Context("focus", result, render_prompt(result), tuple(sources))


def cap_lists(focus: FocusNote, limit: int) -> FocusNote:
    """At most ``limit`` notes per list: the nearest siblings, the first of the others."""
    if limit <= 0:
        return focus
    return replace(
        focus,
        children=focus.children[:limit],
        prior_siblings=focus.prior_siblings[-limit:],
        younger_siblings=focus.younger_siblings[:limit],
        inbound_references=focus.inbound_references[:limit],
        outbound_links=focus.outbound_links[:limit],
    )


# -- prompts ---------------------------------------------------------------------------
def ask_prompt(context: Context, question: str, system: str | None = None) -> Prompt:
    """System prompt, then the context, then the question."""
    if context.kind == "query":
        default, tail = QUERY_SYSTEM, f"QUESTION: {question.strip()}"
    else:
        default, tail = FOCUS_SYSTEM, f"# Question\n\n{question.strip()}"
    return Prompt((system or default).strip(), f"{context.text.rstrip()}\n\n{tail}\n")


def summary_prompt(context: Context, system: str | None = None, task: str | None = None) -> Prompt:
    """System prompt, then the focus context, then the summary task."""
    text = (task or SUMMARY_TASK).replace("{title}", context.title).replace("{uri}", context.uri)
    return Prompt(
        (system or SUMMARY_SYSTEM).strip(), f"{context.text.rstrip()}\n\n# Task\n\n{text}\n"
    )


def cited(text: str, uris: list[str]) -> list[str]:
    linked = {m.strip() for m in _WIKILINK.findall(text)}
    return [u for u in uris if u in linked]


# -- the model -------------------------------------------------------------------------
def resolve(settings: LLMSettings, model: str | llm.Model | None) -> llm.Model:
    """``model`` as given (an ``llm`` model object or a name), else ``[llm] model``."""
    if model is not None and not isinstance(model, str):
        return model
    return get_model(model_name(settings, model))


def generate(
    model: llm.Model,
    prompt: Prompt,
    options: Mapping[str, Any] | None = None,
    on_chunk: Callable[[str], None] | None = None,
) -> tuple[str, dict[str, int]]:
    """Send ``prompt``; stream the text to ``on_chunk``; return it with token usage."""
    opts = dict(options or {})
    chunks: list[str] = []
    try:
        response = model.prompt(prompt.prompt, system=prompt.system, stream=True, **opts)
        for chunk in response:
            chunks.append(chunk)
            if on_chunk is not None:
                on_chunk(chunk)
    except ModelCallError:
        raise
    except Exception as exc:  # plugins raise their providers' own errors; report, don't crash
        raise ModelCallError(model.model_id, f"{type(exc).__name__}: {exc}") from exc
    return "".join(chunks), _usage(response)


def _usage(response: Any) -> dict[str, int]:
    try:
        usage = response.usage()
    except Exception:  # usage is a nicety; older plugins do not record it
        return {}
    out = {"input": getattr(usage, "input", None), "output": getattr(usage, "output", None)}
    return {k: int(v) for k, v in out.items() if v is not None}


def ask(
    rag: VaultRAG,
    question: str,
    *,
    model: str | llm.Model | None = None,
    budget: int | None = None,
    seed: int | None = None,
    system: str | None = None,
    options: Mapping[str, Any] | None = None,
    on_chunk: Callable[[str], None] | None = None,
    dry_run: bool = False,
) -> Answer:
    """Query-mode context for ``question``, one prompt, the model's answer.

    ``dry_run`` builds the prompt and sends nothing (no model needed): the answer
    text is empty.
    """
    llm_settings = rag.settings.llm
    chosen = None
    if not dry_run:
        chosen = resolve(llm_settings, model)  # before retrieval: fail fast, send nothing
        opts = model_options(chosen, llm_settings, options)
    context = query_context(rag, question, budget=budget, seed=seed)
    prompt = ask_prompt(context, question, system or llm_settings.system_prompt("ask"))
    if chosen is None:
        return Answer("", context.sources, context, prompt, "")
    start = time.perf_counter()
    text, usage = generate(chosen, prompt, opts, on_chunk)
    return Answer(
        text, context.sources, context, prompt, chosen.model_id, time.perf_counter() - start, usage
    )


def summarise(
    rag: VaultRAG,
    note: str,
    *,
    model: str | llm.Model | None = None,
    budget: int | None = None,
    seed: int | None = None,
    system: str | None = None,
    options: Mapping[str, Any] | None = None,
    on_chunk: Callable[[str], None] | None = None,
) -> Answer:
    """Focus-mode context for ``note`` and a summary that uses the related notes."""
    llm_settings = rag.settings.llm
    chosen = resolve(llm_settings, model)
    opts = model_options(chosen, llm_settings, options)
    context = focus_context(rag, note, budget=budget, seed=seed)
    prompt = summary_prompt(
        context, system or llm_settings.system_prompt("summary"), llm_settings.summary_task
    )
    start = time.perf_counter()
    text, usage = generate(chosen, prompt, opts, on_chunk)
    return Answer(
        text, context.sources, context, prompt, chosen.model_id, time.perf_counter() - start, usage
    )
