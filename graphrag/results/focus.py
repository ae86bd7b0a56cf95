"""Focus mode's result: the focus note and its related notes (JSON shape in ``results.notes``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphrag.results.notes import FocusNote, RelatedNote, SkippedNote


@dataclass(frozen=True, slots=True)
class GraphRAGResult:
    """``skipped`` is ``None`` unless the caller asked for ``explain``."""

    focus_note: FocusNote
    related_notes: tuple[RelatedNote, ...] = ()
    tokens_used: int = 0
    budget: int = 0
    skipped: tuple[SkippedNote, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "focusNote": self.focus_note.to_json(),
            "relatedNotes": [n.to_json() for n in self.related_notes],
        }
        if self.skipped is not None:
            out["skipped"] = [s.to_json() for s in self.skipped]
            out["tokensUsed"] = self.tokens_used
            out["budget"] = self.budget
        return out
