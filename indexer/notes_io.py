"""ParsedNote <-> a row of the ``notes`` table (so unchanged notes are never re-parsed)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .parse import Heading, Link, ParsedNote

# The notes table's columns with body, properties and headings replaced by empty values.
LIGHT_COLUMNS = (
    "uri, path, title, '', aliases, tags, '{}', '[]', raw_links, created, modified, ord, "
    "hash, size, mtime_ns, warnings"
)
# The columns ``note_to_row`` fills, in its order (``shown_tokens`` is counted apart).
NOTE_COLUMNS = (
    "uri, path, title, body, aliases, tags, properties, headings, raw_links, created, "
    "modified, ord, hash, size, mtime_ns, warnings"
)
LINK_FIELDS = ("kind", "target", "subpath", "display", "property", "line", "markdown")


def note_to_row(n: ParsedNote) -> tuple[Any, ...]:
    return (
        n.uri,
        n.path,
        n.title,
        n.body,
        json.dumps(n.aliases, ensure_ascii=False),
        json.dumps(n.tags, ensure_ascii=False),
        json.dumps(n.properties, ensure_ascii=False, default=str),
        json.dumps([[h.level, h.text, h.line] for h in n.headings], ensure_ascii=False),
        json.dumps([[getattr(lk, f) for f in LINK_FIELDS] for lk in n.links], ensure_ascii=False),
        n.created,
        n.modified,
        n.order,
        n.hash,
        n.size,
        n.mtime_ns,
        json.dumps(n.warnings, ensure_ascii=False),
    )


def note_from_row(row: Sequence[Any]) -> ParsedNote:
    (
        uri,
        path,
        title,
        body,
        aliases,
        tags,
        props,
        headings,
        links,
        created,
        modified,
        order,
        hash_,
        size,
        mtime_ns,
        warnings,
    ) = row
    return ParsedNote(
        path=path,
        uri=uri,
        title=title,
        body=body or "",
        aliases=json.loads(aliases),
        tags=json.loads(tags),
        links=[Link(**dict(zip(LINK_FIELDS, item, strict=True))) for item in json.loads(links)],
        headings=[Heading(*h) for h in json.loads(headings)],
        properties=json.loads(props),
        created=created or 0.0,
        modified=modified or 0.0,
        order=order,
        warnings=json.loads(warnings),
        size=size or 0,
        mtime_ns=mtime_ns or 0,
        hash=hash_ or "",
    )
