"""A floor on what a note costs with query-aware details, without counting its text.

Once the budget is nearly spent, packing meets hundreds of notes that cannot fit in
what is left, and finding that out by building, rendering and counting each one cost
more than everything else a question does on a vault of link hubs. The index keeps,
for each chunk, the fewest tokens its shown text takes in any form a note is rendered
in (``indexer.shown``), so a note shown as its best chunks (``passages.Passage``)
costs at least the sum of its chunks' counts: ``details_floor``. A note short enough
to be shown whole costs at least its whole text's count, which the index keeps per
note (``indexer.shown.whole_tokens``). Each part of the rendered note (the chunks or
the whole text, the blank lines or ``…`` between them, the property lines before
them, and the text around the details) is one token at least, and where two parts
meet, the tokenizer may merge across the seam: ``SEAM_TOKENS`` is allowed at each
(one was the most seen over the seams of every chunk pair sampled from the shared
vaults, in every form). Besides its details a rendered note always holds its uri (as
written in the prompt, as a JSON string in JSON), and the property lines its details
open with are counted too (not one token): both once per generation, ``note_floor``. A note whose floor is more than is left cannot fit, so it is settled
unbuilt (``query/pack.py``); the floor never decides that a note fits, so answers
are the same with it or without it (docs/architecture.md, "Query mode").
"""

from __future__ import annotations

import json

from graphrag.details.passages import Passage, shown_tokens
from graphrag.details.text import NoteText
from indexer.load import IndexSnapshot
from indexer.shown import Counter, shown_forms

SEAM_TOKENS = 2


def floors_hold(index: IndexSnapshot, counter: object) -> bool:
    """Do the index's stored counts bound what ``counter`` counts? They are the index's
    tokenizer's (``manifest["tokenizer"]``), and an index written before them has none."""
    name = getattr(counter, "name", None)
    return (
        (index.has_shown_tokens or index.has_whole_tokens)
        and name is not None
        and name == index.manifest.get("tokenizer")
    )


def note_floor(
    note_text: NoteText,
    uri: str,
    passage: Passage,
    counter: Counter,
    head: str = "",
    enough: int | None = None,
) -> int | None:
    """Fewest tokens the note ``uri`` rendered with ``passage`` as its details can take:
    its details' floor and its uri (two more seams); None when the details' floor is.
    ``head``: the property lines the passage opens with (``passage.head``), counted
    (once per generation); without it they are one token at least. ``enough``: when
    the stored counts alone (property lines and uri one token each) are more than
    this, that smaller floor, without counting either: a note weighed once is mostly
    settled by its stored counts, and counting its uri and property lines cost as
    much as the rest of its floor."""
    details = details_floor(note_text, uri, passage)
    if details is None:
        return None
    bare = details + 1 - 2 * SEAM_TOKENS
    if enough is not None and bare > enough:
        return bare
    if head and passage.head:  # the property lines' part beyond one token
        details += head_tokens(note_text, uri, head, counter) - 1
    return details + uri_tokens(note_text, uri, counter) - 2 * SEAM_TOKENS


def head_tokens(note_text: NoteText, uri: str, head: str, counter: Counter) -> int:
    """Fewest tokens a note's property lines take at the start of its details: in any
    form ``shown_forms`` gives, or quoted with only their start stripped (the prompt
    strips the details as a whole)."""

    def count() -> int:
        forms = shown_forms(head) | {head.lstrip().replace('"', '\\"')}
        return min(counter.count(form) for form in forms)

    return note_text.memo(("head-tokens", uri, head), count)


def uri_tokens(note_text: NoteText, uri: str, counter: Counter) -> int:
    """Fewest tokens ``uri`` takes as a rendered note shows it: as written (the prompt's
    ``URI:``) or as a JSON string's contents (``"uri"``); counted once per generation."""

    def count() -> int:
        escaped = json.dumps(uri, ensure_ascii=False)[1:-1]
        if escaped == uri:  # most uris: one form, one count (a count is ~20 us)
            return counter.count(uri)
        return min(counter.count(uri), counter.count(escaped))

    return note_text.memo(("uri-tokens", uri), count)


def details_floor(
    note_text: NoteText, uri: str, passage: Passage, head_tokens: int = 1
) -> int | None:
    """Fewest tokens a note rendered with ``passage`` as its details can take (JSON or
    prompt, whatever else the note says), its property lines (if ``passage.head``)
    ``head_tokens`` at least; None when the passage is neither whole stored chunks as
    the index counted them nor the whole text (an excerpt, embeds inlined, no counts)."""
    if note_text.room_key(uri, passage.room) is not None:
        return None
    if not passage.chunks:
        return _whole_floor(note_text, uri, passage, head_tokens)
    counts = shown_tokens(note_text, uri)
    if len(counts) != passage.of:
        return None
    chosen = passage.chunks
    # The parts besides the chunks: what joins them ("\n\n" or a gap), a gap before the
    # first and after the last when the note goes on, the property lines.
    extras = len(chosen) - 1 + (chosen[0] != 0) + (chosen[-1] != passage.of - 1) + passage.head
    head = (head_tokens - 1) * passage.head  # the property lines' part beyond one token
    return sum(counts[j] for j in chosen) + extras + head - _seams(len(chosen) + extras)


def _whole_floor(note_text: NoteText, uri: str, passage: Passage, head_tokens: int) -> int | None:
    """The floor of a note shown whole (its text, after its property lines if any)."""
    if passage.cut:
        return None
    body = note_text.full(uri)
    if not body or not (
        passage.text == body or (passage.head and passage.text.endswith("\n\n" + body))
    ):
        return None  # not the text the index counted (nothing to count, or changed)
    count = note_text.memo(("whole-tokens", uri), lambda: note_text.rows.whole_tokens(uri))
    if count is None:
        return None
    return count + head_tokens * passage.head - _seams(1 + passage.head)


def _seams(parts: int) -> int:
    """What merges across seams may save: between the parts, and at the details' two
    ends with the rest of the note."""
    return SEAM_TOKENS * (parts + 1)
