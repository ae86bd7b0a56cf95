"""Query mode's notes as returned: entry notes (focus notes whose lists name only
notes not in the context) and related notes (focus mode's shape), with query-aware
details."""

from __future__ import annotations

from collections.abc import Iterable, Sequence, Set
from dataclasses import replace

import numpy as np

from graphrag.budget import TokenCounter
from graphrag.config.details import DetailsSettings
from graphrag.config.focus import FocusSettings
from graphrag.config.query import QuerySettings
from graphrag.details import NoteText, property_lines
from graphrag.details.cost import floors_hold, note_floor
from graphrag.details.passages import GAP, Passage, query_passage, section_chars
from graphrag.focus.mode import related_note
from graphrag.focus.render import path_text
from graphrag.query.entry import Entry
from graphrag.query.expand import shared_tags
from graphrag.query.score import Ranked
from graphrag.results.notes import FocusNote, OutboundLink, UriAndTitle
from graphrag.results.query import EntryExplain, EntryNote, QueryNote
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph
from indexer.load import IndexSnapshot


class DetailSource:
    """A note's details for the question: its scalar front-matter properties (with
    ``properties``), then its body or best chunks, in at most ``limit`` characters;
    embeds inlined and properties shown as ``details`` says (``graphrag.details``)."""

    def __init__(
        self,
        index: IndexSnapshot,
        corpus: Corpus,
        chunk_scores: np.ndarray,
        properties: bool = False,
        details: DetailsSettings | None = None,
    ) -> None:
        self.index = index
        self.corpus = corpus
        self.chunk_scores = chunk_scores
        self.properties = properties
        self.settings = details or DetailsSettings()
        # The generation's texts, kept for every question asked of it (``NoteText``).
        self.text = corpus.derived(
            f"note-text {self.settings!r}", lambda: NoteText(index, self.settings)
        )
        self._last: tuple[tuple[str, int, tuple[int, ...]], Passage] | None = None
        self._passage_chars: dict[str, int] = {}  # the fill asks twice a hit

    def __call__(self, uri: str, limit: int, first: Sequence[int] = ()) -> tuple[str, bool]:
        """``first``: positions of the note's chunks to show before its best ones (the
        section a link names)."""
        got = self.passage(uri, limit, first)
        return got.text, got.cut

    def passage(self, uri: str, limit: int, first: Sequence[int] = ()) -> Passage:
        """The details as ``__call__`` gives them, saying which chunks they show. The
        last answer is kept: the packer bounds a note's cost from its passage, then
        builds the note from the same one."""
        key = (uri, limit, tuple(first))
        if self._last is not None and self._last[0] == key:
            return self._last[1]
        scores = self._scores(uri, first)
        head = self.property_lines(uri) if self.properties else ""
        if head and len(head) + 2 < limit:
            got = query_passage(
                self.index, self.corpus, uri, scores, limit - len(head) - 2, self.text
            )
            text = f"{head}\n\n{got.text}" if got.text else head
            got = replace(got, text=text, head=True)
        else:
            got = query_passage(self.index, self.corpus, uri, scores, limit, self.text)
        self._last = (key, got)
        return got

    def read_ahead(self, uris: Iterable[str]) -> int:
        """Read the stored rows of the notes ``uris`` (those not read before) in a few
        queries, not five a note: the next notes packing will weigh (``details.rows``)."""
        return self.text.rows.read_ahead(uris)

    def floor(
        self, uri: str, passage: Passage, counter: TokenCounter, enough: int | None = None
    ) -> int | None:
        """Fewest tokens the note ``uri`` rendered with ``passage`` takes, as ``counter``
        counts (``details.cost``); None when the index cannot say. ``enough``: a smaller
        floor will do once it is more than this (``cost.note_floor``)."""
        if not floors_hold(self.index, counter):
            return None
        head = self.property_lines(uri) if passage.head else ""
        return note_floor(self.text, uri, passage, counter, head, enough)

    def _scores(self, uri: str, first: Sequence[int]) -> np.ndarray:
        """The question's chunk scores, the ``first`` chunks of ``uri`` raised to its best."""
        i = self.corpus.index_of.get(uri)
        if not first or i is None:
            return self.chunk_scores
        lo, hi = self.corpus.chunk_rows(i)
        rows = [lo + j for j in first if 0 <= j < hi - lo]
        if not rows:
            return self.chunk_scores
        scores = self.chunk_scores.copy()
        scores[rows] = float(scores[lo:hi].max())
        return scores

    def passage_chars(self, uri: str) -> int:
        """The ``limit`` that shows the note's best passage whole (properties
        included), as written: embeds get their share of it when inlined."""
        got = self._passage_chars.get(uri)
        if got is None:
            got = self._passage_chars[uri] = self._best_passage_chars(uri)
        return got

    def _best_passage_chars(self, uri: str) -> int:
        head = self.property_lines(uri) if self.properties else ""
        extra = len(head) + 2 if head else 0
        i = self.corpus.index_of.get(uri)
        chars = section_chars(self.text, uri)
        lo, hi = self.corpus.chunk_rows(i) if i is not None else (0, 0)
        if not chars or hi - lo != len(chars):
            return extra + len(self.text.full(uri))
        best = chars[int(np.argmax(self.chunk_scores[lo:hi]))]
        # As written: an embed inlined may take up to half the limit (query_details),
        # so the room it gets grows with the passage, not the other way round.
        return extra + best + 2 * len(GAP)

    def property_lines(self, uri: str) -> str:
        def build() -> str:
            # Only the front matter (``note_row`` decodes the headings and more).
            properties = self.text.rows.properties(uri)
            return property_lines(properties, self.settings.hidden_properties)

        return self.text.memo(("property-lines", uri), build)


