"""Query mode's packing: which notes, in which form, fill the token budget
(docs/architecture.md, "Query mode", step 4).

Every token should buy evidence: note text, not names of notes that are not
there. The budget is spent in this order:

1. **Entries, best passages first.** The entries share ``entry_budget_share`` of
   the budget. Each shows its best passage whole, in entry order, while that
   share holds it; the best entry's whatever its share: it is the last thing to
   go, weaker notes are dropped before it is cut. An entry also gets its part of
   what is left of the share for more of its text; one that does not fit in that
   form shows its best passage alone. At a small budget (a related note's equal
   share below ``truncate_length``), when the entries' best passages do not all fit
   their share, an entry after the first shows that equal share, as a related note
   would, unless it is one of the best hits of step 2: three entries' passages took
   half of 1,000 tokens, the room of three more notes.
2. **The best vector hit and the best BM25 hit**, if they are not entries: the
   best note of each text view is never displaced by structure. The BM25 hit only
   if the vector view ranks it among its best ``max_documents`` too
   (``mode.vector_agrees``): BM25 alone puts first a long page that holds most of
   a vault's vocabulary, the question's words in different sections of it.
3. **Related notes and search hits, fused** (their order: ``fusion.py``): the graph's ranking (the rerank
   of ``score.py``) and the text's (``search.searches.text_ranking``: vector
   and BM25, as ``hybrid_search`` fuses them, without its graph votes, which
   would count the entries' neighbours a second time) are two views of which
   notes answer the question, fused by reciprocal rank fusion. The **bridges** (notes an entry links to from its passage
   that best matches the question, or from a property: "the cellar is run by
   [[Mira Halvorsen]]", or naming it without a link, ``mentions.py``) count in a
   third ranking, since the second note of a
   two-hop question is one text similarity alone does not find. The fusion sums
   ranks and nearly every note the graph ranks is a search hit too, so a neighbour
   both rank low would still come before a hit only the search ranks: the notes one
   view ranks best (the search's best ``hybrid_graph_seeds`` hits, the graph's best
   note, the bridges) and the notes two entries link to (``linked_by_entries``) are
   tried first, in fused order, then the rest (``supported_first``). Before them all
   come BM25's best hits that write, whole, an identifier the question quotes (words
   joined by ``-``, ``_`` or ``.``) that names a note and that few notes write: a
   plugin's ID names its page, and the page of its author lists it (``identifiers.py``,
   ``tried_first``). A note the graph reaches only through a relation it shares with
   more notes than the context holds (a sibling in a folder of more than
   ``max_documents`` notes, a note linking to more) gets no vote from the graph's
   ranking: the traversal picks such siblings by similarity, so that rank repeats the
   text's (``shared_widely``). When the graph runs out of notes the search keeps
   filling: a larger budget never holds less evidence than ``hybrid_search``
   would. A search hit is a related note with the relation ``MatchesQuestion``,
   its own focus (no ``focusUri``). A hit needs evidence of its own to be fused
   (``search_hits``); ``hybrid_search``'s ranking (graph votes included) fills what
   is left after everything else (``fill_hits``), past ``max_documents`` while
   tokens remain: the cap bounds the notes query mode chooses, not the fill. Query
   mode's own order ends at its first note left out for room (later ones whose
   passage is shown are still named as copies): past it its notes would get in by
   being short, not by rank, and the fill takes over; a note two entries link to
   that does not fit whole first shows a shorter form, as a fill hit does, since the
   fill's text ranking puts it far down. A fill
   hit longer than what is left shows a shorter form of itself, as an entry does,
   before a note ranked below it is tried (``fill.py``).
   A note reached through a link to one of its headings or blocks
   (``[[Note#Heading]]``, ``[[Note#^block]]``) shows that section ranked level with
   its best-matching chunk (``DetailSource._scores``). At small
   budgets a related note shows an equal share of the budget, or its best passage
   up to two shares (``Packer.related_limit``), not ``truncate_length`` of text.
4. **Near-duplicates take one slot.** A note whose passage is already shown (90%
   of its runs of eight words are in the context), or which holds the same text
   as a note already in (each holds the other's passage: a duplicated folder), is
   left out and named on that note as a copy (``copies``).
5. **A related note's entry is in the result**: if it is not (left out for the
   budget, or a copy), the relation is restated against the nearest note on its
   discovery path that is; failing that the note is left out.
6. **Lists last, once the notes are done.** Entries' lists (contextual path,
   children, siblings, links, backlinks) only name notes that are not in the
   context, and get what the notes left of the budget, at most ``entry_list_limit``
   names each, when the notes ran out; not when the budget stopped them
   (``Packing.stopped_by_budget``): what is left then is less than the next note,
   and names of notes not shown are not evidence.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np

from graphrag.budget import MIN_NOTE_TOKENS, TokenCounter
from graphrag.config.focus import FocusSettings
from graphrag.config.query import QuerySettings
from graphrag.details.anchors import section_chunks
from graphrag.details.passages import Passage
from graphrag.focus.mode import related_note
from graphrag.focus.relations import CHILD, OBJECT, PARENT, classify
from graphrag.focus.traverse import Candidate
from graphrag.query.copies import Copies
from graphrag.query.entry import Entry
from graphrag.query.fill import MIN_ENTRY_CHARS, FillForms
from graphrag.query.fusion import (
    fuse,
    item_uri,
    linked_by_entries,
    shared_widely,
    supported_first,
    tried_first,
)
from graphrag.query.notes import DetailSource, entry_note, query_note, with_details, with_lists
from graphrag.query.score import Ranked
from graphrag.results.notes import Relation, SkippedNote, UriAndTitle
from graphrag.results.query import EntryNote, QueryExplain, QueryNote
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph

Doc = EntryNote | QueryNote

CHARS_PER_TOKEN = 4  # English prose in cl100k, near enough to size an entry's share
MAX_CHARS_PER_TOKEN = 8  # hardly any text packs more: a safe lower bound of a note's cost
# A related note's best passage may take up to this many equal shares of the budget.
PASSAGE_SHARES = 2
# Packing reads the stored rows of the next notes it will weigh this many at a time,
# doubling up to the most (``DetailSource.read_ahead``): a question that weighs a few
# notes reads a few more than it needs, one that weighs hundreds reads them in batches.
READ_AHEAD = 8
MAX_READ_AHEAD = 64
# Reasons a note is left out for want of room in the context (``Packing.not_shown``).
ROOM_REASONS = frozenset({"budget", "max_documents"})


@dataclass
class Packing:
    """The budget as it is spent: documents in output order, their costs, and what
    was left out. ``bodies`` gives a note's whole-text shingles (for finding copies)."""

    budget: int
    render: Callable[[Doc, int], str]
    tokenizer: TokenCounter
    max_documents: int
    bodies: Callable[[str], frozenset[int]] | None = None
    hard_cap: bool = False  # a cap the user set: the fill stops at it too
    docs: list[Doc] = field(default_factory=list)
    costs: list[int] = field(default_factory=list)
    skipped: list[SkippedNote] = field(default_factory=list)
    copies: Copies = field(init=False)  # what is shown, to find copies (``copies.py``)
    _named: frozenset[str] | None = None  # ``named()``, until the documents change

    def __post_init__(self) -> None:
        self.copies = Copies(self.bodies)

    @property
    def used(self) -> int:
        return sum(self.costs)

    @property
    def left(self) -> int:
        return self.budget - self.used

    @property
    def full(self) -> bool:
        """No room for the notes query mode chooses: ``max_documents`` of them, or less
        than a note's worth of tokens left."""
        return len(self.docs) >= self.max_documents or self.out_of_tokens

    @property
    def out_of_tokens(self) -> bool:
        """Less than a note's worth of tokens left: the end of the fill too, which
        ``max_documents`` does not stop unless the user set it (``hard_cap``)."""
        return self.left < MIN_NOTE_TOKENS

    def filled(self) -> bool:
        """No room for the fill from ``hybrid_search``'s ranking (``Packer.pack_related``)."""
        return self.full if self.hard_cap else self.out_of_tokens

    def stopped_by_budget(self) -> bool:
        """The budget, not the supply of notes, ended the packing: a note was left out
        for want of room. What is left then is less than that note (slack), and names of
        notes not shown are not evidence. ``max_documents`` ends the packing only when
        the user set it (``hard_cap``): else the fill goes on past it while tokens remain."""
        if self.hard_cap and len(self.docs) >= self.max_documents:
            return False
        return self.out_of_tokens or any(s.reason == "budget" for s in self.skipped)

    def uris(self) -> set[str]:
        return {d.uri for d in self.docs}

    def named(self) -> frozenset[str]:
        """Every note the context names: the documents and their copies."""
        if self._named is None:
            self._named = frozenset(self.uris() | {c.uri for d in self.docs for c in d.copies})
        return self._named

    def cost(self, doc: Doc, position: int | None = None) -> int:
        at = len(self.docs) + 1 if position is None else position
        return self.tokenizer.count(self.render(doc, at))

    def skip(self, uri: str, title: str, reason: str, tokens: int | None = None) -> None:
        self.skipped.append(SkippedNote(uri, title, reason, tokens))

    def not_shown(self) -> list[SkippedNote]:
        """What ``explain`` reports: each note left out, once, with the first reason. The
        fill walks ``hybrid_search``'s ranking after query mode's own order, so a note can
        be skipped for room by both, or skipped for room first and then shown by the fill
        (as a search hit, which is shorter): then it was not left out. A note the
        traversal dropped (``similarity``, ``cap``) stays named even if the fill shows it:
        that says why it is not there as a relation."""
        shown, seen = self.uris(), set()
        out = []
        for s in self.skipped:
            if s.uri in shown and s.reason in ROOM_REASONS:
                continue
            if s.uri not in seen:
                seen.add(s.uri)
                out.append(s)
        return out

    def add(self, doc: Doc, record: bool = True) -> bool:
        """Add ``doc`` if it fits what is left; else note it as skipped (``record``)."""
        if isinstance(doc, QueryNote) and self.docs and isinstance(self.docs[0], EntryNote):
            # Relative to the first entry, the default: its JSON need not repeat focusUri.
            doc = replace(doc, focus_is_first=doc.focus.uri == self.docs[0].uri)
        tokens = self.cost(doc)
        if tokens > self.left:
            if record:
                self.skip(doc.uri, doc.title, "budget", tokens)
            return False
        self.docs.append(doc)
        self.costs.append(tokens)
        self._named = None
        self.copies.add(doc.note.details)
        return True

    def add_new(self, doc: Doc) -> bool:
        """Add ``doc``, unless its text is already in the context: then name it on the
        document that holds it (if the longer form fits) and leave it out."""
        at = self.copy_of(doc)
        if at is None:
            return self.add(doc)
        return self.name_copy(at, doc.uri, doc.title)

    def name_copy(self, at: int, uri: str, title: str) -> bool:
        """Name ``uri`` as a copy on document ``at`` if that fits; else it is left out."""
        holder = self.docs[at]
        if any(c.uri == uri for c in holder.copies) or self.replace(
            at, replace(holder, copies=(*holder.copies, UriAndTitle(uri, title)))
        ):
            self.skip(uri, title, f"copy of {holder.uri}")
            return True
        self.skip(uri, title, "budget")
        return False

    def copy_of(self, doc: Doc) -> int | None:
        """The position of the document already holding ``doc``'s passage, or None."""
        return self.copy_at(doc.uri, doc.note.details)

    def copy_at(self, uri: str, details: str) -> int | None:
        """The position of the document already holding the passage ``details`` of
        note ``uri``, or None."""
        return self.copies.at(self.docs, uri, details)

    def replace(self, at: int, doc: Doc) -> bool:
        """Put ``doc`` in place of document ``at`` if the difference fits."""
        tokens = self.cost(doc, at + 1)
        if tokens - self.costs[at] > self.left:
            return False
        self.docs[at] = doc
        self.costs[at] = tokens
        self._named = None
        return True


