"""Capped wavefront BFS from one or more source notes (docs/architecture.md, "Focus mode: traversal").

Depth ``d`` (1..max_depth) expands, in this order:

1. uncapped hops from the notes discovered at ``d - 1``: their parent and, for
   the sources only, all their objects (outbound links to notes or folders);
2. capped hops from *every* note discovered before ``d`` (the sources included):
   children and inbound references, ``cap(p, d) = multiplier * (d - depth[p])``
   minus what was already taken from ``p``. So the focus gets 2, 4, 6 children
   in total by depths 1, 2, 3 and a depth-1 note gets 2 then 4. The objects of
   every note but the sources are capped the same way.

Why objects are capped: a Doughnut note has one object, so Doughnut never needed
to; a vault note can link to thousands (a map of content), and without a cap one
such note at depth 1 pours all its links into depth 2, the "monster parent" the
per-depth caps exist to stop. A source's own links stay uncapped: they are its
direct context.

Notes already in the pool, or already found at this depth, are removed before a
cap is applied: a known note never uses up a capped slot. When the BFS goes up
from a child to its parent, that child counts as picked for the parent, so the
parent's next children are the siblings nearest the path (docs/architecture.md,
"Focus mode: selection within a cap").

Each new note takes the shortest path among every edge joining it to the pool,
ties broken by relation priority, then by discovery order: it is fixed there.
Which children and backlinks fill a cap is a ``Selector``: random for focus
mode, a ranking (e.g. similarity to a query) for query mode.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from graphrag.config.focus import FocusSettings
from graphrag.focus.groups import crowd, property_groups
from graphrag.focus.relations import CHILD, INBOUND, OBJECT, PARENT, classify, rank
from graphrag.focus.selectors import RandomSelector, Selector
from graphrag.results.notes import Relation
from graphrag.snapshot.graph import VaultGraph

_HOP_ORDER = {PARENT: 0, CHILD: 1, OBJECT: 2, INBOUND: 3}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A note found by the BFS. ``via`` are the notes between ``origin`` (the source
    it was reached from) and this one; ``predicate`` is the property name of the
    link crossed by a last ``object``/``inbound`` hop, if that link was a property.
    ``strength`` scales its relation weight (``score.relation_factor``): how much one
    member of its group counts, or how similar it is."""

    uri: str
    depth: int
    hops: tuple[str, ...]
    via: tuple[str, ...]
    origin: str
    relation: Relation
    seq: int
    predicate: str | None = None
    strength: float = 1.0

    @property
    def previous(self) -> str:
        """The note this one was reached from."""
        return self.via[-1] if self.via else self.origin


@dataclass(slots=True)
class Traversal:
    candidates: list[Candidate]  # discovery order; the sources are not candidates
    dropped: list[Candidate] = field(default_factory=list)  # cut by max_total_candidates
    depth_reached: int = 0
    stop_reason: str = "max_depth"  # or "cap", "budget"


def traverse(
    graph: VaultGraph,
    sources: Sequence[str],
    settings: FocusSettings,
    rng: random.Random,
    *,
    budget: int | None = None,
    estimate: Callable[[str], int] | None = None,
    emittable: Callable[[str], bool] | None = None,
    free: Callable[[str], bool] | None = None,
    selector: Selector | None = None,
) -> Traversal:
    """Run the BFS from ``sources`` (all at depth 0).

    ``emittable(uri)`` says whether a note can end up in the answer: only those
    count towards ``max_total_candidates`` and the token estimate. ``free(uri)``
    marks notes the caller already has (paging): they are traversed through but
    never use up a per-depth slot. Without ``budget`` and ``estimate`` there is no
    early stop on tokens.
    """
    walk = _Walk(
        graph,
        settings,
        selector or RandomSelector(rng),
        emittable or (lambda uri: True),
        free or (lambda uri: False),
    )
    for uri in sources:
        walk.add_source(uri)
    threshold = None if budget is None else settings.token_budget_safety_margin * budget
    tokens = 0
    result = Traversal(candidates=[])
    for depth in range(1, settings.max_depth + 1):
        added, dropped = walk.expand(depth)
        result.depth_reached = depth
        result.candidates.extend(added)
        result.dropped.extend(dropped)
        if estimate is not None:
            for cand in added:
                if threshold is not None and tokens > threshold:
                    break  # only need to know that the pool is over, not by how much
                if walk.emittable(cand.uri):
                    tokens += estimate(cand.uri)
        if dropped or walk.counted >= settings.max_total_candidates:
            result.stop_reason = "cap"
            break
        if threshold is not None and tokens > threshold and depth < settings.max_depth:
            result.stop_reason = "budget"
            break
    if settings.shared_property_limit > 0 and settings.max_depth >= 2:
        result.candidates = walk.share_values(sources, result.candidates)
    return result


