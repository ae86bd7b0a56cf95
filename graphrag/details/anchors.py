"""Where a link's subpath points in a note: headings as Obsidian and Dendron write them.

Obsidian names a heading by its text, ``[[Note#Local Vault]]`` (or ``#Parent#Heading``),
and a block by its id, ``[[Note#^id]]``. Dendron writes the heading's slug,
``[[note#local-vault]]``, and its note references carry a range past the anchor,
``![[note#summary,1:#*]]`` or ``![[note#^block:#*]]`` (``dendron_ref``). The embeds
inlined (``details/embeds.py``) and the section a link focuses in query mode
(``query/pack.py``) read a subpath the same way, with these helpers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

from indexer.blocks import fenced_lines

if TYPE_CHECKING:
    from indexer.load import ChunkRow

HEADING_RE = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_HEADING_LINES_RE = re.compile(r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*#*[ \t]*$", re.M)
# Dendron's note reference past its start anchor: ``#start,offset:#end`` (``,1`` skips the
# heading line; the end is a heading, ``*`` (the next heading), ``^end`` or ``^block``).
DENDRON_RANGE_RE = re.compile(r"^#(?P<start>[^,:#]+)(?:,(?P<skip>\d+))?(?::#(?P<end>[^#]+))?$")
_PUNCT_RE = re.compile(r"[^\w\s-]")
_SEP_RE = re.compile(r"[\s-]+")


@dataclass(frozen=True, slots=True)
class Heading:
    line: int
    level: int
    text: str  # as written, without the marks


@dataclass(frozen=True, slots=True)
class DendronRef:
    """A Dendron note reference's range: ``start`` (a heading, its slug, ``^id`` or
    ``^begin``), ``skip`` lines dropped after it, ``end`` ("" when not given)."""

    start: str
    skip: int
    end: str


def same_heading(written: str, heading: str) -> bool:
    """Does the anchor ``written`` name ``heading``? Equal once punctuation is read as a
    space (Obsidian's ``#Move vault: to a folder``), or once it is dropped and hyphens
    read as spaces (Dendron's slug: ``#whats-new`` for ``What's New``, ``#local-vault``
    for ``Local Vault``), both casefolded."""
    return _spaced(written) == _spaced(heading) or _slug(written) == _slug(heading)


@lru_cache(maxsize=8192)  # a vault's headings, compared again for every link to them
def _spaced(text: str) -> str:
    return " ".join(_PUNCT_RE.sub(" ", text.casefold()).replace("-", " ").split())


@lru_cache(maxsize=8192)
def _slug(text: str) -> str:
    return " ".join(_SEP_RE.split(_PUNCT_RE.sub("", text.casefold()))).strip()


def headings(body: str, lines: list[str] | None = None) -> list[Heading]:
    """The headings of ``body`` outside code blocks, in order (``lines``: its lines,
    when the caller has split them already)."""
    lines = body.split("\n") if lines is None else lines
    marked = [n for n, line in enumerate(lines) if "#" in line[:4]]  # as HEADING_RE, cheaply
    if not marked:
        return []
    code = code_lines(body)
    return [
        Heading(n, len(m.group(1)), m.group(2))
        for n in marked
        if n not in code and (m := HEADING_RE.match(lines[n]))
    ]


def code_lines(text: str) -> set[int]:
    """The numbers of ``text``'s lines inside fenced code blocks."""
    return set(fenced_lines(text)) if "```" in text or "~~~" in text else set()


def dendron_ref(subpath: str) -> DendronRef | None:
    """``subpath`` (``#start,skip:#end``, with its ``#``) read as Dendron's range, or None
    when it is not one."""
    m = DENDRON_RANGE_RE.match(subpath.strip())
    if m is None:
        return None
    return DendronRef(
        m.group("start").strip(), int(m.group("skip") or 0), (m.group("end") or "").strip()
    )


def section_chunks(chunks: Sequence[ChunkRow], subpath: str) -> list[int]:
    """Positions of the ``chunks`` (a note's, in order) of the section or block
    ``subpath`` names: Obsidian's reading first, each part as written (``#Heading``,
    ``#Parent#Heading``: the last part's chunks, when the note has every part;
    ``#^block``); when that finds nothing, Dendron's (the start of a range
    ``#start,1:#end``; a heading written as its slug). ``#^begin``, the note's top,
    focuses nothing: the note starts there anyway."""
    parts = [p.strip() for p in subpath.split("#") if p.strip()]
    if not parts:
        return []
    # A chunk's headings: its own (the last of its path) and any written inside it
    # (short sections merge). Read once for both readings.
    heads = [_chunk_headings(chunk) for chunk in chunks]
    folded = [{h.casefold() for h in hs} for hs in heads]

    def as_written(name: str) -> list[int]:
        if name.startswith("^"):
            return _holding(chunks, name)
        name = name.casefold()
        return [j for j, names in enumerate(folded) if name in names]

    if all(as_written(p) for p in parts[:-1]):
        hits = as_written(parts[-1])
        if hits:
            return hits
    ref = dendron_ref(subpath)
    start = ref.start if ref is not None else parts[-1]
    if start == "^begin":
        return []
    if start.startswith("^"):
        return _holding(chunks, start)
    want = _spaced(start), _slug(start)
    return [j for j, hs in enumerate(heads) if any(_same_keys(want, h) for h in hs)]


def _chunk_headings(chunk: ChunkRow) -> list[str]:
    own = (chunk.heading_path or "").split(" > ")[-1].strip()
    text = chunk.text
    if "#" not in text:
        return [own]
    if "```" in text or "~~~" in text:  # headings in code are none
        return [own, *(h.text for h in headings(text))]
    return [own, *_HEADING_LINES_RE.findall(text)]  # as ``headings``, in one pass


def _same_keys(want: tuple[str, str], heading: str) -> bool:
    return want[0] == _spaced(heading) or want[1] == _slug(heading)


def _holding(chunks: Sequence[ChunkRow], mark: str) -> list[int]:
    """The chunks holding the block mark ``^id``."""
    mark = mark.casefold()
    return [j for j, chunk in enumerate(chunks) if mark in chunk.text.casefold()]
