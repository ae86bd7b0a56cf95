"""Keep the derived tables (links, tags, nodes, files, warnings) in step with ``notes``.

Resolving every link of a 10k-note vault takes seconds; one edit changes the
resolution of few links. A stored link's resolution depends only on what was
written, where, and the vault's *namespace*: note uris, aliases, folders (and
their folder notes) and attachments. So an update re-resolves:

* every link of the notes that were added or changed;
* when the namespace changed, the stored links whose written target could now
  mean something else: those whose last path segment names an added or removed
  note, attachment or folder (or a folder whose folder note changed), or whose
  whole text is an alias that was added or removed. A wikilink has two readings,
  Obsidian's ``[[target|display]]`` and Dendron's ``[[label|target]]``
  (``resolve``, rule 8), and the stored row keeps both texts (``written`` holds the
  reading kept, ``display`` the other's, up to its ``#anchor``), so both are tested;
* every link of the notes that share a missing-note (ghost) name with those,
  because a ghost takes the spelling of the first note (in uri order) that links
  to it, and that first note may be the one that changed.

Everything else in the link table is kept as it is. The hierarchy, nodes, files
and warnings are small and are recomputed whole from the tables. The result is
the same as a full rebuild; ``tests/test_linktable.py`` checks that over
sequences of edits.
"""

from __future__ import annotations

import json
import posixpath
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field

from .config import IndexSettings
from .graphbuild import ResolvedLink, property_parents, resolve_note_links, target_nodes
from .hierarchy import all_folders, build_hierarchy, folder_representatives
from .notes_io import LIGHT_COLUMNS, note_from_row
from .parse import ParsedNote
from .resolve import Resolver, strip_dendron_vault

# A link whose written target ends in one of these could resolve anywhere.
_ANY_NAME = frozenset(["", ".", ".."])


@dataclass
class Namespace:
    """What link resolution looks things up in."""

    uris: set[str]
    aliases: dict[str, list[str]]
    attachments: set[str]

    @classmethod
    def read(cls, db: sqlite3.Connection) -> Namespace:
        """The namespace of the index in ``db`` (its notes and attachment files)."""
        uris = {uri for (uri,) in db.execute("SELECT uri FROM notes")}
        aliases = {
            uri: json.loads(raw)
            for uri, raw in db.execute("SELECT uri, aliases FROM notes WHERE aliases != '[]'")
        }
        attachments = {p for (p,) in db.execute("SELECT path FROM files WHERE kind = 'attachment'")}
        return cls(uris, aliases, attachments)


@dataclass
class Derived:
    """What ``refresh`` reports: counts and the vault-wide warnings."""

    counts: dict[str, int] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    relinked: int = 0  # notes whose links were resolved in this run


def _basename_key(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1].casefold()


def changed_keys(
    old: Namespace, new: Namespace, settings: IndexSettings
) -> tuple[set[str], set[str]]:
    """(names, alias texts) whose resolution may differ between ``old`` and ``new``; casefolded."""
    names: set[str] = set()
    moved = old.uris ^ new.uris
    names.update(_basename_key(uri) for uri in moved)
    names.update(_basename_key(path) for path in old.attachments ^ new.attachments)
    if moved:
        reps = []
        for uris in (old.uris, new.uris):
            ordered = sorted(uris)
            reps.append(
                folder_representatives(
                    all_folders(ordered),
                    ordered,
                    settings.folder_note_names,
                    settings.folder_note_beside,
                )
            )
        for folder in reps[0].keys() | reps[1].keys():
            if reps[0].get(folder) != reps[1].get(folder):
                names.add(_basename_key(folder))
    aliases: set[str] = set()
    for uri in old.aliases.keys() | new.aliases.keys():
        before, after = old.aliases.get(uri, []), new.aliases.get(uri, [])
        if before != after:
            aliases.update(a.casefold() for a in (*before, *after))
    return names, aliases


def may_change(written: str, names: set[str], aliases: set[str]) -> bool:
    """Whether a link written as ``written`` can resolve differently after ``changed_keys``."""
    text = written.strip().replace("\\", "/")
    if not text:
        return False  # [[#Heading]]: always the note itself
    if text.casefold() in aliases:
        return True
    last = _basename_key(text)
    if last in _ANY_NAME:
        return True
    return last in names or (last.endswith(".md") and last[:-3] in names)


