"""Query-aware details: a long note shows the chunks that answer the question.

Focus mode cuts a related note after its first ``truncate_length`` characters.
With a question in hand the best-matching chunks are a better use of the same
room: take chunks by similarity while they fit (and score at least half the
best one), then print them in document order, each under its heading path, with an
ellipsis where text was left out. A chunk is a run of whole Markdown blocks
(``indexer.chunk``), so a list, table or callout in it is whole or cut between its
items. When the chunks cannot be used (or not even the best one fits), the note's
start is shown instead, cut by ``excerpt``. Embeds are inlined first (``NoteText``),
so their text competes for the room like the rest. See docs/architecture.md ("Text
shown to a model").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from graphrag.budget import ELLIPSIS
from graphrag.details.excerpt import excerpt
from indexer.load import ChunkRow, IndexSnapshot
from indexer.shown import shown_text

if TYPE_CHECKING:  # focus mode imports this module and must not load FAISS through it
    from graphrag.details.text import NoteText
    from graphrag.snapshot.corpus import Corpus

GAP = f"\n\n{ELLIPSIS}\n\n"
RELATIVE_FLOOR = 0.5  # a chunk must score at least half the note's best chunk


def section_text(chunk: ChunkRow) -> str:
    """The chunk under its full heading path (its own heading line replaced by the path).
    A chunk that starts inside a nested list keeps the indentation of its first line.
    The indexer counts this text's tokens for each chunk (``indexer.shown``)."""
    return shown_text(chunk.heading_path, chunk.text)


def sections(note_text: NoteText, uri: str, embed_room: int) -> list[str]:
    """Each chunk of ``uri`` under its heading path (``section_text``), embeds inlined
    in ``embed_room``: built once per generation (``NoteText.memo``), the question only
    chooses among them."""

    def build() -> list[str]:
        rows = note_text.rows.chunks_of(uri)
        # Their stored counts come with the rows: kept too, for ``cost.details_floor``.
        note_text.memo(("shown-tokens", uri), lambda: stored_counts(rows), _counts_size)
        return [note_text.inline(uri, section_text(c), embed_room) for c in rows]

    return note_text.memo(("sections", uri, note_text.room_key(uri, embed_room)), build)


def shown_tokens(note_text: NoteText, uri: str) -> tuple[int, ...]:
    """The tokens each chunk of ``uri`` takes at least as ``section_text`` shows it
    (counted at index time, ``indexer.shown``); ``()`` when the index has no counts."""
    return note_text.memo(
        ("shown-tokens", uri), lambda: stored_counts(note_text.rows.chunks_of(uri)), _counts_size
    )


def stored_counts(rows: list[ChunkRow]) -> tuple[int, ...]:
    """The rows' stored ``shown_tokens``; ``()`` if any row has none."""
    counts = tuple(r.shown_tokens for r in rows if r.shown_tokens is not None)
    return counts if len(counts) == len(rows) else ()


def _counts_size(counts: tuple[int, ...]) -> int:
    return 2 * len(counts) + 50  # in characters' worth, as ``Memo`` sizes strings


def section_chars(note_text: NoteText, uri: str) -> list[int]:
    """The length of each chunk of ``uri`` under its heading path, as written (kept)."""
    return note_text.memo(
        ("section-chars", uri),
        lambda: [len(section_text(c)) for c in note_text.rows.chunks_of(uri)],
    )


@dataclass(frozen=True, slots=True)
class Passage:
    """Query-aware details: ``text``, ``cut`` when it is not the whole body, and when it
    is the note's best chunks, which ones (``chunks``, positions in the note, in order)
    of how many (``of``), each as ``sections`` shows it with ``room`` for its embeds;
    ``head``: the note's property lines come first."""

    text: str
    cut: bool
    chunks: tuple[int, ...] = ()
    of: int = 0
    room: int = 0
    head: bool = False


