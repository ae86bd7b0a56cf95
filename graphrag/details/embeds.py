"""Embeds inlined as Obsidian shows them: ``![[Note]]``, ``![[Note#Heading]]``, ``![[Note#^id]]``.

In Obsidian an embed is the embedded text itself, in a frame; a model shown
the literal ``![[Manage vaults#Move vault to a different folder]]`` sees a
pointer it cannot follow. So the text handed out has each embed of a note
replaced by what it shows:

* ``![[Note]]``: the note's text (without front matter);
* ``![[Note#Heading]]`` (or ``#Parent#Heading``): the heading and everything under
  it down to the next heading of the same or a higher level;
* ``![[Note#^id]]``: the block carrying ``^id``: the paragraph, the list item
  (with its nested items), or the table, list or callout followed by a line
  holding only ``^id``. The ``^id`` mark itself is not shown;

framed as a quote whose first line names the source, ``> [!embed] [[uri#sub]]``,
so a model can tell (and cite) where the text comes from. Limits keep it
bounded: each embed shows at most ``embed_max_chars`` characters (cut by
``excerpt``, marked); embeds inside embedded text are followed
``embed_max_depth`` levels deep; an embed of a text that is already being shown (a cycle, or the
same embed twice in one note) is one header line, ``(shown above)``. Embeds of
attachments, of notes that do not exist and inside code stay as written. Dendron's
``![[label|note]]``, which the index resolves to ``note``, shows ``note``, and its
ranges ``![[note#header-1,1:#*]]`` show what Dendron shows (``dendron_range``).

The inlined text is part of the note's details, so it is counted in the token
budget like the rest. See docs/architecture.md ("Text shown to a model").
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from graphrag.config.details import DetailsSettings
from graphrag.details.anchors import Heading, code_lines, dendron_ref, headings, same_heading
from graphrag.details.excerpt import excerpt
from indexer.block_cache import cached_blocks

EMBED_RE = re.compile(r"!\[\[([^\[\]\n]+?)\]\]")
CODE_SPAN_RE = re.compile(r"(`+).+?\1")
LINE_PREFIX_RE = re.compile(r"^(\s*(?:>\s?)*(?:(?:[-*+]|\d+[.)])\s+)?)")
BLANK_RUN_RE = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


@dataclass(frozen=True, slots=True)
class _Walk:
    """One inlining pass: the size of each embed, and what it has shown already."""

    max_chars: int
    seen: set[EmbedTarget]


@dataclass(frozen=True, slots=True)
class EmbedTarget:
    uri: str
    subpath: str  # "" (the whole note), "#Heading" or "#^id"


class Embeds:
    """Inlines the embeds of a note's text (see the module docstring).

    ``resolve(uri)``: the note's embeds as ``{written target (casefolded): uri}`` for
    targets that are notes; ``body(uri)``: a note's stored text.
    """

    def __init__(
        self,
        resolve: Callable[[str], dict[str, str]],
        body: Callable[[str], str],
        settings: DetailsSettings | None = None,
        keep: Callable[[Hashable, Callable[[], tuple[str | None]]], tuple[str | None]]
        | None = None,
    ) -> None:
        self.resolve = resolve
        self.body = body
        self.settings = settings or DetailsSettings()
        # ``keep(key, build)``: a generation's cache (``NoteText.memo``) for what an embed
        # shows. A note is inlined once per room it is shown in (query mode's fill tries
        # three), and finding a heading's section reads the embedded note's every line.
        self.keep = keep

    def inline(self, uri: str, text: str, max_chars: int | None = None) -> str:
        """``text`` (all or part of ``uri``'s text) with its embeds inlined, each in at
        most ``max_chars`` characters (default ``embed_max_chars``)."""
        if not self.settings.inline_embeds or "![[" not in text:
            return text
        limit = self.settings.embed_max_chars if max_chars is None else max_chars
        return self._inline(uri, text, _Walk(limit, set()), 0, [EmbedTarget(uri, "")])

    def _inline(
        self, uri: str, text: str, walk: _Walk, depth: int, stack: list[EmbedTarget]
    ) -> str:
        targets = self.resolve(uri)
        if not targets:
            return text
        lines = text.split("\n")
        code = code_lines(text)
        out: list[str] = []
        for n, line in enumerate(lines):
            if n in code or "![[" not in line:
                out.append(line)
                continue
            out.extend(self._line(line, targets, walk, depth, stack))
        return "\n".join(out)

    def _line(
        self,
        line: str,
        targets: dict[str, str],
        walk: _Walk,
        depth: int,
        stack: list[EmbedTarget],
    ) -> list[str]:
        masked = CODE_SPAN_RE.sub(lambda m: " " * len(m.group(0)), line)
        frames: list[list[str]] = []
        spans: list[tuple[int, int]] = []
        for m in EMBED_RE.finditer(masked):
            target, _, display = m.group(1).partition("|")
            name, _, sub = target.partition("#")
            uri = targets.get(name.strip().casefold())
            if uri is None and display:
                # Dendron's ![[label|note#anchor]]: the index resolved the part after the
                # pipe (indexer/resolve.py, rule 8) and stored it as the written target.
                name, _, sub = display.partition("#")
                uri = targets.get(name.strip().casefold())
            if uri is None:  # an attachment, a ghost: Obsidian shows no text either
                continue
            target = EmbedTarget(uri, ("#" + sub.strip()) if sub else "")
            frame = self._frame(target, walk, depth, stack)
            if frame is not None:
                frames.append(frame)
                spans.append(m.span())
        if not frames:
            return [line]
        prefix = LINE_PREFIX_RE.match(line).group(1)  # type: ignore[union-attr]
        cont = re.sub(r"[-*+]|\d+[.)]", lambda m: " " * len(m.group(0)), prefix)
        rest = line
        for a, b in reversed(spans):
            rest = rest[:a] + rest[b:]
        alone = not rest[len(prefix) :].strip()
        out = [] if alone else [line]
        for i, frame in enumerate(frames):
            lead = prefix if alone and i == 0 else cont
            out.append(lead + frame[0])
            out.extend((cont + f).rstrip() for f in frame[1:])
        return out

    def _frame(
        self, target: EmbedTarget, walk: _Walk, depth: int, stack: list[EmbedTarget]
    ) -> list[str] | None:
        header = f"> [!embed] [[{target.uri}{target.subpath}]]"
        if target in stack or target in walk.seen:
            return [header + " (shown above)"]
        text = self.section(target)
        if text is None:
            return None
        walk.seen.add(target)
        if depth + 1 < self.settings.embed_max_depth and "![[" in text:
            text = self._inline(target.uri, text, walk, depth + 1, [*stack, target])
        text, _ = excerpt(text, walk.max_chars)
        return [header, *(("> " + t) if t.strip() else ">" for t in text.split("\n"))]

    def section(self, target: EmbedTarget) -> str | None:
        """What an embed of ``target`` shows (None when the heading or block is missing)."""
        if self.keep is None:
            return self._section(target)
        return self.keep(("embed-section", target), lambda: (self._section(target),))[0]

    def _section(self, target: EmbedTarget) -> str | None:
        body = self.body(target.uri)
        sub = target.subpath
        text: str | None
        if not sub:
            text = body
        elif sub.startswith("#^"):
            text = block_text(body, sub[2:])
        else:
            text = heading_section(body, [p for p in sub.split("#") if p.strip()])
        if text is None:
            text = dendron_range(body, sub)
        if text is None:
            return None
        return BLANK_RUN_RE.sub("\n\n", text).strip("\n")


def heading_section(body: str, path: list[str]) -> str | None:
    """The section under the last heading of ``path`` (earlier ones, if any, must be
    above it at lower levels), from its heading line to the next heading of the same
    or a higher level."""
    if not path:
        return body
    lines = body.split("\n")
    heads = headings(body, lines)
    for i, h in enumerate(heads):
        if not same_heading(path[-1], h.text) or not _under(heads[:i], h.level, path[:-1]):
            continue
        end = next((g.line for g in heads[i + 1 :] if g.level <= h.level), len(lines))
        return "\n".join(lines[h.line : end])
    return None


def dendron_range(body: str, subpath: str) -> str | None:
    """What Dendron's reference ``![[note#start,skip:#end]]`` shows: from the heading
    ``start`` (a slug such as ``header-1`` matches ``Header 1``; ``^begin`` is the top)
    to ``end`` (a heading, excluded; ``*``: the next heading; ``^end``: the note's end;
    ``^id``: that block's line, included), else to the next heading of the same or a
    higher level; ``skip`` lines dropped from the start. None when it is not one or the
    start is missing: Obsidian's reading of the subpath has been tried first."""
    ref = dendron_ref(subpath)
    if ref is None:
        return None
    lines = body.split("\n")
    heads = headings(body, lines)
    if ref.start == "^begin":
        start, level = 0, 0
    else:
        hit = next((h for h in heads if same_heading(ref.start, h.text)), None)
        if hit is None:
            return None
        start, level = hit.line, hit.level
    after = [h for h in heads if h.line > start]
    end: int | None
    mark = None
    if ref.end == "^end":
        end = len(lines)
    elif ref.end == "*" or (not ref.end and level == 0):
        end = next((h.line for h in after), len(lines))
    elif ref.end.startswith("^"):
        mark = _mark(ref.end[1:])
        end = next((n + 1 for n in range(start, len(lines)) if mark.search(lines[n])), None)
    elif ref.end:
        end = next((h.line for h in after if same_heading(ref.end, h.text)), None)
    else:
        end = next((h.line for h in after if h.level <= level), len(lines))
    if end is None:
        return None
    text = "\n".join(lines[start + ref.skip : end])
    return mark.sub("", text) if mark else text


def _mark(block_id: str) -> re.Pattern[str]:
    """A block's ``^id`` at the end of its line (or on a line of its own)."""
    return re.compile(r"(?:^|\s)\^" + re.escape(block_id) + r"[ \t]*$", re.M)


def _under(before: list[Heading], level: int, parents: list[str]) -> bool:
    """Do ``parents`` (outermost first) enclose a heading at ``level`` after ``before``?"""
    for name in reversed(parents):
        for h in reversed(before):
            if h.level < level:
                if not same_heading(name, h.text):
                    return False
                level = h.level
                break
        else:
            return False
    return True


def block_text(body: str, block_id: str) -> str | None:
    """The block marked ``^block_id``, without the mark."""
    mark = _mark(block_id)
    lines = body.split("\n")
    at = next((n for n, line in enumerate(lines) if mark.search(line)), None)
    if at is None:
        return None
    for b in cached_blocks(body):  # the parser's blocks, without importing it again
        if not b.start <= at < b.end:
            continue
        start, end = b.start, b.end
        own_line = lines[at].strip() == "^" + block_id
        if b.kind == "list" and not own_line:
            start, end = next(((p, q) for p, q in b.parts if p <= at < q), (start, end))
        text = "\n".join(lines[start:end])
        return mark.sub("", text.replace("\n^" + block_id, "")).rstrip()
    return None
