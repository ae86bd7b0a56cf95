"""Retrieval quality on a question set: does the returned context hold the gold notes?

A question set is JSON Lines, one ``{"id", "question", "gold": [uris], "type"}``
object per line (other fields are ignored; see benchmarks/qa/README.md). For
each budget and system the uris of the returned context are collected and
scored per question:

* recall: the share of the question's gold notes that are in the context (shown,
  or named as a copy: a note whose text is the same as a shown note's);
* all gold: 1 when every gold note is there (a question is only answerable
  from retrieval when all of them are), else 0;

and averaged per question type and overall, with the mean tokens used, the
notes shown and how the tokens split between note text, entry lists and the
rest (``context.py``): evidence density is notes, and recall, per 1,000 tokens.

Systems: ``graphrag`` (query mode: entry + related notes), the graph-free
baselines of ``baselines.py``, ``vector`` and ``bm25``, and ``hybrid`` (the
fused ranking of ``hybrid_search``), all packed the same way. A ``System``
object can stand in for any of them (tests use fixed answers).
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from graphrag.errors import InvalidRequestError, QASetError
from graphrag.eval.baselines import NoteBuilder, pack, rank_by_bm25, rank_by_hybrid, rank_by_vector
from graphrag.eval.context import Retrieved, query_context

if TYPE_CHECKING:
    from graphrag.api import VaultRAG
    from graphrag.snapshot.corpus import Corpus
    from indexer.embed import Embedder

SYSTEMS = ("graphrag", "vector", "bm25", "hybrid")
DEFAULT_BUDGETS = (1000, 2000, 4000)
ALL = "all"
# Known types come first in tables, in this order; others follow alphabetically.
TYPE_ORDER = ("single", "multi")


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    gold: tuple[str, ...]
    type: str


def load_questions(path: str | os.PathLike[str]) -> list[Question]:
    """Read a JSONL question set; any malformed line is an error naming its number."""
    name = str(path)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise QASetError(name, None, f"cannot read it ({exc})") from exc
    out: list[Question] = []
    seen: set[str] = set()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QASetError(name, n, f"not valid JSON ({exc.msg})") from exc
        question = _question(data, lambda reason, n=n: QASetError(name, n, reason))
        if question.id in seen:
            raise QASetError(name, n, f"duplicate id {question.id!r}")
        seen.add(question.id)
        out.append(question)
    if not out:
        raise QASetError(name, None, "no questions")
    return out


def _question(data: Any, error: Any) -> Question:
    if not isinstance(data, dict):
        raise error("expected a JSON object")
    for key in ("id", "question", "type"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise error(f"{key!r} must be a non-empty string")
    gold = data.get("gold")
    if not isinstance(gold, list) or not gold or not all(isinstance(g, str) and g for g in gold):
        raise error("'gold' must be a non-empty list of note uris")
    return Question(data["id"], data["question"], tuple(dict.fromkeys(gold)), data["type"])


# -- systems ------------------------------------------------------------------------------
class System(Protocol):
    name: str

    def run(
        self, questions: Sequence[Question], budgets: Sequence[int]
    ) -> dict[int, list[Retrieved]]:
        """Per budget, one ``Retrieved`` per question, in order."""
        ...


class QueryVectors:
    """The questions' embeddings, computed in one batch and shared by the baselines.

    Each question is embedded as query mode embeds it (its search text: ``#tags``
    turned into words), with the index's embedder.
    """

    def __init__(self, embedder: Embedder, questions: Sequence[Question]) -> None:
        from graphrag.query.entry import parse_query

        self.embedder = embedder
        self.texts = [parse_query(q.question).search_text or q.question for q in questions]
        self._matrix: np.ndarray | None = None

    @property
    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            self._matrix = np.asarray(self.embedder.embed(self.texts), dtype=np.float32)
        return self._matrix


class GraphRAGSystem:
    """Query mode: the uris of the entry notes and the related notes.

    Question by question, every budget in turn: query mode caches the last
    questions' vectors, so each question is embedded once.
    """

    name = "graphrag"

    def __init__(self, rag: VaultRAG, seed: int | None = 0) -> None:
        self.rag = rag
        self.seed = seed

    def run(
        self, questions: Sequence[Question], budgets: Sequence[int]
    ) -> dict[int, list[Retrieved]]:
        out: dict[int, list[Retrieved]] = {b: [] for b in budgets}
        for q in questions:
            for budget in budgets:
                data = self.rag.query(q.question, budget=budget, seed=self.seed).to_json()
                out[budget].append(query_context(data, self.rag.tokenizer))
        return out


class _PackedBaseline:
    """Rank once per question, then pack that ranking under every budget."""

    name = ""

    def __init__(
        self,
        rag: VaultRAG,
        vectors: QueryVectors | None = None,
        max_documents: int | None = None,
    ) -> None:
        self.rag = rag
        self.vectors = vectors
        # Query mode's own cap by default, so both sides pack by the same rules.
        cap = rag.settings.query.max_documents if max_documents is None else max_documents
        self.max_documents = cap if cap > 0 else sys.maxsize

    def rankings(self, corpus: Corpus, questions: Sequence[Question]) -> list[list[str]]:
        raise NotImplementedError

    def run(
        self, questions: Sequence[Question], budgets: Sequence[int]
    ) -> dict[int, list[Retrieved]]:

        snapshot = self.rag.snapshot  # one generation for the whole run
        corpus = snapshot.corpus
        vectors = self.vectors = self.vectors or QueryVectors(self.rag.embedder, questions)
        ranked = self.rankings(corpus, questions)
        # Query-aware details need each question's chunk scores, as query mode has.
        chunk_scores = vectors.matrix @ corpus.matrix.T if len(corpus.matrix) else None
        settings = self.rag.settings
        out: dict[int, list[Retrieved]] = {b: [] for b in budgets}
        for i, order in enumerate(ranked):
            scores = chunk_scores[i] if chunk_scores is not None else np.zeros(0, np.float32)
            build = NoteBuilder(snapshot.index, snapshot.graph, corpus, scores, settings)
            for budget in budgets:
                packed = pack(
                    order, budget, build.at(budget), self.rag.tokenizer, self.max_documents
                )
                out[budget].append(
                    Retrieved(
                        packed.uris,
                        packed.tokens,
                        text_tokens=packed.text_tokens,
                        relation_tokens=packed.relation_tokens,
                    )
                )
        return out


class VectorSystem(_PackedBaseline):
    """Notes ranked by their best chunk's cosine similarity to the question."""

    name = "vector"

    def rankings(self, corpus: Corpus, questions: Sequence[Question]) -> list[list[str]]:
        vectors = self.vectors = self.vectors or QueryVectors(self.rag.embedder, questions)
        return rank_by_vector(corpus, vectors.matrix)