def link_may_change(written: str, display: str, names: set[str], aliases: set[str]) -> bool:
    """``may_change`` for a stored link, in either reading: its ``written`` target, or
    the other reading's, which its ``display`` holds (up to ``#``), each also without
    a ``dendron://<vault>/`` prefix. Over-eager for Markdown links' text; never short."""
    for text in (written, display.partition("#")[0]) if display else (written,):
        if may_change(text, names, aliases):
            return True
        # The prefix changes only what the whole text is compared with: an alias.
        dendron = aliases and text[:10].casefold() == "dendron://"
        if dendron and may_change(strip_dendron_vault(text), names, aliases):
            return True
    return False


def refresh(
    db: sqlite3.Connection,
    settings: IndexSettings,
    parsed: list[ParsedNote],
    removed: Iterable[str],
    old: Namespace | None,
    attachments: Iterable[str],
) -> Derived:
    """Bring links and tags up to date, then rewrite nodes and warnings.

    ``db`` is the generation being written: its ``notes`` table already holds
    ``parsed`` and no longer holds the ``removed`` uris; its ``files`` table still
    lists the previous attachments. ``old`` is the previous namespace, or None to
    resolve every link again.
    """
    removed = set(removed)
    by_uri = {n.uri: n for n in parsed}
    new = Namespace.read(db)
    new.attachments = set(attachments)
    uris = sorted(new.uris)
    folders = all_folders(uris)
    reps = folder_representatives(
        folders, uris, settings.folder_note_names, settings.folder_note_beside
    )
    resolver = Resolver(uris, sorted(new.attachments), new.aliases, reps, settings.resolve_aliases)
    hier_keys = {p.casefold() for p in settings.hierarchy_properties}

    known = dict(by_uri)  # notes whose links are at hand; stored ones join when read
    if old is None:
        db.execute("DELETE FROM links")
        affected = set(uris)
    else:
        affected = _affected(
            db, settings, resolver, set(by_uri), removed, old, new, hier_keys, known
        )
    links: list[ResolvedLink] = []
    for note in _notes(db, sorted(affected), known):
        links.extend(resolve_note_links(note, resolver, hier_keys))

    gone = affected | removed
    db.executemany("DELETE FROM links WHERE source = ?", [(u,) for u in gone])
    db.executemany(
        "INSERT INTO links VALUES (?,?,?,?,?,?,?,?,?,?)",
        [
            (
                lk.source,
                lk.target,
                lk.target_kind,
                lk.kind,
                lk.predicate,
                lk.subpath,
                lk.display,
                lk.written,
                lk.line,
                int(lk.hierarchy),
            )
            for lk in links
        ],
    )
    db.executemany("DELETE FROM tags WHERE uri = ?", [(u,) for u in set(by_uri) | removed])
    db.executemany("INSERT INTO tags VALUES (?,?)", [(n.uri, t) for n in parsed for t in n.tags])

    derived = _rewrite_nodes(db, settings, uris, folders, reps)
    derived.relinked = len(affected)
    return derived


