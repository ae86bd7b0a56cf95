"""Heading-aware chunks for embedding.

A note is cut at its headings into sections; each section keeps its heading
path (``Recipes > Brine > Salt``). Sections longer than the limit are split
between Markdown blocks (``blocks.py``: a list, table, callout or code block is
kept whole while it fits, else cut only between its items, rows, inner blocks or
lines), then at sentence ends, then between words, then at token boundaries; each
part is the section's text exactly as written (a list keeps its numbers and
indentation), with its own line range. Short neighbouring sections are merged
while they fit, so a note of many tiny sections does not become many tiny vectors. The text that is embedded is the note title and the
heading path in front of the chunk body, so a chunk that says "add 3% salt"
still knows it is about brine; the limit counts that prefix too.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .blocks import blocks, line_offsets

if TYPE_CHECKING:
    from .parse import Heading
    from .tokens import Tokenizer

# A change to how a note is cut into chunks bumps CHUNKER_VERSION (in version.py).
SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")
WORD_GAP_RE = re.compile(r"\s+")
# Encodings whose split pattern (tiktoken's ``pat_str``, the one ``bpe.CL100K_PATTERN``
# spells) never lets a piece cross a clean cut (``_clean_cut``): counts add up across one.
ADDITIVE_ENCODINGS = frozenset({"cl100k_base"})


@dataclass(frozen=True, slots=True)
class Chunk:
    seq: int
    heading_path: str
    text: str  # the body part, as written
    start_line: int
    end_line: int
    tokens: int  # of ``embed_text``
    embed_text: str

    @property
    def vec_id(self) -> int:
        """Vector id from the embedded text, so identical text shares one vector."""
        return vector_id(self.embed_text)


def vector_id(embed_text: str) -> int:
    digest = hashlib.blake2b(embed_text.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest, "big") & 0x7FFF_FFFF_FFFF_FFFF


def _prefix(
    title: str, heading_path: str, tokenizer: Tokenizer | None = None, limit: int = 0
) -> str:
    text = f"{title}\n{heading_path}\n\n" if heading_path else f"{title}\n\n"
    if tokenizer is None or tokenizer.count(text) <= limit // 2:
        return text
    # A title + heading path longer than half a chunk would leave no room for the text.
    return tokenizer.decode(tokenizer.encode(text)[: limit // 2 - 1]).rstrip() + "\n\n"


def sections(body: str, headings: list[Heading]) -> list[tuple[str, int, int]]:
    """(heading path, start line, end line) for each section, in order."""
    lines_total = body.count("\n") + 1
    out: list[tuple[str, int, int]] = []
    stack: list[tuple[int, str]] = []
    start, path = 0, ""
    for h in sorted(headings, key=lambda h: h.line):
        if h.line > start:
            out.append((path, start, h.line))
        while stack and stack[-1][0] >= h.level:
            stack.pop()
        stack.append((h.level, h.text))
        path = " > ".join(text for _, text in stack)
        start = h.line
    out.append((path, start, lines_total))
    return out


def chunk_note(
    title: str, body: str, headings: list[Heading], tokenizer: Tokenizer, limit: int = 256
) -> list[Chunk]:
    lines = body.split("\n")
    pieces: list[tuple[str, int, int, str]] = []  # path, start, end, text
    for path, start, end in sections(body, headings):
        text = "\n".join(lines[start:end]).strip()
        if not text:
            continue
        budget = max(16, limit - tokenizer.count(_prefix(title, path, tokenizer, limit)))
        if tokenizer.count(text) <= budget:
            pieces.append((path, start, end, text))
            continue
        section = "\n".join(lines[start:end])
        offsets = line_offsets(section)
        for a, b in split_text(section, budget, tokenizer):
            first = start + bisect.bisect_right(offsets, a) - 1
            last = start + bisect.bisect_right(offsets, max(a, b - 1))
            pieces.append((path, first, last, section[a:b]))

    merged: list[tuple[str, int, int, str]] = []
    for piece in pieces:
        if merged:
            path, start, _, text = merged[-1]
            combined = text + "\n\n" + piece[3]
            if tokenizer.count(_prefix(title, path, tokenizer, limit) + combined) <= limit:
                merged[-1] = (path, start, piece[2], combined)
                continue
        merged.append(piece)

    chunks = []
    for seq, (path, start, end, text) in enumerate(merged):
        embed_text = _prefix(title, path, tokenizer, limit) + text
        chunks.append(Chunk(seq, path, text, start, end, tokenizer.count(embed_text), embed_text))
    if not chunks and title:
        # An empty note is still findable by its title.
        embed_text = _prefix(title, "", tokenizer, limit).strip()
        chunks.append(Chunk(0, "", "", 0, 0, tokenizer.count(embed_text), embed_text))
    return chunks


def split_text(text: str, budget: int, tokenizer: Tokenizer) -> list[tuple[int, int]]:
    """``text`` as consecutive character spans of at most ``budget`` tokens each, cut at
    the best boundaries (see the module docstring); blank lines between spans are left
    out, so ``text[a:b]`` is always a piece of the text as written.

    A span grows unit by unit while the whole of it fits. Counting the whole span again
    for each unit made a paragraph of short units (a list of words without a sentence
    end) cost the budget squared per span; instead the tokens up to the latest clean
    cut in the span (``_clean_cut``) are kept, and only the text after it is counted.
    The counts, so the spans, are the same as counting the whole span each time."""
    additive = getattr(tokenizer, "name", None) in ADDITIVE_ENCODINGS
    spans: list[tuple[int, int]] = []
    start = end = -1
    cut, before = 0, 0  # the span's latest clean cut, and the tokens of text[start:cut]
    for a, b in _units(text, budget, tokenizer):
        if start >= 0:
            if not additive:
                tokens = tokenizer.count(text[start:b])
            else:
                if a > cut and _clean_cut(text, a):
                    before, cut = before + tokenizer.count(text[cut:a]), a
                tokens = before + tokenizer.count(text[cut:b])
            if tokens <= budget:
                end = b
                if additive and _clean_cut(text, b):
                    cut, before = b, tokens
                continue
            spans.append((start, end))
        start, end = a, b
        cut, before = a, 0
    if start >= 0:
        spans.append((start, end))
    return spans


def _clean_cut(text: str, i: int) -> bool:
    """Whether the tokens of any ``text[a:b]`` with ``a < i < b`` are those of
    ``text[a:i]`` plus those of ``text[i:b]``. cl100k's pattern takes whitespace into a
    piece only as a run of whitespace (a punctuation run may take the newlines after it)
    or as the one character before letters; so a piece never spans a space or tab after
    a non-space (it ends there, in the whole as in the part before), nor the start of a
    line that begins with a non-space (the newlines before it end their piece, and the
    part before ends on them alike). ``str.isspace`` is the pattern's ``\\s`` plus
    \\x1c-\\x1f, so it only ever declines a cut."""
    if not 0 < i < len(text):
        return False
    return (text[i] in " \t" and not text[i - 1].isspace()) or (
        text[i - 1] == "\n" and not text[i].isspace()
    )


def _units(text: str, budget: int, tokenizer: Tokenizer) -> list[tuple[int, int]]:
    """The smallest pieces worth keeping together, each within ``budget`` if it can be:
    whole blocks, else their parts, else sentences, words or tokens."""
    offsets = line_offsets(text)

    def span(first: int, last: int) -> tuple[int, int]:
        # From the line's first character: a nested item keeps its indentation.
        return offsets[first], offsets[last] - 1

    def fits(a: int, b: int) -> bool:
        return tokenizer.count(text[a:b]) <= budget

    units: list[tuple[int, int]] = []
    for block in blocks(text):
        a, b = span(block.start, block.end)
        if fits(a, b):
            units.append((a, b))
            continue
        ranges = [(block.start, block.start + block.head)] if block.head else []
        ranges += list(block.parts) or [(block.start, block.end)]
        if block.parts and block.parts[-1][1] < block.end:  # e.g. a code block's closing fence
            ranges.append((block.parts[-1][1], block.end))
        for first, last in ranges:
            a, b = span(first, last)
            if fits(a, b):
                units.append((a, b))
            else:
                units.extend(_small_units(text, a, b, budget, tokenizer))
    return units


def _small_units(
    text: str, a: int, b: int, budget: int, tokenizer: Tokenizer
) -> list[tuple[int, int]]:
    """Sentences of ``text[a:b]``; a sentence still too long goes by words, a word by tokens."""
    out: list[tuple[int, int]] = []
    for s_a, s_b in _pieces(text, a, b, SENTENCE_END_RE):
        if tokenizer.count(text[s_a:s_b]) <= budget:
            out.append((s_a, s_b))
            continue
        for w_a, w_b in _pieces(text, s_a, s_b, WORD_GAP_RE):
            if tokenizer.count(text[w_a:w_b]) <= budget:
                out.append((w_a, w_b))
            else:
                out.extend(_token_pieces(text, w_a, w_b, budget, tokenizer))
    return out


def _pieces(text: str, a: int, b: int, gap: re.Pattern[str]) -> list[tuple[int, int]]:
    out = []
    start = a
    for m in gap.finditer(text, a, b):
        if m.start() > start:
            out.append((start, m.start()))
        start = m.end()
    if b > start:
        out.append((start, b))
    return out


def _token_pieces(
    text: str, a: int, b: int, budget: int, tokenizer: Tokenizer
) -> list[tuple[int, int]]:
    """Runs of at most ``budget`` tokens, each as long as it can be (by bisection on
    characters, so a multi-byte character is never split)."""
    out = []
    while a < b:
        lo, hi = a + 1, min(b, a + budget * 32)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if tokenizer.count(text[a:mid]) <= budget:
                lo = mid
            else:
                hi = mid - 1
        out.append((a, lo))
        a = lo
    return out
