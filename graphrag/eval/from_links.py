"""Questions from the vault's own links: retrieval measured without hand labels.

Every body link ``A -> B`` is a question someone already answered: the author,
writing the passage around the link, judged B the note a reader needs there. So
the passage is the question and B its gold note, and retrieval is asked to bring
B back within the budget with the link itself out of the way (docs/architecture.md,
"Evaluation"):

* **the link is hidden from the graph**: every edge from A to B and from B to A
  (the backlink) is left out of the graph the question is answered on, so no
  relation, path, cap or passage-to-link similarity can follow it; the rest of
  the vault is untouched (B's parent, tags, other notes linking to it);
* **and from the question's text**: the link is replaced by ``…``, display text
  included (``[[Manage vaults|vault switcher]]`` names its target as surely as
  its title does, and a question naming B would test title matching, not
  retrieval). Other links in the passage read as their display text (or the
  target's name), embeds and Markdown markup are dropped. A Dendron link
  ``[[label|target]]`` the index resolved to ``target`` (indexer/resolve.py, rule 8)
  is hidden as its target, and otherwise reads as its label.

A note's own text still holds ``[[B]]`` (its chunks and BM25 terms), but nothing
reads a note's text to find the notes it names: the question no longer holds B's
name, so that text matches no better than any other.

Which links: wikilinks and Markdown links in a note's body to another note (not
embeds, not front-matter properties: they have no passage), whose passage keeps
at least ``min_words`` words once the link is gone; at most ``per_note`` per
source note and one per (source, target) pair, so a map of content with a
thousand links does not make the whole set; ``limit`` in all, drawn with
``seed``. The passage is the paragraph holding the link, or its list item, table
row or quote line; a long one is cut to the sentences around the link.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from graphrag.errors import InvalidRequestError
from graphrag.eval.context import Retrieved, query_context
from graphrag.eval.outcomes import EvalReport
from graphrag.eval.questions import Question
from graphrag.eval.run import DEFAULT_BUDGETS, run_eval
from graphrag.eval.systems import SYSTEMS, HybridSystem, System
from graphrag.snapshot.graph import VaultGraph
from indexer.blocks import blocks

if TYPE_CHECKING:
    from graphrag.api import VaultRAG
    from indexer.load import IndexSnapshot

QUESTION_TYPE = "link"
HIDDEN = "…"
DEFAULT_LIMIT = 200
MIN_WORDS = 8
MAX_WORDS = 60
PER_NOTE = 2

WORD_RE = re.compile(r"[^\W_][\w'’-]*", re.U)
SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")
WIKI_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MD_RE = re.compile(
    r"(!?)\[([^\[\]\n]*)\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+\"[^\"\n]*\")?\)"
)
LINE_MARK_RE = re.compile(r"^\s*(?:>\s*)*(?:[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+|#{1,6}\s+)?", re.M)
CALLOUT_RE = re.compile(r"\[!\w+\][+-]?")
BLOCK_ID_RE = re.compile(r"\s\^[\w-]+\s*$", re.M)
MARKUP_RE = re.compile(r"\*\*|__|==|~~|<[^>\n]+>|`")


@dataclass(frozen=True, slots=True)
class LinkQuestion:
    """A question built from the link ``source -> target``; ``hidden``: the edges the
    graph answering it must not have."""

    question: Question
    source: str
    target: str
    hidden: tuple[tuple[str, str], ...]


def link_questions(
    index: IndexSnapshot,
    graph: VaultGraph,
    *,
    limit: int = DEFAULT_LIMIT,
    seed: int = 0,
    per_note: int = PER_NOTE,
    min_words: int = MIN_WORDS,
    max_words: int = MAX_WORDS,
) -> list[LinkQuestion]:
    """Up to ``limit`` questions from the vault's body links (see the module docstring),
    the same ones for the same index and ``seed``."""
    written_to = _body_link_targets(index, graph)
    rng = random.Random(seed)
    sources = sorted(written_to)
    rng.shuffle(sources)
    # Round-robin over shuffled notes: the first question of every note, then the
    # second, so ``limit`` spreads over the vault instead of draining a few notes.
    per_source: dict[str, list[LinkQuestion]] = {}
    for uri in sources:
        found = _questions_of(uri, index.body(uri), written_to[uri], graph, min_words, max_words)
        rng.shuffle(found)
        per_source[uri] = found[:per_note]
    out: list[LinkQuestion] = []
    for round_ in range(per_note):
        for uri in sources:
            qs = per_source[uri]
            if round_ < len(qs) and len(out) < limit:
                out.append(qs[round_])
    return out


@dataclass(frozen=True, slots=True)
class _Link:
    written: str  # the target as written, casefolded
    target: str
    line: int  # in the file (the index's own count)


def _body_link_targets(index: IndexSnapshot, graph: VaultGraph) -> dict[str, list[_Link]]:
    """source -> its body links to other notes, in the order written."""
    out: dict[str, list[_Link]] = {}
    rows = index.db.execute(
        "SELECT source, written, target, line FROM links WHERE kind IN ('wikilink', 'markdown') "
        "AND hierarchy = 0 AND source != target AND target_kind = 'note' ORDER BY rowid"
    ).fetchall()
    for source, written, target, line in rows:
        if source in graph and target in graph and graph.info(target).kind == "note":
            out.setdefault(source, []).append(
                _Link((written or "").strip().casefold(), target, line)
            )
    return out


def _questions_of(
    uri: str,
    body: str,
    links: list[_Link],
    graph: VaultGraph,
    min_words: int,
    max_words: int,
) -> list[LinkQuestion]:
    targets = {link.written: link.target for link in links}
    lines = body.split("\n")
    offset = _front_lines(lines, links)
    spans = _passage_spans(body)
    seen: set[str] = set()
    out: list[LinkQuestion] = []
    for link in links:
        target = link.target
        if target == uri or target in seen:
            continue
        span = spans.get(link.line - offset)
        if span is None:
            continue
        passage = "\n".join(lines[span[0] : span[1]])
        text = question_text(passage, _names_target(targets, target), targets.__contains__)
        text = _window(text, max_words)
        if HIDDEN not in text or len(WORD_RE.findall(text.replace(HIDDEN, " "))) < min_words:
            continue
        seen.add(target)
        question = Question(f"{uri} -> {target}", text, (target,), QUESTION_TYPE)
        out.append(LinkQuestion(question, uri, target, ((uri, target), (target, uri))))
    return out


def _front_lines(lines: list[str], links: list[_Link]) -> int:
    """How many lines of the file come before the body (its front matter): the index
    counts a link's line in the file, the body starts after the front matter. Each
    link's target, as written, is looked for in the body; the offset most of them
    agree on wins (0 when none is found)."""
    folded = [line.casefold() for line in lines]
    votes: dict[int, int] = {}
    for link in links:
        if not link.written:
            continue
        for n, line in enumerate(folded):
            if link.written in line and ("[[" in line or "](" in line):
                votes[link.line - n] = votes.get(link.line - n, 0) + 1
    good = [(count, -offset) for offset, count in votes.items() if offset >= 0]
    return -max(good)[1] if good else 0


def _passage_spans(body: str) -> dict[int, tuple[int, int]]:
    """line -> the lines of the passage holding it: a paragraph, or one line of a list,
    table or quote (a list item, a row, a quoted line). Headings and code hold none."""
    out: dict[int, tuple[int, int]] = {}
    for block in blocks(body):
        if block.kind == "paragraph":
            for n in range(block.start, block.end):
                out[n] = (block.start, block.end)
        elif block.kind in ("list", "table", "quote"):
            for n in range(block.start, block.end):
                out[n] = (n, n + 1)
    return out


def _names_target(targets: dict[str, str], target: str) -> Callable[[str], bool]:
    return lambda written: targets.get(written) == target


def question_text(
    passage: str,
    hidden: Callable[[str], bool],
    resolved: Callable[[str], bool] | None = None,
) -> str:
    """The passage as a reader would type it: links to the hidden target replaced by
    ``…`` (display text too), other links by their text, embeds and markup dropped.
    ``hidden(written)``: whether a link written so (casefolded) is the hidden one;
    ``resolved(written)``: whether a link written so is one of the note's links to a
    note. A ``[[label|target]]`` whose label is not such a link but whose ``target`` is
    was resolved Dendron's way (indexer/resolve.py, rule 8): it is hidden when
    ``target`` is, and reads as its label."""

    def wiki(m: re.Match[str]) -> str:
        if m.group(1):
            return " "
        target, _, display = m.group(2).partition("|")
        name = target.partition("#")[0].strip()
        if hidden(name.casefold()):
            return HIDDEN
        other = display.partition("#")[0].strip().casefold()
        if resolved and other and not resolved(name.casefold()) and resolved(other):
            return HIDDEN if hidden(other) else target.strip()
        return display.strip() or name.rsplit("/", 1)[-1] or target.strip("#")

    def md(m: re.Match[str]) -> str:
        if m.group(1):
            return " "
        from urllib.parse import unquote

        path = unquote(m.group(3).strip("<>").partition("#")[0]).strip()
        if path and hidden(path.casefold()):
            return HIDDEN
        return m.group(2)

    text = WIKI_RE.sub(wiki, passage.replace("\\|", "|"))
    text = MD_RE.sub(md, text)
    text = BLOCK_ID_RE.sub("", text)
    text = LINE_MARK_RE.sub("", text)
    text = CALLOUT_RE.sub("", text)
    text = MARKUP_RE.sub("", text)
    return " ".join(text.split())


def _window(text: str, max_words: int) -> str:
    """At most ``max_words`` words: the sentence holding the hidden link and its
    neighbours, nearest first."""
    if len(text.split()) <= max_words:
        return text
    sentences = SENTENCE_END_RE.split(text)
    at = next((i for i, s in enumerate(sentences) if HIDDEN in s), 0)
    lo = hi = at
    words = len(sentences[at].split())
    while True:
        grew = False
        for j in (hi + 1, lo - 1):
            if 0 <= j < len(sentences) and not lo <= j <= hi:
                n = len(sentences[j].split())
                if words + n <= max_words:
                    lo, hi, words, grew = min(lo, j), max(hi, j), words + n, True
        if not grew:
            break
    chosen = " ".join(sentences[lo : hi + 1])
    words_ = chosen.split()
    if len(words_) > max_words:  # one sentence alone is too long: the words around the link
        at = next((i for i, w in enumerate(words_) if HIDDEN in w), 0)
        start = max(0, min(at - max_words // 2, len(words_) - max_words))
        chosen = " ".join(words_[start : start + max_words])
    return chosen


class HiddenLinkQuery:
    """Query mode, each question answered on the graph without its hidden links."""

    name = "graphrag"

    def __init__(
        self, rag: VaultRAG, hidden: dict[str, tuple[tuple[str, str], ...]], seed: int | None = 0
    ) -> None:
        self.rag = rag
        self.hidden = hidden
        self.seed = seed

    def run(
        self, questions: Sequence[Question], budgets: Sequence[int]
    ) -> dict[int, list[Retrieved]]:
        from graphrag.query.mode import run_query
        from graphrag.query.request import QueryRequest

        rag = self.rag
        snapshot = rag.snapshot
        corpus = snapshot.corpus
        out: dict[int, list[Retrieved]] = {b: [] for b in budgets}
        for q in questions:
            graph = snapshot.graph.without_links(self.hidden.get(q.id, ()))
            asked = QueryRequest.parse(q.question, rag.settings, seed=self.seed)
            vec = rag.embed_query(asked.search_text)
            for budget in budgets:
                result = run_query(
                    replace(asked, budget=budget),
                    index=snapshot.index,
                    graph=graph,
                    corpus=corpus,
                    vector=vec,
                    tokenizer=rag.tokenizer,
                )
                # Read as query mode's own system reads its answers (density included).
                out[budget].append(query_context(result.to_json(), rag.tokenizer))
        return out


def run_from_links(
    rag: VaultRAG,
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    systems: Sequence[str] = SYSTEMS,
    seed: int = 0,
    *,
    limit: int = DEFAULT_LIMIT,
    per_note: int = PER_NOTE,
) -> EvalReport:
    """``run_eval`` on questions from ``rag``'s own links: query mode (``graphrag``)
    and the ``hybrid`` baseline's graph votes see the graph without each question's
    link; ``vector`` and ``bm25`` read no links."""
    snapshot = rag.snapshot
    made = link_questions(snapshot.index, snapshot.graph, limit=limit, seed=seed, per_note=per_note)
    if not made:
        raise InvalidRequestError(
            "from_links",
            f"{rag.vault or rag.index_dir}: no body link between two notes "
            f"has a passage of {MIN_WORDS} words or more to ask with",
        )
    hidden = {m.question.id: m.hidden for m in made}
    chosen: list[str | System] = [_hiding(s, rag, hidden, seed) for s in systems]
    return run_eval(
        rag,
        [m.question for m in made],
        budgets,
        chosen,
        seed,
        label=f"from-links ({len(made)} links of {rag.vault or rag.index_dir})",
    )


def _hiding(
    name: str, rag: VaultRAG, hidden: dict[str, tuple[tuple[str, str], ...]], seed: int
) -> str | System:
    """The system ``name`` answering on each question's graph without its link."""
    if name == "graphrag":
        return HiddenLinkQuery(rag, hidden, seed)
    if name == "hybrid":
        return HybridSystem(rag, hidden=hidden)
    return name
