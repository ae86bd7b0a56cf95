"""Focus mode: a note and a token budget -> the note and its most relevant context.

Pipeline (DESIGN section 4): build the focus note with its complete lists, run
the capped BFS, score every candidate, select by score under the budget.
"""

from __future__ import annotations

import random
import time
from collections.abc import Collection, Iterator
from dataclasses import replace

from .budget import TokenCounter, estimate, select, truncate
from .errors import NoteNotFoundError
from .focus_settings import FocusSettings
from .graph import VaultGraph
from .model import (
    Explain,
    FocusNote,
    GraphRAGResult,
    OutboundLink,
    RelatedNote,
    SkippedNote,
    UriAndTitle,
)
from .relations import INBOUND, OBJECT
from .render import note_renderer, path_text
from .score import ScoreParts, score
from .selectors import Selector
from .traverse import Candidate, traverse


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
    """
    if not graph.is_traversable(uri):  # missing, or a ghost / attachment: nothing to focus on
        raise NoteNotFoundError(uri, [])
    now = time.time() if now is None else now
    rng = random.Random(seed)
    focus_note = build_focus_note(graph, uri)
    render = note_renderer(output, focus_note)  # fail on a bad format before any work
    excluded = frozenset(exclude)
    texts: dict[str, tuple[str, bool]] = {}

    def truncated(note: str) -> tuple[str, bool]:
        if note not in texts:
            texts[note] = truncate(graph.details(note), settings.truncate_length)
        return texts[note]

    def emittable(note: str) -> bool:
        if note in excluded:
            return False
        kind = graph.info(note).kind
        return kind == "note" or (kind == "folder" and settings.emit_virtual_notes)

    walk = traverse(
        graph,
        [uri],
        settings,
        rng,
        budget=budget,
        estimate=lambda note: estimate(truncated(note)[0], tokenizer),
        emittable=emittable,
        free=excluded.__contains__,
        selector=selector,
    )
    # Score in discovery order so the jitter draws do not depend on sorting.
    scored = [
        (score(c.relation, c.depth, _created(graph, c.uri), now, settings, rng), c)
        for c in walk.candidates
        if emittable(c.uri)
    ]
    scored.sort(key=lambda pair: -pair[0].total)

    def ranked() -> Iterator[RelatedNote]:
        for parts, cand in scored:
            text, cut = truncated(cand.uri)
            note = related_note(graph, cand, text, cut)
            if explain:
                note = replace(
                    note, explain=_explain(parts, cand, path_text(focus_note.title, note))
                )
            yield note

    chosen = select(ranked(), budget, render, tokenizer, report_all=explain)
    skipped = None
    if explain:
        capped = tuple(SkippedNote(c.uri, graph.info(c.uri).title, "cap") for c in walk.dropped)
        skipped = chosen.skipped + capped
    return GraphRAGResult(
        focus_note=focus_note,
        related_notes=chosen.selected,
        tokens_used=chosen.tokens_used,
        budget=budget,
        skipped=skipped,
    )


def _ut(graph: VaultGraph, uri: str) -> UriAndTitle:
    node = graph.nodes.get(uri)
    return UriAndTitle(uri, node.title if node else uri.rsplit("/", 1)[-1])


def _created(graph: VaultGraph, uri: str) -> float | None:
    return graph.info(uri).created or None


def build_focus_note(graph: VaultGraph, uri: str) -> FocusNote:
    """The focus note with complete lists: they are cheap (titles only) and tell the
    model what exists even when the budget leaves those notes out."""
    info = graph.info(uri)
    parent = graph.parent(uri)
    siblings = graph.children(parent) if parent is not None else ()
    at = siblings.index(uri) if uri in siblings else len(siblings)
    links = []
    for link in graph.outlinks(uri):
        node = graph.nodes.get(link.target)
        kind = node.kind if node is not None else "ghost"
        links.append(
            OutboundLink(
                uri=link.target,
                title=_ut(graph, link.target).title,
                predicate=link.predicate,
                kind=None if kind == "note" else kind,
            )
        )
    return FocusNote(
        uri=uri,
        title=info.title,
        details=graph.details(uri),
        created_at=info.created or None,
        parent=_ut(graph, parent) if parent is not None else None,
        contextual_path=tuple(_ut(graph, u) for u in graph.contextual_path(uri)),
        children=tuple(_ut(graph, u) for u in graph.children(uri)),
        prior_siblings=tuple(_ut(graph, u) for u in siblings[:at]),
        younger_siblings=tuple(_ut(graph, u) for u in siblings[at + 1 :]),
        inbound_references=tuple(_ut(graph, u) for u in graph.backlinks(uri)),
        outbound_links=tuple(links),
        tags=info.tags,
    )


def related_note(graph: VaultGraph, cand: Candidate, details: str, truncated: bool) -> RelatedNote:
    info = graph.info(cand.uri)
    parent = graph.parent(cand.uri)
    last = cand.hops[-1] if cand.hops else None
    other_end = _ut(graph, cand.previous)
    return RelatedNote(
        uri=cand.uri,
        title=info.title,
        details=details,
        relation=cand.relation,
        created_at=info.created or None,
        parent=_ut(graph, parent) if parent is not None else None,
        details_truncated=truncated,
        subject=other_end if last == OBJECT else None,
        object=other_end if last == INBOUND else None,
        predicate=cand.predicate,
        hops=cand.hops,
        via=tuple(_ut(graph, v) for v in cand.via),
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