def _affected(
    db: sqlite3.Connection,
    settings: IndexSettings,
    resolver: Resolver,
    changed: set[str],
    removed: set[str],
    old: Namespace,
    new: Namespace,
    hier_keys: set[str],
    known: dict[str, ParsedNote],
) -> set[str]:
    """Notes whose links must be resolved again; primes ``resolver`` with the ghost
    spellings that stay."""
    affected = set(changed)
    names, aliases = changed_keys(old, new, settings)
    if names or aliases:
        # Hub notes repeat the same targets: test each distinct text once, then let
        # SQLite find the notes that wrote one of those.
        hits = [
            (w, d)
            for w, d in db.execute("SELECT DISTINCT written, display FROM links")
            if link_may_change(w, d, names, aliases)
        ]
        db.execute(
            "CREATE TEMP TABLE IF NOT EXISTS relink "
            "(written TEXT, display TEXT, PRIMARY KEY (written, display))"
        )
        db.execute("DELETE FROM relink")
        db.executemany("INSERT INTO relink VALUES (?,?)", hits)
        affected.update(
            source
            for (source,) in db.execute(
                "SELECT DISTINCT source FROM links JOIN relink USING (written, display)"
            )
            if source not in removed
        )
    # Ghost names that the affected notes use, before or after this update...
    ghost_links = db.execute(
        "SELECT source, target FROM links WHERE target_kind = 'ghost'"
    ).fetchall()
    keys = {t.casefold() for s, t in ghost_links if s in affected or s in removed}
    for note in _notes(db, sorted(affected), known):
        keys.update(
            lk.target.casefold()
            for lk in resolve_note_links(note, resolver, hier_keys)
            if lk.target_kind == "ghost"
        )
    # ...bring in every other note linking to the same ghosts, so the spelling is chosen afresh.
    affected.update(s for s, t in ghost_links if t.casefold() in keys and s not in removed)
    resolver.restart(
        {t.casefold(): t for s, t in ghost_links if s not in affected and s not in removed}
    )
    return affected


def _notes(
    db: sqlite3.Connection, uris: list[str], known: dict[str, ParsedNote]
) -> list[ParsedNote]:
    """Notes to resolve, in uri order: fresh parses, or stored ones (links only needed),
    which are added to ``known`` so a second call does not read them again."""
    stored = [u for u in uris if u not in known]
    for start in range(0, len(stored), 500):  # SQLite's bound-parameter limit
        part = stored[start : start + 500]
        rows = db.execute(
            f"SELECT {LIGHT_COLUMNS} FROM notes WHERE uri IN ({','.join('?' * len(part))})", part
        )
        known.update((n.uri, n) for n in map(note_from_row, rows))
    return [known[u] for u in uris]


def _rewrite_nodes(
    db: sqlite3.Connection,
    settings: IndexSettings,
    uris: list[str],
    folders: list[str],
    reps: dict[str, str],
) -> Derived:
    """Hierarchy, nodes and counts, recomputed from the notes and links tables."""
    paths = dict(db.execute("SELECT uri, path FROM notes"))
    chosen, warnings = property_parents(
        db.execute(
            "SELECT source, target, target_kind, predicate, written FROM links "
            "WHERE hierarchy = 1 ORDER BY source, rowid"
        ),
        paths,
    )
    hierarchy = build_hierarchy(
        uris, chosen, settings.folder_note_names, settings.folder_note_beside, paths, reps
    )
    warnings.extend(hierarchy.warnings)
    parents = hierarchy.parents
    rows = [
        (uri, "note", title, parents.get(uri))
        for uri, title in db.execute("SELECT uri, title FROM notes ORDER BY uri")
    ]
    rows.extend(
        (f, "folder", posixpath.basename(f.rstrip("/")), parents.get(f))
        for f in hierarchy.virtual_folders
    )
    known = {r[0] for r in rows}
    targets = target_nodes(
        db.execute(
            "SELECT target, target_kind FROM links WHERE hierarchy = 0 "
            "AND target_kind NOT IN ('self', 'note', 'folder') AND source != target"
        ),
        known,
    )
    rows.extend((uri, kind, posixpath.basename(uri), None) for uri, kind in targets.items())
    db.execute("DELETE FROM nodes")
    db.executemany("INSERT INTO nodes VALUES (?,?,?,?)", rows)

    kinds: dict[str, int] = {}
    for _, kind, _, _ in rows:
        kinds[kind] = kinds.get(kind, 0) + 1
    by_target = dict(db.execute("SELECT target_kind, COUNT(*) FROM links GROUP BY target_kind"))
    counts = {
        "notes": kinds.get("note", 0),
        "virtual_folders": kinds.get("folder", 0),
        "folders": len(folders),
        "attachments": kinds.get("attachment", 0),
        "tags": db.execute("SELECT COUNT(DISTINCT tag) FROM tags").fetchone()[0],
        "links_resolved": sum(by_target.get(k, 0) for k in ("note", "folder", "self")),
        "links_unresolved": by_target.get("ghost", 0),
    }
    return Derived(counts=counts, warnings=warnings)
