"""Do two indexes of the same vault give byte-identical query answers?

For a change that must not change answers (the packer's floor from the stored token
counts: an index without the counts packs as before), ask the same questions of both:
the titles of the notes with the most links and of random notes (``bench_tail``'s
set with the defaults), at budgets 1,000/2,000/4,000, JSON and prompt, and compare
``json_text`` and ``render_prompt``. Prints the differing runs and a summary: how many
notes the floor settled unbuilt, and (``--check-floor``) the floor against the exact
cost of every note the packer weighs in AFTER (its smallest margin; never negative).

    python benchmarks/same_answers.py BEFORE_INDEX AFTER_INDEX [--hubs 40] [--questions 100]
    python benchmarks/same_answers.py A B --hash384   # indexes made with bench's hashing embedder
    python benchmarks/same_answers.py --copies INDEX WORK   # WORK/without-counts vs WORK/with-counts
    python benchmarks/same_answers.py --smoke   # sample_vault: its index, and a copy without counts (CI)

``--copies``: two private copies of INDEX, one read as an index written before any
count (its manifest names none), one given every count as its next update would add
them (migrated, the missing chunk and note counts filled in place).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

COUNT_KEYS = ("shown_tokens", "whole_tokens")  # the manifest keys naming the stored counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("before", type=Path, nargs="?")
    ap.add_argument("after", type=Path, nargs="?")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--copies", action="store_true", help="BEFORE is an index, AFTER a work folder")
    ap.add_argument("--check-floor", action="store_true")
    ap.add_argument("--hubs", type=int, default=40)
    ap.add_argument("--questions", type=int, default=100)
    ap.add_argument("--hash384", action="store_true")
    args = ap.parse_args(argv)
    if args.smoke:
        args.before, args.after = smoke_pair()
        args.hubs, args.questions, args.check_floor = 3, 6, True
    elif args.before is None or args.after is None:
        ap.error("give BEFORE and AFTER index folders (or --smoke)")
    elif args.copies:
        args.before, args.after = index_pair(args.before, args.after)
    from graphrag import VaultRAG
    from graphrag.query import pack
    from graphrag.query.render import json_text, render_prompt

    embedder = None
    if args.hash384:
        from benchmarks.common import hash_embedder

        embedder = hash_embedder()
    a = VaultRAG.open(args.before, update=False, embedder=embedder)
    b = VaultRAG.open(args.after, update=False, embedder=embedder)
    left: Counter[str] = Counter()
    real = pack.Packer.left_out

    def counting(self: pack.Packer, packing: pack.Packing, uri: str, *rest: object) -> bool:
        got = real(self, packing, uri, *rest)  # type: ignore[arg-type]
        if got:
            left["whole" if not self.details._last[1].chunks else "chunks"] += 1  # type: ignore[index]
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
    pack.Packer.left_out = real  # type: ignore[method-assign]
    print(
        f"{len(questions)} questions ({len(hubs)} hubs), {runs} runs, differing {differing}, "
        f"notes the floor left out unbuilt {sum(left.values())} "
        f"(shown whole {left['whole']}, as chunks {left['chunks']})"
    )
    if args.check_floor:
        below = check_floor(b, questions)
        return 1 if differing or below else 0
    return 1 if differing else 0


@contextmanager
def weighing_floors() -> Iterator[list[tuple[int, int, bool]]]:
    """While open, the packer weighs every related note (none is settled by the floor)
    and each one it can floor is recorded as (floor, exact cost, shown whole)."""
    from graphrag.query import pack

    weighed: list[tuple[int, int, bool]] = []
    sources: list[pack.DetailSource] = []
    real_related, real_add, real_left_out = (
        pack.Packer.pack_related,
        pack.Packing.add,
        pack.Packer.left_out,
    )

    def pack_related(self: pack.Packer, *args: object, **kwargs: object) -> None:
        sources.append(self.details)
        real_related(self, *args, **kwargs)  # type: ignore[arg-type]

    def add(self: pack.Packing, doc: pack.Doc, record: bool = True) -> bool:
        last = sources[-1]._last if sources else None
        if last is not None and last[0][0] == doc.uri and last[1].text == doc.note.details:
            floor = sources[-1].floor(doc.uri, last[1], self.tokenizer)
            if floor is not None:
                weighed.append((floor, self.cost(doc), not last[1].chunks))
        return real_add(self, doc, record)

    pack.Packer.pack_related = pack_related  # type: ignore[method-assign]
    pack.Packing.add = add  # type: ignore[method-assign]
    pack.Packer.left_out = lambda *a: False  # type: ignore[method-assign]
    try:
        yield weighed
    finally:
        pack.Packer.pack_related = real_related  # type: ignore[method-assign]
        pack.Packing.add = real_add  # type: ignore[method-assign]
        pack.Packer.left_out = real_left_out  # type: ignore[method-assign]


def check_floor(rag: object, questions: list[str]) -> int:
    """Weigh every note the packer meets (nothing settled by the floor) and compare its
    floor with its exact rendered cost; prints the smallest margin, returns how many
    floors were above the cost."""
    with weighing_floors() as weighed:
        for q in questions:
            for budget in (1000, 2000, 4000):
                for output in ("json", "prompt"):
                    rag.query(q, budget, seed=1, output=output)  # type: ignore[attr-defined]
    margins: dict[str, list[int]] = {"whole": [], "chunks": []}
    for floor, cost, whole in weighed:
        margins["whole" if whole else "chunks"].append(cost - floor)
    for kind, got in margins.items():
        if got:
            print(
                f"floor vs exact cost, notes shown {kind}: {len(got)} weighed, smallest margin "
                f"{min(got)} tokens, median {sorted(got)[len(got) // 2]}"
            )
    return sum(m < 0 for got in margins.values() for m in got)


def without_counts(index_dir: Path) -> None:
    """Make the index at ``index_dir`` read as one written before any stored count."""
    path = index_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    for key in COUNT_KEYS:
        manifest.pop(key, None)
    path.write_text(json.dumps(manifest))


def with_counts(index_dir: Path) -> None:
    """Give the index at ``index_dir`` every count its next update would add (migrated,
    missing counts filled), in place."""
    from indexer import build
    from indexer.shown import SHOWN_TOKENS_VERSION, WHOLE_TOKENS_VERSION
    from indexer.store import SCHEMA_VERSION, migrate
    from indexer.tokens import get_tokenizer

    path = index_dir / "manifest.json"
    manifest = json.loads(path.read_text())
    db = sqlite3.connect(index_dir / manifest["generation"] / "index.sqlite")
    migrate(db)
    if manifest.get("shown_tokens") != SHOWN_TOKENS_VERSION:
        db.execute("UPDATE chunks SET shown_tokens = NULL")
    if manifest.get("whole_tokens") != WHOLE_TOKENS_VERSION:
        db.execute("UPDATE notes SET shown_tokens = NULL")
    build._count_shown(db, get_tokenizer(manifest["tokenizer"]))
    db.commit()
    db.close()
    manifest.update(
        shown_tokens=SHOWN_TOKENS_VERSION, whole_tokens=WHOLE_TOKENS_VERSION, schema=SCHEMA_VERSION
    )
    path.write_text(json.dumps(manifest))


def index_pair(index_dir: Path, work: Path) -> tuple[Path, Path]:
    """``--copies``: WORK/without-counts and WORK/with-counts, copies of ``index_dir``
    (made once; a copy already there is used as it is)."""
    pair = work / "without-counts", work / "with-counts"
    for copy, finish in zip(pair, (without_counts, with_counts), strict=True):
        if not copy.exists():
            tmp = copy.with_name(copy.name + ".tmp")
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(index_dir, tmp)
            finish(tmp)
            tmp.rename(copy)
    return pair


def smoke_pair() -> tuple[Path, Path]:
    """sample_vault's index, and a copy of it as an index without the stored counts."""
    from benchmarks.common import smoke_index

    _, index_dir = smoke_index()
    before = index_dir.parent / "without-counts"
    shutil.copytree(index_dir, before)
    without_counts(before)
    return before, index_dir


if __name__ == "__main__":
    raise SystemExit(main())
