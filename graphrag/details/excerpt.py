"""The start of a note's text within a size limit, cut where a reader expects a cut.

``excerpt(text, limit)`` keeps whole Markdown blocks while they fit. Where the
next block does not, it is cut only between its own parts: a list between
top-level items (an item keeps its nested items), a table between body rows (its
header kept), a callout between the blocks inside it, code between lines (the
fence closed again), a paragraph between sentences; only a first block with no
part that fits at all is cut between words. A cut always shows: ``…`` on a line
of its own after whole blocks or parts, after the last sentence inside a
paragraph. The text kept is the text as written, byte for byte, up to the cut.

Only the neighbourhood of the cut is read, line by line: which fenced code is open
there (``indexer.blocks.fenced_lines``), where the run of lines holding the limit
starts (a blank line ends every block outside code), and which of its lines start
a part (a list item at the run's own indentation, a table row past the header, a
quoted block after a quoted blank line, a heading). Focus mode cuts dozens of notes
per call, so no parser runs here; the chunker, which cuts each note once, uses
``indexer.blocks``, and both follow the same rules (docs/architecture.md, "Text
shown to a model").

The limit counts characters of the kept text, not the marker: a note cut at
1000 characters shows at most 1000 of its own.
"""

from __future__ import annotations

import re

from indexer.blocks import FENCE_RE, fenced_lines, line_offsets

CUT = "…"
SENTENCE_END_RE = re.compile(r"(?<=[.!?:;])\s+")
WORD_GAP_RE = re.compile(r"\s+")
ITEM_RE = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)")
QUOTE_PREFIX_RE = re.compile(r"^ {0,3}>[ \t]?")
HEADING_RE = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
TABLE_DELIM_RE = re.compile(r"^ {0,3}\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$")


def excerpt(text: str, limit: int) -> tuple[str, bool]:
    """``(text, cut)``: all of ``text`` if it fits in ``limit`` characters, else its
    longest start that ends at a boundary (see the module docstring), marked."""
    if len(text) <= limit:
        return text, False
    if limit <= 0:
        return CUT, True
    # Nothing after the first line that does not fit whole (the one holding character
    # ``limit``; a line ending right at the limit fits) can be kept.
    stop = text.find("\n", limit + 1)
    head = text if stop < 0 else text[:stop]
    lines = head.split("\n")
    offsets = line_offsets(head)
    last = len(lines) - 1
    fenced = fenced_lines(head) if "```" in head or "~~~" in head else {}
    if not lines[last].strip() and last not in fenced:  # the limit falls between blocks
        return head.rstrip() + "\n\n" + CUT, True
    if last in fenced:
        code = _in_code(head, lines, offsets, fenced[last], last, limit)
        if code is not None:
            return code, True
        last = fenced[last]  # cut before the code block instead
    run = last
    while run > 0 and lines[run - 1].strip() and (run - 1) not in fenced:
        run -= 1
    # Whole blocks: everything up to the blank line before the run.
    before = max(offsets[run] - 1, 0)
    while before > 0 and not head[before - 1].strip():
        before -= 1
    cut = _part_cut(lines, offsets, run, last, limit)
    if cut is not None and cut > before:
        return head[:cut].rstrip() + "\n\n" + CUT, True
    if _is_prose(lines[run]) or before == 0:
        end = _sentences(head, offsets[run], offsets[last + 1] - 1, limit, words=before == 0)
        if end is not None:
            return head[:end].rstrip() + " " + CUT, True
    if before > 0:
        return head[:before].rstrip() + "\n\n" + CUT, True
    return head[:limit].rstrip() + CUT, True  # not even a word fits


def _part_cut(lines: list[str], offsets: list[int], run: int, last: int, limit: int) -> int | None:
    """The end of the last whole part of the run ``lines[run:last + 1]`` that ends by
    ``limit``: before a line starting a list item at the run's own indentation, a
    table row past the header, a quoted block after a quoted blank line, a heading."""
    first = lines[run]
    item = ITEM_RE.match(first)
    quoted = QUOTE_PREFIX_RE.match(first) is not None
    table = "|" in first and run + 1 <= last and TABLE_DELIM_RE.match(lines[run + 1]) is not None
    best = None
    for k in range(run + 1, last + 1):
        line = lines[k]
        starts = HEADING_RE.match(line) is not None
        if item is not None:
            m = ITEM_RE.match(line)
            starts = starts or (m is not None and len(m.group(1)) <= len(item.group(1)))
        elif table:
            starts = starts or k >= run + 3  # a header alone is no part worth showing
        elif quoted:
            starts = starts or not QUOTE_PREFIX_RE.sub("", lines[k - 1]).strip()
        else:
            starts = starts or ITEM_RE.match(line) is not None  # a list after a paragraph
        if not starts:
            continue
        prev = k - 1  # the part before ends at its last line with text
        while prev > run and not QUOTE_PREFIX_RE.sub("", lines[prev]).strip():
            prev -= 1
        end = offsets[prev + 1] - 1
        if end <= limit:
            best = end
    return best


def _is_prose(line: str) -> bool:
    """Does ``line`` start a paragraph (not a list, quote, table or code)?"""
    return not (
        ITEM_RE.match(line)
        or QUOTE_PREFIX_RE.match(line)
        or line.lstrip().startswith("|")
        or FENCE_RE.match(line)
    )


def _in_code(
    head: str, lines: list[str], offsets: list[int], start: int, last: int, limit: int
) -> str | None:
    """Cut inside the fenced code block opened at line ``start`` and holding line
    ``last``: its whole lines that fit, the fence closed again; None when not one line
    of it fits."""
    fence = FENCE_RE.match(lines[start])
    assert fence is not None
    closing = "\n" + lines[start][: len(lines[start]) - len(lines[start].lstrip())] + fence.group(1)
    end = None
    for k in range(start + 1, last):
        if offsets[k + 1] - 1 + len(closing) <= limit:
            end = offsets[k + 1] - 1
    if end is None:
        return None
    return head[:end] + closing + "\n\n" + CUT


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
