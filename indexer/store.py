"""The index directory: SQLite + FAISS + manifest, written atomically.

Layout::

    INDEX_DIR/manifest.json         which generation is current, model, schema, stats
    INDEX_DIR/gen-000007/index.sqlite
    INDEX_DIR/gen-000007/vectors.faiss
    INDEX_DIR/.lock                 held by the one indexer allowed to write
    INDEX_DIR/embedding.partial     vectors a killed build had embedded (partial_vectors.py)

A generation is never modified once the manifest names it. An update builds the
next generation in a temporary folder (copying the current SQLite file and
applying changes), renames it into place, then replaces ``manifest.json`` with
``os.replace``: that rename is the commit. Killing the indexer at any moment
leaves the old manifest pointing at the old, intact generation; readers that
opened a generation keep a consistent snapshot (the previous generation is
kept until the next update).

A killed run leaves its temp folder (``.gen-000008.tmp-PID``, a full SQLite
copy), its temp manifest (``.manifest.json.PID.tmp``) or a renamed generation the
manifest never named. ``remove_leftovers`` deletes them at the start of every
run that holds the write lock (an update, even one that finds nothing to do);
without the lock (``status``) only those whose process is gone. ``embedding.partial``
is not a leftover: it is what lets the next build resume its embedding, and the build
that commits removes it.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import re
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .errors import IndexBusyError, IndexMissingError, IndexStaleError

SCHEMA_VERSION = 3  # the SQLite file's user_version: MIGRATIONS applied
# Schemas this version reads as they are. 1: chunks without ``shown_tokens``, 2: notes
# without it (query mode counts as before where a count is missing); the next update
# migrates them.
READABLE_SCHEMAS = (1, 2, SCHEMA_VERSION)
MANIFEST = "manifest.json"
DB = "index.sqlite"  # in each generation
# What an interrupted writer leaves: its temp generation folder or temp manifest, tagged by pid.
LEFTOVER_RE = re.compile(r"\.gen-\d+\.tmp-(\d+)|\.manifest\.json\.(\d+)\.tmp")
GENERATION_RE = re.compile(r"gen-(\d+)")


def _m001_create_tables(db: sqlite3.Connection) -> None:
    db.executescript(
        """
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
        CREATE TABLE files (path TEXT PRIMARY KEY, kind TEXT, size INTEGER,
                            mtime_ns INTEGER, hash TEXT);
        CREATE TABLE notes (uri TEXT PRIMARY KEY, path TEXT UNIQUE, title TEXT, body TEXT,
                            aliases TEXT, tags TEXT, properties TEXT, headings TEXT,
                            raw_links TEXT, created REAL, modified REAL, ord REAL,
                            hash TEXT, size INTEGER, mtime_ns INTEGER, warnings TEXT);
        CREATE TABLE nodes (uri TEXT PRIMARY KEY, kind TEXT, title TEXT, parent TEXT);
        CREATE TABLE links (source TEXT, target TEXT, target_kind TEXT, kind TEXT,
                            predicate TEXT, subpath TEXT, display TEXT, written TEXT,
                            line INTEGER, hierarchy INTEGER);
        CREATE INDEX links_source ON links(source);
        CREATE INDEX links_target ON links(target);
        CREATE TABLE tags (uri TEXT, tag TEXT);
        CREATE INDEX tags_tag ON tags(tag);
        CREATE TABLE chunks (id INTEGER PRIMARY KEY, uri TEXT, seq INTEGER,
                             heading_path TEXT, text TEXT, start_line INTEGER,
                             end_line INTEGER, tokens INTEGER, vec_id INTEGER);
        CREATE INDEX chunks_uri ON chunks(uri);
        CREATE INDEX chunks_vec ON chunks(vec_id);
        CREATE TABLE warnings (path TEXT, message TEXT);
        """
    )


def _m002_chunk_shown_tokens(db: sqlite3.Connection) -> None:
    # What each chunk costs as query mode shows it (``shown.py``); NULL in rows
    # written before the column, which the next update counts.
    db.execute("ALTER TABLE chunks ADD COLUMN shown_tokens INTEGER")


def _m003_note_shown_tokens(db: sqlite3.Connection) -> None:
    # What a note shown whole costs (``shown.whole_tokens``); NULL in rows written
    # before the column, which the next update counts.
    db.execute("ALTER TABLE notes ADD COLUMN shown_tokens INTEGER")


MIGRATIONS = [_m001_create_tables, _m002_chunk_shown_tokens, _m003_note_shown_tokens]


def migrate(db: sqlite3.Connection) -> None:
    version = db.execute("PRAGMA user_version").fetchone()[0]
    for number, step in enumerate(MIGRATIONS, start=1):
        if number > version:
            step(db)
            db.execute(f"PRAGMA user_version = {number}")


def default_index_dir(vault: Path) -> Path:
    return vault / ".graphrag"


def read_manifest(index_dir: Path) -> dict[str, Any] | None:
    path = index_dir / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise IndexMissingError(str(index_dir), f"manifest.json is unreadable ({exc})") from exc
    if not isinstance(data, dict) or "generation" not in data:
        raise IndexMissingError(str(index_dir), "manifest.json has no generation")
    return data


def write_json_atomic(path: Path, data: dict[str, Any]) -> None:
    tmp = temp_beside(path)
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=2, sort_keys=True)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)
    fsync_dir(path.parent)


def temp_beside(path: str | os.PathLike[str], tag: str = "") -> str:
    """``.NAME.PID[.TAG].tmp`` in ``path``'s folder, as a str: a ``Path`` made from it would
    intern every part (CPython 3.11's pathlib), and a server writing a new temp name on
    each update used up the interned-string table with names freed at once, until it was
    resized to twice the size (benchmarks/RESULTS.md, "Server memory over an hour,
    session 7")."""
    folder, name = os.path.split(os.fspath(path))
    return os.path.join(folder, f".{name}.{os.getpid()}{'.' + tag if tag else ''}.tmp")


def fsync_dir(folder: Path) -> None:
    """Make the names in ``folder`` durable (a new or renamed file's entry): without it a
    power cut can lose a file whose bytes were synced."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def write_lock(index_dir: Path, wait: bool = False) -> Iterator[None]:
    """One writer per index directory (other processes get IndexBusyError)."""
    index_dir.mkdir(parents=True, exist_ok=True)
    with open(index_dir / ".lock", "a+") as fh:
        flags = fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB
        try:
            fcntl.flock(fh.fileno(), flags)
        except BlockingIOError as exc:
            raise IndexBusyError(str(index_dir)) from exc
        try:
            yield
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


# Each generation starts as a copy of the last, free pages included; every update
# frees a few more (SQLite reuses some), so without this the file only ever grows.
COMPACT_SHARE = 0.25
COMPACT_MIN_BYTES = 1 << 20


def compact(db: sqlite3.Connection) -> bool:
    """VACUUM ``db`` when its free pages are over ``COMPACT_SHARE`` of the file and
    ``COMPACT_MIN_BYTES``: rare enough that an update rarely pays a rewrite."""
    page_size = db.execute("PRAGMA page_size").fetchone()[0]
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    free = db.execute("PRAGMA freelist_count").fetchone()[0]
    if free * page_size < COMPACT_MIN_BYTES or free < COMPACT_SHARE * pages:
        return False
    db.execute("VACUUM")
    return True


class GenerationWriter:
    """Builds the next generation in a temp folder; ``commit`` makes it current."""

    def __init__(self, index_dir: Path, previous: dict[str, Any] | None) -> None:
        self.index_dir = index_dir
        self.previous = previous
        number = int(previous["generation"].split("-")[1]) + 1 if previous else 1
        self.name = f"gen-{number:06d}"
        # str paths for this update's new names (see ``temp_beside``).
        self.tmp = os.path.join(index_dir, f".{self.name}.tmp-{os.getpid()}")
        shutil.rmtree(self.tmp, ignore_errors=True)
        os.makedirs(self.tmp)
        prev_db = os.path.join(index_dir, previous["generation"], DB) if previous else None
        if prev_db is not None and os.path.exists(prev_db):
            shutil.copyfile(prev_db, os.path.join(self.tmp, DB))
        self.db = sqlite3.connect(os.path.join(self.tmp, DB))
        self.db.execute("PRAGMA journal_mode = OFF")  # the temp folder is the journal
        self.db.execute("PRAGMA synchronous = OFF")
        migrate(self.db)

    @property
    def vectors_path(self) -> str:
        return os.path.join(self.tmp, "vectors.faiss")

    def commit(self, manifest: dict[str, Any]) -> str:
        self.db.commit()
        compact(self.db)
        self.db.execute("PRAGMA journal_mode = DELETE")
        self.db.close()
        for name in (DB, "vectors.faiss"):
            path = os.path.join(self.tmp, name)
            if os.path.exists(path):
                with open(path, "rb") as fh:
                    os.fsync(fh.fileno())
        final = os.path.join(self.index_dir, self.name)
        shutil.rmtree(final, ignore_errors=True)
        os.replace(self.tmp, final)
        fsync_dir(self.index_dir)
        manifest = dict(manifest, generation=self.name, schema=SCHEMA_VERSION)
        write_json_atomic(self.index_dir / MANIFEST, manifest)
        cleanup_generations(
            self.index_dir, keep={self.name, (self.previous or {}).get("generation")}
        )
        return final

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self.db.close()
        shutil.rmtree(self.tmp, ignore_errors=True)


def cleanup_generations(index_dir: Path, keep: set[str | None]) -> None:
    """Remove generations and temp folders the manifest no longer needs."""
    for child in index_dir.iterdir():
        name = child.name
        stale_tmp = name.startswith(".gen-") and ".tmp-" in name
        old_gen = name.startswith("gen-") and name not in keep
        if child.is_dir() and (stale_tmp or old_gen):
            shutil.rmtree(child, ignore_errors=True)


def _process_gone(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:  # it exists but is someone else's
        return False
    return False


def remove_leftovers(index_dir: Path, locked: bool) -> list[str]:
    """Delete what interrupted runs left in ``index_dir``; one line per item, naming it.

    ``locked``: the caller holds the write lock, so no other writer can be at work
    and every temp item is stale, as is a generation newer than the manifest's (an
    interrupted commit). Without the lock only temp items of dead processes go.
    """
    try:
        children = sorted(index_dir.iterdir())
    except OSError:
        return []
    current = -1
    if locked:
        try:
            manifest = read_manifest(index_dir)
        except IndexMissingError:
            manifest = None
        m = GENERATION_RE.fullmatch(str((manifest or {}).get("generation", "")))
        current = int(m.group(1)) if m else -1
    removed: list[str] = []
    for child in children:
        temp = LEFTOVER_RE.fullmatch(child.name)
        newer = GENERATION_RE.fullmatch(child.name)
        if temp is not None:
            pid = int(temp.group(1) or temp.group(2))
            if not locked and not _process_gone(pid):
                continue
            why = f"left by an interrupted run (process {pid})"
        elif newer is not None and current >= 0 and int(newer.group(1)) > current:
            why = "a generation the manifest never named (an interrupted commit)"
        else:
            continue
        try:
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child)
            else:
                child.unlink()
        except FileNotFoundError:
            continue
        except OSError as exc:
            removed.append(f"{child}: {why}; could not remove it ({exc.strerror or exc})")
            continue
        removed.append(f"{child}: {why}; removed")
    return removed


def tidy_index(index_dir: Path) -> list[str]:
    """``remove_leftovers`` for a reader (``status``): with the lock if it is free."""
    if not index_dir.is_dir():
        return []
    try:
        with write_lock(index_dir):
            return remove_leftovers(index_dir, locked=True)
    except IndexBusyError:
        return remove_leftovers(index_dir, locked=False)
    except OSError:  # a read-only index folder: nothing can be removed anyway
        return []


def written_by_newer(manifest: dict[str, Any]) -> bool:
    """A later version wrote this index: rebuilding it here would throw its work away."""
    schema = manifest.get("schema")
    return isinstance(schema, int) and schema > SCHEMA_VERSION


def schema_problem(index_dir: Path, schema: object) -> str:
    """Why an index of ``schema`` cannot be opened, and what to do about it."""
    readable = f"{READABLE_SCHEMAS[0]}-{READABLE_SCHEMAS[-1]}"
    if isinstance(schema, int) and schema > SCHEMA_VERSION:
        return (
            f"{index_dir}: index schema {schema} was written by a newer vault-graphrag "
            f"(this one reads {readable}); upgrade vault-graphrag, or rebuild the index "
            "with --full"
        )
    return f"{index_dir}: index schema {schema} is not {readable}; re-index with --full"


def open_generation(index_dir: Path) -> tuple[dict[str, Any], Path, sqlite3.Connection]:
    """Open the current generation read-only; it never changes after commit."""
    manifest = read_manifest(index_dir)
    if manifest is None:
        raise IndexMissingError(str(index_dir))
    if manifest.get("schema") not in READABLE_SCHEMAS:
        raise IndexStaleError(schema_problem(index_dir, manifest.get("schema")))
    gen = index_dir / manifest["generation"]
    db_path = gen / DB
    if not db_path.exists():
        raise IndexMissingError(str(index_dir), f"{manifest['generation']} is missing")
    db = sqlite3.connect(
        f"file:{quote(str(db_path))}?mode=ro&immutable=1", uri=True, check_same_thread=False
    )
    return manifest, gen, db


def now() -> float:
    return time.time()
