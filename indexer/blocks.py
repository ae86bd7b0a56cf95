"""The Markdown blocks of a text, and the places where a block may be cut.

A sentence lost at the end of an excerpt still reads; a list torn inside an item,
a table row cut in half, a callout split from its title or a code fence left open
do not. So chunks and excerpts are cut between blocks (paragraphs, headings,
lists, tables, quotes and callouts, fenced or indented code, HTML, ``$$`` math),
and a block too big for the room only between its own *parts*: a list between
its top-level items (an item keeps its nested items), a table between rows (the
header and delimiter rows are its ``head``), a quote or callout between the
blocks inside it, code between lines. A paragraph has no parts: it is cut between
sentences, by whoever cuts it.

markdown-it-py finds the blocks (CommonMark block rules plus GFM tables), as
``parse.py`` does for links; ``$$`` math is one block whatever it holds, and a
block-id line (``^id``) stays with the block it names. Lines are 0-based, ranges
half-open, and trailing blank lines belong to no block. See docs/architecture.md
("Text shown to a model").
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@functools.cache
def _parser() -> MarkdownIt:
    """Built on first use: importing the chunker (for its version, say) needs no parser."""
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark").enable("table")
    md.core.ruler.disable(["inline", "text_join"])
    return md


FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
MATH_FENCE_RE = re.compile(r"^\s*\$\$")
BLOCK_ID_LINE_RE = re.compile(r"^\s*\^[\w-]+\s*$")
QUOTED_BLANK_RE = re.compile(r"^\s*(?:>\s*)*$")

# Block kinds, by markdown-it token type.
_KINDS = {
    "paragraph_open": "paragraph",
    "heading_open": "heading",
    "bullet_list_open": "list",
    "ordered_list_open": "list",
    "table_open": "table",
    "blockquote_open": "quote",
    "fence": "code",
    "code_block": "code",
    "html_block": "html",
    "hr": "rule",
}


@dataclass(frozen=True, slots=True)
class Block:
    """Lines ``[start, end)`` of one top-level block.

    ``head``: lines at the start that any cut keeps (a table's header and
    delimiter rows, a code block's opening fence); ``parts``: the line ranges
    between which the block may be cut, in order (empty for a paragraph or a
    heading); ``fence``: the closing line a cut code block needs.
    """

    kind: str
    start: int
    end: int
    head: int = 0
    parts: tuple[tuple[int, int], ...] = ()
    fence: str = ""


def blocks(text: str) -> list[Block]:
    """The top-level blocks of ``text`` in order (see the module docstring)."""
    lines = text.split("\n")
    if not any(line.strip() for line in lines):
        return []
    tokens = _parser().parse(text)
    out: list[Block] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        kind = _KINDS.get(tok.type)
        if tok.level != 0 or kind is None or tok.map is None:
            i += 1
            continue
        start, end = tok.map
        end = _trim(lines, start, end)
        if tok.nesting == 1:
            close = _closing(tokens, i)
            inner = tokens[i + 1 : close]
            i = close + 1
        else:
            inner = []
            i += 1
        if end <= start:
            continue
        out.append(_block(kind, start, end, inner, lines, tok.markup))
    return _merge_math(_attach_block_ids(_fill_gaps(out, lines), lines), lines)


def _fill_gaps(out: list[Block], lines: list[str]) -> list[Block]:
    """Text markdown-it makes no block of (link reference definitions) is a paragraph
    of its own, so no line of the text is ever lost."""
    filled: list[Block] = []
    at = 0
    for b in [*out, Block("end", len(lines), len(lines))]:
        n = at
        while n < b.start:
            if not lines[n].strip():
                n += 1
                continue
            m = n
            while m < b.start and lines[m].strip():
                m += 1
            filled.append(Block("paragraph", n, m))
            n = m
        if b.kind != "end":
            filled.append(b)
        at = max(at, b.end)
    return filled


def _closing(tokens: list, i: int) -> int:
    depth = 0
    for j in range(i, len(tokens)):
        depth += tokens[j].nesting
        if depth == 0:
            return j
    return len(tokens) - 1


def _trim(lines: list[str], start: int, end: int) -> int:
    end = min(end, len(lines))
    while end > start and not lines[end - 1].strip():
        end -= 1
    return end


def _block(kind: str, start: int, end: int, inner: list, lines: list[str], markup: str) -> Block:
    if kind == "list":
        items = [t.map for t in inner if t.type == "list_item_open" and t.level == 1 and t.map]
        return Block(kind, start, end, 0, _ranges(items, start, end, lines))
    if kind == "table":
        rows = [t.map for t in inner if t.type == "tr_open" and t.map]
        head = min(2, end - start)
        body = [r for r in rows if r[0] >= start + head]
        return Block(kind, start, end, head, _ranges(body, start + head, end, lines))
    if kind == "quote":
        parts = [t.map for t in inner if t.level == 1 and t.nesting >= 0 and t.map]
        # A quoted blank line (">") between two inner blocks ends neither of them.
        quoted = tuple(
            (a, next(n for n in range(b, a, -1) if not QUOTED_BLANK_RE.match(lines[n - 1])))
            for a, b in _ranges(parts, start, end, lines)
            if not all(QUOTED_BLANK_RE.match(line) for line in lines[a:b])
        )
        return Block(kind, start, end, 0, quoted)
    if kind == "code":
        fenced = bool(FENCE_RE.match(lines[start]))
        head = 1 if fenced else 0
        last = end - 1 if fenced and end - start > 1 and FENCE_RE.match(lines[end - 1]) else end
        code_lines = tuple((n, n + 1) for n in range(start + head, last))
        fence = FENCE_RE.match(lines[start]).group(1) if fenced else ""  # type: ignore[union-attr]
        return Block(kind, start, end, head, code_lines, fence or (markup if fenced else ""))
    return Block(kind, start, end)


def _ranges(
    maps: list[list[int]], start: int, end: int, lines: list[str]
) -> tuple[tuple[int, int], ...]:
    """Parts from token maps: each runs to the next part's start (so nothing falls
    between two parts), trailing blank lines left out."""
    starts = sorted({max(m[0], start) for m in maps if start <= m[0] < end})
    if not starts:
        return ()
    starts[0] = start if starts[0] > start and not _blank(lines, start, starts[0]) else starts[0]
    out = []
    for a, b in zip(starts, [*starts[1:], end], strict=True):
        b = _trim(lines, a, b)
        if b > a:
            out.append((a, b))
    return tuple(out)


def _blank(lines: list[str], a: int, b: int) -> bool:
    return all(not line.strip() for line in lines[a:b])


def _attach_block_ids(out: list[Block], lines: list[str]) -> list[Block]:
    """A line holding only ``^id`` names the block above it: one block with it."""
    merged: list[Block] = []
    for b in out:
        if (
            merged
            and b.kind == "paragraph"
            and b.end - b.start == 1
            and BLOCK_ID_LINE_RE.match(lines[b.start])
            and merged[-1].kind != "heading"
        ):
            prev = merged[-1]
            merged[-1] = Block(prev.kind, prev.start, b.end, prev.head, prev.parts, prev.fence)
            continue
        merged.append(b)
    return merged


def _merge_math(out: list[Block], lines: list[str]) -> list[Block]:
    """``$$ ... $$`` (outside code) is one block, however markdown-it split it."""
    spans: list[tuple[int, int]] = []
    opened: int | None = None
    fence: str | None = None
    for n, line in enumerate(lines):
        m = FENCE_RE.match(line)
        if fence is not None:
            if m and m.group(1).startswith(fence):
                fence = None
            continue
        if m and opened is None:
            fence = m.group(1)
            continue
        count = line.count("$$")
        if opened is None and MATH_FENCE_RE.match(line):
            if count >= 2:
                continue  # $$ x $$ on one line: already inside one block
            opened = n
        elif opened is not None and count % 2 == 1:
            spans.append((opened, n + 1))
            opened = None
    if not spans:
        return out
    merged: list[Block] = []
    for b in out:
        span = next((s for s in spans if s[0] < b.end and b.start < s[1]), None)
        if span is None:
            merged.append(b)
            continue
        start, end = min(span[0], b.start), max(span[1], b.end)
        if merged and merged[-1].kind == "math" and merged[-1].end > start:
            start = merged.pop().start
        merged.append(Block("math", start, end))
    return merged


def fenced_lines(text: str) -> dict[int, int]:
    """The lines of fenced code blocks (fences included), each with the line of its
    block's opening fence, found line by line without the parser: all a caller needs
    to leave code alone, at a fraction of the cost."""
    out: dict[int, int] = {}
    fence: str | None = None
    opened = 0
    for n, line in enumerate(text.split("\n")):
        m = FENCE_RE.match(line)
        if fence is None:
            if m:
                fence, opened = m.group(1), n
                out[n] = n
            continue
        out[n] = opened
        closes = m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence)
        if closes and not line.strip().strip(fence[0]):
            fence = None
    return out


def line_offsets(text: str) -> list[int]:
    """The character offset where each line of ``text`` starts (and one past the end)."""
    offsets = [0]
    for m in re.finditer("\n", text):
        offsets.append(m.end())
    offsets.append(len(text) + 1)
    return offsets
