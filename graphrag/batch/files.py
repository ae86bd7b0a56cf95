"""Batch input and output files: JSON Lines items in, JSON Lines records out.

Input: ``{"id": ..., "query": "..."}`` or ``{"id": ..., "note": "..."}`` a line
(focus lines may add ``"question"``); a bad line becomes an error item that
names its line number. Output: ``load_done`` reads the records already written
(their ids, or for a malformed input line its line number) so a run can resume,
dropping a truncated last line by rewriting the file atomically.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphrag.errors import BatchError

if TYPE_CHECKING:
    from graphrag.api import VaultRAG

MODES = ("query", "focus", "summarise")


@dataclass(frozen=True)
class Item:
    """One unit of work. ``error`` marks a malformed input line: recorded, never run."""

    id: Any
    line: int | None
    mode: str
    text: str = ""  # the question (query mode) or the note (focus, summarise)
    question: str | None = None  # focus mode: a question about the note
    error: str | None = None

    @property
    def key(self) -> str:
        return record_key({"id": self.id, "line": self.line})


def record_key(record: dict[str, Any]) -> str:
    """What makes a line "done": its id, or for a malformed input line its line number."""
    if record.get("id") is None:
        return f"line:{record.get('line')}"
    return json.dumps(record["id"], ensure_ascii=False, sort_keys=True)


# -- input -----------------------------------------------------------------------------
def read_items(path: str | os.PathLike[str], mode: str = "auto") -> list[Item]:
    """Parse an input file; bad lines become error items naming their line number."""
    if mode not in ("auto", *MODES):
        raise BatchError(f"mode {mode!r} is unknown; expected auto, {', '.join(MODES)}")
    try:
        with open(path, encoding="utf-8-sig") as fh:
            lines = fh.read().splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise BatchError(f"{path}: cannot read the input file ({exc})") from exc
    items: list[Item] = []
    first_line: dict[str, int] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        item = parse_line(raw, number, mode)
        if item.error is None:
            if item.key in first_line:
                message = f"duplicate id {item.key} (first on line {first_line[item.key]})"
                item = Item(None, number, item.mode, error=f"line {number}: {message}")
            else:
                first_line[item.key] = number
        items.append(item)
    return items


def parse_line(raw: str, number: int, mode: str = "auto") -> Item:
    def bad(message: str) -> Item:
        return Item(None, number, mode, error=f"line {number}: {message}")

    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        return bad(f"not JSON ({exc.msg} at column {exc.colno})")
    if not isinstance(data, dict):
        return bad('expected an object like {"id": 1, "query": "..."}')
    ident = data.get("id")
    if ident is None or isinstance(ident, bool) or not isinstance(ident, (str, int)):
        return bad(f'"id" must be a string or an integer, got {ident!r}')
    has_query, has_note = "query" in data, "note" in data
    if has_query and has_note:
        return bad('give either "query" (a question) or "note" (a note name), not both')
    if not (has_query or has_note):
        return bad('give "query" (a question) or "note" (a note name); this line has neither')
    chosen = mode if mode != "auto" else ("query" if has_query else "focus")
    wanted = "query" if chosen == "query" else "note"
    if wanted not in data:
        return bad(f'{chosen} mode needs "{wanted}"')
    text = data[wanted]
    if not isinstance(text, str) or not text.strip():
        return bad(f'"{wanted}" must be a non-empty string')
    question = data.get("question")
    if question is not None and (chosen != "focus" or not isinstance(question, str)):
        return bad('"question" is a string, and only for focus mode')
    return Item(ident, number, chosen, text, question)


def note_items(
    rag: VaultRAG, folders: Sequence[str] = (), tags: Sequence[str] = (), mode: str = "summarise"
) -> list[Item]:
    """Every note in one of ``folders`` (any depth) having all ``tags``; id = uri."""
    wanted_folders = [f.strip("/") for f in folders if f.strip("/")]
    wanted_tags = [t.lstrip("#").casefold() for t in tags if t.lstrip("#")]

    def keep(uri: str, note_tags: Iterable[str]) -> bool:
        if wanted_folders and not any(uri == f or uri.startswith(f + "/") for f in wanted_folders):
            return False
        folded = [t.casefold() for t in note_tags]
        return all(any(t == w or t.startswith(w + "/") for t in folded) for w in wanted_tags)

    uris = sorted(n.uri for n in rag.graph.notes() if keep(n.uri, n.tags))
    return [Item(uri, None, mode, uri) for uri in uris]


# -- output ----------------------------------------------------------------------------
def load_done(out: Path, retry_errors: bool = False) -> set[str]:
    """Keys already in ``out``. Drops a truncated last line (and, with ``retry_errors``,
    the records that failed), rewriting the file atomically when anything is dropped."""
    if not out.exists():
        return set()
    try:
        data = out.read_bytes()
    except OSError as exc:
        raise BatchError(f"{out}: cannot read the output file ({exc.strerror})") from exc
    lines = data.split(b"\n")
    tail = lines.pop()  # after the last newline: b"" unless the last line is truncated
    kept: list[bytes] = []
    done: set[str] = set()
    changed = bool(tail)
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            changed = True
            continue
        try:
            record = json.loads(raw)
            if not isinstance(record, dict):
                raise ValueError("not an object")
        except (ValueError, UnicodeDecodeError) as exc:
            if number == len(lines) and not tail:  # a cut line that happened to end the file
                changed = True
                continue
            raise BatchError(
                f"{out}: line {number} is not a JSON object ({exc}); fix or remove it"
            ) from exc
        if retry_errors and record.get("error"):
            changed = True
            continue
        kept.append(raw)
        done.add(record_key(record))
    if changed:
        _rewrite(out, kept)
    return done


def _rewrite(out: Path, lines: list[bytes]) -> None:
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(b"".join(line + b"\n" for line in lines))
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, out)


def read_records(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """The records of an output file, skipping a truncated last line."""
    with open(path, encoding="utf-8") as fh:
        for raw in fh:
            if raw.endswith("\n"):
                yield json.loads(raw)
