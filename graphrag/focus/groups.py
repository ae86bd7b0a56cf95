"""How a vault's property links group notes, and how much a member of a big group counts.

In a vault organised by properties (kepano's, any vault using Bases or
``categories:``), most notes sit in one flat folder and the structure lives in
property links: ``categories: [[Places]]``, ``loc: [[Kyoto]]``, ``author:
[[...]]``. Two notes linking the same target under the same property belong
together (the same category, place, author): ``SharesPropertyValue``, found for
every source note after the BFS (``traverse``), also through a target that is
no note (``[[Places]]`` with no Places.md is still a category).

Two rules weigh folder siblings against that (docs/architecture.md, "Focus
mode: relations"):

* a group counts less the bigger it is (``crowd``): one sibling among 3,000
  in a flat folder, or one of 500 notes in ``categories: [[Books]]``, says far
  less than one of five. Up to ``[focus] crowd_size`` members nothing changes,
  which keeps the seed's scores in a vault organised by folders;
* a sibling the vault's own properties put in another group (``other_group``:
  both notes link under a property that groups notes, and share none of its
  targets: Kyoto is a Place, Futurama a Show) is only remotely related.

A vault without property links is left exactly as the seed scores it.
"""

from __future__ import annotations

import math

from graphrag.snapshot.graph import VaultGraph

# Targets that stand for a group: notes, folders, and links to no note (a category
# page never written). An attachment (a cover image) groups nothing.
GROUP_TARGETS = frozenset({"note", "folder", "ghost"})


def crowd(members: int, size: int) -> float:
    """What one member of a group of ``members`` counts: 1 up to ``size``, then
    ``sqrt(size / members)``."""
    if size <= 0 or members <= size:
        return 1.0
    return math.sqrt(size / members)


def property_groups(graph: VaultGraph) -> PropertyGroups:
    """The graph's ``PropertyGroups``, kept with it: a question whose entry is linked
    by thousands of notes reads their property links once per generation, not once
    per question."""
    return graph.derived("property-groups", lambda: PropertyGroups(graph))


class PropertyGroups:
    """The property links of a graph's notes, read once per note and kept (one per
    graph: ``property_groups``; what it keeps depends on the graph's links only)."""

    def __init__(self, graph: VaultGraph) -> None:
        self.graph = graph
        self._links: dict[str, dict[str, set[str]]] = {}
        self._names: dict[str, dict[str, str]] = {}
        self._members: dict[tuple[str, str], list[str]] = {}

    def links(self, uri: str) -> dict[str, set[str]]:
        """Property (casefolded) -> the targets ``uri`` links under it."""
        hit = self._links.get(uri)
        if hit is None:
            hit = {}
            names: dict[str, str] = {}
            nodes = self.graph.nodes
            for link in self.graph.outlinks(uri):
                node = nodes.get(link.target)
                if link.predicate is None or node is None or node.kind not in GROUP_TARGETS:
                    continue
                key = link.predicate.casefold()
                hit.setdefault(key, set()).add(link.target)
                names.setdefault(key, link.predicate)
            # Names first: a thread that finds the links finds their names too.
            self._names[uri] = names
            self._links[uri] = hit
        return hit

    def name(self, uri: str, key: str) -> str:
        """The property as ``uri`` writes it."""
        self.links(uri)
        return self._names[uri].get(key, key)

    def members(self, key: str, target: str) -> list[str]:
        """The notes linking ``target`` under property ``key``, by uri."""
        hit = self._members.get((key, target))
        if hit is None:
            hit = [s for s in self.graph.backlinks(target) if target in self.links(s).get(key, ())]
            self._members[(key, target)] = hit
        return hit

    def shared(self, uri: str) -> dict[tuple[str, str], list[str]]:
        """(property, target) -> the other notes linking that target under that property."""
        out: dict[tuple[str, str], list[str]] = {}
        for key, targets in self.links(uri).items():
            for target in sorted(targets):
                others = [m for m in self.members(key, target) if m != uri]
                if others:
                    out[(key, target)] = others
        return out

    def grouping_keys(self) -> frozenset[str]:
        """The properties that group notes anywhere in the vault: some target is
        linked under it by two notes or more (``categories``; not a ``warden`` each hut
        has its own of). Once per graph."""

        def build() -> frozenset[str]:
            seen: set[tuple[str, str]] = set()
            keys: set[str] = set()
            for links in self.graph.outlinks_of.values():
                for link in links:
                    if link.predicate is None:
                        continue
                    pair = (link.predicate.casefold(), link.target)
                    if pair in seen:
                        keys.add(pair[0])
                    seen.add(pair)
            return frozenset(keys)

        return self.graph.derived("grouping-properties", build)

    def other_group(self, a: str, b: str) -> bool:
        """Do ``a``'s and ``b``'s property links put them in different groups: some
        property that groups notes in the vault (``grouping_keys``), which both have,
        with no target in common, and no property at all on which they share one?"""
        mine, theirs = self.links(a), self.links(b)
        common = mine.keys() & theirs.keys()
        if not common or any(mine[k] & theirs[k] for k in common):
            return False
        return bool(common & self.grouping_keys())
