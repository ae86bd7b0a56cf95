"""Walk a vault and list its files.

* Dot-files and dot-folders (``.obsidian``, ``.git``, ``.trash``, our own
  ``.graphrag``) are skipped.
* Excludes: glob patterns from config (matched against the vault-relative path
  and each of its folders) and Obsidian's ``userIgnoreFilters`` from
  ``.obsidian/app.json`` (a path prefix, or ``/regex/``).
* Symlinked folders are followed once, after the real folders; a folder already
  visited (same device and inode) is skipped with a warning, so symlink loops end
  and a link into the vault never takes the place of the folder it points at.
* Unreadable folders and files, and names that are not UTF-8, are warned about
  and skipped; nothing is written.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class FileEntry:
    path: str  # vault-relative, "/" separators
    size: int
    mtime_ns: int


@dataclass
class ScanResult:
    notes: list[FileEntry] = field(default_factory=list)
    attachments: list[FileEntry] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class Excluder:
    def __init__(self, globs: tuple[str, ...] = (), ignore_filters: list[str] = ()) -> None:  # type: ignore[assignment]
        self.globs = tuple(globs)
        self.prefixes: list[str] = []
        self.regexes: list[re.Pattern[str]] = []
        for item in ignore_filters:
            if len(item) > 2 and item.startswith("/") and item.endswith("/"):
                try:
                    self.regexes.append(re.compile(item[1:-1]))
                except re.error:
                    continue
            elif item:
                self.prefixes.append(item.lstrip("/"))

    def excluded(self, rel: str, is_dir: bool = False) -> bool:
        probe = rel + "/" if is_dir else rel
        if any(probe.startswith(p) for p in self.prefixes):
            return True
        if any(r.search(probe) for r in self.regexes):
            return True
        for pattern in self.globs:
            pat = pattern.rstrip("/")
            if fnmatch.fnmatchcase(rel, pat) or fnmatch.fnmatchcase(rel, pat + "/*"):
                return True
            if is_dir and fnmatch.fnmatchcase(rel.rsplit("/", 1)[-1], pat):
                return True
        return False


def read_ignore_filters(vault: Path, warnings: list[str]) -> list[str]:
    app = vault / ".obsidian" / "app.json"
    if not app.is_file():
        return []
    try:
        data = json.loads(app.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        warnings.append(f".obsidian/app.json: unreadable ({exc}); userIgnoreFilters not applied")
        return []
    filters = data.get("userIgnoreFilters") if isinstance(data, dict) else None
    return [str(f) for f in filters] if isinstance(filters, list) else []


def scan_vault(vault: Path, exclude: tuple[str, ...] = ()) -> ScanResult:
    result = ScanResult()
    excluder = Excluder(exclude, read_ignore_filters(vault, result.warnings))
    seen_dirs: set[tuple[int, int]] = set()
    # Symlinked folders are walked after the real tree, so a link pointing back into
    # the vault is the one skipped, not the folder it points at.
    linked: list[tuple[Path, str]] = []

    def walk(folder: Path, rel: str) -> None:
        try:
            st = folder.stat()
        except OSError as exc:
            result.warnings.append(f"{rel or '.'}: cannot read folder ({exc.strerror})")
            return
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            result.warnings.append(f"{rel}: folder already visited (symlink loop?); skipped")
            return
        seen_dirs.add(key)
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            result.warnings.append(f"{rel or '.'}: cannot list folder ({exc.strerror})")
            return
        for entry in entries:
            if entry.name.startswith("."):
                continue
            child = f"{rel}/{entry.name}" if rel else entry.name
            if not _utf8(entry.name):
                # The index, links and uris are text: a name that is not UTF-8 cannot be one.
                shown = child.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
                result.warnings.append(f"{shown}: name is not valid UTF-8; skipped (rename it to index it)")
                continue
            try:
                is_dir = entry.is_dir()  # follows symlinks
            except OSError:
                is_dir = False
            if is_dir:
                if excluder.excluded(child, is_dir=True):
                    continue
                if entry.is_symlink():
                    linked.append((Path(entry.path), child))
                else:
                    walk(Path(entry.path), child)
                continue
            if excluder.excluded(child):
                continue
            try:
                st = entry.stat()
            except OSError as exc:
                result.warnings.append(f"{child}: cannot stat ({exc.strerror}); skipped")
                continue
            item = FileEntry(child, st.st_size, st.st_mtime_ns)
            if entry.name.lower().endswith(".md"):
                result.notes.append(item)
            else:
                result.attachments.append(item)

    walk(vault, "")
    while linked:
        walk(*linked.pop(0))
    return result


def _utf8(name: str) -> bool:
    """False for a name with bytes that are not UTF-8 (Python keeps them as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
