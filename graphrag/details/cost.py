"""A floor on what a note costs with query-aware details, without counting its text.

Once the budget is nearly spent, packing meets hundreds of notes that cannot fit in
what is left, and finding that out by building, rendering and counting each one cost
more than everything else a question does on a vault of link hubs. The index keeps,
for each chunk, the fewest tokens its shown text takes in any form a note is rendered
in (``indexer.shown``), so a note shown as its best chunks (``passages.Passage``)
costs at least the sum of its chunks' counts: ``details_floor``. Each part of the
rendered note (the chunks, the blank lines or ``…`` between them, the property lines
before them, and the text around the details) is one token at least, and where two
parts meet, the tokenizer may merge across the seam: ``SEAM_TOKENS`` is allowed at each
(one was the most seen over the seams of every chunk pair sampled from the shared
vaults, in every form). A note whose floor is more than is left cannot fit, so it is
settled unbuilt (``query/pack.py``); the floor never decides that a note fits, so
answers are the same with it or without it (docs/architecture.md, "Query mode").
"""

from __future__ import annotations

from graphrag.details.passages import Passage, shown_tokens
from graphrag.details.text import NoteText
from indexer.load import IndexSnapshot

SEAM_TOKENS = 2


def floors_hold(index: IndexSnapshot, counter: object) -> bool:
    """Do the index's stored counts bound what ``counter`` counts? They are the index's
    tokenizer's (``manifest["tokenizer"]``), and an index written before them has none."""
    name = getattr(counter, "name", None)
    return index.has_shown_tokens and name is not None and name == index.manifest.get("tokenizer")


def details_floor(note_text: NoteText, uri: str, passage: Passage) -> int | None:
    """Fewest tokens a note rendered with ``passage`` as its details can take (JSON or
    prompt, whatever else the note says); None when the passage is not whole stored
    chunks as the index counted them (the whole body, an excerpt, embeds inlined, no
    counts)."""
    if not passage.chunks or note_text.room_key(uri, passage.room) is not None:
        return None
    counts = shown_tokens(note_text, uri)
    if len(counts) != passage.of:
        return None
    chosen = passage.chunks
    # The parts besides the chunks: what joins them ("\n\n" or a gap), a gap before the
    # first and after the last when the note goes on, the property lines.
    extras = len(chosen) - 1 + (chosen[0] != 0) + (chosen[-1] != passage.of - 1) + passage.head
    parts = len(chosen) + extras
    # Seams: between the parts, and the details' two ends with the rest of the note.
    return sum(counts[j] for j in chosen) + extras - SEAM_TOKENS * (parts + 1)