def entry_note(
    graph: VaultGraph,
    e: Entry,
    details: DetailSource,
    qs: QuerySettings,
    limit: int,
    explain: bool,
) -> EntryNote:
    """The entry as a focus note with details of at most ``limit`` chars and empty
    lists: ``with_lists`` fills them from what the budget leaves (query/pack.py)."""
    info = graph.info(e.uri)
    parent = graph.parent(e.uri)
    focus = FocusNote(
        uri=e.uri,
        title=info.title,
        details="",
        created_at=info.created or None,
        parent=graph.uri_and_title(parent) if parent is not None else None,
        tags=info.tags,
    )
    parts = EntryExplain(e.score, e.vector, e.lexical, e.tags, e.title) if explain else None
    return with_details(EntryNote(focus, e.matched_by, False, parts), details, limit)


def with_lists(graph: VaultGraph, entry: EntryNote, exclude: Set[str], n: int) -> EntryNote:
    """``entry`` with at most ``n`` names in each list, leaving out the notes in
    ``exclude`` (those in the context already: naming them again buys nothing).
    Siblings are the nearest ones on each side; links keep their property."""
    uri = entry.uri

    def pick(items: Iterable[str]) -> list[str]:
        out: list[str] = []
        for u in items:
            if len(out) >= n:
                break
            if u not in exclude:
                out.append(u)
        return out

    def listed(items: list[str]) -> tuple[UriAndTitle, ...]:
        return tuple(graph.uri_and_title(u) for u in items)

    parent = graph.parent(uri)
    siblings = graph.children(parent) if parent is not None else ()
    at = siblings.index(uri) if uri in siblings else len(siblings)
    links: list[OutboundLink] = []
    for link in graph.outlinks(uri):
        if len(links) >= n:
            break
        if link.target in exclude:
            continue
        node = graph.nodes.get(link.target)
        kind = node.kind if node is not None else "ghost"
        title = node.title if node is not None else link.target.rsplit("/", 1)[-1]
        links.append(
            OutboundLink(link.target, title, link.predicate, None if kind == "note" else kind)
        )
    note = replace(
        entry.note,
        contextual_path=listed(pick(graph.contextual_path(uri))),
        children=listed(pick(graph.children(uri))),
        prior_siblings=listed(pick(reversed(siblings[:at]))[::-1]),
        younger_siblings=listed(pick(siblings[at + 1 :])),
        inbound_references=listed(pick(graph.backlinks(uri))),
        outbound_links=tuple(links),
    )
    return replace(entry, note=note)


def with_details(entry: EntryNote, details: DetailSource, limit: int) -> EntryNote:
    text, cut = details(entry.uri, limit) if limit > 0 else ("", False)
    return replace(entry, note=replace(entry.note, details=text), details_truncated=cut)


def query_note(
    graph: VaultGraph,
    item: Ranked,
    details: DetailSource,
    fs: FocusSettings,
    explain: bool,
    first: Sequence[int] = (),
    limit: int | None = None,
) -> QueryNote:
    """``item`` as a related note: details in ``limit`` characters (``truncate_length``
    by default), the ``first`` chunks (the section a link names) before its best ones."""
    f = item.found
    cand = f.cand
    text, cut = details(cand.uri, fs.truncate_length if limit is None else limit, first)
    note = related_note(graph, cand, text, cut)
    focus = graph.uri_and_title(cand.origin)
    how = f.how or path_text(focus.title, note)
    return QueryNote(
        note=note,
        focus=focus,
        shared_tags=shared_tags(graph, cand.origin, cand.uri),
        distance=cand.depth,
        path=tuple(graph.uri_and_title(u) for u in f.path),
        explain=replace(item.explain, path=how) if explain else None,
    )
