"""A ``GraphRAGResult`` as JSON text or as a Markdown prompt for a language model.

The budget counts each related note's canonical form, which is exactly what
these functions emit for it: ``note_json`` (compact JSON, the element of the
``relatedNotes`` array in ``json_text(result)``) or ``note_block`` (its section
of ``render_prompt(result)``). ``explain`` data is diagnostics, not context, so it
is never counted.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from graphrag.errors import ConfigError
from graphrag.results.focus import GraphRAGResult
from graphrag.results.notes import FocusNote, OutboundLink, RelatedNote, Relation, UriAndTitle

FORMATS = ("json", "prompt")
_COMPACT = (",", ":")

# One sentence per relation, in words. Fields: {note}, {focus}; {v0}..{v3}: the
# notes on the discovery path after the focus (see relations.TABLE for which is
# which); {chain}: all of them; {path}: the whole path with its hops;
# {as_predicate}: the property a link came from, if any; {predicate}: that property alone.
PHRASES: dict[Relation, str] = {
    Relation.Self: "{note} is the focus note",
    Relation.Parent: "{note} is the parent of {focus}",
    Relation.Child: "{note} is a child of {focus}",
    Relation.Object: "{focus} links to {note}{as_predicate}",
    Relation.InboundReference: "{note} links to {focus}{as_predicate}",
    Relation.PriorSibling: "{note} is a prior sibling of {focus} (same parent: {v0})",
    Relation.YoungerSibling: "{note} is a younger sibling of {focus} (same parent: {v0})",
    Relation.ObjectOfReifiedChild: "{v0}, a child of {focus}, links to {note}{as_predicate}",
    Relation.SubjectOfInboundReference: "{note} is the parent of {v0}, which links to {focus}",
    Relation.AncestorInContextualPath: "{note} is an ancestor of {focus}, above {chain}",
    Relation.AncestorInObjectContextualPath: (
        "{note} is an ancestor of {v0}, which {focus} links to"
    ),
    Relation.SiblingOfParent: "{note} is a sibling of {v0}, the parent of {focus}",
    Relation.SiblingOfParentOfObject: (
        "{note} is a sibling of {v1}, the parent of {v0}, which {focus} links to"
    ),
    Relation.ChildOfSiblingOfParent: (
        "{note} is a child of {v2}, a sibling of {v0}, the parent of {focus}"
    ),
    Relation.ChildOfSiblingOfParentOfObject: (
        "{note} is a child of {v3}, a sibling of {v1}, the parent of {v0}, which {focus} links to"
    ),
    Relation.InboundReferenceContextualPath: (
        "{note} is an ancestor of {v0}, which links to {focus}"
    ),
    Relation.SiblingOfSubjectOfInboundReference: (
        "{note} is a sibling of {v0}, which links to {focus} (same parent: {v1})"
    ),
    Relation.InboundReferenceToObjectOfReifiedChild: (
        "{note} links to {v1}{as_predicate}, as does {v0}, a child of {focus}"
    ),
    Relation.GrandChild: "{note} is a descendant of {focus}, through {chain}",
    Relation.RemotelyRelated: "{note} is connected to {focus}: {path}",
    Relation.SharesPropertyValue: "{note}, like {focus}, has {v0} as its `{predicate}`",
    Relation.SimilarContent: "{note} is about the same as {focus} (similar text; no link)",
    Relation.SharesTag: "{note} shares a tag with {focus}",
    Relation.OnPathBetweenEntries: "{note} lies on a path between the entry notes",
    Relation.MatchesQuestion: "{note} matches the question itself (found by search, not by a link)",
}

PREAMBLE = (
    "Notes from a personal knowledge vault. The focus note comes first, with lists of "
    "the notes it is connected to; then related notes, most relevant first, each with "
    "a sentence saying how it relates to the focus note. Notes are named as "
    "Title (uri)."
)


class _Blank(dict[str, str]):
    def __missing__(self, key: str) -> str:
        return "?"


def path_text(focus_title: str, note: RelatedNote) -> str:
    """``Alpha -parent-> Projects -child-> Beta``."""
    parts = [focus_title]
    for hop, step in zip(note.hops, (*note.via, UriAndTitle(note.uri, note.title)), strict=False):
        parts.append(f"-{hop}-> {step.title}")
    return " ".join(parts)


def relation_sentence(note: RelatedNote, focus_title: str) -> str:
    fields = _Blank(
        note=note.title,
        focus=focus_title,
        chain=", ".join(v.title for v in note.via) or focus_title,
        path=path_text(focus_title, note),
        as_predicate=f" through its `{note.predicate}` property" if note.predicate else "",
        predicate=note.predicate or "?",
    )
    for i, step in enumerate(note.via):
        fields[f"v{i}"] = step.title
    return PHRASES[note.relation].format_map(fields)


# -- JSON ------------------------------------------------------------------------------
def json_text(result: GraphRAGResult, indent: int | None = None) -> str:
    """Stable JSON: keys in a fixed order, non-ASCII kept as is, compact by default."""
    return _dumps(result.to_json(), indent)


def json_dumps(data: Any, indent: int | None = None) -> str:
    """``json_text`` of a focus result already turned into JSON (a server's answer)."""
    return _dumps(data, indent)


def note_json(note: RelatedNote) -> str:
    return _dumps(note.to_json(with_explain=False), None)


def _dumps(data: Any, indent: int | None) -> str:
    separators = _COMPACT if indent is None else None
    return json.dumps(data, ensure_ascii=False, indent=indent, separators=separators)


# -- Markdown prompt -------------------------------------------------------------------
def _name(item: UriAndTitle | OutboundLink | FocusNote | RelatedNote) -> str:
    return f"{item.title} ({item.uri})"


def _link(link: OutboundLink) -> str:
    extra = [x for x in (link.predicate, link.kind) if x]
    return f"{link.title} ({link.uri}{', ' + ', '.join(extra) if extra else ''})"


def focus_block(focus: FocusNote) -> str:
    lines = [f"# Focus note: {_name(focus)}"]
    if focus.tags:
        lines.append("- tags: " + ", ".join(f"#{t}" for t in focus.tags))
    lists: Sequence[tuple[str, Sequence[Any], Callable[[Any], str]]] = (
        ("contextual path", focus.contextual_path, _name),
        ("children", focus.children, _name),
        ("prior siblings", focus.prior_siblings, _name),
        ("younger siblings", focus.younger_siblings, _name),
        ("inbound references", focus.inbound_references, _name),
        ("outbound links", focus.outbound_links, _link),
    )
    if focus.parent is not None:
        lines.append(f"- parent: {_name(focus.parent)}")
    for label, items, fmt in lists:
        if items:
            lines.append(f"- {label}: " + "; ".join(fmt(i) for i in items))
    text = "\n".join(lines) + "\n"
    return text + (f"\n{focus.details.strip()}\n" if focus.details.strip() else "")


def note_block(note: RelatedNote, focus_title: str) -> str:
    """One related note in the prompt: heading, relation sentence, details."""
    text = f"## {_name(note)}\n{relation_sentence(note, focus_title)}.\n"
    details = note.details.strip()
    return text + (f"\n{details}\n" if details else "")


def render_prompt(result: GraphRAGResult) -> str:
    """The whole result as Markdown for a language model."""
    focus = result.focus_note
    parts = [PREAMBLE + "\n", focus_block(focus)]
    if result.related_notes:
        parts.append("# Related notes, most relevant first\n")
        parts.extend(note_block(n, focus.title) for n in result.related_notes)
    return "\n".join(parts)


def note_renderer(fmt: str, focus: FocusNote) -> Callable[[RelatedNote], str]:
    """The canonical rendered form the budget counts for output format ``fmt``."""
    if fmt == "json":
        return note_json
    if fmt == "prompt":
        return lambda note: note_block(note, focus.title)
    raise ConfigError(f"output format {fmt!r} is unknown; expected one of {', '.join(FORMATS)}")
