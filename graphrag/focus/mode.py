"""Focus mode: a note and a token budget -> the note and its most relevant context.

Pipeline (docs/architecture.md, "Focus mode"): build the focus note with its complete lists, run
the capped BFS, score every candidate, select by score under the budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace

from graphrag.budget import NOTE_OVERHEAD_TOKENS, TokenCounter, select
from graphrag.config.focus import FocusSettings
from graphrag.details import NoteText, excerpt
from graphrag.errors import NoteNotFoundError
from graphrag.focus.groups import property_groups
from graphrag.focus.relations import INBOUND, OBJECT
from graphrag.focus.render import note_renderer, path_text
from graphrag.focus.score import ScoreParts, relation_factor, relation_weight, score
from graphrag.focus.selectors import Selector
from graphrag.focus.traverse import Candidate, traverse
from graphrag.results.focus import GraphRAGResult
from graphrag.results.notes import (
    Explain,
    FocusNote,
    OutboundLink,
    RelatedNote,
    Relation,
    SkippedNote,
    UriAndTitle,
)
from graphrag.snapshot.graph import VaultGraph


def focus(
    graph: VaultGraph,
    uri: str,
    budget: int,
    settings: FocusSettings,
    tokenizer: TokenCounter,
    seed: int | None = None,
    explain: bool = False,
    exclude: Collection[str] = (),
    now: float | None = None,
    *,
    output: str = "json",
    selector: Selector | None = None,
    note_text: NoteText | None = None,
    similar: Similar | None = None,
) -> GraphRAGResult:
    """Retrieve ``uri`` and the related notes that fit in ``budget`` tokens.

    Args:
        budget: tokens for the related notes; the focus note is not counted.
        seed: makes the result reproducible byte for byte; ``None`` varies per run.
        explain: add per-note scores and paths, and the list of skipped notes.
        exclude: uris the caller already has (paging): traversed through, never emitted.
        now: epoch seconds used for recency (tests pass a fixed time).
        output: ``json`` or ``prompt``: which rendered form the budget counts.
        selector: how capped children/backlinks are chosen (default: at random).
        note_text: the index's notes as shown to a model (embeds inlined); without it,
            the graph's text as stored.
        similar: the notes nearest a note by vector similarity, as (uri, cosine), best
            first; they join as ``SimilarContent`` (``[focus] similar_notes``, 0: none).
    """
    if not graph.is_traversable(uri):  # missing, or a ghost / attachment: nothing to focus on
        raise NoteNotFoundError(uri, [])
    now = time.time() if now is None else now
    rng = random.Random(seed)
    focus_note = build_focus_note(
        graph, uri, note_text.full(uri) if note_text is not None else None
    )
    render = note_renderer(output, focus_note)  # fail on a bad format before any work
    excluded = frozenset(exclude)
    texts: dict[str, tuple[str, bool]] = {}

    def truncated(note: str) -> tuple[str, bool]:
        if note not in texts:
            limit = settings.truncate_length
            if note_text is not None and graph.info(note).kind == "note":
                texts[note] = note_text.details(note, limit)
            else:
                texts[note] = excerpt(graph.details(note), limit)
        return texts[note]

    def emittable(note: str) -> bool:
        if note in excluded:
            return False
        kind = graph.info(note).kind
        return kind == "note" or (kind == "folder" and settings.emit_virtual_notes)

    detail_tokens: dict[str, int] = {}

    def estimated(note: str) -> int:
        detail_tokens[note] = tokenizer.count(truncated(note)[0])
        return detail_tokens[note] + NOTE_OVERHEAD_TOKENS

    def at_least(p: _Pending) -> int:
        # A lower bound on the rendered size, without tokenizing when it can be
        # avoided: the details' count if the traversal already took it, else their
        # number of whitespace-separated words (cl100k never joins two of those
        # into one token). The wrapping (uri, title, relation...) only adds to it.
        known = detail_tokens.get(p.uri)
        return known if known is not None else len(truncated(p.uri)[0].split())

    walk = traverse(
        graph,
        [uri],
        settings,
        rng,
        budget=budget,
        estimate=estimated,
        emittable=emittable,
        free=excluded.__contains__,
        selector=selector,
    )
    groups = property_groups(graph)
    candidates = walk.candidates
    if similar is not None and settings.similar_notes > 0:

        def weight(c: Candidate) -> float:
            return relation_weight(c.relation, settings) * relation_factor(
                graph, c, settings, groups
            )

        candidates = with_similar(uri, similar, candidates, emittable, settings, weight)
    # Score in discovery order so the jitter draws do not depend on sorting.
    scored = [
        _Pending(
            c.uri,
            graph.info(c.uri).title,
            c,
            score(
                c.relation,
                c.depth,
                _created(graph, c.uri),
                now,
                settings,
                rng,
                relation_factor(graph, c, settings, groups),
            ),
        )
        for c in candidates
        if emittable(c.uri)
    ]
    scored.sort(key=lambda p: -p.parts.total)
    notes: dict[str, RelatedNote] = {}

    def materialize(p: _Pending) -> RelatedNote:
        if p.uri not in notes:
            text, cut = truncated(p.uri)
            note = related_note(graph, p.cand, text, cut)
            if explain:
                path = path_text(focus_note.title, note)
                note = replace(note, explain=_explain(p.parts, p.cand, path))
            notes[p.uri] = note
        return notes[p.uri]

    chosen = select(
        scored,
        budget,
        lambda p: render(materialize(p)),
        tokenizer,
        # With explain every size is measured, so the skipped list is exact.
        at_least=None if explain else at_least,
    )
    skipped = None
    if explain:
        capped = tuple(SkippedNote(c.uri, graph.info(c.uri).title, "cap") for c in walk.dropped)
        skipped = chosen.skipped + capped
    return GraphRAGResult(
        focus_note=focus_note,
        related_notes=tuple(materialize(p) for p in chosen.selected),
        tokens_used=chosen.tokens_used,
        budget=budget,
        skipped=skipped,
    )


Similar = Callable[[str, int], list[tuple[str, float]]]


def with_similar(
    uri: str,
    similar: Similar,
    candidates: list[Candidate],
    emittable: Callable[[str], bool],
    settings: FocusSettings,
    weight: Callable[[Candidate], float],
) -> list[Candidate]:
    """``candidates`` with the ``similar_notes`` notes most similar to ``uri`` (at least
    ``similar_min_similarity`` alike) as ``SimilarContent``, at depth 1 with their cosine
    as strength: focus mode is the union of the graph's view and the embeddings'. A note
    the graph found too keeps its graph relation unless that one weighs less."""
    out = list(candidates)
    at = {c.uri: i for i, c in enumerate(out)}
    taken = 0
    for other, cosine in similar(uri, settings.similar_notes + 1):
        if taken >= settings.similar_notes or cosine < settings.similar_min_similarity:
            break
        if other == uri or not emittable(other):
            continue
        i = at.get(other)
        seq = out[i].seq if i is not None else len(out) + 1
        cand = Candidate(other, 1, (), (), uri, Relation.SimilarContent, seq, None, cosine)
        if i is None:
            at[other] = len(out)
            out.append(cand)
        elif weight(out[i]) < weight(cand):
            out[i] = cand
        taken += 1
    return out


@dataclass(frozen=True, slots=True)
class _Pending:
    """A scored candidate, turned into a ``RelatedNote`` only when it is measured."""

    uri: str
    title: str
    cand: Candidate
    parts: ScoreParts


def _created(graph: VaultGraph, uri: str) -> float | None:
    return graph.info(uri).created or None


def build_focus_note(graph: VaultGraph, uri: str, details: str | None = None) -> FocusNote:
    """The focus note with complete lists: they are cheap (titles only) and tell the
    model what exists even when the budget leaves those notes out. ``details``: its
    text, whole (default: as the graph stores it)."""
    info = graph.info(uri)
    parent = graph.parent(uri)
    siblings = listed_children(graph, parent) if parent is not None else ()
    nodes = graph.nodes

    def listed(uris: Sequence[str]) -> tuple[UriAndTitle, ...]:
        # A hub can have thousands of backlinks: no per-item helper call here.
        return tuple(UriAndTitle(u, nodes[u].title) for u in uris)

    at = graph.position(uri) if parent is not None else -1
    if not (0 <= at < len(siblings) and siblings[at].uri == uri):
        at = len(siblings)
    links = []
    for link in graph.outlinks(uri):
        node = graph.nodes.get(link.target)
        kind = node.kind if node is not None else "ghost"
        links.append(
            OutboundLink(
                uri=link.target,
                title=graph.uri_and_title(link.target).title,
                predicate=link.predicate,
                kind=None if kind == "note" else kind,
            )
        )
    return FocusNote(
        uri=uri,
        title=info.title,
        details=graph.details(uri) if details is None else details,
        created_at=info.created or None,
        parent=graph.uri_and_title(parent) if parent is not None else None,
        contextual_path=listed(graph.contextual_path(uri)),
        children=listed_children(graph, uri),
        prior_siblings=siblings[:at],
        younger_siblings=siblings[at + 1 :],
        inbound_references=listed(graph.backlinks(uri)),
        outbound_links=tuple(links),
        tags=info.tags,
    )


def listed_children(graph: VaultGraph, uri: str) -> tuple[UriAndTitle, ...]:
    """The children of ``uri`` as a focus note lists them, made once per graph: each of
    a folder's thousands of notes lists all the others as siblings (slices of this)."""
    made: dict[str, tuple[UriAndTitle, ...]] = graph.derived("focus:listed-children", dict)
    hit = made.get(uri)
    if hit is None:
        nodes = graph.nodes
        listed = tuple(UriAndTitle(u, nodes[u].title) for u in graph.children(uri))
        hit = made.setdefault(uri, listed)
    return hit


