"""What ``eval`` measured: each question's outcome per system and budget, and the
means per question type (``Row``): recall, all gold, tokens, and evidence density
(notes, and recall, per 1,000 tokens)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphrag.eval.questions import Question

ALL = "all"
# Known types come first in tables, in this order; others follow alphabetically.
TYPE_ORDER = ("single", "multi")


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
    # The answer's words found in the context, and in the gold notes' text (``answers.py``);
    # None when the question has no reference answer.
    answer_words: tuple[float, float] | None = None

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
    recall, all-gold, tokens used, notes shown and named as copies, and the tokens of
    note text, of entry lists and of the keys saying how notes relate."""

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
    named_copies: float = 0.0  # notes named as holding a shown note's text, not shown
    # Means over the questions with a reference answer; None when none has one.
    answer_words: float | None = None
    answer_words_gold: float | None = None

    @property
    def notes_per_1k(self) -> float:
        """Evidence density: notes whose text the context gives per 1,000 tokens used:
        the notes shown and those named as a copy of one, as recall counts them. A
        baseline that shows both copies counts both; one that names the second counts
        it too, at the cost of its name."""
        return 1000 * (self.notes + self.named_copies) / self.tokens if self.tokens else 0.0

    @property
    def recall_per_1k(self) -> float:
        """Evidence density: gold-note recall per 1,000 tokens used."""
        return 1000 * self.recall / self.tokens if self.tokens else 0.0

    def to_json(self) -> dict[str, Any]:
        answers = (
            (self.answer_words, self.answer_words_gold) if self.answer_words is not None else None
        )
        return {
            "system": self.system,
            "budget": self.budget,
            "type": self.type,
            "n": self.n,
            "recall": round(self.recall, 4),
            "allGold": round(self.all_gold, 4),
            "tokens": round(self.tokens, 1),
            "notes": round(self.notes, 2),
            "namedCopies": round(self.named_copies, 2),
            "notesPer1k": round(self.notes_per_1k, 2),
            "recallPer1k": round(self.recall_per_1k, 4),
            "textTokens": round(self.text_tokens, 1),
            "listTokens": round(self.list_tokens, 1),
            "relationTokens": round(self.relation_tokens, 1),
            "goldFoundAsCopy": self.copies,
            **_answer_json(answers),
        }


def _answer_json(shares: tuple[float | None, float | None] | None) -> dict[str, float]:
    """``answerWords`` and ``answerWordsGold`` (shares), when there is an answer."""
    if shares is None or shares[0] is None or shares[1] is None:
        return {}
    return {"answerWords": round(shares[0], 4), "answerWordsGold": round(shares[1], 4)}


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
        answered = [o.answer_words for o in picked if o.answer_words is not None]
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
            named_copies=sum(len(o.copies) for o in picked) / n,
            answer_words=sum(a for a, _ in answered) / len(answered) if answered else None,
            answer_words_gold=sum(g for _, g in answered) / len(answered) if answered else None,
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
            "rows": [r.to_json() for r in self.rows()],
            "outcomes": [
                {
                    "id": o.question.id,
                    "system": o.system,
                    "budget": o.budget,
                    "missing": list(o.missing),
                    "tokens": o.tokens,
                    "uris": list(o.uris),
                    "copies": list(o.copies),
                    **_answer_json(o.answer_words),
                }
                for o in self.outcomes
            ],
        }