@dataclass(frozen=True)
class Packer:
    """One query's notes and settings; ``pack`` spends the budget on them."""

    graph: VaultGraph
    corpus: Corpus
    details: DetailSource
    qs: QuerySettings
    fs: FocusSettings
    sims: np.ndarray
    explain: bool = False
    # Notes the best hits' passages name without a link that the graph reached too
    # (``mentions.py``): bridges written without brackets.
    mentioned: frozenset[str] = frozenset()
    # Notes the best hits' passages write as names that the graph does not reach, with
    # evidence of their own (``mode._mentioned``): bridges too, shown as search hits.
    named: tuple[str, ...] = ()
    # BM25's best hits that write a rare identifier the question quotes, a note's name
    # (``identifiers.py``): tried before everything else the fusion orders.
    identifier_hits: tuple[str, ...] = ()

    @cached_property
    def forms(self) -> FillForms:
        """The forms the fill's hits may take (``fill.py``), built as search hits."""
        return FillForms(self.details, self.search_hit, self.explain)

    def pack(
        self,
        packing: Packing,
        entries: Sequence[Entry],
        ranked: Sequence[Ranked],
        hits: Sequence[str],
        best_hits: Sequence[str],
        budget: int,
        rest: Sequence[str] = (),
    ) -> Packing:
        """Entries, the best hits (``best_hits``: the best vector hit, then the best
        BM25 hit), the bridges, related notes and search hits fused, the rest of the
        hybrid ranking (``rest``: hits without evidence of their own) while room is
        left, then the entries' lists (see the module)."""
        self.pack_entries(packing, entries, budget, best_hits)
        pins: set[str] = set()
        for best in dict.fromkeys(best_hits):
            pinned = self.pinned(packing, ranked, best)
            if pinned is not None:
                packing.add_new(pinned)
                pins.add(pinned.uri)
        others = [r for r in ranked if r.found.cand.uri not in pins]
        bridges = [r for r in others if self.bridge(r) or r.found.cand.uri in self.mentioned]
        anchors = [*(e.uri for e in entries), *(r.found.cand.uri for r in bridges)]
        weak = shared_widely(self.graph, others, anchors, self.qs.documents)
        named = [u for u in self.named if u not in pins]
        fused = fuse(others, hits, self.qs.rrf_k, [*bridges, *named], weak)
        shown = packing.named()
        graph_best = next(
            (u for r in others if (u := r.found.cand.uri) not in shown and u not in weak), ""
        )
        joins = linked_by_entries(self.graph, [e.uri for e in entries]) - weak
        lead = [*hits[: self.qs.hybrid_graph_seeds], graph_best, *sorted(joins), *named]
        order = supported_first(fused, lead, bridges)
        # A join that does not fit whole shows a smaller form before the order goes on:
        # the fill follows the text's ranking, which puts these notes far down (obsidian-
        # help-2's oh2-16: *Community plugins*, two entries' link, text rank 37). Not the
        # bridges: a passage links several, and shrunk they took the room the fill gives
        # the text's best hits (oh2-21's *Bookmarks*, dendron2-17's google-docs export).
        order = tried_first(order, self.identifier_hits)
        self.pack_related(packing, order, shrink=frozenset(joins))
        self.pack_related(packing, rest, fill=True)
        if not packing.stopped_by_budget():
            self.pack_lists(packing)
        return packing

    def bridge(self, item: Ranked) -> bool:
        """A note the entry links to from its passage that best matches the question
        ("the cellar is run by [[Mira Halvorsen]]"), or from a property: the second
        note of a two-hop question, which text similarity alone does not find."""
        c = item.found.cand
        i = self.corpus.index_of.get(c.origin)
        if c.depth != 1 or i is None or item.found.context <= 0:
            return False
        return item.found.context >= float(self.sims[i]) - 1e-6

    def pinned(
        self, packing: Packing, ranked: Sequence[Ranked], best_hit: str | None
    ) -> Doc | None:
        """A best hit (vector or BM25), if it is not in yet, in the form it will be shown:
        structure never displaces it (a note found by the graph too keeps its relation)."""
        if best_hit is None or best_hit in packing.named():
            return None
        for item in ranked:
            if item.found.cand.uri == best_hit:
                restated = restate(self.graph, item, packing.uris())
                if restated is not None:
                    limit = self.related_limit(best_hit, packing.budget)
                    return query_note(
                        self.graph, restated, self.details, self.fs, self.explain, limit=limit
                    )
                break
        doc = self.search_note(best_hit, self.related_limit(best_hit, packing.budget))
        return None if packing.copy_of(doc) is not None else doc

    def related_limit(self, uri: str, budget: int) -> int:
        """A related note's room in characters: an equal share of the budget among
        ``max_documents`` notes, or its best passage (properties and best chunk) up to
        ``PASSAGE_SHARES`` shares; ``truncate_length`` at most. At small budgets a note
        shows the passage that answers, not its whole text, and one long note cannot
        take the room of several (at 1,000 tokens one took a quarter of it)."""
        most = self.fs.truncate_length
        share = budget * CHARS_PER_TOKEN // max(self.qs.documents, 1)
        if share >= most:
            return most
        passage = min(self.details.passage_chars(uri), PASSAGE_SHARES * share)
        return min(most, max(share, MIN_ENTRY_CHARS, passage))

    # -- entries ------------------------------------------------------------------------
    def pack_entries(
        self,
        packing: Packing,
        entries: Sequence[Entry],
        budget: int,
        best_hits: Sequence[str] = (),
    ) -> None:
        total = budget * self.qs.entry_budget_share
        bares = [entry_note(self.graph, e, self.details, self.qs, 0, self.explain) for e in entries]
        passages = [self.details.passage_chars(e.uri) for e in entries]
        share_chars = budget * CHARS_PER_TOKEN // max(self.qs.documents, 1)
        # When the entries' best passages do not all fit their share of the budget, the
        # later ones would take the room of several related notes (three entries took
        # half of 1,000 tokens): then an entry after the first shows a related note's
        # equal share, its passage whole only if it is a best hit (``best_hits``).
        crowded = share_chars < self.fs.truncate_length and total < sum(
            packing.cost(b) + p / CHARS_PER_TOKEN for b, p in zip(bares, passages, strict=True)
        )
        spent = 0
        for n, e in enumerate(entries):
            title = self.graph.info(e.uri).title
            if len(packing.docs) >= packing.max_documents:
                packing.skip(e.uri, title, "max_documents")
                continue
            share = (total - spent) / (len(entries) - n)
            bare = bares[n]
            overhead = packing.cost(bare)
            room = int((share - overhead) * CHARS_PER_TOKEN)
            limit = max(min(self.qs.entry_truncate_length, room), MIN_ENTRY_CHARS)
            passage = passages[n]
            # Best passages whole, in entry order, while the entries' share holds them;
            # the best entry's whatever its share: it is the last thing to go.
            if n == 0 or overhead + passage / CHARS_PER_TOKEN <= total - spent:
                limit = max(limit, passage)
            if crowded and n > 0 and e.uri not in best_hits:
                limit = min(limit, max(share_chars, MIN_ENTRY_CHARS))
            doc = with_details(bare, self.details, limit)
            before = packing.used
            if packing.copy_of(doc) is not None:
                packing.add_new(doc)
            elif not packing.add(doc, record=False):
                for smaller in (passage, MIN_ENTRY_CHARS):
                    if smaller < limit:
                        doc = with_details(bare, self.details, smaller)
                        if packing.add(doc, record=False):
                            break
                else:
                    packing.skip(e.uri, title, "budget", packing.cost(doc))
            spent += packing.used - before

    # -- related notes and search hits --------------------------------------------------
    def pack_related(
        self,
        packing: Packing,
        order: Iterable[Ranked | str],
        fill: bool = False,
        shrink: frozenset[str] = frozenset(),
    ) -> None:
        """Each note of ``order`` that fits, in order, up to the first that does not
        (then only copies of shown passages are named); a note of ``shrink`` that does
        not fit whole is tried in the fill's smaller forms first (``shrunk``) and does
        not end the order unless none fits; ``fill``: only filling what is
        left (``explain`` does not list what did not fit), past ``max_documents``
        while tokens remain: the cap bounds the notes query mode chooses, and short
        notes reached it with the budget unspent (kepano's 15 took 1,725 of 4,000
        tokens), leaving out notes ``hybrid_search`` would show."""
        order = list(order)
        upto, step = 0, READ_AHEAD
        seen, ended = len(packing.skipped), False
        for n, item in enumerate(order):
            uri = item_uri(item)
            title = self.graph.info(uri).title
            if packing.filled() if fill else packing.full:
                if fill or not self.explain:
                    break
                reason = "max_documents" if len(packing.docs) >= packing.max_documents else "budget"
                packing.skip(uri, title, reason)
                continue
            present = packing.named()
            if uri in present:
                continue
            # Query mode's own order ends at its first note left out for room: past it,
            # its notes would get in by being short, not by rank, and the fill
            # (``hybrid_search``'s ranking, best first, in smaller forms) spends what is
            # left. A note whose passage is shown already is still named as a copy.
            if not fill and not ended:
                ended = any(s.reason == "budget" for s in packing.skipped[seen:])
                seen = len(packing.skipped)
                if ended:  # the notes weighed from here are all read: a new batch
                    upto, step = n, READ_AHEAD
            # The fill may show a hit in its smallest room (``FillForms.fill_note``).
            most = MIN_ENTRY_CHARS if fill or uri in shrink else None
            if not ended and self.surely_too_big(packing, uri, most):  # not built
                packing.skip(uri, title, "budget")
                continue
            if n >= upto:  # the rows of the next notes to weigh, in a few queries
                upto, step = n + step, min(2 * step, MAX_READ_AHEAD)
                self.details.read_ahead(
                    u
                    for u in map(item_uri, order[n:upto])
                    if u not in present and (ended or not self.surely_too_big(packing, u, most))
                )
            if ended:
                self.named_if_copy(packing, item, title)
                continue
            limit = self.related_limit(uri, packing.budget)
            if isinstance(item, str):
                if fill or uri in shrink:
                    self.forms.fill_note(packing, uri, title, limit)
                elif not self.left_out(packing, uri, title, (), limit):
                    packing.add_new(self.search_note(item, limit))
                continue
            restated = restate(self.graph, item, packing.uris())
            if restated is None:
                packing.skip(uri, title, "its entry is not in the result")
                continue
            first = self.linked_section(restated)
            if uri in shrink:
                self.shrunk(packing, restated, title, first, limit)
                continue
            if self.left_out(packing, uri, title, first, limit):
                continue
            packing.add_new(
                query_note(self.graph, restated, self.details, self.fs, self.explain, first, limit)
            )

    def shrunk(
        self, packing: Packing, item: Ranked, title: str, first: Sequence[int], limit: int
    ) -> None:
        """``item`` in its room, or when that does not fit what is left, in a smaller
        one (its best passage, then ``MIN_ENTRY_CHARS``), as the fill's hits are
        (``FillForms.shrunk``): a related note with the section its link names first,
        settled unbuilt by the note's floor; left out for room when none fits."""

        def build(room: int, passage: Passage) -> QueryNote:
            return query_note(self.graph, item, self.details, self.fs, self.explain, first, room)

        uri = item.found.cand.uri
        self.forms.shrunk(packing, uri, title, limit, build, self.forms.beyond_floor, first)

    def named_if_copy(self, packing: Packing, item: Ranked | str, title: str) -> None:
        """Name ``item`` on the document holding its passage (in its room), if one does
        (``Packing.name_copy``: a name, not a slot); else it is left out for room."""
        uri = item_uri(item)
        first: Sequence[int] = ()
        if not isinstance(item, str):
            restated = restate(self.graph, item, packing.uris())
            first = self.linked_section(restated) if restated is not None else ()
        passage = self.details.passage(uri, self.related_limit(uri, packing.budget), first)
        at = packing.copy_at(uri, passage.text)
        if at is None:
            packing.skip(uri, title, "budget")
        else:
            packing.name_copy(at, uri, title)

    def surely_too_big(self, packing: Packing, uri: str, most: int | None = None) -> bool:
        """More characters than the most a token holds times the tokens left, of the
        note shown in ``most`` characters at most (``truncate_length`` by default)."""
        i = self.corpus.index_of.get(uri)
        room = self.fs.truncate_length if most is None else most
        chars = min(int(self.corpus.body_chars[i]), room) if i is not None else 0
        return chars // MAX_CHARS_PER_TOKEN > packing.left

    def left_out(
        self, packing: Packing, uri: str, title: str, first: Sequence[int], limit: int
    ) -> bool:
        """Settle unbuilt a note that cannot fit: one whose details (in ``limit``
        characters, ``first`` chunks first) alone take more tokens than are left, by the
        floor the index's per-chunk counts give (``details/cost.py``), without counting
        them. It is still named as a copy if its passage is shown already, as
        ``Packing.add_new`` would. Not with ``explain``, which reports the size of each
        note left out."""
        if self.explain:
            return False
        passage = self.details.passage(uri, limit, first)
        if not self.forms.beyond_floor(packing, uri, passage):
            return False
        at = packing.copy_at(uri, passage.text)
        if at is None:
            packing.skip(uri, title, "budget")
        else:
            packing.name_copy(at, uri, title)
        return True

    def linked_section(self, item: Ranked) -> list[int]:
        """Positions of the chunks of the section (or block) the link that led to the
        note names, ``[[Note#Heading]]`` / ``[[Note#^block]]`` / Dendron's
        ``[[note#heading-slug]]`` and ``![[note#start,1:#end]]``: ranked level with the
        note's best chunk (``DetailSource._scores``)."""
        c = item.found.cand
        if not c.hops or c.hops[-1] != OBJECT:
            return []
        subpaths = self.corpus.link_subpaths(c.previous, c.uri)
        if not subpaths:
            return []
        chunks = self.details.index.chunks_of(c.uri)
        out: list[int] = []
        for sub in subpaths:
            for j in section_chunks(chunks, sub):
                if j not in out:
                    out.append(j)
        return out

    def search_note(self, uri: str, limit: int | None = None) -> QueryNote:
        """A note found by its own match with the question, not through the graph;
        details in ``limit`` characters (``truncate_length`` by default)."""
        text, cut = self.details(uri, self.fs.truncate_length if limit is None else limit)
        return self.search_hit(uri, text, cut)

    def search_hit(self, uri: str, text: str, cut: bool) -> QueryNote:
        """``search_note`` showing ``text`` as its details (``cut``: not the whole note)."""
        cand = Candidate(uri, 0, (), (), uri, Relation.MatchesQuestion, 0)
        note = related_note(self.graph, cand, text, cut)
        me = UriAndTitle(uri, note.title)
        explain = None
        if self.explain:
            i = self.corpus.index_of.get(uri)
            sim = float(self.sims[i]) if i is not None else 0.0
            explain = QueryExplain(sim, 0.0, sim, 0.0, {}, 0, "hybrid search")
        return QueryNote(note, me, (), 0, (me,), explain)

    # -- lists --------------------------------------------------------------------------
    def pack_lists(self, packing: Packing) -> None:
        """Each entry's lists, best entry first: the most names per list that fit."""
        for at, doc in enumerate(packing.docs):
            if not isinstance(doc, EntryNote):
                continue
            exclude = packing.named()
            lo, hi = 1, self.qs.entry_list_limit
            while lo <= hi:  # each size that fits replaces the last: the largest stays
                mid = (lo + hi) // 2
                if packing.replace(at, with_lists(self.graph, doc, exclude, mid)):
                    lo = mid + 1
                else:
                    hi = mid - 1


def restate(graph: VaultGraph, item: Ranked, present: set[str]) -> Ranked | None:
    """``item`` as reached from the nearest note on its discovery path that is in
    ``present`` (its entry, or a note between), or None when none is."""
    f = item.found
    c = f.cand
    if c.origin in present:
        return item
    for k in range(len(c.via) - 1, -1, -1):
        step = c.via[k]
        if step not in present:
            continue
        hops = c.hops[k + 1 :]
        prior = False
        if hops == (PARENT, CHILD):  # a sibling: before or after the note it went up from
            parent = graph.parent(step)
            kids = graph.children(parent) if parent is not None else ()
            if step in kids and c.uri in kids:
                prior = kids.index(c.uri) < kids.index(step)
        cand = replace(
            c,
            depth=len(hops),
            hops=hops,
            via=c.via[k + 1 :],
            origin=step,
            relation=classify(hops, prior),
        )
        found = replace(f, cand=cand, path=(step, *c.via[k + 1 :], c.uri), how="")
        return Ranked(found, item.explain)
    return None
