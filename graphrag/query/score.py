"""Query mode's rerank: how a found note's graph relevance, its similarity to the
question and its recency become one score (docs/architecture.md, "Query mode", step 3).

``score = graph_weight * relevance + vector_weight * similarity + recency``:

* relevance is focus mode's score (relation weight, depth bonus, jitter; no
  recency) divided by its maximum, times the note's entry score divided by the
  best entry's: a note reached from a weak entry is weak evidence;
* similarity is the cosine of the note's best chunk, or, for a note one hop from
  its entry, of the entry's passage that links to it if that is higher;
* recency is ``recency_bonus * exp(-age_days / recency_days)`` for notes
  whose front matter dates them (a file's mtime says when the vault was copied
  as often as when the note was written).
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from graphrag.config.focus import FocusSettings
from graphrag.config.query import QuerySettings
from graphrag.focus.groups import property_groups
from graphrag.focus.score import SECONDS_PER_DAY, relation_factor, score
from graphrag.focus.traverse import Candidate
from graphrag.query.entry import Entry
from graphrag.results.notes import Relation, SkippedNote
from graphrag.results.query import QueryExplain
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph
from graphrag.snapshot.memo import Memo


@dataclass(frozen=True, slots=True)
class Found:
    cand: Candidate
    close: bool
    path: tuple[str, ...]
    how: str  # explain text of the path
    weight: float = 1.0  # its entry's score relative to the best entry's
    context: float = -1.0  # cosine of the entry passage that links to it, if any


@dataclass(frozen=True, slots=True)
class Ranked:
    found: Found
    explain: QueryExplain


def link_context(
    corpus: Corpus,
    notes: Iterable[str],
    chunk_scores: np.ndarray,
    graph: VaultGraph | None = None,
) -> dict[str, dict[str, float]]:
    """note -> link target -> cosine of the note's passage (chunk) holding the link.

    The bridge of a multi-hop question: "who runs the cellar?" matches the cellar
    note's passage "run by [[Mira Halvorsen]]", not Mira's own note. A link in front
    matter (``keeper: [[Tobias]]``) belongs to the whole note: its best passage. A
    passage that links to more than ``LIST_LINKS`` notes is a list and lends its
    likeness to none of them (a hub entry's index passage made every note it lists a
    bridge, ahead of the note the best entry links to).

    A body link is found in the chunk whose text holds it as written (``[[target``,
    ``](target``, else the target text anywhere): a link's line counts from the top
    of the file and a chunk's from the top of the body, so lines cannot be compared
    in a note with front matter. Which chunks hold which link does not depend on the
    question: ``LinkTable`` finds them once per generation, a question only takes
    the best score among them.

    With ``graph``, only links that are edges of it count: a graph with links left
    out (``VaultGraph.without_links``) must not have them back through the store."""
    out: dict[str, dict[str, float]] = {}
    for uri in notes:
        i = corpus.index_of.get(uri)
        if i is None:
            continue
        lo, hi = corpus.chunk_rows(i)
        if hi == lo:
            continue
        table = link_table(corpus, uri)
        if table.chunks != hi - lo:
            continue
        linked = None if graph is None else {link.target for link in graph.outlinks(uri)}
        out[uri] = table.context(chunk_scores[lo:hi], linked)
    return out


# The most notes a passage may link to and still name the one that answers: on the
# seven hand-written sets with bridges (query code of 30b3703), 19 of 161 bridges from
# passages linking one or two notes were gold notes, 9 of 177 from three to five, 0 of
# 86 from six or more (benchmarks/RESULTS.md, "Session 10: Dendron anchors").
LIST_LINKS = 5
LINK_TABLE_CHARS = 4_000_000  # link tables kept per generation (a 3,000-link hub is ~0.2M)


def link_table(corpus: Corpus, uri: str) -> LinkTable:
    """``uri``'s ``LinkTable``, read once per generation (kept up to ``LINK_TABLE_CHARS``)."""
    tables: Memo = corpus.derived("link-tables", lambda: Memo(LINK_TABLE_CHARS))
    return tables.get(uri, partial(LinkTable.read, corpus, uri), LinkTable.size)


class LinkTable:
    """One note's links by target, in link order, with the chunks holding each target's
    body links (``LinkStarts``) and whether one is a property link."""

    def __init__(
        self,
        chunks: int,
        targets: list[str],
        held: list[list[int]],
        property_: list[bool],
        notes: list[bool] | None = None,
    ) -> None:
        """``notes``: which targets are notes (or ghosts of notes), not attachments or
        the note itself (all of them when not given)."""
        self.chunks = chunks  # the note's chunks when read: checked against the corpus
        self.targets = targets
        self.property = property_
        # A passage that links to more than LIST_LINKS notes is a list (a hub's index, a
        # "see also" line): it does not say which of them answers, so its likeness to
        # the question is none of theirs.
        links = np.zeros(chunks, dtype=np.int64)
        for k, h in enumerate(held):
            if notes is None or notes[k]:
                links[h] += 1
        held = [[j for j in h if links[j] <= LIST_LINKS] for h in held]
        sizes = np.array([len(h) for h in held], dtype=np.int64)
        self.some = np.flatnonzero(sizes)  # targets with a passage of few links holding them
        self.rows = np.fromiter((j for h in held for j in h), dtype=np.int64)
        self.starts = (np.cumsum(sizes) - sizes)[self.some]

    @staticmethod
    def read(corpus: Corpus, uri: str) -> LinkTable:
        texts = [
            t.casefold()
            for (t,) in corpus.rows("SELECT text FROM chunks WHERE uri = ? ORDER BY seq", (uri,))
        ]
        links = corpus.rows(
            "SELECT target, kind, written, target_kind FROM links"
            " WHERE source = ? AND hierarchy = 0",
            (uri,),
        )
        starts = LinkStarts(texts, max((len(_folded(w)) for _t, _k, w, _n in links), default=0))
        at: dict[str, int] = {}
        held: list[set[int]] = []
        property_: list[bool] = []
        notes: list[bool] = []
        for target, kind, written, target_kind in links:
            k = at.get(target)
            if k is None:
                k = at[target] = len(held)
                held.append(set())
                property_.append(False)
                notes.append(target_kind in ("note", "ghost", "folder"))
            if kind == "property":
                property_[k] = True
            else:
                held[k].update(starts.holding(written))
        return LinkTable(len(texts), list(at), [sorted(h) for h in held], property_, notes)

    def size(self) -> int:
        return sum(len(t) for t in self.targets) + 8 * len(self.rows) + 50 * len(self.targets)

    def context(self, scores: np.ndarray, linked: set[str] | None) -> dict[str, float]:
        """Target -> the best score of a chunk holding a link to it (the note's best for
        a property link), -1.0 when none holds it; only targets in ``linked`` if given."""
        best = float(scores.max())
        sims = np.full(len(self.targets), -1.0)
        if len(self.some):
            held = np.maximum.reduceat(scores[self.rows], self.starts)
            sims[self.some] = np.maximum(held.astype(np.float64), -1.0)
        out: dict[str, float] = {}
        for k, target in enumerate(self.targets):
            if linked is not None and target not in linked:
                continue
            sim = float(sims[k])
            out[target] = max(sim, best) if self.property[k] else sim
        return out


def _folded(written: str | None) -> str:
    return (written or "").casefold().strip()


class LinkStarts:
    """Where links start in a note's chunks (casefolded texts): the text after every
    ``[[`` and ``](``, cut to the longest name looked for, sorted. A link's chunks are
    then one binary search plus the starts that really match, whatever the names look
    like: keying them by a fixed prefix made a hub whose links share a path prefix
    ("01 - Community/...") compare every link with every other (seconds per query on
    obsidian-hub)."""

    def __init__(self, texts: list[str], longest: int) -> None:
        self.texts = texts
        pairs = []
        for j, t in enumerate(texts):
            for mark in ("[[", "]("):
                p = t.find(mark)
                while p >= 0:
                    pairs.append((t[p + 2 : p + 2 + longest], j))
                    p = t.find(mark, p + 1)
        pairs.sort()
        self.keys = [k for k, _ in pairs]
        self.chunks = [j for _, j in pairs]
        self.longest = longest
        self.joined = "\x00".join(texts)

    def holding(self, written: str | None) -> list[int]:
        """Chunks holding a link written as ``written`` (``[[written`` or ``](written``),
        else any chunk holding the text ``written``."""
        w = _folded(written)
        if not w:
            return []
        if len(w) > self.longest:  # longer than the keys: they cannot tell
            hits = [j for j, t in enumerate(self.texts) if "[[" + w in t or "](" + w in t]
        else:
            keys, i, found = self.keys, bisect.bisect_left(self.keys, w), set()
            while i < len(keys) and keys[i].startswith(w):
                found.add(self.chunks[i])
                i += 1
            hits = sorted(found)
        if hits or w not in self.joined:  # one scan of the note, not one per chunk
            return hits
        return [j for j, t in enumerate(self.texts) if w in t]


def weigh(
    found: list[Found], entries: list[Entry], context: dict[str, dict[str, float]]
) -> list[Found]:
    top = max((e.score for e in entries), default=0.0)
    weight = {e.uri: (e.score / top if top > 0 else 1.0) for e in entries}
    out = []
    for f in found:
        c = f.cand
        # Any note one hop from its entry that the entry links to (as Object, or as a
        # Child or Parent that is also linked from the text).
        linked = context.get(c.origin, {}).get(c.uri, -1.0) if c.depth == 1 else -1.0
        out.append(replace(f, weight=weight.get(c.origin, 1.0), context=linked))
    return out


def rank(
    graph: VaultGraph,
    corpus: Corpus,
    found: list[Found],
    qs: QuerySettings,
    fs: FocusSettings,
    rng: random.Random,
    now: float,
    similarity: Callable[[str], float],
) -> tuple[list[Ranked], list[SkippedNote]]:
    weights = {
        **fs.relation_weights,
        Relation.SharesTag.value: qs.shares_tag_weight,
        Relation.OnPathBetweenEntries.value: qs.on_path_weight,
    }
    # Recency is added once, below, with the query's own weight.
    scoring = replace(fs, w_recency=0.0, relation_weights=weights)
    top = (
        scoring.w_relationship * max(weights.values(), default=0.0)
        + scoring.w_depth * max(scoring.depth_bonus, default=0.0)
        + scoring.jitter_range
    )
    ranked: list[tuple[float, int, Ranked]] = []
    dropped: list[SkippedNote] = []
    groups = property_groups(graph)
    for order, f in enumerate(found):  # discovery order: the jitter draws are reproducible
        c = f.cand
        parts = score(
            c.relation, c.depth, None, now, scoring, rng, relation_factor(graph, c, fs, groups)
        )
        # Notes reached from a weaker entry are weaker evidence.
        relevance = min(max(parts.total / top, 0.0), 1.0) * f.weight if top > 0 else 0.0
        sim = max(similarity(c.uri), f.context)
        i = corpus.index_of.get(c.uri)
        created = graph.info(c.uri).created
        recency = 0.0
        if i is not None and corpus.dated[i] and created:
            age_days = max(0.0, now - created) / SECONDS_PER_DAY
            recency = qs.recency_bonus * math.exp(-age_days / qs.recency_days)
        total = qs.graph_weight * relevance + recency
        if qs.hybrid_enabled:
            total += qs.vector_weight * max(sim, 0.0)
        if sim < qs.min_similarity and not f.close:
            dropped.append(SkippedNote(c.uri, graph.info(c.uri).title, "similarity"))
            continue
        explain = QueryExplain(
            score=total,
            relevance=relevance,
            similarity=sim,
            recency=recency,
            relevance_parts={
                "relationship": parts.relationship,
                "depth": parts.depth,
                "jitter": parts.jitter,
            },
            distance=c.depth,
            path=f.how,
        )
        ranked.append((-total, order, Ranked(f, explain)))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [r[2] for r in ranked], dropped
