"""The forms a hit of the fill may take, and whether one fits what is left.

The fill is ``hybrid_search``'s ranking, tried past the notes query mode chooses
(``pack.py``, step 3) while tokens remain. It is one ranking, best first: a hit that
does not fit whole in what is left shows a shorter form of itself, as an entry does
(its best passage, then ``MIN_ENTRY_CHARS`` of it), before a note ranked below it is
tried; skipped, it would give its place to a later note that happens to be short, and
the last tokens would buy by length, not by rank. The baselines, which are all fill,
pack their hits the same way (``eval/baselines.py``). A form whose floor (the index's
per-chunk token counts, ``details/cost.py``) is more than is left is settled unbuilt.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from graphrag.budget import TokenCounter
from graphrag.details.passages import Passage
from graphrag.query.notes import DetailSource
from graphrag.results.query import EntryNote, QueryNote

# The smallest room a note's details get: an entry's, and a fill hit's last form.
MIN_ENTRY_CHARS = 200


class Spending(Protocol):
    """What the fill asks of the budget as it is spent (``pack.Packing``)."""

    tokenizer: TokenCounter

    @property
    def left(self) -> int: ...

    def cost(self, doc: EntryNote | QueryNote, position: int | None = None) -> int: ...

    def add(self, doc: EntryNote | QueryNote, record: bool = True) -> bool: ...

    def add_new(self, doc: EntryNote | QueryNote) -> bool: ...

    def skip(self, uri: str, title: str, reason: str, tokens: int | None = None) -> None: ...

    def name_copy(self, at: int, uri: str, title: str) -> bool: ...

    def copy_of(self, doc: EntryNote | QueryNote) -> int | None: ...

    def copy_at(self, uri: str, details: str) -> int | None: ...


@dataclass(frozen=True)
class FillForms:
    """One query's fill hits in their forms: ``build`` gives a hit as a search hit in
    a room of characters (``Packer.search_note``)."""

    details: DetailSource
    build: Callable[[str, int], QueryNote]
    explain: bool = False

    def fill_note(self, packing: Spending, uri: str, title: str, limit: int) -> None:
        """A hit of the fill (``hybrid_search``'s ranking, past query mode's own notes) in
        its room (``limit``); when that does not fit what is left, in a smaller one, as an
        entry: its best passage, then ``MIN_ENTRY_CHARS`` of it. The fill is one ranking,
        best first: skipped, the hit would give its place to a note ranked below it that
        happens to be short, and the last tokens would buy by length, not by rank (from-links
        obsidian-help at 4,000 tokens: of the 12 targets ``hybrid`` showed and query mode
        did not, 11 were skipped by the fill for room, with 9 to 176 tokens left)."""
        rooms = self.rooms(uri, limit)
        for n, room in enumerate(rooms):
            passage = self.details.passage(uri, room)
            if self.beyond_floor(packing, uri, passage):  # not built, as in ``left_out``
                at = packing.copy_at(uri, passage.text)
                if at is not None:  # named as a copy, as ``add_new`` would
                    packing.name_copy(at, uri, title)
                    return
                if n == len(rooms) - 1:
                    packing.skip(uri, title, "budget")
                    return
                continue
            doc = self.build(uri, room)
            if packing.copy_of(doc) is not None:
                packing.add_new(doc)
                return
            if packing.add(doc, record=False):
                return
        # Its size is reported only with ``explain``: counting it costs as much as the try.
        packing.skip(uri, title, "budget", packing.cost(doc) if self.explain else None)

    def rooms(self, uri: str, limit: int) -> list[int]:
        """The rooms a hit of the fill is tried in, largest first: its own (``limit``),
        then its best passage whole, then ``MIN_ENTRY_CHARS``. The baselines, which are
        all fill, pack their hits the same way (``eval/baselines.py``)."""
        smaller = (self.details.passage_chars(uri), MIN_ENTRY_CHARS)
        return [limit, *(r for r in smaller if r < limit)]

    def beyond_floor(self, packing: Spending, uri: str, passage: Passage) -> bool:
        """The floor of ``uri`` shown as ``passage`` is more than is left (never with
        ``explain``, which builds each note to report its size; see ``Packer.left_out``)."""
        if self.explain:
            return False
        floor = self.details.floor(uri, passage, packing.tokenizer, enough=packing.left)
        return floor is not None and floor > packing.left
