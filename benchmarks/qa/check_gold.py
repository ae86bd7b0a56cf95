"""Check a QA benchmark file: ids unique, fields valid, every gold uri exists in the vault.

Usage: python benchmarks/qa/check_gold.py benchmarks/qa/kepano-obsidian.jsonl ../shared/vaults/kepano-obsidian
"""
import json
import sys
from pathlib import Path


def main(jsonl: str, vault: str) -> int:
    root = Path(vault)
    errors, seen, counts = [], set(), {"single": 0, "multi": 0}
    for n, line in enumerate(Path(jsonl).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        q = json.loads(line)
        qid = q.get("id")
        if qid in seen:
            errors.append(f"line {n}: duplicate id {qid}")
        seen.add(qid)
        if q.get("type") not in counts:
            errors.append(f"{qid}: bad type {q.get('type')!r}")
        else:
            counts[q["type"]] += 1
        if not q.get("question"):
            errors.append(f"{qid}: empty question")
        gold = q.get("gold") or []
        if not gold:
            errors.append(f"{qid}: empty gold")
        if q.get("type") == "multi" and (len(gold) < 2 or not q.get("why")):
            errors.append(f"{qid}: multi needs >=2 gold and a 'why'")
        for uri in gold:
            if uri.endswith(".md") or "\\" in uri or not (root / f"{uri}.md").is_file():
                errors.append(f"{qid}: gold not found: {uri}")
    for e in errors:
        print(e)
    print(f"{len(seen)} questions {counts}, {len(errors)} errors")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
