"""Relevance score of a candidate (docs/architecture.md, "Focus mode: score").

``relevanceScore = w_rel * rel_weight + w_depth * depth_bonus[depth - 1]
+ w_time * exp(-age_days / 365) + uniform(-jitter, +jitter)``.

The jitter draws from the traversal's ``random.Random`` so one seed reproduces
a whole result; callers score candidates in discovery order for the same reason.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass

from graphrag.config.focus import REMOTE, FocusSettings
from graphrag.focus.groups import PropertyGroups, crowd
from graphrag.focus.relations import CHILD, PARENT
from graphrag.focus.traverse import Candidate
from graphrag.results.notes import Relation
from graphrag.snapshot.graph import VaultGraph

SECONDS_PER_DAY = 86_400.0


@dataclass(frozen=True, slots=True)
class ScoreParts:
    relationship: float
    depth: float
    recency: float
    jitter: float

    @property
    def total(self) -> float:
        return self.relationship + self.depth + self.recency + self.jitter


def depth_bonus(depth: int, settings: FocusSettings) -> float:
    """Bonus for the depth a note was discovered at; depths past the table (a raised
    ``max_depth``) keep the last, smallest bonus rather than failing."""
    table = settings.depth_bonus
    if not table or depth < 1:
        return table[0] if table else 0.0
    return table[min(depth, len(table)) - 1]


def recency_bonus(created: float | None, now: float, settings: FocusSettings) -> float:
    """``exp(-age_days / 365)``; 0 when the creation time is unknown, and a note
    "created" in the future counts as brand new rather than scoring above 1."""
    if not created:
        return 0.0
    age_days = max(0.0, now - created) / SECONDS_PER_DAY
    return math.exp(-age_days / settings.recency_days)


def relation_weight(relation: Relation, settings: FocusSettings) -> float:
    # Relations without a configured weight (the query-mode ones) rank as remote context.
    return settings.relation_weights.get(relation.value, REMOTE)


def relation_factor(
    graph: VaultGraph, cand: Candidate, settings: FocusSettings, groups: PropertyGroups
) -> float:
    """What scales a candidate's relation weight (``groups.py``). A note reached as a
    folder sibling of another (its path ends parent -> child: a sibling, a sibling of
    the parent, of a referring note...) counts less in a folder of more than
    ``crowd_size`` notes, and as little as a remote note when the vault's properties
    put the two in different groups. A note sharing a property value, or a similar
    one, carries its own ``strength`` (its group's crowd factor, its cosine).
    Everything else: 1."""
    if cand.hops[-2:] != (PARENT, CHILD):
        return cand.strength
    path = (cand.origin, *cand.via)  # ..., the note it is a sibling of, their parent
    parent, sibling_of = path[-1], path[-2]
    factor = crowd(len(graph.children(parent)), settings.crowd_size)
    if groups.other_group(sibling_of, cand.uri):
        remote = relation_weight(Relation.RemotelyRelated, settings)
        factor = min(factor, remote / max(relation_weight(cand.relation, settings), remote))
    return factor * cand.strength


def score(
    relation: Relation,
    depth: int,
    created: float | None,
    now: float,
    settings: FocusSettings,
    rng: random.Random,
    factor: float = 1.0,
) -> ScoreParts:
    """``factor`` scales the relation weight (``relation_factor``)."""
    jitter = settings.jitter_range
    return ScoreParts(
        relationship=settings.w_relationship * relation_weight(relation, settings) * factor,
        depth=settings.w_depth * depth_bonus(depth, settings),
        recency=settings.w_recency * recency_bonus(created, now, settings),
        jitter=rng.uniform(-jitter, jitter) if jitter else 0.0,
    )
