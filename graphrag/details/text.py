"""A note's text as a model is shown it: embeds inlined, blank runs folded, cut at blocks.

One object per request (it caches the embed targets it has looked up) over one
index generation. Focus mode takes ``details(uri, limit)`` for a related note
and ``full(uri)`` for the focus note; query mode's passages come through
``inline`` chunk by chunk. See docs/architecture.md ("Text shown to a model").
"""

from __future__ import annotations

import re

from graphrag.config.details import DetailsSettings
from graphrag.details.embeds import Embeds
from graphrag.details.excerpt import excerpt
from graphrag.snapshot.snapshot import Snapshot
from indexer.load import IndexSnapshot

BLANK_RUN_RE = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def note_text(snapshot: Snapshot, settings: DetailsSettings) -> NoteText:
    """The snapshot's ``NoteText`` for ``settings``, kept with it for every request."""
    return snapshot.derived(("note-text", settings), lambda: NoteText(snapshot.index, settings))


class NoteText:
    """Keeps what it has built (whole texts and excerpts by note and size): one per
    generation and settings serves every request on it (``note_text``)."""

    def __init__(self, index: IndexSnapshot, settings: DetailsSettings | None = None) -> None:
        self.index = index
        self.settings = settings or DetailsSettings()
        self._targets: dict[str, dict[str, str]] = {}
        self._full: dict[tuple[str, int | None], str] = {}
        self._details: dict[tuple[str, int], tuple[str, bool]] = {}
        self.embeds = Embeds(self._resolve, index.body, self.settings)

    def _resolve(self, uri: str) -> dict[str, str]:
        hit = self._targets.get(uri)
        if hit is None:
            hit = {
                written.strip().casefold(): target for written, target in self.index.embeds_of(uri)
            }
            self._targets[uri] = hit
        return hit

    def inline(self, uri: str, text: str, max_chars: int | None = None) -> str:
        """``text`` (all or part of ``uri``'s body) with its embeds inlined, each in at
        most ``max_chars`` characters (default ``[details] embed_max_chars``)."""
        return self.embeds.inline(uri, text, max_chars)

    def full(self, uri: str, max_chars: int | None = None) -> str:
        """The whole body: embeds inlined, a run of blank lines (a removed comment's) one."""
        key = (uri, max_chars)
        hit = self._full.get(key)
        if hit is None:
            hit = BLANK_RUN_RE.sub("\n\n", self.inline(uri, self.index.body(uri), max_chars))
            self._full[key] = hit
        return hit

    def details(self, uri: str, limit: int) -> tuple[str, bool]:
        """``(text, cut)``: the body in at most ``limit`` characters, cut between blocks;
        an embed takes at most half of that room."""
        key = (uri, limit)
        hit = self._details.get(key)
        if hit is None:
            embed_room = min(self.settings.embed_max_chars, limit // 2)
            hit = self._details[key] = excerpt(self.full(uri, embed_room), limit)
        return hit
