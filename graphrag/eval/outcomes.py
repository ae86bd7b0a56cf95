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
            named_copies=sum(len(o.copies) for o in picked) / n,
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
                    "namedCopies": round(r.named_copies, 2),
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
