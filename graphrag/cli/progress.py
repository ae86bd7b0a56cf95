"""What the CLI shows while an index is built or updated: the indexer's progress.

``build_index`` reports ``progress(phase, done, total)`` (``parsing`` notes,
``loading model``, ``embedding`` chunks, ...; the server's ``/status`` keeps the same
tuple). Here that becomes one line, ``indexing N notes``, as soon as the notes to
parse are known (on stderr, in pipes too: a first ``query`` on a new vault must not
sit silent for a minute), and on a terminal a tqdm bar per phase
(docs/architecture.md, progress).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

ProgressFn = Callable[[str, int, int], None]

UNITS = {"parsing": "note", "embedding": "chunk"}


class ProgressBar:
    """The callback ``build_index`` is given; ``close`` ends the last bar."""

    def __init__(self, bars: bool, stream: Any = None) -> None:
        self.bars = bars
        self.stream = stream if stream is not None else sys.stderr
        self.phase: str | None = None
        self.bar: Any = None
        self.announced = False

    def __call__(self, phase: str, done: int, total: int) -> None:
        if phase != self.phase:
            self.close()
            self.phase = phase
            if phase == "parsing" and total and not self.announced:
                self.announced = True
                noun = "note" if total == 1 else "notes"
                print(f"indexing {total} {noun}", file=self.stream, flush=True)
            if self.bars and total:
                from tqdm import tqdm

                unit = UNITS.get(phase, "step")
                self.bar = tqdm(total=total, desc=phase, unit=unit, file=self.stream)
        if self.bar is not None:
            self.bar.update(done - self.bar.n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def progress_bar(quiet: bool) -> tuple[ProgressFn | None, Callable[[], None]]:
    """The callback for ``build_index`` and its ``close``: nothing with ``--quiet``;
    the ``indexing N notes`` line otherwise, and bars only on a terminal."""
    if quiet:
        return None, lambda: None
    bar = ProgressBar(bars=sys.stderr.isatty())
    return bar, bar.close
