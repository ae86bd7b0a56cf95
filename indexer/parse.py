"""One Markdown file -> ``ParsedNote``, following Obsidian's rules.

How a note is read:

* Front matter is YAML between ``---`` lines. Invalid YAML, or YAML that is not
  a mapping of properties (a list, a lone string), is reported with the file and
  reason; the note is still indexed from its body.
* NUL bytes are removed with a warning (they end strings in SQLite and C code).
* The body is split into blocks by markdown-it-py (CommonMark block rules), so
  fenced and indented code and HTML blocks are recognised exactly as a Markdown
  renderer would. Obsidian's own syntax (wikilinks, embeds, tags, ``%%``
  comments, ``$$`` math) is not CommonMark, so it is scanned inside the text
  blocks (paragraphs, headings, list items, tables, quotes) after masking inline
  code spans, inline math, inline HTML comments and escaped characters. We skip
  markdown-it's inline phase: it would cost two thirds of the parse time and
  knows none of that syntax.
* ``%% ... %%`` comments and ``$$ ... $$`` math blocks are blanked before the
  block parse (outside fenced code), keeping line numbers intact.

What counts as what:

* wikilink ``[[target#sub|display]]``, embed ``![[...]]``, Markdown link
  ``[text](url)`` / image ``![alt](url)`` (URL-decoded; external URLs and
  ``#anchor``-only links are ignored), ``\\|`` inside tables is a plain ``|``.
* property links: ``[[...]]`` in any front matter value, and in Dataview-style
  inline fields ``key:: value`` / ``[key:: value]``; the key is the predicate.
* tags: front matter ``tags``/``tag`` (list, or a string split on commas and
  spaces) and inline ``#tag`` preceded by start-of-text or whitespace, made of
  letters, digits, ``_``, ``-`` and ``/``, with at least one non-digit (``#123``
  is not a tag). Lower-cased; ``a/b`` also yields ``a``. Front-matter tags or
  aliases that cannot be one (``null``, a mapping, a number) are left out with a
  warning naming them.
* A link whose target holds a control character (``[z](%00.md)``) or names nothing
  (``[[.md]]``) is left out with a warning: it could only make a ghost with an
  empty or unprintable name.
* created time: front matter ``created`` then ``date`` (date, datetime or ISO
  string), else the file's mtime.
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import json
import math
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import unquote

import yaml
from markdown_it import MarkdownIt

# -- Obsidian syntax (regexes in one place) ---------------------------------------------
FENCE_RE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
OBSIDIAN_COMMENT_RE = re.compile(r"%%.*?%%", re.S)
MATH_BLOCK_RE = re.compile(r"\$\$.*?\$\$", re.S)
CODE_SPAN_RE = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.S)
INLINE_MATH_RE = re.compile(r"(?<![\\$])\$(?=\S)[^$\n]+?(?<=\S)\$(?!\d)")
HTML_COMMENT_RE = re.compile(r"<!--.*?(?:-->|$)", re.S)
# A code span within one paragraph: %% or $$ or <!-- inside it is literal text.
PARA_CODE_SPAN = r"(?P<code>(?P<ticks>`+)(?:(?!\n[ \t]*\n).)+?(?<!`)(?P=ticks)(?!`))"
COMMENT_OR_CODE_RE = re.compile(PARA_CODE_SPAN + r"|%%.*?%%|<!--.*?(?:-->|\Z)", re.S)
PERCENT_OR_CODE_RE = re.compile(PARA_CODE_SPAN + r"|%%", re.S)
MATH_OR_CODE_RE = re.compile(PARA_CODE_SPAN + r"|\$\$.*?\$\$", re.S)
ESCAPE_RE = re.compile(r"\\[\\`*_{}\[\]()#+\-.!|$%<>]")
WIKILINK_RE = re.compile(r"(!?)\[\[([^\[\]\n]+?)\]\]")
MDLINK_RE = re.compile(
    r"(!?)\[([^\[\]\n]*)\]\(\s*(<[^>\n]+>|[^\s()]+(?:\([^\s()]*\)[^\s()]*)*)(?:\s+\"[^\"\n]*\")?\s*\)"
)
TAG_RE = re.compile(r"(?:^|(?<=\s))#([^\W][\w/\-]*|[\w/\-]*[^\W\d][\w/\-]*)", re.U)
# Dataview inline fields: a whole line "key:: value", or "[key:: value]" / "(key:: value)".
LINE_FIELD_RE = re.compile(r"^[ \t>]*(?:[-*+][ \t]+)?([^\W\d][\w \-]{0,60}?)::[ \t]*(.*)$", re.M)
BRACKET_FIELD_RE = re.compile(
    r"[\[(]([^\W\d][\w \-]{0,60}?)::\s*((?:\[\[[^\]\n]*\]\]|[^\])\n])*)[\])]"
)
SCHEME_RE = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.\-]*:")
BLOCK_TOKENS_WITH_TEXT = {"inline"}

_md = MarkdownIt("commonmark")
_md.core.ruler.disable(["inline", "text_join"])


@dataclass(slots=True)
class Link:
    """A link as written. ``target`` is what to resolve: a wikilink's path or a
    Markdown link's URL-decoded path (still relative to the linking note)."""

    kind: str  # wikilink | embed | markdown | property
    target: str
    subpath: str = ""  # "#Heading" or "#^block"
    display: str = ""
    property: str | None = None  # front matter key or inline field name
    line: int = 0  # 0-based line in the file (front matter links: 0)
    markdown: bool = False  # written as a Markdown link (relative-path rules apply)


