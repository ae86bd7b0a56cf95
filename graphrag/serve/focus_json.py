"""``/focus`` answers as bytes, with the focus note's lists encoded once per snapshot.

A focus note carries its complete lists (children, siblings, backlinks, links: the
contract keeps them whole), so in a folder of thousands of notes an answer is some
170 KB, nearly all of it those lists, and building and encoding them per request was
half of a server's CPU (benchmarks/RESULTS.md, "Server"). Every entry of those lists
is one note's ``{"uri", "title"}`` (or an outbound link), the same bytes whichever
note lists it: ``ListItems`` keeps each entry's encoding for the life of a snapshot
(``Snapshot.derived``: dropped with it, and bounded by the notes it holds), and a
list is the join of its entries' bytes. The bytes are the ones ``JSONResponse`` gives
for ``GraphRAGResult.to_json()`` (docs/architecture.md, serving).

Answers that name a ``seed`` are reproducible, so ``Answers`` keeps the last ones a
snapshot gave (keyed by the request, bounded in bytes): the plugin's related pane asks
again for the same note with the same seed each time the note is opened.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Sequence
from dataclasses import replace
from typing import Any

from graphrag.results.focus import GraphRAGResult
from graphrag.results.notes import FocusNote
from indexer.lru import SizedLRU

# The focus note's list fields by their JSON key, in the order ``FocusNote.to_json``
# writes them.
LISTS = {
    "contextualPath": "contextual_path",
    "children": "children",
    "priorSiblings": "prior_siblings",
    "youngerSiblings": "younger_siblings",
    "inboundReferences": "inbound_references",
    "outboundLinks": "outbound_links",
}
BARE: dict[str, Any] = {field: () for field in LISTS.values()}
# What a snapshot's answers to seeded requests may take (their encoded size).
ANSWER_BYTES = 16 * 1024 * 1024


def dumps(data: Any) -> bytes:
    """JSON as ``JSONResponse`` renders it."""
    return json.dumps(
        data, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


class ListItems:
    """The encoding of every list entry seen, kept for one snapshot.

    Entries are ``UriAndTitle`` tuples and ``OutboundLink`` values, both hashable and
    equal by content, so a key is what is encoded; there are at most as many as the
    snapshot has notes, links and ghosts.
    """

    def __init__(self) -> None:
        self._bytes: dict[Hashable, bytes] = {}

    def __len__(self) -> int:
        return len(self._bytes)

    def encoded(self, items: Sequence[Any]) -> bytes:
        """``items`` as a JSON array."""
        known = self._bytes
        parts = []
        for item in items:
            part = known.get(item)
            if part is None:
                part = known.setdefault(item, dumps(item.to_json()))
            parts.append(part)
        return b"[" + b",".join(parts) + b"]"


def encode_focus(
    result: GraphRAGResult, items: ListItems, rest: dict[str, Any] | None = None
) -> bytes:
    """``result`` as the bytes of ``JSONResponse(result.to_json())``.

    ``rest``: ``to_json()`` of ``result`` with its focus note's lists left empty (the
    caller may have added to its related notes); made here when not given.
    """
    note: FocusNote = result.focus_note
    if rest is None:
        rest = bare_json(result)
    out = dumps(rest)
    # The focus note comes first and its keys are JSON keys, outside any string (a
    # quote inside a string is escaped): the first ``"children":[]`` is its list.
    for key, field in LISTS.items():
        values = getattr(note, field)
        if values:
            empty = b'"' + key.encode() + b'":[]'
            at = out.index(empty)
            out = b"".join(
                (out[: at + len(empty) - 2], items.encoded(values), out[at + len(empty) :])
            )
    return out


def bare_json(result: GraphRAGResult) -> dict[str, Any]:
    """``result.to_json()`` without building the focus note's lists."""
    return replace(result, focus_note=replace(result.focus_note, **BARE)).to_json()


class Answers(SizedLRU[bytes]):
    """Encoded answers of one snapshot by request, least recently used first out,
    bounded in bytes (put each with ``len(answer)``)."""

    def __init__(self, max_bytes: int = ANSWER_BYTES) -> None:
        super().__init__(max_bytes)
