"""Token counting, truncation and selection under a budget (seed requirements 8.4).

What a note costs is the token count of exactly the text emitted for it, so
the budget holds for what the model reads. The canonical rendered form of a
related note is chosen per output format by ``render.note_renderer``: the note's
JSON object serialised compactly, or its block in the Markdown prompt. Text
around the notes (array brackets, headings, the focus note) is not counted: the
budget excludes the focus note by definition, and the glue is a few tokens.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol

from .model import RelatedNote, SkippedNote

ELLIPSIS = "…"

# Added to a note's truncated details when estimating the pool during traversal:
# title, uri, parent, relation and JSON punctuation come to about this much.
NOTE_OVERHEAD_TOKENS = 30

# No rendered note is smaller than this, so once less is left nothing more can fit
# and the remaining candidates need not be counted.
MIN_NOTE_TOKENS = 8


class TokenCounter(Protocol):
    def count(self, text: str) -> int: ...


def truncate(details: str, limit: int) -> tuple[str, bool]:
    """First ``limit`` characters plus an ellipsis; ``(text, was_truncated)``."""
    if len(details) <= limit:
        return details, False
    return details[:limit] + ELLIPSIS, True


def estimate(truncated_details: str, tokenizer: TokenCounter) -> int:
    """Traversal-time estimate of a candidate's cost (seed 8.5)."""
    return tokenizer.count(truncated_details) + NOTE_OVERHEAD_TOKENS


@dataclass(frozen=True, slots=True)
class Selection:
    selected: tuple[RelatedNote, ...]
    skipped: tuple[SkippedNote, ...]
    tokens_used: int


def select(
    ranked: Iterable[RelatedNote],
    budget: int,
    render: Callable[[RelatedNote], str],
    tokenizer: TokenCounter,
    report_all: bool = True,
) -> Selection:
    """Take notes in rank order while each one's rendered form fits what is left.

    A note too big for the rest is skipped and the next one tried, so one long
    note does not hide several short ones behind it. ``ranked`` may be lazy:
    without ``report_all`` it is not consumed past the point where nothing fits.
    """
    remaining = max(budget, 0)
    selected: list[RelatedNote] = []
    skipped: list[SkippedNote] = []
    for note in ranked:
        if remaining < MIN_NOTE_TOKENS:
            if not report_all:
                break
            skipped.append(SkippedNote(note.uri, note.title, "budget"))
            continue
        tokens = tokenizer.count(render(note))
        if tokens <= remaining:
            selected.append(note)
            remaining -= tokens
        else:
            skipped.append(SkippedNote(note.uri, note.title, "budget", tokens))
    return Selection(tuple(selected), tuple(skipped), max(budget, 0) - remaining)