@dataclass(slots=True)
class Heading:
    level: int
    text: str
    line: int


@dataclass(slots=True)
class ParsedNote:
    path: str  # vault-relative, with extension
    uri: str  # path without .md
    title: str
    body: str
    aliases: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)  # lower-cased, ancestors included
    links: list[Link] = field(default_factory=list)
    headings: list[Heading] = field(default_factory=list)
    properties: dict[str, Any] = field(default_factory=dict)
    created: float = 0.0
    modified: float = 0.0
    order: float | None = None
    warnings: list[str] = field(default_factory=list)
    size: int = 0
    mtime_ns: int = 0
    hash: str = ""


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


def note_uri(path: str) -> str:
    return path[:-3] if path.lower().endswith(".md") else path


def decode(data: bytes, path: str, warnings: list[str]) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        warnings.append(f"{path}: not valid UTF-8 (byte {exc.start}); decoded with replacement")
        text = data.decode("utf-8", errors="replace")
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    if "\x00" in text:
        warnings.append(f"{path}: {text.count(chr(0))} NUL byte(s) removed")
        text = text.replace("\x00", "")
    return text


def parse_note(
    path: str,
    data: bytes,
    mtime: float = 0.0,
    hierarchy_properties: tuple[str, ...] = ("up", "parent"),
) -> ParsedNote:
    """Parse one note's bytes. Never raises for bad content: problems become warnings."""
    warnings: list[str] = []
    text = decode(data, path, warnings)
    meta, body = split_front_matter(text, path, warnings)
    uri = note_uri(path)
    stem = uri.rsplit("/", 1)[-1]
    title = (
        meta.get("title") if isinstance(meta.get("title"), str) and meta["title"].strip() else stem
    )
    note = ParsedNote(
        path=path,
        uri=uri,
        title=str(title).strip(),
        body=body,
        properties=json_safe(meta),
        modified=mtime,
        created=_created(meta, mtime),
        order=_number(meta.get("order")),
        warnings=warnings,
        size=len(data),
        hash=content_hash(data),
    )
    alias_key = "aliases" if "aliases" in meta else "alias"
    ignored: list[Any] = []
    note.aliases = _string_list(meta.get(alias_key), split_commas=True, ignored=ignored)
    _warn_ignored(warnings, path, alias_key, ignored, "an alias is text")
    tag_key = "tags" if "tags" in meta else "tag"
    tags: set[str] = set()
    ignored = []
    for raw in _string_list(meta.get(tag_key), split_spaces=True, ignored=ignored):
        expanded = expand_tag(raw)
        if expanded:
            tags.update(expanded)
        else:
            ignored.append(raw)
    _warn_ignored(warnings, path, tag_key, ignored, "a tag is text with a letter in it")
    note.links.extend(_property_links(meta))
    front_lines = text.count("\n", 0, len(text) - len(body))
    note.body = body = strip_comments(body)
    first_body_link = len(note.links)
    scan_body(body, note, tags)
    # Body link lines count from the body; report them as 0-based lines of the file.
    for link in note.links[first_body_link:]:
        link.line += front_lines
    note.links = _usable_links(note.links, first_body_link, path, warnings)
    note.tags = sorted(tags)
    return note


