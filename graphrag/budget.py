"""Token counting, truncation and selection under a budget (docs/architecture.md, "Focus mode: budget").

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
from typing import Generic, Protocol, TypeVar

from graphrag.results.notes import SkippedNote

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
    """Traversal-time estimate of a candidate's cost (docs/architecture.md, "Focus mode: traversal")."""
    return tokenizer.count(truncated_details) + NOTE_OVERHEAD_TOKENS


class Item(Protocol):
    @property
    def uri(self) -> str: ...

    @property
    def title(self) -> str: ...


ItemT = TypeVar("ItemT", bound=Item)


@dataclass(frozen=True, slots=True)
class Selection(Generic[ItemT]):
    selected: tuple[ItemT, ...]
    skipped: tuple[SkippedNote, ...]
    tokens_used: int


def select(
    ranked: Iterable[ItemT],
    budget: int,
    render: Callable[[ItemT], str],
    tokenizer: TokenCounter,
    report_all: bool = True,
    *,
    at_least: Callable[[ItemT], int] | None = None,
) -> Selection[ItemT]:
    """Take items in rank order while each one's rendered form fits what is left.

    The cost of an item is ``tokenizer.count(render(item))``. An item too big for
    the rest is skipped and the next one tried, so one long note does not hide
    several short ones behind it. ``at_least`` is a cheap lower bound on that cost
    (e.g. the note's details alone, which its rendered form contains): items it
    already rules out are skipped unrendered, which is most of them once the
    budget is nearly spent; such skips carry no ``tokens``. ``ranked`` may be
    lazy: without ``report_all`` it is not consumed past the point where nothing
    more can fit.
    """
    remaining = max(budget, 0)
    selected: list[ItemT] = []
    skipped: list[SkippedNote] = []
    for item in ranked:
        if remaining < MIN_NOTE_TOKENS:
            if not report_all:
                break
            skipped.append(SkippedNote(item.uri, item.title, "budget"))
            continue
        if at_least is not None and at_least(item) > remaining:
            skipped.append(SkippedNote(item.uri, item.title, "budget"))
            continue
        tokens = tokenizer.count(render(item))
        if tokens <= remaining:
            selected.append(item)
            remaining -= tokens
        else:
            skipped.append(SkippedNote(item.uri, item.title, "budget", tokens))
    return Selection(tuple(selected), tuple(skipped), max(budget, 0) - remaining)