def query_details(
    index: IndexSnapshot,
    corpus: Corpus,
    uri: str,
    chunk_scores: np.ndarray,
    limit: int,
    note_text: NoteText | None = None,
) -> tuple[str, bool]:
    """``(details, truncated)``: the whole body when it fits in ``limit`` characters,
    else its best chunks for the question. Either way with its embeds inlined
    (``note_text``), each in at most half the room, and counted in it."""
    got = query_passage(index, corpus, uri, chunk_scores, limit, note_text)
    return got.text, got.cut


def query_passage(
    index: IndexSnapshot,
    corpus: Corpus,
    uri: str,
    chunk_scores: np.ndarray,
    limit: int,
    note_text: NoteText | None = None,
) -> Passage:
    """``query_details`` saying which chunks it shows (``Passage``)."""
    if note_text is None:
        # Here: a search's snippets use only ``section_text``, not the embed inlining.
        from graphrag.details.text import NoteText

        note_text = NoteText(index)
    embed_room = min(note_text.settings.embed_max_chars, limit // 2)
    i = corpus.index_of.get(uri)
    if not _surely_longer(note_text, corpus, i, uri, embed_room, limit):
        body = note_text.full(uri, embed_room)
        if len(body) <= limit:
            return Passage(body, False)
    texts = sections(note_text, uri, embed_room)
    if i is None or not texts:
        return Passage(*excerpt(note_text.full(uri, embed_room), limit))
    lo, hi = corpus.chunk_rows(i)
    if hi - lo != len(texts):  # the arrays and the store disagree: play safe
        return Passage(*excerpt(note_text.full(uri, embed_room), limit))
    scores = chunk_scores[lo:hi]
    order = sorted(range(len(texts)), key=lambda j: (-float(scores[j]), j))
    best = float(scores[order[0]])
    # Chunks far below the best one are noise, not context: leave the room unused.
    floor = best * RELATIVE_FLOOR if best > 0 else float("-inf")
    chosen: list[int] = []
    used = 0
    for j in order:
        if float(scores[j]) < floor:
            break
        cost = len(texts[j]) + (len(GAP) if chosen else 0)
        if used + cost <= limit:
            chosen.append(j)
            used += cost
    if not chosen:
        best_chunk = order[0]

        def cut() -> str:
            return excerpt(texts[best_chunk], limit)[0]

        # Kept for the generation: the fill's last form of a note is this excerpt, and the
        # questions that meet the note mostly rank the same chunk of it best.
        key = ("excerpt", uri, note_text.room_key(uri, embed_room), best_chunk, limit)
        return Passage(note_text.memo(key, cut), True)
    chosen.sort()
    parts = [texts[chosen[0]]]
    for prev, j in zip(chosen, chosen[1:], strict=False):
        # Adjacent chunks read on; a gap says text was left out.
        parts.append(("\n\n" if j == prev + 1 else GAP) + texts[j])
    text = "".join(parts)
    if chosen[-1] != len(texts) - 1:
        text += GAP.rstrip()
    if chosen[0] != 0:
        text = GAP.lstrip() + text
    return Passage(text, True, tuple(chosen), len(texts), embed_room)


def _surely_longer(
    note_text: NoteText, corpus: Corpus, i: int | None, uri: str, room: int, limit: int
) -> bool:
    """Is the note's whole text as shown (``NoteText.full``) longer than ``limit``,
    known without making it? A note that embeds nothing is shown as its stored body
    with its runs of blank lines folded, which removes only spaces, tabs and newlines:
    a body with more than ``limit`` other characters stays longer. Most notes packing
    weighs late are long, and folding a 12,000-character body took ~45 us of the ~60
    its whole text cost, only to be compared with ``limit``."""
    if i is None or int(corpus.body_chars[i]) <= limit:
        return False  # (the stored length only decides which notes are looked at)
    if note_text.room_key(uri, room) is not None:
        return False  # embeds are inlined: the text shown may be longer than the body
    return note_text.memo(("other-chars", uri), lambda: _other_chars(note_text, uri)) > limit


def _other_chars(note_text: NoteText, uri: str) -> int:
    """Characters of the note's body other than spaces, tabs and newlines."""
    body = note_text.rows.body(uri)
    return len(body) - body.count(" ") - body.count("\t") - body.count("\n")