class BM25System(_PackedBaseline):
    """Notes ranked by BM25 over their stemmed title, aliases and body."""

    name = "bm25"

    def rankings(self, corpus: Corpus, questions: Sequence[Question]) -> list[list[str]]:
        language = self.rag.settings.query.stemmer_language
        return rank_by_bm25(corpus, [q.question for q in questions], language)


class HybridSystem(_PackedBaseline):
    """Notes in the order of ``hybrid_search``: vector, BM25 and graph votes fused.

    ``hidden``: per question id, links its graph votes must not follow (``eval
    --from-links`` asks each question on the graph without its own link, as query
    mode answers it there; with the link, the source note would vote for the answer).
    """

    name = "hybrid"

    def __init__(
        self,
        rag: VaultRAG,
        vectors: QueryVectors | None = None,
        max_documents: int | None = None,
        hidden: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    ) -> None:
        super().__init__(rag, vectors, max_documents)
        self.hidden = hidden or {}

    def rankings(self, corpus: Corpus, questions: Sequence[Question]) -> list[list[str]]:
        vectors = self.vectors = self.vectors or QueryVectors(self.rag.embedder, questions)
        snapshot = self.rag.snapshot
        graph = snapshot.graph
        views = [
            graph.without_links(self.hidden[q.id]) if self.hidden.get(q.id) else graph
            for q in questions
        ]
        return rank_by_hybrid(
            snapshot.index,
            graph,
            corpus,
            self.rag.settings.query,
            vectors.matrix,
            [q.question for q in questions],
            views,
        )


# -- the report ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Outcome:
    """One question answered by one system under one budget."""

    question: Question
    system: str
    budget: int
    uris: tuple[str, ...]
    tokens: int
    copies: tuple[str, ...] = ()
    text_tokens: int = 0
    list_tokens: int = 0
    relation_tokens: int = 0

    @property
    def found(self) -> tuple[str, ...]:
        got = {*self.uris, *self.copies}
        return tuple(g for g in self.question.gold if g in got)

    @property
    def missing(self) -> tuple[str, ...]:
        got = {*self.uris, *self.copies}
        return tuple(g for g in self.question.gold if g not in got)

    @property
    def found_as_copy(self) -> tuple[str, ...]:
        """Gold notes found only as a named copy of a shown note."""
        shown = set(self.uris)
        return tuple(g for g in self.found if g not in shown)

    @property
    def recall(self) -> float:
        return len(self.found) / len(self.question.gold)

    @property
    def all_gold(self) -> bool:
        return not self.missing


