"""Which notes an answer cites: its ``[[links]]`` resolved the way Obsidian resolves them.

A model told to cite ``[[Places/Huts/Spring Box]]`` often writes ``[[Spring Box]]``,
``[[spring box|the spring]]``, ``[[Spring Box#Lid]]`` or the note's title or an alias.
Each counts as citing the note it resolves to, by Obsidian's rules
(``indexer.resolve.Resolver``: exact path, case-insensitive, ``.md`` optional; then
file name, the written folder preferred, then the shortest path; then an alias), applied
to the notes the model was given: those are the notes it can mean, and a link that
resolves to no note given to it cites nothing. A note's title (front matter ``title``)
counts as one of its aliases. ``|display``, ``#heading`` and ``#^block`` are ignored.
See docs/architecture.md ("Answers").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from graphrag.snapshot.names import wikilink_target
from indexer.resolve import Resolver

# [[target]], [[target|display]], [[target#heading]], ![[embed]]; not across lines.
_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+)\]\]")


def link_targets(text: str) -> list[str]:
    """The targets of the wikilinks in ``text``, as written, in order."""
    notes = (wikilink_target(match.group(1))[1] for match in _WIKILINK.finditer(text))
    return [note for note in notes if note]


def citation_resolver(
    sources: Sequence[tuple[str, str]], aliases: Mapping[str, Iterable[str]] | None = None
) -> Resolver:
    """A resolver over the notes given to the model: ``sources`` (uri, title) pairs and
    each one's ``aliases``."""
    names: dict[str, list[str]] = {}
    for uri, title in sources:
        names[uri] = [n for n in dict.fromkeys((title, *(aliases or {}).get(uri, ()))) if n]
    return Resolver([uri for uri, _ in sources], aliases=names)


def cited(
    text: str,
    sources: Sequence[tuple[str, str] | str],
    aliases: Mapping[str, Iterable[str]] | None = None,
) -> list[str]:
    """The uris of ``sources`` ((uri, title) pairs, or uris) that ``text`` links to, in
    the order of ``sources``."""
    targets = link_targets(text)
    if not targets:
        return []
    pairs = [(s, s.rsplit("/", 1)[-1]) if isinstance(s, str) else s for s in sources]
    resolver = citation_resolver(pairs, aliases)
    hits = set()
    for target in targets:
        found = resolver.resolve(target, "")
        if found.kind == "note":
            hits.add(found.uri)
    return [uri for uri, _ in pairs if uri in hits]