def _shown(value: Any) -> str:
    """A front-matter value as YAML-ish text for a warning (``null``, ``{"x": "y"}``)."""
    if isinstance(value, str):
        return repr(value)
    return json.dumps(json_safe(value), ensure_ascii=False)


def _warn_ignored(warnings: list[str], path: str, key: str, ignored: list[Any], rule: str) -> None:
    if ignored:
        shown = ", ".join(_shown(v) for v in ignored[:5]) + (", ..." if len(ignored) > 5 else "")
        warnings.append(f"{path}: {key}: ignored {shown} ({rule})")


def _control_char(text: str) -> bool:
    return any(unicodedata.category(c) == "Cc" and c != "\t" for c in text)


def _usable_links(
    links: list[Link], first_body_link: int, path: str, warnings: list[str]
) -> list[Link]:
    """Drop links that could only become a ghost with an unprintable or empty name."""
    kept: list[Link] = []
    for i, link in enumerate(links):
        name = link.target.strip()
        if name.casefold().endswith(".md"):
            name = name[:-3]
        if _control_char(link.target):
            reason = "its target has a control character"
        elif link.target.strip() and not name.strip(" /."):
            reason = "its target names no note"
        else:
            kept.append(link)
            continue
        where = f"property {link.property}" if i < first_body_link else f"line {link.line + 1}"
        target = link.target.encode("unicode_escape").decode("ascii")
        warnings.append(f"{path}: {where}: link to '{target}' ignored ({reason})")
    return kept