@dataclass(frozen=True, slots=True)
class Row:
    """Means over the questions of one type (or ``all``) for one system and budget:
    recall, all-gold, tokens used, notes shown, and the tokens of note text, of
    entry lists and of the keys saying how notes relate."""

    system: str
    budget: int
    type: str
    n: int
    recall: float
    all_gold: float
    tokens: float
    notes: float = 0.0
    text_tokens: float = 0.0
    list_tokens: float = 0.0
    copies: int = 0  # gold notes found only as a named copy, summed
    relation_tokens: float = 0.0

    @property
    def notes_per_1k(self) -> float:
        """Evidence density: notes shown per 1,000 tokens used."""
        return 1000 * self.notes / self.tokens if self.tokens else 0.0

    @property
    def recall_per_1k(self) -> float:
        """Evidence density: gold-note recall per 1,000 tokens used."""
        return 1000 * self.recall / self.tokens if self.tokens else 0.0


@dataclass
class EvalReport:
    qa_path: str
    questions: tuple[Question, ...]
    budgets: tuple[int, ...]
    systems: tuple[str, ...]
    outcomes: tuple[Outcome, ...]
    seed: int | None = 0
    vault: str | None = None
    unknown_gold: tuple[str, ...] = ()  # gold uris that are not notes of the index
    seconds: dict[str, float] = field(default_factory=dict)

    @property
    def types(self) -> tuple[str, ...]:
        present = {q.type for q in self.questions}
        known = [t for t in TYPE_ORDER if t in present]
        return (*known, *sorted(present - set(TYPE_ORDER)))

    def outcomes_for(self, system: str, budget: int, qtype: str = ALL) -> list[Outcome]:
        return [
            o
            for o in self.outcomes
            if o.system == system and o.budget == budget and qtype in (ALL, o.question.type)
        ]

    def row(self, system: str, budget: int, qtype: str = ALL) -> Row:
        picked = self.outcomes_for(system, budget, qtype)
        n = len(picked)
        if n == 0:
            return Row(system, budget, qtype, 0, 0.0, 0.0, 0.0)
        return Row(
            system,
            budget,
            qtype,
            n,
            recall=sum(o.recall for o in picked) / n,
            all_gold=sum(o.all_gold for o in picked) / n,
            tokens=sum(o.tokens for o in picked) / n,
            notes=sum(len(o.uris) for o in picked) / n,
            text_tokens=sum(o.text_tokens for o in picked) / n,
            list_tokens=sum(o.list_tokens for o in picked) / n,
            relation_tokens=sum(o.relation_tokens for o in picked) / n,
            copies=sum(len(o.found_as_copy) for o in picked),
        )

    def rows(self) -> list[Row]:
        return [
            self.row(s, b, t)
            for b in self.budgets
            for s in self.systems
            for t in (*self.types, ALL)
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "qa": self.qa_path,
            "vault": self.vault,
            "seed": self.seed,
            "questions": {t: sum(q.type == t for q in self.questions) for t in self.types},
            "budgets": list(self.budgets),
            "systems": list(self.systems),
            "unknownGold": list(self.unknown_gold),
            "rows": [
                {
                    "system": r.system,
                    "budget": r.budget,
                    "type": r.type,
                    "n": r.n,
                    "recall": round(r.recall, 4),
                    "allGold": round(r.all_gold, 4),
                    "tokens": round(r.tokens, 1),
                    "notes": round(r.notes, 2),
                    "notesPer1k": round(r.notes_per_1k, 2),
                    "recallPer1k": round(r.recall_per_1k, 4),
                    "textTokens": round(r.text_tokens, 1),
                    "listTokens": round(r.list_tokens, 1),
                    "relationTokens": round(r.relation_tokens, 1),
                    "goldFoundAsCopy": r.copies,
                }
                for r in self.rows()
            ],
            "outcomes": [
                {
                    "id": o.question.id,
                    "system": o.system,
                    "budget": o.budget,
                    "missing": list(o.missing),
                    "tokens": o.tokens,
                    "uris": list(o.uris),
                    "copies": list(o.copies),
                }
                for o in self.outcomes
            ],
        }


