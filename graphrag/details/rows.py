"""The stored rows a note's shown text is made from, read for many notes at once.

A question on a vault of link hubs weighs a few hundred notes it has not shown before
(packing's late candidates, nearly all left out), and reading each one's body,
properties, whole-text count, chunks and embeds took five queries, ~0.2 ms a note.
``NoteRows.read_ahead`` reads them for the next notes packing will weigh in three
queries; the texts built from them are kept by ``NoteText``'s memo, the rows only
until later batches push them out (``KEEP`` notes). A note not read ahead is read
alone, as before: the same rows either way.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from indexer.load import ChunkRow, IndexSnapshot, NoteRow

KEEP = 256  # notes whose rows are kept until built from: more than two batches
SEEN = 65_536  # notes remembered as read ahead, so a window does not read them again


class NoteRows:
    """One per ``NoteText`` (per generation): rows read ahead, and each note's rows
    read alone when they were not."""

    def __init__(self, index: IndexSnapshot) -> None:
        self.index = index
        self._ahead: OrderedDict[str, tuple[NoteRow | None, list[ChunkRow], list]] = OrderedDict()
        self._seen: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def read_ahead(self, uris: Iterable[str]) -> int:
        """Read the rows of those of ``uris`` not read ahead before; how many were read."""
        with self._lock:
            todo = [u for u in dict.fromkeys(uris) if u not in self._seen]
        if not todo:
            return 0
        notes = self.index.notes_rows(todo)
        chunks = self.index.chunks_of_notes(todo)
        embeds = self.index.embeds_of_notes(todo)
        with self._lock:
            for uri in todo:
                self._ahead[uri] = (notes.get(uri), chunks.get(uri, []), embeds.get(uri, []))
                self._seen[uri] = None
            while len(self._ahead) > KEEP:
                self._ahead.popitem(last=False)
            while len(self._seen) > SEEN:
                self._seen.popitem(last=False)
        return len(todo)

    def _read(self, uri: str) -> tuple[NoteRow | None, list[ChunkRow], list] | None:
        with self._lock:
            return self._ahead.get(uri)

    def body(self, uri: str) -> str:
        got = self._read(uri)
        if got is None:
            return self.index.body(uri)
        return got[0].body if got[0] is not None else ""

    def whole_tokens(self, uri: str) -> int | None:
        got = self._read(uri)
        if got is None:
            return self.index.whole_tokens(uri)
        return got[0].whole_tokens if got[0] is not None else None

    def properties(self, uri: str) -> dict[str, Any]:
        """The note's front-matter properties ({} when none)."""
        got = self._read(uri)
        if got is None:
            stored = self.index.properties_of(uri)
        else:
            stored = got[0].properties if got[0] is not None else None
        return (json.loads(stored) if stored else None) or {}

    def chunks_of(self, uri: str) -> list[ChunkRow]:
        got = self._read(uri)
        return self.index.chunks_of(uri) if got is None else got[1]

    def embeds_of(self, uri: str) -> list[tuple[str, str]]:
        got = self._read(uri)
        return self.index.embeds_of(uri) if got is None else got[2]
