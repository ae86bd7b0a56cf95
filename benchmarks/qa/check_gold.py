"""Check QA benchmark files: ids unique, fields valid, every gold uri exists in the vault
and is indexed (not in the vault's templates folder, which the index leaves out).

Usage:
    python benchmarks/qa/check_gold.py                      # every known set with its vault
    python benchmarks/qa/check_gold.py QA.jsonl --vault VAULT
    python benchmarks/qa/check_gold.py QA.jsonl VAULT       # the older two-argument form
"""

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(REPO))
from indexer.scan import read_template_folders  # noqa: E402  (the index's own rule)

# Each set belongs to one vault; paths as seen from the repository root.
KNOWN_SETS = {
    "kepano.jsonl": REPO.parent / "shared" / "vaults" / "kepano-obsidian",
    "sample_vault.jsonl": REPO / "sample_vault",
    "dendron.jsonl": REPO.parent / "shared" / "vaults" / "dendron-site",
    "obsidian-help.jsonl": REPO.parent / "shared" / "vaults" / "obsidian-help",
    "dnd-srd.jsonl": REPO.parent / "shared" / "vaults" / "dnd-srd-wiki",
    "obsidian-hub.jsonl": REPO.parent / "shared" / "vaults" / "obsidian-hub",
    "obsidian-help-2.jsonl": REPO.parent / "shared" / "vaults" / "obsidian-help",
    "dendron-2.jsonl": REPO.parent / "shared" / "vaults" / "dendron-site",
    "dnd-srd-2.jsonl": REPO.parent / "shared" / "vaults" / "dnd-srd-wiki",
    "obsidian-hub-2.jsonl": REPO.parent / "shared" / "vaults" / "obsidian-hub",
    "obsidian-help-3.jsonl": REPO.parent / "shared" / "vaults" / "obsidian-help",
    "dnd-srd-3.jsonl": REPO.parent / "shared" / "vaults" / "dnd-srd-wiki",
    "obsidian-hub-3.jsonl": REPO.parent / "shared" / "vaults" / "obsidian-hub",
    "dendron-3.jsonl": REPO.parent / "shared" / "vaults" / "dendron-site",
}


def check(jsonl: Path, vault: Path) -> int:
    """Print problems and a summary for one set; return the number of errors."""
    errors, seen, counts = [], set(), {"single": 0, "multi": 0}
    if not vault.is_dir():
        print(f"{jsonl.name}: vault not found: {vault}")
        return 1
    templates = read_template_folders(vault, [])
    for n, line in enumerate(jsonl.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"line {n}: not JSON ({exc.msg})")
            continue
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
            if uri.endswith(".md") or "\\" in uri or not (vault / f"{uri}.md").is_file():
                errors.append(f"{qid}: gold not found: {uri}")
            elif any(uri.startswith(folder + "/") for folder in templates):
                errors.append(f"{qid}: gold {uri} is a template: the index leaves it out")
    for e in errors:
        print(f"{jsonl.name}: {e}")
    print(f"{jsonl.name}: {len(seen)} questions {counts}, {len(errors)} errors")
    return len(errors)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", help="QA JSONL files (default: every known set)")
    parser.add_argument("--vault", help="the vault the files belong to")
    args = parser.parse_args(argv)
    files = [Path(f) for f in args.files]
    vault = Path(args.vault) if args.vault else None
    if vault is None and len(files) == 2 and files[1].is_dir():
        files, vault = files[:1], files[1]
    if not files:
        pairs = [(HERE / name, path) for name, path in KNOWN_SETS.items()]
    elif vault is not None:
        pairs = [(f, vault) for f in files]
    else:
        unknown = [f.name for f in files if f.name not in KNOWN_SETS]
        if unknown:
            parser.error(f"--vault is needed for {', '.join(unknown)}")
        pairs = [(f, KNOWN_SETS[f.name]) for f in files]
    errors = sum(check(f, v) for f, v in pairs)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