def related_note(graph: VaultGraph, cand: Candidate, details: str, truncated: bool) -> RelatedNote:
    info = graph.info(cand.uri)
    parent = graph.parent(cand.uri)
    last = cand.hops[-1] if cand.hops else None
    # The far end of the last link, unless it is the source itself with no predicate:
    # then ``relationToFocusNote`` already says it all and the tokens are better spent.
    other_end = None
    if last in (OBJECT, INBOUND) and (cand.previous != cand.origin or cand.predicate):
        other_end = graph.uri_and_title(cand.previous)
    return RelatedNote(
        uri=cand.uri,
        title=info.title,
        details=details,
        relation=cand.relation,
        created_at=info.created or None,
        parent=graph.uri_and_title(parent) if parent is not None else None,
        details_truncated=truncated,
        subject=other_end if last == OBJECT else None,
        object=other_end if last == INBOUND else None,
        predicate=cand.predicate,
        hops=cand.hops,
        via=tuple(graph.uri_and_title(v) for v in cand.via),
    )


def _explain(parts: ScoreParts, cand: Candidate, path: str) -> Explain:
    return Explain(
        score=parts.total,
        relationship=parts.relationship,
        depth_part=parts.depth,
        recency=parts.recency,
        jitter=parts.jitter,
        depth=cand.depth,
        path=path,
    )
