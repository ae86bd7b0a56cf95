"""Where a packed note's tokens go: query mode's notes by kind against the vector baseline's.

``eval`` reports notes per 1,000 tokens, which is the inverse of a note's mean cost,
and the shares of the budget spent on text, lists and relations. This script says
which notes and which keys the cost is in: for each kind of note query mode packs
(entries, related notes, search hits: relation ``MatchesQuestion``) and for the
vector baseline's notes (rendered as query mode renders a search hit,
``eval/baselines.py``), the notes a question and the mean tokens a note of each JSON
key, counted as the budget counts them (compact JSON, the index's token counter).
Then a bound: query mode's notes per 1,000 tokens if the keys a baseline note never
has (``QUERY_ONLY``) cost nothing, and if the entries' text were also cut to the
baseline's mean, with the same notes shown. A cut that the bound shows cannot reach
a target is not worth building (benchmarks/RESULTS.md, "Evidence per token").

    PYTHONPATH=<tree> python benchmarks/note_costs.py benchmarks/qa/kepano.jsonl \\
        --vault /tmp/team/idx/kepano-obsidian [--budget 1000]
    python benchmarks/note_costs.py --smoke     # the sample vault, hashing embedder
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.append(str(ROOT))  # after PYTHONPATH: a copy of the tree there is measured

from benchmarks.common import opened_qa, qa_parser  # noqa: E402
from graphrag.api import VaultRAG  # noqa: E402
from graphrag.eval.baselines import NoteBuilder, pack, rank_by_vector  # noqa: E402
from graphrag.eval.questions import load_questions  # noqa: E402
from graphrag.eval.systems import QueryVectors  # noqa: E402
from graphrag.results.query import LIST_KEYS  # noqa: E402

KINDS = ("entry", "related", "hit", "vector")
# The keys of query mode's notes that a baseline note (a search hit) never has.
QUERY_ONLY = {
    "entry": ("matchedBy", "tags", *sorted(LIST_KEYS), "copies"),
    "related": (
        "focusUri",
        "predicate",
        "objectUriAndTitle",
        "subjectUriAndTitle",
        "sharedTags",
        "copies",
    ),
    "hit": ("copies",),
}
_COMPACT = (",", ":")


class Costs:
    """Notes counted by kind: how many, and the tokens of each key (``_all``: the note)."""

    def __init__(self, count: Any) -> None:
        self.count = count
        self.notes: Counter[str] = Counter()
        self.keys: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
        self.used: Counter[str] = Counter()

    def tokens(self, value: Mapping[str, Any]) -> int:
        return int(self.count(json.dumps(value, ensure_ascii=False, separators=_COMPACT)))

    def add(self, kind: str, note: Mapping[str, Any]) -> None:
        self.notes[kind] += 1
        self.keys[kind]["_all"] += self.tokens(note)
        for key, value in note.items():
            self.keys[kind][key] += self.tokens({key: value})

    def mean(self, kind: str, key: str) -> float:
        return self.keys[kind][key] / self.notes[kind] if self.notes[kind] else 0.0


def measure(rag: VaultRAG, qa: Path, budget: int) -> Costs:
    questions = load_questions(qa)
    costs = Costs(rag.tokenizer.count)
    for q in questions:
        data = rag.query(q.question, budget=budget, seed=0).to_json()
        costs.used["graphrag"] += int(data["tokens"]["used"])
        for note in data["entryNotes"]:
            costs.add("entry", note)
        for note in data["relatedNotes"]:
            hit = note.get("relationToFocusNote") == "MatchesQuestion"
            costs.add("hit" if hit else "related", note)
    snapshot = rag.snapshot
    corpus = snapshot.corpus
    vectors = QueryVectors(rag.embedder, questions)
    chunk_scores = vectors.matrix @ corpus.matrix.T
    # The baselines' rule (eval/systems.py): query mode's cap if set, else none.
    cap = rag.settings.query.max_documents or sys.maxsize
    for i, order in enumerate(rank_by_vector(corpus, vectors.matrix)):
        build = NoteBuilder(snapshot.index, snapshot.graph, corpus, chunk_scores[i], rag.settings)
        packed = pack(order, budget, build.at(budget), rag.tokenizer, cap)
        costs.used["vector"] += packed.tokens
        for uri in packed.uris:
            costs.add("vector", build(uri, budget).to_json(with_explain=False))
    costs.notes["questions"] = len(questions)
    return costs


def report(costs: Costs, name: str, budget: int) -> list[str]:
    n = costs.notes["questions"]
    shown = sum(costs.notes[k] for k in KINDS[:3])
    lines = [
        f"{name} @{budget}: {n} questions; graphrag {shown / n:.2f} notes, "
        f"{costs.used['graphrag'] / n:.0f} tokens a question; vector "
        f"{costs.notes['vector'] / n:.2f} notes, {costs.used['vector'] / n:.0f} tokens",
        "| key | " + " | ".join(KINDS) + " |",
        "| --- |" + " ---: |" * len(KINDS),
        "| notes a question | " + " | ".join(f"{costs.notes[k] / n:.2f}" for k in KINDS) + " |",
    ]
    keys = sorted(
        {key for k in KINDS for key in costs.keys[k]},
        key=lambda key: (key != "_all", -sum(costs.keys[k][key] for k in KINDS), key),
    )
    for key in keys:
        cells = " | ".join(f"{costs.mean(k, key):.1f}" for k in KINDS)
        lines.append(f"| {'a note, all keys' if key == '_all' else key} | {cells} |")
    extra = sum(costs.keys[k][key] for k, ks in QUERY_ONLY.items() for key in ks)
    over = costs.notes["entry"] * max(
        0.0, costs.mean("entry", "details") - costs.mean("vector", "details")
    )
    used = costs.used["graphrag"]

    def per_1k(notes: float, tokens: float) -> str:
        return f"{1000 * notes / tokens:.2f}" if tokens > 0 else "-"

    lines.append(
        f"notes per 1,000 tokens: graphrag {per_1k(shown, used)}; with the query-mode-only "
        f"keys free ({extra / n:.1f} tokens a question) {per_1k(shown, used - extra)}; and "
        f"the entries' text at the baseline's mean {per_1k(shown, used - extra - over)}; "
        f"vector {per_1k(costs.notes['vector'], costs.used['vector'])}"
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = qa_parser(__doc__.split("\n")[0], "a JSONL question set", "1000")
    args = parser.parse_args(argv)
    with opened_qa(parser, args) as (rag, qa, budgets):
        for budget in budgets:
            print("\n".join(report(measure(rag, qa, budget), qa.stem, budget)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
