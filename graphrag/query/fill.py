"""The forms a hit of the fill may take, and whether one fits what is left.

The fill is ``hybrid_search``'s ranking, tried past the notes query mode chooses
(``pack.py``, step 3) while tokens remain. It is one ranking, best first: a hit that
does not fit whole in what is left shows a shorter form of itself, as an entry does
(its best passage, then ``MIN_ENTRY_CHARS`` of it), before a note ranked below it is
tried; skipped, it would give its place to a later note that happens to be short, and
the last tokens would buy by length, not by rank. The baselines, which are all fill,
pack their hits the same way (``eval/baselines.py``).

The fill weighs hundreds of hits a question and shows few: once a few dozen tokens are
left, every hit whose 200-character form could fit is tried in up to three forms. A
form whose floor is more than is left is settled unbuilt (``hit_floor``: the index's
per-chunk token counts, ``details/cost.py``, or the form's details counted when the
index has none for them, and in JSON the keys every search hit writes); the floor
never admits a form, so the fill chooses as it would building each one, copies
included (a form's passage is still checked against what is shown).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from graphrag.budget import TokenCounter
from graphrag.details.cost import SEAM_TOKENS, uri_tokens
from graphrag.details.passages import Passage
from graphrag.query.notes import DetailSource
from graphrag.query.render import doc_json, json_block
from graphrag.results.query import EntryNote, QueryNote

# The smallest room a note's details get: an entry's, and a fill hit's last form.
MIN_ENTRY_CHARS = 200
# A search hit's JSON opens with its uri and ends with its relation, whatever else it says.
HIT_START = '{"uri":"'
HIT_END = ',"relationToFocusNote":"MatchesQuestion"}'
DETAILS_KEY = '"details":"'
# The details a hit is rendered with to find its keys around them (JSON writes \u0000).
PROBE = "\x00"


class Spending(Protocol):
    """What the fill asks of the budget as it is spent (``pack.Packing``)."""

    tokenizer: TokenCounter

    @property
    def render(self) -> Callable[[EntryNote | QueryNote, int], str]: ...

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
    """One query's fill hits in their forms: ``hit`` gives a note as a search hit showing
    a text as its details (``Packer.search_hit``)."""

    details: DetailSource
    hit: Callable[[str, str, bool], QueryNote]
    explain: bool = False

    def fill_note(self, packing: Spending, uri: str, title: str, limit: int) -> None:
        """A hit of the fill (``hybrid_search``'s ranking, past query mode's own notes) in
        its room (``limit``); when that does not fit what is left, in a smaller one, as an
        entry: its best passage, then ``MIN_ENTRY_CHARS`` of it (``shrunk``). The fill is
        one ranking, best first: skipped, the hit would give its place to a note ranked
        below it that happens to be short, and the last tokens would buy by length, not by
        rank (from-links obsidian-help at 4,000 tokens: of the 12 targets ``hybrid``
        showed and query mode did not, 11 were skipped by the fill for room, with 9 to 176
        tokens left)."""

        def build(room: int, passage: Passage) -> QueryNote:
            return self.hit(uri, passage.text, passage.cut)

        self.shrunk(packing, uri, title, limit, build, self.hit_beyond)

    def shrunk(
        self,
        packing: Spending,
        uri: str,
        title: str,
        limit: int,
        build: Callable[[int, Passage], EntryNote | QueryNote],
        beyond: Callable[[Spending, str, Passage], bool],
        first: Sequence[int] = (),
    ) -> None:
        """``uri`` in the first of its ``rooms`` that fits what is left, as ``build`` makes
        it from a room and its passage (``first`` chunks first); left out for room when
        none fits. A room whose floor is more than is left (``beyond``) is settled unbuilt,
        as in ``Packer.left_out``, but its passage is still named as a copy if it is shown
        already, as ``add_new`` would. The fill's hits take these forms (``fill_note``),
        and so does a note two entries link to in query mode's own order
        (``Packer.pack_related``'s ``shrink``)."""
        rooms = self.rooms(uri, limit)
        for n, room in enumerate(rooms):
            passage = self.details.passage(uri, room, first)
            if beyond(packing, uri, passage):  # not built
                at = packing.copy_at(uri, passage.text)
                if at is not None:
                    packing.name_copy(at, uri, title)
                    return
                if n == len(rooms) - 1:
                    packing.skip(uri, title, "budget")
                    return
                continue
            doc = build(room, passage)
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

    def hit_beyond(self, packing: Spending, uri: str, passage: Passage) -> bool:
        """``uri`` shown as a search hit with ``passage`` takes more than is left, by
        ``hit_floor`` in JSON output (else ``beyond_floor``); never with ``explain``."""
        if self.explain:
            return False
        if packing.render is not json_block:
            return self.beyond_floor(packing, uri, passage)
        left = packing.left
        return self.hit_floor(packing.tokenizer, uri, passage, left) > left

    def hit_floor(
        self, counter: TokenCounter, uri: str, passage: Passage, enough: int | None = None
    ) -> int:
        """Fewest tokens the JSON of ``uri`` as a search hit with ``passage`` as its
        details takes: the note's floor (its details by the index's counts, and its
        uri; ``details/cost.py``), and the hit's keys around them (``hit_keys``). A
        passage the index did not count (an excerpt of a chunk, the fill's last form;
        embeds inlined) is counted as JSON writes it: a fraction of building, rendering
        and counting the hit, and the fill weighs hundreds a question and shows few.
        ``enough``: a smaller floor will do once it is more than this."""
        keys = self.hit_keys(counter, uri)
        room = None if enough is None else enough - keys
        floor = self.details.floor(uri, passage, counter, enough=room)
        if floor is None:
            text = json.dumps(passage.text, ensure_ascii=False)[1:-1]
            floor = (
                counter.count(text)
                + uri_tokens(self.details.text, uri, counter)
                - (
                    4 * SEAM_TOKENS  # the details' two ends and the uri's
                )
            )
        return floor + keys

    def hit_keys(self, counter: TokenCounter, uri: str) -> int:
        """Fewest tokens the JSON of ``uri`` as a search hit takes besides its uri and
        details (both counted by the note's floor, with what merges at their ends): what
        comes before its details (its uri's key, its title if the uri does not spell it)
        and its relation at the end, less a seam before that (the keys between vary with
        the details: ``detailsTruncated``, ``createdAt``). Once per note and generation."""

        def count() -> int:
            written = doc_json(self.hit(uri, PROBE, False))
            start = HIT_START + json.dumps(uri, ensure_ascii=False)[1:-1] + '"'
            probe = DETAILS_KEY + json.dumps(PROBE)[1:-1] + '"'
            at = written.find(probe)
            if not written.startswith(start) or at < 0 or not written.endswith(HIT_END):
                return 0  # not the shape these keys are read from: no keys counted
            between = written[len(start) - 1 : at + len(DETAILS_KEY)]
            ends = counter.count(HIT_START) + counter.count(between) + counter.count(HIT_END)
            return max(ends - SEAM_TOKENS, 0)

        return self.details.text.memo(("fill-hit-keys", uri), count)
