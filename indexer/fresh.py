"""Is an index current for its vault? Answered from file sizes and mtimes alone.

``build_index`` finds out the same thing before doing anything, but importing it
pulls in the parser, networkx and FAISS (about half a second); a command run from
the shell on an unchanged vault (``focus``, ``query``) needs only this answer. It
is conservative: ``True`` only when ``build_index`` would report ``up_to_date``
(same model, same settings, the same notes and attachments with the same sizes and
mtimes); anything else, including a touched file whose bytes did not change, goes
to ``build_index``, which decides (docs/architecture.md, incremental indexing).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from dataclasses import asdict
from pathlib import Path

from .config import IndexConfig
from .errors import VaultRAGError
from .scan import scan_vault
from .store import open_generation
from .vector_kind import vectors_differ
from .version import CHUNKER_VERSION, RESOLVE_VERSION


def config_hash(config: IndexConfig) -> str:
    """The indexing settings that shape the index (a change re-parses every note)."""
    relevant = asdict(config.index)
    relevant.pop("index_dir", None)
    relevant.pop("workers", None)
    relevant["chunker"] = CHUNKER_VERSION
    return hashlib.blake2b(json.dumps(relevant, sort_keys=True).encode(), digest_size=8).hexdigest()


def index_is_current(
    vault: Path, index_dir: Path, config: IndexConfig, model: str | object
) -> bool:
    """True when ``build_index(vault, index_dir, config)`` with the embedder ``model``
    (or one of that name) would change nothing. Given the embedder, vectors it cannot
    be mixed with (``embed_base.vectors_differ``) make the index not current, as they
    make ``build_index`` re-embed. Never writes; any doubt answers False."""
    try:
        manifest, _gen, db = open_generation(index_dir)
    except (VaultRAGError, OSError, sqlite3.DatabaseError, KeyError):
        return False
    try:
        if isinstance(model, str):
            changed = manifest.get("model") != model
        else:
            changed = vectors_differ(manifest, model) is not None
        if changed or manifest.get("config_hash") != config_hash(config):
            return False
        if manifest.get("resolve") != RESOLVE_VERSION:
            return False  # links resolved by older rules: build_index resolves them again
        # The same tables build_index compares against: notes by size and mtime, attachments by path.
        notes = {
            p: (size, mtime)
            for p, size, mtime in db.execute("SELECT path, size, mtime_ns FROM notes")
        }
        attachments = {p for (p,) in db.execute("SELECT path FROM files WHERE kind = 'attachment'")}
    except sqlite3.DatabaseError:
        return False
    finally:
        db.close()
    settings = config.index
    scan = scan_vault(vault, settings.exclude, settings.exclude_templates)
    own = None
    if index_dir.is_relative_to(vault):  # an index kept inside the vault is not part of it
        own = index_dir.relative_to(vault).as_posix() + "/"
    scanned = [e for e in scan.notes if own is None or not e.path.startswith(own)]
    if len(scanned) != len(notes) or any(
        notes.get(e.path) != (e.size, e.mtime_ns) for e in scanned
    ):
        return False
    return {
        a.path for a in scan.attachments if own is None or not a.path.startswith(own)
    } == attachments
