"""Metadata filters shared by every search mode and by query mode.

A filter keeps a note when it passes every given condition:

* ``folders``: the note is in one of them, at any depth (``Places`` keeps
  ``Places/Huts/Gamsjoch Hut``), or is the folder note ``F.md`` beside ``F/``;
* ``tags``: the note has all of them; a tag also matches its nested tags
  (``project`` keeps a note tagged only ``#project/festival``);
* ``properties``: front matter ``key=value`` (case-insensitive; a list property
  matches if any item does; ``[[links]]`` compare by their target text), or
  ``key`` alone for "has the property";
* ``created`` / ``modified``: a closed date range, either end open. A bare date
  as the end of a range means the whole of that day (UTC).

Filters decide what may be *returned*; query mode still traverses through notes
that fail them, so a filtered answer keeps its connections.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np

from graphrag.errors import InvalidRequestError
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph

DateRange = tuple[float | None, float | None]
_OPEN: DateRange = (None, None)
_LINK_RE = re.compile(r"^\[\[([^\]|#]*)(?:[#|][^\]]*)?\]\]$")


@dataclass(frozen=True)
class Filters:
    folders: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    properties: tuple[tuple[str, str | None], ...] = ()
    created: DateRange = _OPEN
    modified: DateRange = _OPEN

    @property
    def active(self) -> bool:
        return bool(
            self.folders
            or self.tags
            or self.properties
            or self.created != _OPEN
            or self.modified != _OPEN
        )

    @classmethod
    def parse(
        cls,
        folder: Iterable[str] | str = (),
        tag: Iterable[str] | str = (),
        prop: Iterable[str] | str = (),
        created: str | None = None,
        modified: str | None = None,
    ) -> Filters:
        """From user text: ``prop`` items are ``key=value`` or ``key``; dates are
        ranges ``FROM..TO`` (``2024-01-01..``, ``..2024-06-30``) or one day."""
        properties = []
        for item in _many(prop):
            key, eq, value = item.partition("=")
            if not key.strip():
                raise InvalidRequestError("property", f"{item!r}: expected key=value or key")
            properties.append((key.strip(), value.strip() if eq else None))
        return cls(
            folders=tuple(f.strip().strip("/") for f in _many(folder) if f.strip().strip("/")),
            tags=tuple(t.strip().lstrip("#").lower() for t in _many(tag) if t.strip("# ")),
            properties=tuple(properties),
            created=parse_range(created, "created"),
            modified=parse_range(modified, "modified"),
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.folders:
            out["folders"] = list(self.folders)
        if self.tags:
            out["tags"] = list(self.tags)
        if self.properties:
            out["properties"] = [k if v is None else f"{k}={v}" for k, v in self.properties]
        for name, (lo, hi) in (("created", self.created), ("modified", self.modified)):
            if (lo, hi) != _OPEN:
                out[name] = [_iso(lo), _iso(hi)]
        return out

    def mask(self, corpus: Corpus, graph: VaultGraph) -> np.ndarray | None:
        """Which corpus notes pass, or ``None`` when nothing is filtered."""
        if not self.active:
            return None
        keep = np.ones(len(corpus), dtype=bool)
        if self.folders:
            inside = np.zeros(len(corpus), dtype=bool)
            for folder in self.folders:
                first, stop = corpus.folder_range(folder)
                inside[first:stop] = True
                if folder in corpus.index_of:
                    inside[corpus.index_of[folder]] = True
            keep &= inside
        for tag in self.tags:
            keep &= tag_mask(tag, corpus, graph)
        for key, value in self.properties:
            keep &= _property_mask(key, value, corpus)
        for (lo, hi), times in ((self.created, corpus.created), (self.modified, corpus.modified)):
            if lo is not None:
                keep &= times >= lo
            if hi is not None:
                keep &= times <= hi
        return keep


def _many(value: Iterable[str] | str | None) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def tag_mask(tag: str, corpus: Corpus, graph: VaultGraph) -> np.ndarray:
    """Notes having ``tag`` or one nested under it (cached per corpus)."""

    def build() -> np.ndarray:
        out = np.zeros(len(corpus), dtype=bool)
        for name, members in graph.tag_members.items():
            if name == tag or name.startswith(tag + "/"):
                out[corpus.indices(members)] = True
        return out

    return corpus.derived(f"tag-mask:{tag}", build)


def _property_mask(key: str, value: str | None, corpus: Corpus) -> np.ndarray:
    table = corpus.derived(f"property:{key.casefold()}", lambda: _property_table(key, corpus))
    out = np.zeros(len(corpus), dtype=bool)
    if value is None:
        for rows in table.values():
            out[rows] = True
    else:
        out[table.get(normalise_value(value), [])] = True
    return out


def _property_table(key: str, corpus: Corpus) -> dict[str, list[int]]:
    """normalised value -> notes having it for ``key`` (case-insensitive key)."""
    wanted = key.casefold()
    table: dict[str, list[int]] = {}
    db = corpus.connect()
    try:
        for uri, props in db.execute("SELECT uri, properties FROM notes"):
            i = corpus.index_of.get(uri)
            if i is None or not props:
                continue
            for k, v in json.loads(props).items():
                if k.casefold() != wanted:
                    continue
                for item in v if isinstance(v, list) else [v]:
                    table.setdefault(normalise_value(item), []).append(i)
    finally:
        db.close()
    return table


def normalise_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    text = str(value).strip()
    link = _LINK_RE.match(text)
    if link:
        text = link.group(1).strip()
    return text.casefold()


# -- dates ---------------------------------------------------------------------------------
def parse_range(text: str | Sequence[Any] | None, name: str) -> DateRange:
    if text is None or text == "":
        return _OPEN
    if not isinstance(text, str):
        lo, hi = list(text)
        return _when(lo, name, end=False), _when(hi, name, end=True)
    if ".." in text:
        lo_text, _, hi_text = text.partition("..")
        lo, hi = _when(lo_text, name, end=False), _when(hi_text, name, end=True)
        if lo is not None and hi is not None and lo > hi:
            # Reversed, it keeps no note, and "nothing is relevant" would not say why.
            raise InvalidRequestError(name, f"{text!r} ends before it starts (FROM..TO)")
        return lo, hi
    return _when(text, name, end=False), _when(text, name, end=True)


def _when(value: Any, name: str, end: bool) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return moment.timestamp()
    if isinstance(value, date):
        day = datetime(value.year, value.month, value.day, tzinfo=UTC)
        return (day + timedelta(days=1)).timestamp() - 1e-6 if end else day.timestamp()
    text = str(value).strip()
    try:
        if len(text) == 10:  # a bare date covers its whole day
            return _when(date.fromisoformat(text), name, end)
        if len(text) in (4, 7):  # a year or a month covers all of it
            return _period(text, end)
        return _when(datetime.fromisoformat(text.replace("Z", "+00:00")), name, end)
    except ValueError as exc:
        raise InvalidRequestError(
            name, f"{text!r} is not a date (use YYYY-MM-DD, YYYY-MM or YYYY, or FROM..TO)"
        ) from exc


def _period(text: str, end: bool) -> float:
    """The first moment of ``YYYY`` or ``YYYY-MM``, or with ``end`` the last."""
    year_text, dash, month_text = text.partition("-")
    month = int(month_text) if dash and month_text.isdigit() else 0 if dash else 1
    if not (year_text.isdigit() and len(year_text) == 4) or not 1 <= month <= 12:
        raise ValueError(text)
    year = int(year_text)
    if not end:
        return datetime(year, month, 1, tzinfo=UTC).timestamp()
    after = (year + 1, 1) if not dash or month == 12 else (year, month + 1)
    return datetime(*after, 1, tzinfo=UTC).timestamp() - 1e-6


def _iso(value: float | None) -> str | None:
    if value is None:
        return None
    return datetime.fromtimestamp(value, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
