"""A ``QueryResult`` as JSON text or as the ``CONTEXT:`` prompt.

Prompt shape (docs/architecture.md, "Query mode", step 5): documents in rank order, entry
notes first, each with its distance from the entry it was reached from, its
relation in words, shared tags and path (two hops or more: one hop's relation names
both ends); then ``[Connection]`` lines naming how
pairs of included documents are linked directly (a link, parent/child, shared
tags). The budget counts each document's block (or its compact JSON object)
and, in the prompt, the connection lines: exactly what the model reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence

from graphrag.focus.render import relation_sentence
from graphrag.query.expand import shared_tags
from graphrag.results.query import EntryNote, QueryNote, QueryResult
from graphrag.snapshot.graph import VaultGraph
from indexer.errors import ConfigError

FORMATS = ("json", "prompt")
_COMPACT = (",", ":")
ARROW = " → "
MAX_CONNECTION_TAGS = 3

Doc = EntryNote | QueryNote


def json_text(result: QueryResult, indent: int | None = 2) -> str:
    separators = _COMPACT if indent is None else None
    return json.dumps(result.to_json(), ensure_ascii=False, indent=indent, separators=separators)


def doc_json(doc: Doc) -> str:
    return json.dumps(doc.to_json(with_explain=False), ensure_ascii=False, separators=_COMPACT)


def json_block(doc: Doc, position: int) -> str:
    """A document as the budget counts it in JSON output: its object, wherever it is."""
    return doc_json(doc)


def _quoted(text: str) -> str:
    return '"' + text.strip().replace('"', '\\"') + '"'


def entry_block(entry: EntryNote, position: int) -> str:
    parts = ["Entry note", "matched by " + "+".join(entry.matched_by)]
    if entry.note.tags:
        parts.append("Tags: " + ", ".join(entry.note.tags))
    parts.extend(_copies(entry))
    parts.append(f"URI: {entry.uri}")
    head = f'[{position}] Document: "{entry.title}" ({", ".join(parts)})'
    return f"{head}\nContent: {_quoted(entry.note.details)}\n"


def related_block(note: QueryNote, position: int) -> str:
    parts = [
        f"Distance: {note.distance}",
        "Relation: " + relation_sentence(note.note, note.focus.title),
    ]
    if note.shared_tags:
        parts.append("Shared Tags: " + ", ".join(note.shared_tags))
    if len(note.path) > 2:  # one hop: the relation names both ends already
        parts.append("Path: " + ARROW.join(step.title for step in note.path))
    parts.extend(_copies(note))
    parts.append(f"URI: {note.uri}")
    head = f'[{position}] Document: "{note.title}" ({", ".join(parts)})'
    return f"{head}\nContent: {_quoted(note.note.details)}\n"


def _copies(doc: Doc) -> list[str]:
    """Notes left out because they hold the same text, named so the model can cite them."""
    if not doc.copies:
        return []
    return ["Same text in: " + "; ".join(f"{c.title} ({c.uri})" for c in doc.copies)]


def doc_block(doc: Doc, position: int) -> str:
    if isinstance(doc, EntryNote):
        return entry_block(doc, position)
    return related_block(doc, position)


def renderer(fmt: str) -> Callable[[Doc, int], str]:
    """The canonical form the budget counts for output format ``fmt``."""
    if fmt == "json":
        return json_block
    if fmt == "prompt":
        return doc_block
    raise ConfigError(f"output format {fmt!r} is unknown; expected one of {', '.join(FORMATS)}")


def render_prompt(result: QueryResult) -> str:
    docs: list[Doc] = [*result.entries, *result.related]
    if not docs:
        return f"CONTEXT:\n(nothing found: {result.message or 'no relevant notes'})\n"
    blocks = [doc_block(doc, n) for n, doc in enumerate(docs, start=1)]
    text = "CONTEXT:\n" + "\n".join(blocks)
    if result.connections:
        text += "\n" + "\n".join(result.connections) + "\n"
    return text


# -- connections ------------------------------------------------------------------------------
def connection_lines(graph: VaultGraph, docs: Sequence[Doc]) -> list[str]:
    """``[Connection]`` lines for each pair of documents joined by an edge or by tags."""
    titles = {d.uri: d.title for d in docs}
    links = _links_among(graph, titles)
    lines: list[str] = []
    for i, a in enumerate(docs):
        for j in range(i + 1, len(docs)):
            b = docs[j]
            ways = _ways(graph, a.uri, b.uri, titles, links)
            if ways:
                lines.append(
                    f"[Connection] Documents {i + 1} and {j + 1} are connected via "
                    + " and ".join(ways)
                )
    return lines


def _links_among(graph: VaultGraph, uris: Iterable[str]) -> dict[str, dict[str, str | None]]:
    """note -> each other note of ``uris`` it links to -> the property of its first link
    there (None in the body): one pass over each note's links, not one per pair (a hub
    entry's thousands of links were scanned again for every other document)."""
    among = set(uris)
    out: dict[str, dict[str, str | None]] = {}
    for uri in among:
        first: dict[str, str | None] = {}
        for link in graph.outlinks(uri):
            if link.target in among and link.target not in first:
                first[link.target] = link.predicate
        out[uri] = first
    return out


def _ways(
    graph: VaultGraph,
    a: str,
    b: str,
    titles: dict[str, str],
    among: dict[str, dict[str, str | None]],
) -> list[str]:
    ways: list[str] = []
    links = []
    for src, dst in ((a, b), (b, a)):
        if dst in among[src]:
            predicate = among[src][dst]
            prop = f" (property {predicate})" if predicate else ""
            links.append(f"{titles[src]} links to {titles[dst]}{prop}")
    if len(links) == 2:
        ways.append(f"links both ways: {links[0]}, {links[1]}")
    elif links:
        ways.append(f"a link: {links[0]}")
    for child, parent in ((a, b), (b, a)):
        if graph.parent(child) == parent:
            ways.append(f"the hierarchy: {titles[parent]} is the parent of {titles[child]}")
    tags = shared_tags(graph, a, b)[:MAX_CONNECTION_TAGS]
    if tags:
        word = "tag" if len(tags) == 1 else "tags"
        ways.append(f"shared {word} " + ", ".join(f'"{t}"' for t in tags))
    return ways
