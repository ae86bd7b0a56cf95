"""Summarise every note of a folder into one Markdown file, with any llm model.

    llm install llm-ollama && ollama pull llama3.2      # a local model: notes stay here
    python examples/summarise_folder.py ~/Notes Projects -m llama3.2 --out projects.md

Each summary uses the note's focus context (parent, children, links, backlinks).
The work is kept in OUT.jsonl: after Ctrl-C or a failure, run the same command
again and only the missing notes are summarised.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from graphrag import VaultRAG
from graphrag.batch.run import note_items, read_records, run_batch


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("vault")
    parser.add_argument("folder", help="vault-relative folder, e.g. Projects")
    parser.add_argument("-m", "--model", required=True, help="an llm model id or alias")
    parser.add_argument("--out", default="summaries.md")
    parser.add_argument("--budget", type=int, default=3000, help="context tokens per note")
    parser.add_argument("--index-dir", help="where the index lives (default VAULT/.graphrag)")
    args = parser.parse_args(argv)

    rag = VaultRAG.open(args.vault, index_dir=args.index_dir)
    notes = note_items(rag, folders=[args.folder], mode="summarise")
    work = Path(args.out + ".jsonl")
    stats = run_batch(rag, notes, work, model=args.model, budget=args.budget, workers=2)

    records = {r["id"]: r for r in read_records(work)}
    lines = [f"# {args.folder}: summaries", ""]
    for note in notes:  # in the folder's order, whatever order they finished in
        record = records.get(note.id)
        if record is None:
            continue
        lines += [f"## [[{note.id}]]", ""]
        lines += [record.get("summary") or f"*Not summarised: {record['error']}*", ""]
    Path(args.out).write_text("\n".join(lines), encoding="utf-8")
    print(f"{args.out}: {len(records)} of {len(notes)} notes ({stats.errors} errors this run)")


if __name__ == "__main__":
    main()
