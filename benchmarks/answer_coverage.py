"""Does query mode's context still hold the answer? Answer words found in the text shown.

``eval`` scores which notes are in the context (recall); a packing rule that shows
more notes in less text per note raises recall and notes per 1,000 tokens while it
may cut the passage that answers. The hand-written sets (``benchmarks/qa/``) carry a
reference ``answer``: this script counts, per question, the share of the answer's
content words (three letters or more, or a number; not stop words, not words of the
question) that occur in the context (every note's uri, title and details), and the
same share in the gold notes' text alone; means per budget (the counting is
``graphrag/eval/answers.py``, which ``eval`` also reports for every system). A
word-level check, not a judge of answers: compare two trees on the same index, never
across sets.

    PYTHONPATH=<tree> python benchmarks/answer_coverage.py benchmarks/qa/kepano.jsonl \
        --vault /tmp/q4/idx/kepano-obsidian [--budget 1000,2000,4000]
    python benchmarks/answer_coverage.py --smoke     # the sample vault, hashing embedder
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # after PYTHONPATH: a copy of the tree there is measured

from benchmarks.common import opened_qa, qa_parser  # noqa: E402
from graphrag.api import VaultRAG  # noqa: E402
from graphrag.eval.answers import answer_shares, shown_text  # noqa: E402


def coverage(rag: VaultRAG, questions: list[dict], budget: int) -> tuple[float, float]:
    """Mean share of answer words in the whole context, and in the gold notes' text."""
    whole = gold = 0.0
    for q in questions:
        result = rag.query(q["question"], budget=budget, seed=0)
        shown = [
            (d.uri, shown_text(d.uri, d.title, d.note.details))
            for d in (*result.entries, *result.related)
        ]
        shares = answer_shares(q["answer"], q["question"], shown, q["gold"])
        if shares is not None:
            whole, gold = whole + shares[0], gold + shares[1]
    return whole / len(questions), gold / len(questions)


def main(argv: list[str] | None = None) -> int:
    parser = qa_parser(
        __doc__.split("\n")[0], "a JSONL question set with `answer` fields", "1000,2000,4000"
    )
    args = parser.parse_args(argv)
    with opened_qa(parser, args) as (rag, qa, budgets):
        lines = qa.read_text(encoding="utf-8").splitlines()
        questions = [q for q in map(json.loads, filter(str.strip, lines)) if q.get("answer")]
        if not questions:
            parser.error(f"{qa}: no question has an `answer`")
        print(f"{qa.name}: {len(questions)} questions with an answer")
        print("| budget | answer words in the context | in the gold notes' text |")
        print("| ---: | ---: | ---: |")
        for budget in budgets:
            whole, gold = coverage(rag, questions, budget)
            print(f"| {budget} | {100 * whole:.1f} | {100 * gold:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
