"""How a note's text reaches a model: cuts that break it, and what a cut costs.

For every note of each index given, the note's text is cut at ``--limit`` characters
two ways: the plain slice focus mode used to take (``text[:limit]``), and
``graphrag.details.excerpt``. A cut breaks the text when it leaves a code fence
open, ends mid-word, or ends inside a list item, table row or quoted line that the
note continues. Also counted: chunk lines that hold a list marker and nothing else
(what "1. Open Obsidian" became when the chunker split after "1."), and the time of
one excerpt.

Usage::

    python benchmarks/bench_fidelity.py --index /tmp/team/idx/obsidian-help [--index ...] [--limit 1000]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graphrag.details.excerpt import CUT, excerpt  # noqa: E402

ORPHAN_MARKER = re.compile(r"(?m)^\s*(?:[-*+]|\d+[.)])\s*$")
STRUCTURED_LINE = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\||>)")
FENCE = re.compile(r"(?m)^ {0,3}(```|~~~)")
CLOSED_AGAIN = re.compile(r"\n {0,3}(```|~~~)\s*$")
BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


def breaks(shown: str, body: str, own: int) -> str | None:
    """How a cut showing ``shown`` (the note's first ``own`` characters, perhaps a fence
    closed again) breaks the note's text, if it does."""
    if len(FENCE.findall(shown)) % 2:
        return "open code fence"
    rest = body[own:]
    if rest[:1] and not rest[:1].isspace() and body[own - 1 : own].strip():
        return "mid-word"
    last = body[:own].rsplit("\n", 1)[-1]
    if rest and not rest.startswith("\n") and STRUCTURED_LINE.match(last):
        return "inside a list item, table row or quoted line"
    return None


def measure(index: Path, limit: int) -> dict:
    db_path = sorted(index.glob("gen-*/index.sqlite"))[-1]
    db = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True)
    out: dict = {"index": index.name, "notes cut": 0, "slice": {}, "excerpt": {}}
    times = []
    for (body,) in db.execute("SELECT body FROM notes"):
        text = BLANK_RUN.sub("\n\n", body)
        if len(text) <= limit:
            continue
        out["notes cut"] += 1
        why = breaks(text[:limit], text, limit)
        if why:
            out["slice"][why] = out["slice"].get(why, 0) + 1
        started = time.perf_counter()
        shown, _ = excerpt(text, limit)
        times.append(time.perf_counter() - started)
        kept = shown[: -len(CUT)].rstrip()
        own = kept
        closed = CLOSED_AGAIN.search(kept)
        if closed and not text.startswith(kept):
            own = kept[: closed.start()]
        why = breaks(kept, text, len(own))
        if why:
            out["excerpt"][why] = out["excerpt"].get(why, 0) + 1
    out["orphan list markers in chunks"] = sum(
        len(ORPHAN_MARKER.findall(t)) for (t,) in db.execute("SELECT text FROM chunks")
    )
    out["excerpt ms (median)"] = round(statistics.median(times) * 1000, 3) if times else None
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", type=Path, action="append", required=True)
    parser.add_argument("--limit", type=int, default=1000)
    args = parser.parse_args()
    for index in args.index:
        print(json.dumps(measure(index, args.limit), ensure_ascii=False))


if __name__ == "__main__":
    main()
