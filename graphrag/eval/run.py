"""Retrieval quality on a question set: does the returned context hold the gold notes?

A question set (``questions.py``) is asked of each system (``systems.py``). For
each budget and system the uris of the returned context are collected and
scored per question:

* recall: the share of the question's gold notes that are in the context (shown,
  or named as a copy: a note whose text is the same as a shown note's);
* all gold: 1 when every gold note is there (a question is only answerable
  from retrieval when all of them are), else 0;

and averaged per question type and overall, with the mean tokens used, the
notes shown and how the tokens split between note text, entry lists and the
rest (``context.py``): evidence density is notes, and recall, per 1,000 tokens
(``outcomes.py``). Where a question has a reference answer, the share of its words
in the context and in the gold notes' text (``answers.py``).
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from graphrag.errors import InvalidRequestError
from graphrag.eval.answers import answer_shares
from graphrag.eval.outcomes import EvalReport, Outcome
from graphrag.eval.questions import Question, load_questions
from graphrag.eval.systems import SYSTEMS, QueryVectors, System, make_system

if TYPE_CHECKING:
    from graphrag.api import VaultRAG
    from indexer.embed import Embedder

DEFAULT_BUDGETS = (1000, 2000, 4000)


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
            mode's rule (the same rules on both sides): ``[query] max_documents`` if
            set, else none, as query mode's fill goes past its 15 notes; 0 none.
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
    built = [make_system(s, rag, vectors, seed, max_documents) for s in systems]

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
                    answer_shares(q.answer, q.question, r.shown, q.gold) if q.answer else None,
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
