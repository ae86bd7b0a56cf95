"""``build_index``: scan -> parse -> resolve -> hierarchy -> chunk -> embed -> store.

Incremental by default: a file whose size and mtime match the index is not
read; one whose bytes hash the same is not parsed; only chunks whose embedded
text is new are embedded (vectors are keyed by that text, so moved notes keep
theirs). Resolution and the hierarchy are recomputed for the whole vault on
every change in principle, because one new file can resolve links in many old
ones; ``linktable`` does it for just the links that can have changed, so a
one-note edit of a 10k-note vault does not pay for resolving all of them.

Reading and parsing the files is ``read_notes``'s, the run's summary ``index_stats``'s.
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .chunk import Chunk, chunk_note
from .config import IndexConfig
from .embed import Embedder, make_embedder
from .errors import IndexMissingError, IndexStaleError, VaultError
from .fresh import config_hash
from .index_stats import IndexStats, fill_counts_from_manifest
from .linktable import Namespace, refresh
from .note_vectors import FILE as NOTE_VECTORS
from .note_vectors import compute as note_vectors
from .note_vectors import write as write_note_vectors
from .notes_io import NOTE_COLUMNS, note_to_row
from .parse import note_uri
from .partial_vectors import PartialVectors, embed_in_slices
from .read_notes import parse_files
from .scan import FileEntry, scan_vault
from .shown import SHOWN_TOKENS_VERSION, WHOLE_TOKENS_VERSION, Counter, shown_tokens, whole_tokens
from .store import (
    GenerationWriter,
    default_index_dir,
    open_generation,
    read_manifest,
    remove_leftovers,
    schema_problem,
    write_lock,
    written_by_newer,
)
from .tokens import get_tokenizer
from .vector_kind import embedding_info, vectors_differ
from .vectors import VectorIndex
from .version import RESOLVE_VERSION, __version__


def build_index(
    vault: str | os.PathLike[str],
    index_dir: str | os.PathLike[str] | None = None,
    config: IndexConfig | None = None,
    embedder: Embedder | None = None,
    full: bool = False,
    progress: Callable[[str, int, int], None] | None = None,
) -> IndexStats:
    """Index ``vault`` into ``index_dir`` (default ``VAULT/.graphrag``), incrementally.

    Args:
        vault: the vault folder; never written to.
        index_dir: where the index lives.
        config: indexing settings.
        embedder: defaults to the configured backend (``make_embedder``); the model
            is loaded only if something needs embedding.
        full: re-parse and re-embed everything.
        progress: called as ``progress(phase, done, total)``: ``parsing`` (notes,
            from 0 before any is read) and ``embedding`` (chunks); the CLI's progress
            bar and the server's ``/status`` both take it.

    Returns:
        IndexStats with counts, timings and every warning.
    """
    started = time.perf_counter()
    vault = Path(vault).expanduser().resolve()
    if not vault.is_dir():
        raise VaultError(str(vault), "not a folder (or not readable)")
    config = config or IndexConfig()
    out_dir = Path(index_dir).expanduser() if index_dir else default_index_dir(vault)
    out_dir = out_dir.resolve()
    if embedder is None:
        embedder = make_embedder(config.embedding)
    with write_lock(out_dir):
        stats = _build_locked(vault, out_dir, config, embedder, full, progress)
    stats.seconds = round(time.perf_counter() - started, 3)
    return stats


def _build_locked(
    vault: Path,
    out_dir: Path,
    config: IndexConfig,
    embedder: Embedder,
    full: bool,
    progress: Callable[[str, int, int], None] | None,
) -> IndexStats:
    stats = IndexStats()
    settings = config.index
    # Before anything else: a killed run's temp generation is a full SQLite copy.
    stats.leftovers_removed = remove_leftovers(out_dir, locked=True)
    try:
        previous = read_manifest(out_dir)
    except Exception as exc:  # a corrupt manifest: start over rather than fail forever
        stats.warnings.append(f"{out_dir}: previous index unreadable ({exc}); rebuilding")
        previous = None
    if previous is not None and not full and written_by_newer(previous):
        # An update would be a silent full rebuild with older rules; only --full says so.
        raise IndexStaleError(schema_problem(out_dir, previous["schema"]))
    cfg_hash = config_hash(config)
    prev_db = None
    prev_files: dict[str, tuple[int, int, str]] = {}
    if previous is not None:
        try:
            _, _, prev_db = open_generation(out_dir)
            prev_files = {
                p: (size, mtime, h)
                for p, size, mtime, h in prev_db.execute(
                    "SELECT path, size, mtime_ns, hash FROM notes"
                )
            }
        except IndexStaleError as exc:
            stats.full_reason = str(exc)
            previous = None
        except (IndexMissingError, sqlite3.DatabaseError) as exc:
            # The manifest names a generation that is gone or unreadable: start over.
            stats.warnings.append(f"{out_dir}: previous index unreadable ({exc}); rebuilding")
            if prev_db is not None:
                prev_db.close()
            previous, prev_db, prev_files = None, None, {}
        else:
            vectors_changed = vectors_differ(previous, embedder)
            if vectors_changed:
                stats.full_reason = f"{vectors_changed}: re-embedding every chunk"
            elif previous.get("config_hash") != cfg_hash:
                stats.full_reason = "indexing settings changed: re-parsing every note"
    if full and not stats.full_reason:
        stats.full_reason = "--full"
    reparse_all = bool(stats.full_reason)
    reembed_all = reparse_all and (
        previous is None or vectors_differ(previous, embedder) is not None or full
    )

    scan = scan_vault(vault, settings.exclude, settings.exclude_templates)
    stats.templates_excluded = scan.templates
    if out_dir.is_relative_to(vault):  # an index kept inside the vault is not part of it
        own = out_dir.relative_to(vault).as_posix() + "/"
        scan.notes = [e for e in scan.notes if not e.path.startswith(own)]
        scan.attachments = [e for e in scan.attachments if not e.path.startswith(own)]
    stats.warnings.extend(scan.warnings)
    current = {e.path: e for e in scan.notes}
    attachments = sorted(a.path for a in scan.attachments)

    to_parse: list[FileEntry] = []
    unchanged: list[str] = []
    for path, entry in current.items():
        prev = prev_files.get(path)
        if (
            not reparse_all
            and prev is not None
            and prev[0] == entry.size
            and prev[1] == entry.mtime_ns
        ):
            unchanged.append(path)
        else:
            to_parse.append(entry)

    known = {} if reparse_all else {p: v[2] for p, v in prev_files.items()}
    parsed_so_far = None
    if progress is not None and to_parse:
        # The CLI says "indexing N notes" on this first call (graphrag/cli/progress.py).
        progress("parsing", 0, len(to_parse))
        parsed_so_far = lambda n: progress("parsing", n, len(to_parse))  # noqa: E731
    parsed, warnings, same = parse_files(
        vault,
        to_parse,
        settings.hierarchy_properties,
        settings.workers,
        known,
        settings.max_note_bytes,
        on_parsed=parsed_so_far,
    )
    stats.warnings.extend(warnings)
    # A file that vanished or became unreadable after the scan is gone from this
    # index: keeping its old rows would leave chunks for a note missing from the graph.
    unread = {e.path for e in to_parse} - {n.path for n in parsed} - set(same)
    for path in unread:
        del current[path]
    removed = sorted(set(prev_files) - set(current))
    # Touched but identical bytes: keep the stored parse (and its chunks).
    unchanged.extend(same)
    changed = [n for n in parsed if n.path in prev_files]
    stats.added = len(parsed) - len(changed)
    stats.changed = len(changed)
    stats.removed = len(removed)
    stats.unchanged = len(unchanged)

    prev_attachments: list[str] = []
    if prev_db is not None:
        prev_attachments = [
            r[0]
            for r in prev_db.execute("SELECT path FROM files WHERE kind='attachment' ORDER BY path")
        ]
    # Links stored under other resolution rules are resolved again even in an unchanged vault.
    same_rules = previous is not None and previous.get("resolve") == RESOLVE_VERSION
    nothing_changed = (
        previous is not None
        and same_rules
        and not reparse_all
        and not parsed
        and not removed
        and not same
        and attachments == prev_attachments
    )
    if nothing_changed:
        assert previous is not None and prev_db is not None  # what nothing_changed means
        fill_counts_from_manifest(stats, previous)
        stats.up_to_date = True
        prev_db.close()
        # Whatever a killed run had embedded, this index needs none of it.
        PartialVectors(out_dir, embedder).remove()
        return stats

    if previous is not None and previous.get("vault") not in (None, str(vault)):
        # Another vault's index (or this vault moved): this run makes it this vault's and
        # drops the notes not here; the summary says so rather than only "removed N".
        stats.other_vault = str(previous["vault"])

    # The namespace the stored links were resolved in; None resolves every link again,
    # as after an upgrade, whose resolution rules may differ from those that made the table.
    relink_all = (
        reparse_all
        or prev_db is None
        or previous is None
        or previous.get("tool_version") != __version__
        or not same_rules
    )
    old_namespace = None if relink_all or prev_db is None else Namespace.read(prev_db)

    tokenizer = get_tokenizer(settings.tokenizer)
    new_chunks: dict[str, list[Chunk]] = {
        n.uri: chunk_note(n.title, n.body, n.headings, tokenizer, settings.chunk_tokens)
        for n in parsed
    }

    writer = GenerationWriter(out_dir, previous if prev_db is not None else None)
    try:
        vectors = _load_vectors(out_dir, previous, prev_db is not None and not reembed_all)
        db = writer.db
        if reembed_all:
            db.execute("DELETE FROM chunks")
        elif (previous or {}).get("shown_tokens") != SHOWN_TOKENS_VERSION:
            # Kept rows counted by another rule, or before the column: counted again below.
            db.execute("UPDATE chunks SET shown_tokens = NULL")
        if (previous or {}).get("whole_tokens") != WHOLE_TOKENS_VERSION:
            db.execute("UPDATE notes SET shown_tokens = NULL")  # the same for notes
        gone = [note_uri(p) for p in removed] + [n.uri for n in changed]
        for path in removed:
            db.execute("DELETE FROM notes WHERE path = ?", (path,))
        for uri in gone:
            db.execute("DELETE FROM chunks WHERE uri = ?", (uri,))
        # Touched files: record the new mtime, or every later run reads and hashes them again.
        db.executemany(
            "UPDATE notes SET mtime_ns = ?, modified = ? WHERE path = ?",
            [(current[p].mtime_ns, current[p].mtime_ns / 1e9, p) for p in same],
        )
        for note in parsed:
            db.execute("DELETE FROM notes WHERE path = ?", (note.path,))
            db.execute(
                f"INSERT OR REPLACE INTO notes ({NOTE_COLUMNS}, shown_tokens) "
                f"VALUES ({','.join('?' * 17)})",
                (*note_to_row(note), whole_tokens(tokenizer, note.body)),
            )

        existing = set(vectors.ids().tolist())
        rows, todo_ids, todo_texts = [], [], []
        for uri, chunks in new_chunks.items():
            for c in chunks:
                vid = c.vec_id
                shown = shown_tokens(tokenizer, c.heading_path, c.text)
                rows.append(
                    (uri, c.seq, c.heading_path, c.text, c.start_line, c.end_line, c.tokens, vid)
                    + (shown,)
                )
                if vid not in existing:
                    existing.add(vid)
                    todo_ids.append(vid)
                    todo_texts.append(c.embed_text)
        db.executemany(
            "INSERT INTO chunks (uri, seq, heading_path, text, start_line, end_line, tokens, "
            "vec_id, shown_tokens) VALUES (?,?,?,?,?,?,?,?,?)",
            rows,
        )
        _count_shown(db, tokenizer)
        partial = PartialVectors.open(out_dir, embedder) if todo_texts else None
        resumed = partial.take(todo_ids) if partial is not None else {}
        stats.chunks_resumed = len(resumed)
        stats.chunks_embedded = len(todo_ids) - len(resumed)
        if partial is not None:
            done = 0

            def report(n: int) -> None:
                nonlocal done
                done += n
                if progress is not None:
                    progress("embedding", done, len(todo_texts))

            load = getattr(embedder, "load", None)
            if progress is not None and load is not None and stats.chunks_embedded:
                # Loading the model is a step of its own, so the embedding bar that
                # follows moves from its first batch.
                progress("loading model", 0, 1)
                load()
                progress("loading model", 1, 1)
            if progress is not None:
                progress("embedding", 0, len(todo_texts))
            # Sliced, each slice kept in INDEX/embedding.partial: a killed build's next
            # run embeds only what it had not (partial_vectors.py).
            vecs = embed_in_slices(embedder, todo_ids, todo_texts, resumed, partial, report)
            if vectors.dim != vecs.shape[1]:
                vectors = VectorIndex(vecs.shape[1])
                existing_rows = [r[0] for r in db.execute("SELECT DISTINCT vec_id FROM chunks")]
                if len(existing_rows) > len(todo_ids):
                    raise IndexStaleError("vector dimension changed; re-index with --full")
            vectors.add(np.array(todo_ids, dtype=np.int64), vecs)
        referenced = {r[0] for r in db.execute("SELECT DISTINCT vec_id FROM chunks")}
        orphaned = [i for i in vectors.ids().tolist() if i not in referenced]
        vectors.remove(np.array(orphaned, dtype=np.int64))

        derived = refresh(
            db, settings, parsed, [note_uri(p) for p in removed], old_namespace, attachments
        )
        stats.warnings.extend(derived.warnings)
        stats.relinked = derived.relinked
        _write_files_and_warnings(db, current, scan.attachments, derived.warnings)
        vectors.save(writer.vectors_path)
        write_note_vectors(os.path.join(writer.tmp, NOTE_VECTORS), *note_vectors(db, vectors))
        for key, value in derived.counts.items():
            setattr(stats, key, value)
        stats.chunks = db.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
        # Every chunk row not embedded in this run (nor resumed) reuses a stored vector.
        stats.chunks_reused = stats.chunks - stats.chunks_embedded - stats.chunks_resumed
        manifest = {
            "model": embedder.name,
            "embedding": embedding_info(embedder),
            "dim": int(vectors.dim),
            "tokenizer": settings.tokenizer,
            "shown_tokens": SHOWN_TOKENS_VERSION,
            "whole_tokens": WHOLE_TOKENS_VERSION,
            "config_hash": cfg_hash,
            "tool_version": __version__,
            "resolve": RESOLVE_VERSION,
            "vault": str(vault),
            "updated": time.time(),
            "counts": {
                k: v
                for k, v in stats.to_json().items()
                if isinstance(v, int) and not isinstance(v, bool)
            },
        }
        if prev_db is not None:
            prev_db.close()
        writer.commit(manifest)
    except BaseException:
        writer.abort()
        raise
    if partial is not None:
        partial.remove()  # committed: every vector in it is in the generation now
    return stats


def _count_shown(db: sqlite3.Connection, tokenizer: Counter) -> None:
    """Count ``shown_tokens`` for the chunk and note rows kept from the previous
    generation without one (written before the column, or counted by another rule): in
    the generation being written, which the manifest names only once all are counted."""
    todo = db.execute(
        "SELECT id, heading_path, text FROM chunks WHERE shown_tokens IS NULL"
    ).fetchall()
    db.executemany(
        "UPDATE chunks SET shown_tokens = ? WHERE id = ?",
        [(shown_tokens(tokenizer, path or "", text or ""), i) for i, path, text in todo],
    )
    notes = db.execute("SELECT uri, body FROM notes WHERE shown_tokens IS NULL").fetchall()
    db.executemany(
        "UPDATE notes SET shown_tokens = ? WHERE uri = ?",
        [(whole_tokens(tokenizer, body or ""), uri) for uri, body in notes],
    )


def _load_vectors(out_dir: Path, previous: dict | None, reuse: bool) -> VectorIndex:
    if reuse and previous is not None:
        path = out_dir / previous["generation"] / "vectors.faiss"
        if path.exists():
            return VectorIndex.load(path)
    return VectorIndex(int((previous or {}).get("dim") or 384))


def _write_files_and_warnings(
    db, current: dict[str, FileEntry], attachments, warnings: list[str]
) -> None:
    db.execute("DELETE FROM files")
    db.execute("DELETE FROM warnings")
    db.executemany(
        "INSERT INTO files VALUES (?,?,?,?,?)",
        [(e.path, "note", e.size, e.mtime_ns, None) for e in current.values()]
        + [(a.path, "attachment", a.size, a.mtime_ns, None) for a in attachments],
    )
    db.executemany("INSERT INTO warnings VALUES (?,?)", [("", w) for w in warnings])
