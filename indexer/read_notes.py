"""Reading and parsing a vault's note files: each file read without blocking and cut at
``index.max_note_bytes``, parsed in worker processes when there are many, a file whose
bytes hash as stored left unparsed; and ``parse_vault``, the whole vault parsed,
resolved and made a graph without any index (``doctor``, benchmarks).
"""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import TypeVar

from .config import IndexConfig, IndexSettings
from .errors import VaultError
from .graphbuild import VaultGraphBuild, build_graph
from .parse import ParsedNote, content_hash, parse_note
from .scan import FileEntry, file_kind, scan_vault

PARALLEL_MIN_FILES = 200
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Unchanged:
    """A file whose mtime changed but whose bytes did not."""

    path: str


def read_note_bytes(
    file: str | os.PathLike[str], path: str, limit: int
) -> tuple[bytes, int, str | None]:
    """At most ``limit`` bytes of a regular file: (data, file size, warning or None).

    Opened without blocking and checked again after opening, since the scan's
    verdict can be stale: a FIFO put in a note's place would otherwise block the
    reader (and a server's update thread) for good. A longer file is cut at the
    last line end within the limit.

    Raises:
        OSError: the file cannot be opened or read, or is not a regular file.
    """
    fd = os.open(file, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0))
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{file_kind(st.st_mode)}, not a regular file")
        data = fh.read(limit + 1)
    if len(data) <= limit:
        return data, st.st_size, None
    cut = data.rfind(b"\n", 0, limit) + 1 or limit
    size = max(st.st_size, len(data))
    return (
        data[:cut],
        size,
        (
            f"{path}: {size:,} bytes, over index.max_note_bytes ({limit:,}); "
            f"only the first {cut:,} bytes are indexed"
        ),
    )


def _parse_entry(
    args: tuple[str, str, int, int, tuple[str, ...], str | None, int],
) -> ParsedNote | Unchanged | str:
    """Worker: read and parse one file; a problem comes back as a warning string."""
    vault, path, size, mtime_ns, hier, known_hash, limit = args
    try:
        # A str path: pathlib would intern every part of it (and a served process's
        # interned-string table would fill with names used once).
        data, size, cut = read_note_bytes(os.path.join(vault, path), path, limit)
    except FileNotFoundError:
        return f"{path}: vanished during indexing; skipped"
    except OSError as exc:
        return f"{path}: cannot read ({exc.strerror or exc}); skipped"
    if known_hash is not None and content_hash(data) == known_hash:
        return Unchanged(path)
    note = parse_note(path, data, mtime_ns / 1e9, hier)
    note.mtime_ns = mtime_ns
    # The file's size, not what was read: a cut note must look unchanged to the next run.
    note.size = size
    if cut is not None:
        note.warnings.insert(0, cut)
    return note


def parse_files(
    vault: Path,
    entries: list[FileEntry],
    hierarchy_properties: tuple[str, ...],
    workers: int = 0,
    known_hashes: dict[str, str] | None = None,
    max_bytes: int = IndexSettings.max_note_bytes,
    on_parsed: Callable[[int], None] | None = None,
) -> tuple[list[ParsedNote], list[str], list[str]]:
    """Parse files, in worker processes when there are many.

    ``on_parsed`` is told how many files are done as they finish (in order).
    Returns (parsed notes, warnings, paths whose bytes match ``known_hashes``).
    """
    known = known_hashes or {}
    jobs = [
        (str(vault), e.path, e.size, e.mtime_ns, hierarchy_properties, known.get(e.path), max_bytes)
        for e in entries
    ]
    workers = workers or min(os.cpu_count() or 1, 8)
    if workers > 1 and len(jobs) >= PARALLEL_MIN_FILES and sys.platform != "win32":
        with ProcessPoolExecutor(workers, mp_context=get_context("fork")) as pool:
            results = _counted(pool.map(_parse_entry, jobs, chunksize=64), on_parsed)
    else:
        results = _counted(map(_parse_entry, jobs), on_parsed)
    notes = [r for r in results if isinstance(r, ParsedNote)]
    warnings = [r for r in results if isinstance(r, str)]
    same = [r.path for r in results if isinstance(r, Unchanged)]
    for note in notes:
        warnings.extend(note.warnings)
    return notes, warnings, same


def _counted(results: Iterable[T], report: Callable[[int], None] | None) -> list[T]:
    """``results`` as a list, telling ``report`` the count every 16 and at the end."""
    out: list[T] = []
    for r in results:
        out.append(r)
        if report is not None and len(out) % 16 == 0:
            report(len(out))
    if report is not None and len(out) % 16:
        report(len(out))
    return out


def parse_vault(
    vault: Path, config: IndexConfig | None = None
) -> tuple[VaultGraphBuild, list[ParsedNote], list[str]]:
    """Parse, resolve and build the graph of a whole vault, without touching any index."""
    config = config or IndexConfig()
    settings = config.index
    if not vault.is_dir():
        raise VaultError(str(vault), "not a folder")
    scan = scan_vault(vault, settings.exclude, settings.exclude_templates)
    notes, warnings, _ = parse_files(
        vault,
        scan.notes,
        settings.hierarchy_properties,
        settings.workers,
        max_bytes=settings.max_note_bytes,
    )
    built = _graph(notes, [a.path for a in scan.attachments], config)
    return built, notes, scan.warnings + warnings + built.warnings


def _graph(notes: list[ParsedNote], attachments: list[str], config: IndexConfig) -> VaultGraphBuild:
    s = config.index
    return build_graph(
        notes,
        attachments,
        hierarchy_properties=s.hierarchy_properties,
        folder_note_names=s.folder_note_names,
        folder_note_beside=s.folder_note_beside,
        resolve_aliases=s.resolve_aliases,
    )
