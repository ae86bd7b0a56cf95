"""A note's text as a model is shown it: embeds inlined, blank runs folded, cut at blocks.

One object per index generation and settings (``note_text``) serves every
request on it: what it builds depends on the note and the generation only, and is
kept in a bounded cache (``Memo``). Focus mode takes ``details(uri, limit)`` for a
related note and ``full(uri)`` for the focus note; query mode's passages come
through ``inline`` chunk by chunk (``memo``). See docs/architecture.md ("Text shown
to a model").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import TypeVar

from graphrag.config.details import DetailsSettings
from graphrag.details.embeds import Embeds
from graphrag.details.excerpt import excerpt
from graphrag.details.rows import NoteRows
from graphrag.snapshot.memo import Memo
from graphrag.snapshot.snapshot import Snapshot
from indexer.load import IndexSnapshot
from indexer.shown import whole_text

MEMO_CHARS = 16_000_000  # what a NoteText keeps: ~20 MB at most, whatever the vault's size

T = TypeVar("T")


def note_text(snapshot: Snapshot, settings: DetailsSettings) -> NoteText:
    """The snapshot's ``NoteText`` for ``settings``, kept with it for every request."""
    return snapshot.derived(("note-text", settings), lambda: NoteText(snapshot.index, settings))


class NoteText:
    """Keeps what it has built (whole texts and excerpts by note and size): one per
    generation and settings serves every request on it (``note_text``)."""

    def __init__(self, index: IndexSnapshot, settings: DetailsSettings | None = None) -> None:
        self.index = index
        self.settings = settings or DetailsSettings()
        self._memo = Memo(MEMO_CHARS)
        self.rows = NoteRows(index)  # what the texts are made from, read ahead in batches
        self.embeds = Embeds(self._resolve, self.rows.body, self.settings, self.memo)

    def memo(
        self, key: Hashable, build: Callable[[], T], size: Callable[[T], int] | None = None
    ) -> T:
        """``build()`` kept under ``key`` (with the note's uri in it) for this generation;
        ``size`` as ``Memo.get`` takes it."""
        return self._memo.get(key, build, size)

    def _resolve(self, uri: str) -> dict[str, str]:
        def build() -> dict[str, str]:
            return {
                written.strip().casefold(): target for written, target in self.rows.embeds_of(uri)
            }

        return self.memo(("embeds", uri), build)

    def room_key(self, uri: str, max_chars: int | None) -> int | None:
        """``max_chars`` as far as it changes ``uri``'s inlined text: None for a note
        that embeds no note (its text is the same whatever the room), so a cache keeps
        one copy of it, not one per room."""
        if not self.settings.inline_embeds or not self._resolve(uri):
            return None
        return self.settings.embed_max_chars if max_chars is None else max_chars

    def inline(self, uri: str, text: str, max_chars: int | None = None) -> str:
        """``text`` (all or part of ``uri``'s body) with its embeds inlined, each in at
        most ``max_chars`` characters (default ``[details] embed_max_chars``)."""
        return self.embeds.inline(uri, text, max_chars)

    def full(self, uri: str, max_chars: int | None = None) -> str:
        """The whole body: embeds inlined, a run of blank lines (a removed comment's) one."""
        return self.memo(
            ("full", uri, self.room_key(uri, max_chars)),
            # Folded as the indexer folds it where it counts a note's whole text.
            lambda: whole_text(self.inline(uri, self.rows.body(uri), max_chars)),
        )

    def details(self, uri: str, limit: int) -> tuple[str, bool]:
        """``(text, cut)``: the body in at most ``limit`` characters, cut between blocks;
        an embed takes at most half of that room."""
        embed_room = min(self.settings.embed_max_chars, limit // 2)
        return self.memo(
            ("details", uri, limit), lambda: excerpt(self.full(uri, embed_room), limit)
        )
