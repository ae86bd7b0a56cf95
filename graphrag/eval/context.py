"""What a system handed the model for one question, and what its tokens bought.

A context's tokens go to note text (each note's ``details``), to the entry notes'
lists of other notes (contextual path, children, siblings, backlinks, links), to
how each note relates to the question (``RELATION_KEYS``: its relation, the note it
is relative to, the link's property and far end, shared tags, what made an entry)
and to the rest of each note's metadata (uri, title, parent, dates, ...). ``eval``
reports the shares per budget, so a change that spends the budget on names of
notes instead of their text shows, and so does what the graph's relations cost
(docs/architecture.md, "Evaluation").

Counts are of the JSON each part is written as, with the token counter the budget
uses; they are a little off from the whole note's count (a token can straddle two
parts), which is why the "other" share is the rest: ``tokens - text - lists -
relations``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from graphrag.budget import TokenCounter
from graphrag.eval.answers import Shown, shown_text
from graphrag.results.query import LIST_KEYS

_COMPACT = (",", ":")

# The keys that say how a note relates to the question (query mode's JSON; a baseline
# note, rendered as a related note, has only ``relationToFocusNote``).
RELATION_KEYS = frozenset(
    {
        "relationToFocusNote",
        "focusUri",
        "predicate",
        "subjectUriAndTitle",
        "objectUriAndTitle",
        "sharedTags",
        "matchedBy",
    }
)


@dataclass(frozen=True, slots=True)
class Retrieved:
    """The context a system returned for one question: the notes shown (``uris``),
    the notes it names as holding the same text as one of them (``copies``), the
    tokens it used and how many of those were note text, entry lists and relations,
    and each shown note's text for the answer words (``shown``)."""

    uris: tuple[str, ...]
    tokens: int
    copies: tuple[str, ...] = ()
    text_tokens: int = 0
    list_tokens: int = 0
    relation_tokens: int = 0
    shown: tuple[Shown, ...] = ()


def text_tokens(details: str, tokenizer: TokenCounter) -> int:
    """Tokens of a note's details as the JSON context writes them."""
    return tokenizer.count(json.dumps(details, ensure_ascii=False))


def key_tokens(note: Mapping[str, Any], keys: frozenset[str], tokenizer: TokenCounter) -> int:
    """Tokens of ``note``'s ``keys`` (those it has, non-empty) as compact JSON writes them."""
    return sum(
        tokenizer.count(json.dumps({k: note[k]}, ensure_ascii=False, separators=_COMPACT))
        for k in keys
        if note.get(k)
    )


def query_context(data: Mapping[str, Any], tokenizer: TokenCounter) -> Retrieved:
    """A query-mode result's JSON (``QueryResult.to_json()``) as a ``Retrieved``."""
    entries = list(data.get("entryNotes", []))
    notes = [*entries, *data.get("relatedNotes", [])]
    uris = tuple(dict.fromkeys(n["uri"] for n in notes))
    copies = tuple(
        dict.fromkeys(c["uri"] for n in notes for c in n.get("copies", []) if c["uri"] not in uris)
    )
    text = sum(text_tokens(n.get("details", ""), tokenizer) for n in notes)
    lists = sum(key_tokens(e, LIST_KEYS, tokenizer) for e in entries)
    relations = sum(key_tokens(n, RELATION_KEYS, tokenizer) for n in notes)
    used = int(data.get("tokens", {}).get("used", 0))
    shown = tuple(
        (n["uri"], shown_text(n["uri"], n.get("title", ""), n.get("details", ""))) for n in notes
    )
    return Retrieved(uris, used, copies, text, lists, relations, shown)