# -- running ------------------------------------------------------------------------------
def run_eval(
    rag_or_path: VaultRAG | str | os.PathLike[str],
    qa_path: str | os.PathLike[str] | Sequence[Question],
    budgets: Sequence[int] = DEFAULT_BUDGETS,
    systems: Sequence[str | System] = SYSTEMS,
    seed: int | None = 0,
    *,
    index_dir: str | os.PathLike[str] | None = None,
    config: str | os.PathLike[str] | None = None,
    embedder: Embedder | None = None,
    max_documents: int | None = None,
    label: str | None = None,
) -> EvalReport:
    """Score each system's context on the question set at each budget.

    Args:
        rag_or_path: an open ``VaultRAG``, or a vault / index folder to open
            (indexing the vault into ``index_dir`` first if needed).
        qa_path: the JSONL question set, or the questions themselves (``label``
            then names them in the report, e.g. ``from-links``).
        budgets: token budgets; each system gets the same ones.
        systems: names from ``SYSTEMS`` or ``System`` objects.
        seed: passed to query mode so a run can be repeated exactly.
        index_dir, config, embedder: used only when opening a path.
        max_documents: the baselines' cap on notes per question; ``None`` is query
            mode's ``[query] max_documents`` (the same rules on both sides), 0 none.
    """
    if isinstance(qa_path, str | os.PathLike):
        questions = load_questions(qa_path)  # fail on a bad file before loading anything
        label = label or str(qa_path)
    else:
        questions = list(qa_path)
        if not questions:
            raise InvalidRequestError("questions", "no questions to evaluate")
    budgets = tuple(int(b) for b in budgets)
    if not budgets or any(b < 0 for b in budgets):
        raise InvalidRequestError("budgets", f"need one or more budgets >= 0, got {budgets}")
    names = [s if isinstance(s, str) else s.name for s in systems]
    unknown = [s for s in systems if isinstance(s, str) and s not in SYSTEMS]
    if unknown:
        raise InvalidRequestError(
            "systems", f"unknown system {unknown[0]!r}; expected one of {', '.join(SYSTEMS)}"
        )
    if len(set(names)) != len(names):
        raise InvalidRequestError("systems", f"each system once, got {names}")

    rag = _open(rag_or_path, index_dir, config, embedder)
    vectors = QueryVectors(rag.embedder, questions)
    built = [_system(s, rag, vectors, seed, max_documents) for s in systems]

    outcomes: list[Outcome] = []
    seconds: dict[str, float] = {}
    for system in built:
        started = time.perf_counter()
        per_budget = system.run(questions, budgets)
        seconds[system.name] = round(time.perf_counter() - started, 3)
        for budget in budgets:
            got = per_budget[budget]
            if len(got) != len(questions):
                raise InvalidRequestError(
                    "systems", f"{system.name} returned {len(got)} results for {len(questions)}"
                )
            outcomes.extend(
                Outcome(
                    q,
                    system.name,
                    budget,
                    r.uris,
                    r.tokens,
                    r.copies,
                    r.text_tokens,
                    r.list_tokens,
                    r.relation_tokens,
                )
                for q, r in zip(questions, got, strict=True)
            )

    graph = rag.graph
    missing_gold = sorted(
        {g for q in questions for g in q.gold if g not in graph or graph.info(g).kind != "note"}
    )
    return EvalReport(
        qa_path=label or "questions",
        questions=tuple(questions),
        budgets=budgets,
        systems=tuple(names),
        outcomes=tuple(outcomes),
        seed=seed,
        vault=str(rag.vault) if rag.vault else None,
        unknown_gold=tuple(missing_gold),
        seconds=seconds,
    )


def _open(
    rag_or_path: Any,
    index_dir: str | os.PathLike[str] | None,
    config: str | os.PathLike[str] | None,
    embedder: Embedder | None,
) -> VaultRAG:
    from graphrag.api import VaultRAG

    if isinstance(rag_or_path, VaultRAG):
        return rag_or_path
    return VaultRAG.open(rag_or_path, config=config, index_dir=index_dir, embedder=embedder)


def _system(
    spec: str | System,
    rag: VaultRAG,
    vectors: QueryVectors,
    seed: int | None,
    max_documents: int | None,
) -> System:
    if not isinstance(spec, str):
        return spec
    if spec == "graphrag":
        return GraphRAGSystem(rag, seed)
    if spec == "vector":
        return VectorSystem(rag, vectors, max_documents)
    if spec == "hybrid":
        return HybridSystem(rag, vectors, max_documents)
    return BM25System(rag, vectors, max_documents)