class _Walk:
    def __init__(
        self,
        graph: VaultGraph,
        settings: FocusSettings,
        selector: Selector,
        emittable: Callable[[str], bool],
        free: Callable[[str], bool],
    ) -> None:
        self.graph = graph
        self.settings = settings
        self.selector = selector
        self.emittable = emittable
        self.free = free
        self.pool: dict[str, Candidate] = {}  # sources and candidates, insertion = discovery
        self.counted = 0
        self.children_emitted: dict[str, int] = {}
        self.inbound_emitted: dict[str, int] = {}
        self.objects_emitted: dict[str, int] = {}
        self.picked: dict[str, set[int]] = {}
        self.predicates: dict[str, dict[str, str]] = {}  # subject -> object -> property

    def add_source(self, uri: str) -> None:
        if uri not in self.pool:
            self.pool[uri] = Candidate(uri, 0, (), (), uri, Relation.Self, len(self.pool))

    # -- one depth --------------------------------------------------------------------
    def expand(self, depth: int) -> tuple[list[Candidate], list[Candidate]]:
        graph = self.graph
        earlier = list(self.pool.values())  # snapshot: new notes join after labelling
        found: dict[str, list[tuple[str, str]]] = {}  # new uri -> [(source, hop)]

        for src in earlier:
            if src.depth != depth - 1:
                continue
            parent = graph.parent(src.uri)
            if parent is not None:
                self._mark_picked(parent, src.uri)
                if parent not in self.pool and graph.is_traversable(parent):
                    found.setdefault(parent, []).append((src.uri, PARENT))
            if src.depth == 0:  # a source's own links are its direct context: all of them
                for target in graph.objects(src.uri):
                    if target not in self.pool:
                        found.setdefault(target, []).append((src.uri, OBJECT))

        def known(uri: str) -> bool:
            return uri in self.pool or uri in found or not graph.is_traversable(uri)

        for src in earlier:
            self._take(src, depth, CHILD, known, found)
            self._take(src, depth, INBOUND, known, found)
            if src.depth > 0:
                self._take(src, depth, OBJECT, known, found)

        return self._admit([self._label(uri, depth, alts) for uri, alts in found.items()])

    def _take(
        self,
        src: Candidate,
        depth: int,
        hop: str,
        known: Callable[[str], bool],
        found: dict[str, list[tuple[str, str]]],
    ) -> None:
        if hop == CHILD:
            notes, emitted = self.graph.children(src.uri), self.children_emitted
            multiplier = self.settings.child_cap_multiplier
        elif hop == OBJECT:
            notes, emitted = self.graph.objects(src.uri), self.objects_emitted
            multiplier = self.settings.object_cap_multiplier
        else:
            notes, emitted = self.graph.backlinks(src.uri), self.inbound_emitted
            multiplier = self.settings.inbound_cap_multiplier
        if not notes:
            return
        room = multiplier * (depth - src.depth) - emitted.get(src.uri, 0)
        if room <= 0:
            return

        def eligible(i: int) -> bool:
            return not known(notes[i])

        picked = self.picked.setdefault(src.uri, set()) if hop == CHILD else set()
        taken = 0
        # Free notes (those the caller already has) join the pool to be traversed
        # through but take no slot, so pick again until the slots are filled.
        while taken < room:
            want = room - taken
            if hop == CHILD:
                chosen = self.selector.pick_children(src.uri, notes, picked, want, eligible)
            elif hop == OBJECT:
                chosen = self.selector.pick_objects(src.uri, notes, want, eligible)
            else:
                chosen = self.selector.pick_inbound(src.uri, notes, want, eligible)
            progress = False
            for i in chosen[:want]:
                uri = notes[i]
                if known(uri):  # a selector must not pick twice or known notes
                    continue
                found[uri] = [(src.uri, hop)]
                progress = True
                if hop == CHILD:
                    picked.add(i)
                if not self.free(uri):
                    taken += 1
            if not progress:
                break
        if taken:
            emitted[src.uri] = emitted.get(src.uri, 0) + taken

    # -- notes sharing a property value ----------------------------------------------------
    def share_values(self, sources: Sequence[str], candidates: list[Candidate]) -> list[Candidate]:
        """``candidates`` with the notes that link the same target as a source under the
        same property (``groups.py``) labelled ``SharesPropertyValue``: those already
        found by a weaker relation relabelled, and up to ``shared_property_limit`` new
        ones per (property, target), chosen by the selector. Two hops (object, inbound),
        through the target, which may be a note never written."""
        groups = property_groups(self.graph)
        weights = self.settings.relation_weights
        strong = weights.get(Relation.SharesPropertyValue.value, 0.0)
        at = {c.uri: i for i, c in enumerate(candidates)}
        out = list(candidates)
        for source in dict.fromkeys(sources):
            for (key, target), members in groups.shared(source).items():
                strength = crowd(len(members) + 1, self.settings.crowd_size)
                via = (source, groups.name(source, key), target, strength)
                for uri in members:
                    i = at.get(uri)
                    if i is not None and weights.get(out[i].relation.value, 0.0) < strong:
                        out[i] = self.pool[uri] = _sharing(uri, out[i].seq, *via)

                def eligible(j: int, members: list[str] = members) -> bool:
                    return members[j] not in self.pool and self.emittable(members[j])

                limit = self.settings.shared_property_limit
                for j in self.selector.pick_inbound(target, members, limit, eligible)[:limit]:
                    uri = members[j]
                    if uri in self.pool:
                        continue
                    self.pool[uri] = cand = _sharing(uri, len(self.pool), *via)
                    at[uri] = len(out)
                    out.append(cand)
        return out

    def _mark_picked(self, parent: str, child: str) -> None:
        index = self.graph.position(child)
        if index < 0 or self.graph.parent(child) != parent:  # nothing to anchor on
            return
        self.picked.setdefault(parent, set()).add(index)

    # -- labelling and admission --------------------------------------------------------
    def _label(self, uri: str, depth: int, alts: list[tuple[str, str]]) -> Candidate:
        """Pick the best path among every edge that joins ``uri`` to the pool.

        Capped hops are checked from the note's side (its parent, its link
        targets), so a note that is a child of the focus is labelled ``Child`` even
        when it entered the pool by another edge at the same depth."""
        graph, pool = self.graph, self.pool
        options = list(alts)
        # The graph's tables read directly: a hub's thousands of link targets are
        # labelled in every query that enters at it.
        parent = graph.parents.get(uri)
        if parent is not None and parent in pool:
            options.append((parent, CHILD))
        for link in graph.outlinks_of.get(uri, ()):
            if link.target in pool:
                options.append((link.target, INBOUND))
        best: tuple | None = None
        for source, hop in options:
            src = pool[source]
            hops = (*src.hops, hop)
            prior = hop == CHILD and src.hops[-1:] == (PARENT,) and self._before(source, uri, src)
            relation = classify(hops, prior)
            if len(options) == 1:  # nothing to compare it with
                best = (None, src, hops, relation)
                break
            key = (len(hops), rank(relation), src.seq, _HOP_ORDER[hop])
            if best is None or key < best[0]:
                best = (key, src, hops, relation)
        assert best is not None
        _, src, hops, relation = best
        via = (*src.via, src.uri) if src.hops else ()
        # seq is assigned on admission
        predicate = self._predicate(src.uri, uri, hops[-1])
        return Candidate(uri, depth, hops, via, src.origin, relation, -1, predicate)

    def _before(self, parent: str, uri: str, src: Candidate) -> bool:
        """Is ``uri`` before the note the path went up from, among ``parent``'s children?"""
        graph = self.graph
        if graph.parent(uri) != parent or graph.parent(src.previous) != parent:
            return False
        return graph.position(uri) < graph.position(src.previous)

    def _predicate(self, source: str, uri: str, hop: str) -> str | None:
        if hop == OBJECT:
            subject, obj = source, uri
        elif hop == INBOUND:
            subject, obj = uri, source
        else:
            return None
        # One pass over a subject's links, not one per candidate: a hub's hundreds of
        # link targets each asked for their predicate made this quadratic.
        table = self.predicates.get(subject)
        if table is None:
            table = {}
            for link in self.graph.outlinks(subject):
                if link.predicate is not None:
                    table.setdefault(link.target, link.predicate)
            self.predicates[subject] = table
        return table.get(obj)

    def _admit(self, new: list[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
        """Add this depth's notes to the pool, best first when the global cap cuts."""
        countable = [c for c in new if self.emittable(c.uri)]
        room = self.settings.max_total_candidates - self.counted
        dropped: list[Candidate] = []
        if len(countable) > room:
            ranked = sorted(countable, key=lambda c: (len(c.hops), rank(c.relation)))
            cut = {c.uri for c in ranked[max(room, 0) :]}
            dropped = [c for c in countable if c.uri in cut]
            new = [c for c in new if c.uri not in cut]
        admitted = []
        for cand in new:
            c = cand  # positional: dataclasses.replace is slow in this loop
            cand = Candidate(
                c.uri, c.depth, c.hops, c.via, c.origin, c.relation, len(self.pool), c.predicate
            )
            self.pool[cand.uri] = cand
            admitted.append(cand)
            if self.emittable(cand.uri):
                self.counted += 1
        return admitted, dropped


def _sharing(
    uri: str, seq: int, source: str, predicate: str, target: str, strength: float
) -> Candidate:
    """A note linking ``target`` under ``predicate`` as ``source`` does: source -object->
    target <-inbound- note."""
    return Candidate(
        uri,
        2,
        (OBJECT, INBOUND),
        (target,),
        source,
        Relation.SharesPropertyValue,
        seq,
        predicate,
        strength,
    )
