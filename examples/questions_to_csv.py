"""Answer a list of questions from your notes into a CSV file, with any llm model.

    python examples/questions_to_csv.py ~/Notes questions.txt -m llama3.2 --out answers.csv

questions.txt holds one question a line. The CSV has the question, the answer,
the notes it cites and every note it was given (as [[uri]] links), the seconds
the model took, and the error if one occurred. The work is kept in OUT.jsonl,
so an interrupted run continues where it stopped.
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

from graphrag import VaultRAG
from graphrag.answer.citations import cited
from graphrag.batch.run import Item, read_records, run_batch


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("vault")
    parser.add_argument("questions", help="a text file, one question a line")
    parser.add_argument("-m", "--model", required=True, help="an llm model id or alias")
    parser.add_argument("--out", default="answers.csv")
    parser.add_argument("--budget", type=int, help="context tokens per question")
    parser.add_argument("--index-dir", help="where the index lives (default VAULT/.graphrag)")
    args = parser.parse_args(argv)

    lines = Path(args.questions).read_text(encoding="utf-8").splitlines()
    questions = [Item(n, n, "query", q.strip()) for n, q in enumerate(lines, 1) if q.strip()]
    rag = VaultRAG.open(args.vault, index_dir=args.index_dir)
    work = Path(args.out + ".jsonl")
    run_batch(rag, questions, work, model=args.model, budget=args.budget)

    records = {r["id"]: r for r in read_records(work)}
    with open(args.out, "w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["question", "answer", "cited", "sources", "seconds", "error"])
        for item in questions:
            r = records.get(item.id)
            if r is None:
                continue
            answer, sources = r.get("answer") or "", r.get("sources") or []
            links = " ".join(f"[[{uri}]]" for uri in cited(answer, sources))
            every = " ".join(f"[[{uri}]]" for uri in sources)
            seconds = r.get("seconds", {}).get("model", "")
            writer.writerow([item.text, answer, links, every, seconds, r.get("error") or ""])
    print(f"{args.out}: {len(records)} of {len(questions)} questions answered")


if __name__ == "__main__":
    main()