# -- front matter -------------------------------------------------------------------------
class _DatesAsText(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """Safe YAML that keeps dates as text, like Obsidian: an impossible date such as
    2023-02-30 must not throw away the note's other properties; ``_timestamp``
    parses the text later."""


_DatesAsText.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


FRONT_MATTER_RE = re.compile(r"\A---[ \t]*\n(.*?\n)?(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.S)


def split_front_matter(text: str, path: str, warnings: list[str]) -> tuple[dict[str, Any], str]:
    m = FRONT_MATTER_RE.match(text)
    if not m:
        return {}, text
    body = text[m.end() :]
    try:
        meta = yaml.load(m.group(1) or "", Loader=_DatesAsText)
    except yaml.YAMLError as exc:
        reason = _yaml_reason(exc)
        warnings.append(f"{path}: invalid YAML front matter ({reason}); indexed from the body")
        return {}, body
    except (ValueError, TypeError, RecursionError) as exc:  # a constructor refusing a value
        warnings.append(f"{path}: unreadable front matter ({exc}); indexed from the body")
        return {}, body
    if meta is None:  # "---\n---": empty front matter
        return {}, body
    if not isinstance(meta, dict):
        kind = "list" if isinstance(meta, list) else type(meta).__name__
        warnings.append(
            f"{path}: front matter is a YAML {kind}, not key: value properties; ignored"
        )
        return {}, body
    # Keep line numbers of the body relative to the body text we store.
    return {str(k): v for k, v in meta.items()}, body


def _yaml_reason(exc: yaml.YAMLError) -> str:
    """The parser's complaint at the note's own line numbers: PyYAML counts from the
    block's first line, which is the file's line 2, and its stream name and caret
    drawing read as noise on one line."""
    mark = getattr(exc, "problem_mark", None)
    if not isinstance(exc, yaml.MarkedYAMLError) or mark is None:
        return " ".join(str(exc).split())

    def at(m: Any) -> str:
        return f"line {m.line + 2}, column {m.column + 1}"

    reason = f"{at(mark)}: {exc.problem or 'not YAML'}"
    if exc.context:
        start = exc.context_mark
        # Where the unfinished construct began is what to look at when the problem is
        # only found later (an unclosed [ at the end of the block).
        since = f" at {at(start)}" if start is not None and at(start) != at(mark) else ""
        reason += f" ({exc.context}{since})"
    return " ".join(reason.split())


def json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [json_safe(v) for v in value]
    if isinstance(value, (dt.date, dt.datetime, dt.time)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _string_list(
    value: Any,
    split_commas: bool = False,
    split_spaces: bool = False,
    ignored: list[Any] | None = None,
) -> list[str]:
    """Text items of a front-matter value; ``null``, mappings and nested lists go to ``ignored``."""
    if value is None:
        return []
    items = value if isinstance(value, list) else [value]
    out: list[str] = []
    for item in items:
        if item is None or isinstance(item, (dict, list)):
            if ignored is not None:
                ignored.append(item)
            continue
        text = str(item)
        parts = [text]
        if split_spaces:
            parts = re.split(r"[,\s]+", text)
        elif split_commas and not isinstance(value, list):
            parts = text.split(",")
        out.extend(p.strip() for p in parts if p.strip())
    return out


def expand_tag(raw: str) -> list[str]:
    tag = raw.strip().lstrip("#").strip("/").lower()
    if not tag or tag.replace("/", "").isdigit():
        return []
    parts = [p for p in tag.split("/") if p]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def _created(meta: dict[str, Any], mtime: float) -> float:
    for key in ("created", "date"):
        value = meta.get(key)
        stamp = _timestamp(value)
        if stamp is not None:
            return stamp
    return mtime


def _timestamp(value: Any) -> float | None:
    if isinstance(value, dt.datetime):
        when = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return when.timestamp()
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC).timestamp()
    if isinstance(value, str):
        text = value.strip()
        try:
            return _timestamp(dt.datetime.fromisoformat(text.replace("Z", "+00:00")))
        except ValueError:
            return None
    return None


def _property_links(meta: dict[str, Any]) -> list[Link]:
    links: list[Link] = []

    def walk(key: str, value: Any) -> None:
        if isinstance(value, str):
            for m in WIKILINK_RE.finditer(value):
                links.append(_wikilink(m.group(2), "property", key, 0))
        elif isinstance(value, list):
            for item in value:
                walk(key, item)
        elif isinstance(value, dict):
            for item in value.values():
                walk(key, item)

    for key, value in meta.items():
        walk(key, value)
    return links


# -- body ---------------------------------------------------------------------------------
def _blank(match: re.Match[str]) -> str:
    return re.sub(r"[^\n]", " ", match.group(0))


def outside_fences(body: str, transform: Callable[[str], str]) -> str:
    """Apply ``transform`` to every stretch of ``body`` outside fenced code blocks."""
    out: list[str] = []
    chunk: list[str] = []
    fence: str | None = None

    def flush() -> None:
        if chunk:
            out.append(transform("".join(chunk)))
            chunk.clear()

    for line in body.splitlines(keepends=True):
        m = FENCE_RE.match(line)
        if fence is None:
            if m:
                flush()
                fence = m.group(1)[0] * len(m.group(1))
                out.append(line)
            else:
                chunk.append(line)
        else:
            out.append(line)
            if m and m.group(1).startswith(fence) and line.strip().strip(fence[0]) == "":
                fence = None
    flush()
    return "".join(out)


def _keep_newlines(match: re.Match[str]) -> str:
    return "\n" * match.group(0).count("\n")


def _outside_code(repl: Callable[[re.Match[str]], str]) -> Callable[[re.Match[str]], str]:
    """A ``re.sub`` replacement that leaves inline code spans (group ``code``) as they are."""
    return lambda m: m.group(0) if m.group("code") else repl(m)


def _drop_comments(text: str) -> str:
    # Left to right, so `%%` or `<!--` inside an inline code span stays literal text.
    text = COMMENT_OR_CODE_RE.sub(_outside_code(_keep_newlines), text)
    if "%%" in text:  # an unclosed %% hides the rest of the note, as in Obsidian
        for m in PERCENT_OR_CODE_RE.finditer(text):
            if not m.group("code"):
                text = text[: m.start()] + "\n" * text.count("\n", m.start())
                break
    return text


def strip_comments(body: str) -> str:
    """Remove %% comments %% and <!-- HTML comments --> (outside code), keeping line count.

    Obsidian hides both in reading view and users keep private asides in them, so
    they are neither linked, nor embedded, nor shown to a language model.
    """
    if "%%" not in body and "<!--" not in body:
        return body
    return outside_fences(body, _drop_comments)


def mask_math_blocks(body: str) -> str:
    """Blank $$ math $$ outside fenced code, keeping newlines."""
    if "$$" not in body:
        return body
    return outside_fences(body, lambda text: MATH_OR_CODE_RE.sub(_outside_code(_blank), text))


def mask_inline(text: str) -> str:
    """Blank everything in a text block that can't hold a link or a tag."""
    if "`" in text:
        text = CODE_SPAN_RE.sub(_blank, text)
    if "<!--" in text:
        text = HTML_COMMENT_RE.sub(_blank, text)
    if "$" in text:
        text = INLINE_MATH_RE.sub(_blank, text)
    if "\\" in text:
        # "\|" inside a wikilink in a table is a real pipe; other escapes kill syntax.
        text = text.replace("\\|", " |")
        text = ESCAPE_RE.sub(lambda m: "  ", text)
    return text


def scan_body(body: str, note: ParsedNote, tags: set[str]) -> None:
    masked = mask_math_blocks(body)
    if not any(c in masked for c in "[#:"):
        return
    tokens = _md.parse(masked)
    lines = masked.split("\n")
    heading_level = 0
    for tok in tokens:
        if tok.type == "heading_open":
            heading_level = int(tok.tag[1])
            continue
        if tok.type not in BLOCK_TOKENS_WITH_TEXT or tok.map is None:
            continue
        start, end = tok.map
        if heading_level:
            note.headings.append(Heading(heading_level, tok.content.strip(), start))
            heading_level = 0
        # Scan the source lines (not tok.content) so link line numbers are real.
        block = "\n".join(lines[start:end])
        scan_text(block, start, note, tags)


def scan_text(block: str, first_line: int, note: ParsedNote, tags: set[str]) -> None:
    text = mask_inline(block)
    # Lookups by bisection: a paragraph of 10,000 links (a log, an index note) must not
    # cost links x lines, which made one 8 MB note take hours.
    fields: list[tuple[list[int], list[tuple[int, str]]]] = []  # per regex: starts, (end, key)
    if "::" in text:
        for regex in (LINE_FIELD_RE, BRACKET_FIELD_RE):
            found = [(m.start(2), m.end(2), m.group(1).strip()) for m in regex.finditer(text)]
            fields.append(([a for a, _, _ in found], [(b, key) for _, b, key in found]))
    newlines = [i for i, c in enumerate(text) if c == "\n"] if "\n" in text else []

    def field_at(pos: int) -> str | None:
        # The line form wins over the bracket form; the matches of one regex never overlap.
        for starts, ends in fields:
            i = bisect.bisect_right(starts, pos) - 1
            if i >= 0 and pos < ends[i][0]:
                return ends[i][1]
        return None

    def line_at(pos: int) -> int:
        return first_line + bisect.bisect_left(newlines, pos)

    if "[" in text:
        for m in WIKILINK_RE.finditer(text):
            key = field_at(m.start())
            kind = "property" if key else ("embed" if m.group(1) else "wikilink")
            note.links.append(_wikilink(m.group(2), kind, key, line_at(m.start())))
        if "](" in text:
            for m in MDLINK_RE.finditer(text):
                link = _mdlink(m, field_at(m.start()), line_at(m.start()))
                if link is not None:
                    note.links.append(link)
    if "#" in text:
        for m in TAG_RE.finditer(text):
            tags.update(expand_tag(m.group(1)))


def _wikilink(inner: str, kind: str, prop: str | None, line: int) -> Link:
    target, _, display = inner.partition("|")
    target, hash_, sub = target.partition("#")
    return Link(
        kind=kind,
        target=target.strip(),
        subpath=("#" + sub.strip()) if hash_ else "",
        display=display.strip(),
        property=prop,
        line=line,
    )


def _mdlink(m: re.Match[str], prop: str | None, line: int) -> Link | None:
    url = m.group(3).strip()
    if url.startswith("<") and url.endswith(">"):
        url = url[1:-1]
    if SCHEME_RE.match(url) or url.startswith("#") or not url:
        return None
    path, hash_, sub = url.partition("#")
    return Link(
        kind="property" if prop else ("embed" if m.group(1) else "markdown"),
        target=unquote(path).strip(),
        subpath=("#" + unquote(sub)) if hash_ else "",
        display=m.group(2).strip(),
        property=prop,
        line=line,
        markdown=True,
    )
