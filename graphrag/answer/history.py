"""Follow-up questions: earlier turns of a conversation, for the prompt and for retrieval.

The model gets the last ``[llm] history_turns`` turns as text just before the new
question (every ``llm`` model reads a prompt; not every plugin reads ``llm``'s
conversation objects).

Retrieval gets the new question plus what "it" or "that note" can refer to: the
previous question, and the titles of the notes the previous answer cites. A title
written in a question makes its note an entry (query mode's title match), so the notes
the conversation is about stay in the context, and the previous question's words steer
the vectors and BM25 towards its topic. Only the last turn counts: older turns are
what the previous retrieval already followed. See docs/architecture.md ("Answers").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from graphrag.answer.citations import link_targets

# At most this many notes cited by the previous answer are named to retrieval: beyond
# a handful, their titles would outweigh the new question's own words.
MAX_FOLLOWED_NOTES = 5


@dataclass(frozen=True)
class Turn:
    """One earlier question and the answer it got."""

    question: str
    answer: str

    def to_json(self) -> dict[str, str]:
        return {"question": self.question, "answer": self.answer}


def history_block(turns: Sequence[Turn], kind: str) -> str:
    """The turns as the prompt shows them ("" for none): a query prompt's upper-case
    section, or a focus prompt's ``#`` heading."""
    if not turns:
        return ""
    head = "EARLIER IN THIS CONVERSATION:" if kind == "query" else "# Earlier in this conversation"
    pairs = [f"Q: {t.question.strip()}\nA: {t.answer.strip()}" for t in turns]
    gap = "\n" if kind == "query" else "\n\n"
    return head + gap + "\n\n".join(pairs)


def retrieval_text(
    question: str, turns: Sequence[Turn], title_of: Callable[[str], str | None]
) -> str:
    """The text query mode searches with: ``question``, then the last turn's question
    and the titles of the notes its answer links to (``title_of`` resolves a link target
    in the vault, None when it names no note)."""
    if not turns:
        return question
    last = turns[-1]
    titles: list[str] = []
    for target in link_targets(last.answer):
        title = title_of(target)
        if title and title not in titles:
            titles.append(title)
        if len(titles) == MAX_FOLLOWED_NOTES:
            break
    extra = [t for t in (last.question.strip(), *titles) if t]
    return "\n".join([question.strip(), *extra])
