"""Prompts for a language model, built from retrieved context.

One prompt per answer, in two parts:

* the **system** prompt: what the context looks like (the note list, how each
  note relates to the others, its URI) and the rules (answer from the notes only,
  cite notes as ``[[uri]]``). ``--system FILE`` or ``[llm] system_prompt_file``
  replaces it;
* the **user** prompt: the rendered context (query mode: ``query.render``'s
  ``CONTEXT:`` list; focus mode: ``focus.render.render_prompt``), a blank line, then the
  question (``QUESTION: ...`` after a query context, ``# Question`` after a focus
  context) or the summary task (``# Task``). Earlier turns of a conversation, if any,
  come just before the question (``graphrag.answer.history``).

The model and the call are in ``graphrag.answer.models``; ``graphrag.answer.ask``
puts them together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from graphrag.answer.history import Turn, history_block
from graphrag.focus.render import relation_sentence
from graphrag.focus.render import render_prompt as render_focus
from graphrag.results.focus import GraphRAGResult
from graphrag.results.notes import FocusNote
from graphrag.results.query import QueryResult

QUERY_SYSTEM = """\
You answer questions from the user's own notes, taken from their Obsidian vault.

The user's message starts with CONTEXT: a numbered list of documents, most relevant \
first. Entry notes matched the question directly; every other document is related to \
an entry note, and its "Relation" says how (its parent, a child, a note it links to, a \
note linking to it, a sibling, a shared tag...), with its distance in links, the \
tags it shares and, two links away or more, its path from the entry note. "URI" is the note's path in the \
vault. "Content" is the note's text; of a long note only the passages that matter \
most, and "…" marks where text was left out. "[Connection]" lines after the list say \
how documents are linked to each other. The question comes last; earlier questions \
and answers of the same conversation, when there are any, come just before it: use them \
to understand what the question refers to.

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
vault. The question comes last; earlier questions and answers of the same conversation, \
when there are any, come just before it: use them to understand what the question refers to.

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
    relations: tuple[str, ...] = ()  # for each source, how it came into the context

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = self.result.to_json()
        return data

    @property
    def title(self) -> str:
        return self.sources[0][1] if self.sources else ""

    @property
    def uri(self) -> str:
        return self.sources[0][0] if self.sources else ""


# -- contexts --------------------------------------------------------------------------
def query_context(result: QueryResult) -> Context:
    """Query mode's result (retrieved with ``output="prompt"``) as the prompt's context."""
    # Imported here: it pulls in query mode (numpy, FAISS), which printing a prompt a
    # server built (``ask --prompt-only``) does not need.
    from graphrag.query.render import render_prompt as render_query

    entries = [(e.uri, e.title) for e in result.entries]
    related = [(n.uri, n.title) for n in result.related]
    relations = [
        *("Entry note, matched by " + "+".join(e.matched_by) for e in result.entries),
        *(relation_sentence(n.note, n.focus.title) for n in result.related),
    ]
    return Context("query", result, render_query(result), (*entries, *related), tuple(relations))


def focus_context(result: GraphRAGResult, list_limit: int) -> Context:
    """Focus mode's result with the focus note's lists cut to ``list_limit`` (``[llm]
    focus_list_limit``): the budget does not count them, and in a big folder the
    sibling lists alone would dwarf it."""
    result = replace(result, focus_note=cap_lists(result.focus_note, list_limit))
    focus = result.focus_note
    sources = ((focus.uri, focus.title), *((n.uri, n.title) for n in result.related_notes))
    relations = ("Focus note", *(relation_sentence(n, focus.title) for n in result.related_notes))
    return Context("focus", result, render_focus(result), tuple(sources), relations)


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
def ask_prompt(
    context: Context, question: str, system: str | None = None, history: Sequence[Turn] = ()
) -> Prompt:
    """System prompt, then the context, the earlier turns (if any) and the question."""
    if context.kind == "query":
        default, tail = QUERY_SYSTEM, f"QUESTION: {question.strip()}"
    else:
        default, tail = FOCUS_SYSTEM, f"# Question\n\n{question.strip()}"
    earlier = history_block(history, context.kind)
    if earlier:
        tail = f"{earlier}\n\n{tail}"
    return Prompt((system or default).strip(), f"{context.text.rstrip()}\n\n{tail}\n")


def summary_prompt(context: Context, system: str | None = None, task: str | None = None) -> Prompt:
    """System prompt, then the focus context, then the summary task."""
    text = (task or SUMMARY_TASK).replace("{title}", context.title).replace("{uri}", context.uri)
    return Prompt(
        (system or SUMMARY_SYSTEM).strip(), f"{context.text.rstrip()}\n\n# Task\n\n{text}\n"
    )
