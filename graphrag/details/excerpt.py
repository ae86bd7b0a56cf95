"""The start of a note's text within a size limit, cut where a reader expects a cut.

``excerpt(text, limit)`` keeps whole Markdown blocks (``indexer.blocks``) while
they fit. The first block that does not fit is cut only between its own parts (a
list between top-level items, a table between body rows with its header kept, a
callout between the blocks inside it, code between lines with the fence closed
again), and a paragraph between sentences; only a first block with no part that
fits at all is cut between words. A cut always shows: ``…`` on a line of its own
after whole blocks or parts, after the last sentence inside a paragraph. The
text kept is the text as written, byte for byte, up to the cut.

The limit counts characters of the kept text, not the marker (as ``truncate``
always did): a note cut at 1000 characters shows at most 1000 of its own.
See docs/architecture.md ("Text shown to a model").
"""

from __future__ import annotations

import re
from collections.abc import Callable

from indexer.blocks import Block, blocks, line_offsets

Span = Callable[[int, int], tuple[int, int]]  # lines [first, last) -> characters [a, b)

CUT = "…"
SENTENCE_END_RE = re.compile(r"(?<=[.!?:;])\s+")
WORD_GAP_RE = re.compile(r"\s+")


def excerpt(text: str, limit: int) -> tuple[str, bool]:
    """``(text, cut)``: all of ``text`` if it fits in ``limit`` characters, else its
    longest start that ends at a boundary (see the module docstring), marked."""
    if len(text) <= limit:
        return text, False
    if limit <= 0:
        return CUT, True
    offsets = line_offsets(text)

    def span(first: int, last: int) -> tuple[int, int]:
        return offsets[first], offsets[last] - 1

    kept = 0  # text[:kept] is whole blocks
    for block in blocks(text):
        a, b = span(block.start, block.end)
        if b <= limit:
            kept = b
            continue
        partial = _part_of(text, block, span, limit, first=kept == 0)
        if partial is not None:
            return partial, True
        break
    if kept == 0:  # not even a word fits
        return text[:limit].rstrip() + CUT, True
    return text[:kept].rstrip() + "\n\n" + CUT, True


def _part_of(text: str, block: Block, span: Span, limit: int, first: bool) -> str | None:
    """``text`` up to as much of ``block`` as fits in ``limit`` characters, with the cut
    marked; None when not one part of it fits."""
    a, _ = span(block.start, block.end)
    if block.parts:
        head_end = span(block.start, block.start + block.head)[1] if block.head else a
        closing = ("\n" + _indent(text, a) + block.fence) if block.fence else ""
        end = None
        for p_a, p_b in block.parts:
            stop = span(p_a, p_b)[1]
            if stop + len(closing) > limit:
                break
            end = stop
        if end is not None:
            return text[:end] + closing + "\n\n" + CUT
        if not first:
            return None
        # Not one whole part fits and nothing came before: the first part, cut inside.
        p_a, p_b = block.parts[0]
        start = span(p_a, p_b)[0]
        inner = _sentences(text, start, span(p_a, p_b)[1], limit - len(closing), words=True)
        if inner is None or (block.head and inner <= head_end):
            return None
        return text[:inner].rstrip() + " " + CUT + closing
    if block.kind in ("paragraph", "quote", "html") or first:
        b = span(block.start, block.end)[1]
        end = _sentences(text, a, b, limit, words=first)
        if end is not None:
            return text[:end].rstrip() + " " + CUT
    return None


def _sentences(text: str, a: int, b: int, limit: int, words: bool) -> int | None:
    """The end of the last sentence of ``text[a:b]`` that ends by ``limit`` (with
    ``words``, else of the last word that does); None when none does."""
    best = None
    for m in SENTENCE_END_RE.finditer(text, a, b):
        if m.start() > limit:
            break
        best = m.start()
    if best is not None and best > a:
        return best
    if not words:
        return None
    for m in WORD_GAP_RE.finditer(text, a, b):
        if m.start() > limit:
            break
        best = m.start()
    return best if best is not None and best > a else None


def _indent(text: str, at: int) -> str:
    line = text[at : text.find("\n", at) if "\n" in text[at:] else len(text)]
    return line[: len(line) - len(line.lstrip())]
