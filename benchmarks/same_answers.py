"""Do two indexes of the same vault give byte-identical query answers?

For a change that must not change answers (the packer's floor from the per-chunk token
counts: an index without the counts packs as before), ask the same questions of both:
the titles of the notes with the most links and of random notes (``bench_tail``'s
set with the defaults), at budgets 1,000/2,000/4,000, JSON and prompt, and compare
``json_text`` and ``render_prompt``. Prints the differing runs and a summary.

    python benchmarks/same_answers.py BEFORE_INDEX AFTER_INDEX [--hubs 40] [--questions 100]
    python benchmarks/same_answers.py A B --hash384   # indexes made with bench's hashing embedder
    python benchmarks/same_answers.py --smoke   # sample_vault: its index, and a copy without counts (CI)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path, nargs="?")
    ap.add_argument("after", type=Path, nargs="?")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--hubs", type=int, default=40)
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--hash384", action="store_true")
    args = ap.parse_args(argv)
    if args.smoke:
        args.before, args.after = smoke_pair()
        args.hubs, args.questions = 3, 6
    elif args.before is None or args.after is None:
        ap.error("give BEFORE and AFTER index folders (or --smoke)")
    from graphrag import VaultRAG
    from graphrag.query import pack
    from graphrag.query.render import json_text, render_prompt

    embedder = None
    if args.hash384:
        from benchmarks.common import hash_embedder

        embedder = hash_embedder()
    a = VaultRAG.open(args.before, update=False, embedder=embedder)
    b = VaultRAG.open(args.after, update=False, embedder=embedder)
    left = 0
    real = pack.Packer.left_out

    def counting(self: pack.Packer, *rest: object) -> bool:
        nonlocal left
        got = real(self, *rest)  # type: ignore[arg-type]
        left += got
        return got

    pack.Packer.left_out = counting  # type: ignore[method-assign,assignment]
    from benchmarks.common import tail_questions

    hubs, picked = tail_questions(a, args.hubs, args.questions - args.hubs)
    questions = hubs + picked
    runs = differing = 0
    for q in questions:
        for budget in (1000, 2000, 4000):
            for output in ("json", "prompt"):
                ra = a.query(q, budget, seed=1, output=output)
                rb = b.query(q, budget, seed=1, output=output)
                runs += 1
                if (json_text(ra), render_prompt(ra)) != (json_text(rb), render_prompt(rb)):
                    differing += 1
                    print(f"differs: {q!r} budget {budget} {output}")
    print(
        f"{len(questions)} questions ({len(hubs)} hubs), {runs} runs, differing {differing}, "
        f"notes the floor left out unbuilt {left}"
    )
    return 1 if differing else 0


def smoke_pair() -> tuple[Path, Path]:
    """sample_vault's index, and a copy of it as an index without the per-chunk counts."""
    import json
    import shutil

    from benchmarks.common import smoke_index

    _, index_dir = smoke_index()
    before = index_dir.parent / "without-counts"
    shutil.copytree(index_dir, before)
    manifest = json.loads((before / "manifest.json").read_text())
    manifest.pop("shown_tokens", None)
    (before / "manifest.json").write_text(json.dumps(manifest))
    return before, index_dir


if __name__ == "__main__":
    raise SystemExit(main())
