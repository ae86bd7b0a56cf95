"""BM25 index cost per generation: from scratch, after a one-note edit, loaded from disk.

Every vault edit commits a new index generation, and the first lexical use of a
generation needs its BM25 index (``graphrag/snapshot/lexical.py``). This script times, on a
synthetic vault (default 10,000 notes, ``benchmarks/gen_vault.py``, indexed with the
deterministic 384-dimension hashing embedder of ``tests.support.fakes``):

* ``bm25s eager``: what every new generation cost before: the previous ``build_lexical``
  (read every note's text, ``bm25s.tokenize``, ``bm25s.BM25().index``; its save not
  included), for comparison;
* ``from scratch``: ``build_lexical`` without a previous index (a new process with
  no saved index, or a fresh vault);
* ``after one-note edit``: a note is edited (a sentence appended, later restored),
  ``VaultRAG.index()`` commits a new generation, then ``lexical_index`` on the new
  snapshot's corpus, which starts from the previous generation's index: only the
  changed note is tokenized. Includes saving the index beside the generation;
  the corpus build and the indexing itself are shown apart;
* ``served``: the same edits through ``LiveIndex.update`` (as the server and its file
  watcher run them) after a search on the previous snapshot: the update builds the new
  snapshot's query arrays and BM25 index, then the first ``lexical_search`` is timed;
* ``load saved``: ``lexical_index`` of a fresh corpus of the same generation with no
  index in memory (a process start).

Each figure is the median of ``--repeat`` runs (an edit and its restore are two
runs). After each edit the incremental index is checked against a from-scratch one
(every query's scores and matched terms identical).

Usage::

    python benchmarks/bench_lexical.py --work /tmp/bench-lexical [--notes 10000] [--repeat 5]

``--work`` holds ``vault/`` and ``index/`` (made when missing). Edited files are
restored (bytes and mtime), but the index gains generations: use a copy.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import HASH_MODEL, generated_vault, indexed  # noqa: E402
from graphrag.api import VaultRAG  # noqa: E402
from graphrag.config import load_settings  # noqa: E402
from graphrag.serve.live import LiveIndex  # noqa: E402
from graphrag.snapshot import lexical  # noqa: E402
from graphrag.snapshot.corpus import Corpus, build_corpus  # noqa: E402
from tests.support.fakes import HashEmbedder  # noqa: E402


def timed(fn: Callable[[], object]) -> tuple[float, object]:
    started = time.perf_counter()
    value = fn()
    return time.perf_counter() - started, value


def texts_of(corpus: Corpus) -> list[str]:
    db = corpus.connect()
    try:
        return lexical._texts(db, corpus, list(range(len(corpus))))
    finally:
        db.close()


def bm25s_eager(corpus: Corpus) -> float:
    import bm25s

    started = time.perf_counter()
    texts = texts_of(corpus)  # as the old build_lexical read them
    tokens = bm25s.tokenize(
        texts, stopwords="en", stemmer=lexical._stemmer("english"), show_progress=False
    )
    bm25s.BM25().index(tokens, show_progress=False)
    return time.perf_counter() - started


def same_scores(
    a: lexical.LexicalIndex, b: lexical.LexicalIndex, questions: list[str], n: int
) -> bool:
    for q in questions:
        x, y = a.score(q, n), b.score(q, n)
        if not (np.array_equal(x.scores, y.scores) and np.array_equal(x.matched, y.matched)):
            return False
    return True


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--work", type=Path, default=Path("/tmp/bench-lexical"))
    ap.add_argument(
        "--notes", type=int, default=10_000, help="notes to generate when --work has no vault"
    )
    ap.add_argument("--repeat", type=int, default=5, help="runs per figure (median)")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if args.work.resolve().is_relative_to("/work/shared"):
        raise SystemExit("--work must not be under /work/shared (this benchmark edits the vault)")
    vault, index_dir = args.work / "vault", args.work / "index"
    indexed(generated_vault(vault, args.notes), index_dir)
    load_start = os.getloadavg()
    rng = random.Random(args.seed)
    rag = VaultRAG.open(
        vault,
        index_dir=index_dir,
        settings=load_settings(env={}),
        embedder=HashEmbedder(dim=384, name=HASH_MODEL),
        update=False,
    )
    stats = rag.index()  # catch up with the vault once, untimed
    corpus = rag.snapshot.corpus
    n = len(corpus)
    size_mb = sum(len(t.encode()) for t in texts_of(corpus)) / 1e6
    titles = [rag.snapshot.graph.info(u).title for u in corpus.uris]
    questions = [f"what do my notes say about {t}?" for t in rng.sample(titles, 50)]

    eager = [bm25s_eager(corpus) for _ in range(args.repeat)]
    scratch = [timed(lambda: lexical.build_lexical(corpus))[0] for _ in range(args.repeat)]
    index = lexical.lexical_index(corpus)  # in memory and saved: the previous generation's index

    edit_s, corpus_s, index_s, identical = [], [], [], True
    notes = sorted(vault.rglob("*.md"))
    for k in range(max(1, (args.repeat + 1) // 2)):
        path = rng.choice(notes)
        before, stat = path.read_bytes(), path.stat()
        word = f"zebrafish{k}"
        for data in (
            before + f"\n\nA {word} note about the river and its bridges.\n".encode(),
            before,
        ):
            path.write_bytes(data)
            if data is before:
                os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            seconds, stats = timed(rag.index)
            assert stats.changed == 1 and not stats.full_reason, stats
            edit_s.append(seconds)
            seconds, corpus = timed(lambda: rag.snapshot.corpus)
            corpus_s.append(seconds)
            seconds, index = timed(lambda: lexical.lexical_index(corpus))  # noqa: B023
            index_s.append(seconds)
            scratch_index = lexical.build_lexical(corpus)
            identical &= same_scores(
                index, scratch_index, [*questions, f"{word} river"], len(corpus)
            )

    # As served: LiveIndex.update builds the new snapshot's arrays and BM25 index (the
    # previous snapshot had been queried), so the first search after it finds them built.
    live = LiveIndex(rag)
    update_s, first_s, second_s = [], [], []
    for k in range(max(1, (args.repeat + 1) // 2)):
        path = rng.choice(notes)
        before, stat = path.read_bytes(), path.stat()
        for data in (before + f"\n\nA walrus{k} note.\n".encode(), before):
            rag.lexical_search("warm up the current snapshot")
            path.write_bytes(data)
            if data is before:
                os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            update_s.append(timed(live.update)[0])
            first_s.append(timed(lambda: rag.lexical_search("river bridges", top_k=10))[0])
            second_s.append(timed(lambda: rag.lexical_search("mountain lakes", top_k=10))[0])

    lexical._RECENT.clear()  # a new process: nothing in memory, the saved index on disk
    loads = []
    for _ in range(args.repeat):
        fresh = build_corpus(rag.snapshot.index, rag.snapshot.graph)
        loads.append(timed(lambda: lexical.lexical_index(fresh))[0])  # noqa: B023

    def ms(xs: list[float]) -> str:
        return f"{statistics.median(xs) * 1000:,.0f}"

    load_end = os.getloadavg()
    runs = len(index_s)
    print(
        f"\n{n} notes ({size_mb:.1f} MB of note text), {index.terms:,} terms, "
        f"{len(index.docs):,} postings; {os.cpu_count()} cores, load average "
        f"{load_start[0]:.1f} at the start, {load_end[0]:.1f} (5 min {load_end[1]:.1f}) at the end\n"
    )
    print("| step | median ms | runs |")
    print("| --- | --- | --- |")
    print(f"| bm25s eager index (before: every new generation) | {ms(eager)} | {len(eager)} |")
    print(f"| from scratch (`build_lexical`, no previous index) | {ms(scratch)} | {len(scratch)} |")
    print(
        f"| **after a one-note edit** (`lexical_index`, from the previous index, saved) | {ms(index_s)} | {runs} |"
    )
    print(f"| load saved (new process) | {ms(loads)} | {len(loads)} |")
    print(f"| for context: `VaultRAG.index()` of the edit | {ms(edit_s)} | {runs} |")
    print(f"| for context: `snapshot.corpus` of the new snapshot | {ms(corpus_s)} | {runs} |")
    print(
        f"| served: `LiveIndex.update()` of an edit (index, corpus and BM25 built) | {ms(update_s)} | {len(update_s)} |"
    )
    print(f"| served: first `lexical_search` after that update | {ms(first_s)} | {len(first_s)} |")
    print(f"| served: second `lexical_search` (steady state) | {ms(second_s)} | {len(second_s)} |")
    print(f"\nincremental scores identical to a from-scratch build: {'yes' if identical else 'NO'}")


if __name__ == "__main__":
    main()
