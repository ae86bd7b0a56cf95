"""Parent of every note and folder (docs/architecture.md, "Vault to graph").

* The vault is not a note: top-level notes and top-level folders are notebook
  roots with no parent, so top-level notes are not siblings of each other.
* A folder is represented by its folder note, tried in this order:
  ``F/F.md``, ``F/index.md``, ``F/README.md`` (``folder_note_names``), then
  ``F.md`` beside ``F/`` (``folder_note_beside``); file names compare
  case-insensitively. A folder with none is a *virtual* note whose uri is the
  folder path.
* The default parent of a note is the representative of its folder. A folder
  note stands for its folder, so its own default parent is the representative
  of the folder's parent folder.
* A link in a hierarchy property (``up``, ``parent``; front matter or
  ``up:: [[X]]`` inline) overrides the default when it resolves to a note or
  folder. One that would make a cycle, or points nowhere, is ignored with a
  warning and the default is kept.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field


@dataclass
class Hierarchy:
    parents: dict[str, str] = field(default_factory=dict)
    folder_rep: dict[str, str] = field(default_factory=dict)  # folder path -> uri
    virtual_folders: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


def all_folders(note_uris: list[str]) -> list[str]:
    folders: set[str] = set()
    for uri in note_uris:
        folder = uri.rpartition("/")[0]
        while folder and folder not in folders:
            folders.add(folder)
            folder = folder.rpartition("/")[0]
    return sorted(folders)


def folder_representatives(
    folders: list[str],
    note_uris: list[str],
    names: tuple[str, ...] = ("{folder}", "index", "README"),
    beside: bool = True,
) -> dict[str, str]:
    """Folder path -> the uri that stands for it (folder note or the folder itself)."""
    by_key = {uri.casefold(): uri for uri in sorted(note_uris, reverse=True)}
    rep: dict[str, str] = {}
    for folder in folders:
        base = posixpath.basename(folder)
        choice = None
        for name in names:
            candidate = f"{folder}/{name.format(folder=base)}".casefold()
            if candidate in by_key:
                choice = by_key[candidate]
                break
        if choice is None and beside and folder.casefold() in by_key:
            choice = by_key[folder.casefold()]
        if choice is None:
            # A virtual note's uri is the folder path, unless a note already has that uri
            # (``G.md`` beside ``G/`` with folder_note_beside off): then "G/".
            choice = folder + "/" if folder.casefold() in by_key else folder
        rep[folder] = choice
    return rep


def build_hierarchy(
    note_uris: list[str],
    property_parents: dict[str, tuple[str, str]],
    names: tuple[str, ...] = ("{folder}", "index", "README"),
    beside: bool = True,
    paths: dict[str, str] | None = None,
    rep: dict[str, str] | None = None,
) -> Hierarchy:
    """Compute parents.

    ``property_parents`` maps a note uri to (resolved parent uri, written target)
    for notes with a hierarchy property that resolved to a note or folder.
    ``paths`` maps uri -> file path, for warnings. ``rep`` is
    ``folder_representatives`` of these notes, when the caller has it already.
    """
    if rep is None:
        rep = folder_representatives(all_folders(note_uris), note_uris, names, beside)
    notes = set(note_uris)
    h = Hierarchy(folder_rep=rep)
    virtual = {r: f for f, r in rep.items() if r not in notes}
    h.virtual_folders = sorted(virtual)

    stands_for = {r: f for f, r in rep.items() if r in notes}

    def folder_parent(folder: str) -> str | None:
        up = posixpath.dirname(folder)
        return rep[up] if up else None

    for uri, folder in virtual.items():
        parent = folder_parent(folder)
        if parent is not None:
            h.parents[uri] = parent
    for uri in sorted(note_uris):
        if uri in stands_for:
            parent = folder_parent(stands_for[uri])
        else:
            folder = posixpath.dirname(uri)
            parent = rep[folder] if folder else None
        if parent is not None and parent != uri:
            h.parents[uri] = parent

    for uri in sorted(property_parents):
        target, written = property_parents[uri]
        where = (paths or {}).get(uri, uri)
        if target == uri:
            h.warnings.append(f"{where}: hierarchy property points at the note itself; ignored")
            continue
        previous = h.parents.get(uri)
        h.parents[uri] = target
        if _has_cycle(h.parents, uri):
            if previous is None:
                del h.parents[uri]
            else:
                h.parents[uri] = previous
            h.warnings.append(
                f"{where}: hierarchy property [[{written}]] would make a parent cycle; ignored"
            )
    return h


def _has_cycle(parents: dict[str, str], start: str) -> bool:
    seen = {start}
    current = parents.get(start)
    while current is not None:
        if current in seen:
            return True
        seen.add(current)
        current = parents.get(current)
    return False
