"""Heading-aware chunks for embedding.

A note is cut at its headings into sections; each section keeps its heading
path (``Recipes > Brine > Salt``). Sections longer than the limit are split at
blank lines, then at sentence ends, then at token boundaries; short neighbouring
sections are merged while they fit, so a note of many tiny sections does not
become many tiny vectors. The text that is embedded is the note title and the
heading path in front of the chunk body, so a chunk that says "add 3% salt"
still knows it is about brine; the limit counts that prefix too.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from .parse import Heading
from .tokens import Tokenizer

SENTENCE_END_RE = re.compile(r"(?<=[.!?])\s+")


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
        for part in _split(text, budget, tokenizer):
            pieces.append((path, start, end, part))

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


def _split(text: str, budget: int, tokenizer: Tokenizer) -> list[str]:
    """Split ``text`` into parts of at most ``budget`` tokens at the best boundaries."""
    out: list[str] = []
    current = ""
    for unit in _units(text, budget, tokenizer):
        candidate = f"{current}\n\n{unit}" if current else unit
        if tokenizer.count(candidate) <= budget:
            current = candidate
        else:
            if current:
                out.append(current)
            current = unit
    if current:
        out.append(current)
    return out


def _units(text: str, budget: int, tokenizer: Tokenizer) -> list[str]:
    units: list[str] = []
    for para in re.split(r"\n\s*\n", text):
        para = para.strip()
        if not para:
            continue
        if tokenizer.count(para) <= budget:
            units.append(para)
            continue
        for sentence in SENTENCE_END_RE.split(para):
            if tokenizer.count(sentence) <= budget:
                units.append(sentence)
            else:
                ids = tokenizer.encode(sentence)
                units.extend(
                    tokenizer.decode(ids[i : i + budget]) for i in range(0, len(ids), budget)
                )
    return units
