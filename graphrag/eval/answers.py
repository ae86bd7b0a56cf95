"""Does a context hold the answer? Answer words found in the text it shows.

Recall scores which notes a context holds; a rule that shows more notes in less
text each raises recall and notes per 1,000 tokens while it may cut the passage
that answers. A question set's reference ``answer`` (benchmarks/qa/README.md)
gives a second check: the share of the answer's content words (three letters or
more, or a number; not stop words, not words of the question) that occur in the
notes the context shows (uri, title and text), and the same share in the gold
notes' text alone. A word-level check, not a judge of answers: compare systems or
trees on the same set and index, never across sets.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

STOP = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "but",
        "not",
        "you",
        "your",
        "its",
        "their",
        "them",
        "they",
        "what",
        "which",
        "who",
        "when",
        "where",
        "how",
        "why",
        "does",
        "did",
        "can",
        "could",
        "would",
        "should",
        "will",
        "into",
        "onto",
        "over",
        "under",
        "then",
        "than",
        "also",
        "only",
        "just",
        "each",
        "every",
        "more",
        "most",
        "some",
        "any",
        "all",
        "one",
        "two",
    ]
)
WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?")

# One note as shown: its uri and the text the words are read from.
Shown = tuple[str, str]


def words(text: str) -> set[str]:
    """Content words of ``text``: case-folded, three letters or more or a number."""
    return {
        w for w in WORD.findall(text.casefold()) if (len(w) >= 3 or w.isdigit()) and w not in STOP
    }


def wanted(answer: str, question: str) -> set[str]:
    """The answer's words a context must hold: those the question does not already
    give (all of them when the question gives every one)."""
    return words(answer) - words(question) or words(answer)


def shown_text(uri: str, title: str, details: str) -> str:
    """A shown note's words' source: uri, title and details."""
    return f"{uri} {title} {details}"


def answer_shares(
    answer: str, question: str, shown: Sequence[Shown], gold: Sequence[str]
) -> tuple[float, float] | None:
    """The shares of the answer's words in the whole context and in the gold notes'
    text; ``None`` when the question has no answer to look for."""
    want = wanted(answer, question)
    if not want:
        return None
    everything = words(" ".join(text for _, text in shown))
    in_gold = words(" ".join(text for uri, text in shown if uri in gold))
    return len(want & everything) / len(want), len(want & in_gold) / len(want)
