"""Walk a vault and list its files.

* Dot-files and dot-folders (``.obsidian``, ``.git``, ``.trash``, our own
  ``.graphrag``) are skipped.
* Excludes: glob patterns from config (matched against the vault-relative path
  and each of its folders) and Obsidian's ``userIgnoreFilters`` from
  ``.obsidian/app.json`` (a path prefix, or ``/regex/``).
* Symlinked folders are followed once, after the real folders; a folder already
  visited (same device and inode) is skipped with a warning, so symlink loops end
  and a link into the vault never takes the place of the folder it points at.
* Obsidian's templates folder (the core Templates plugin's
  ``.obsidian/templates.json`` ``folder``, Templater's ``templates_folder`` in
  ``.obsidian/plugins/templater-obsidian/data.json``) is skipped when
  ``exclude_templates`` is on (the default): a template is a form to fill in, its
  ``{{date}}`` placeholders are not YAML, and it must not answer questions.
* Only regular files are listed (a symlink counts as what it points at): a FIFO
  named ``pipe.md`` would block the reader forever and ``zero.md -> /dev/zero``
  never ends, so other kinds are skipped with a warning.
* Unreadable folders and files, and names that are not UTF-8, are warned about
  and skipped; nothing is written.
* The walk is iterative (a stack of folder listings), so a vault nested a
  thousand folders deep does not exhaust Python's recursion limit.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import stat
from collections.abc import Iterator
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
    templates: list[str] = field(default_factory=list)  # template folders skipped


TEMPLATE_SETTINGS = (
    # (settings file under .obsidian, key naming the folder, who owns it)
    ("templates.json", "folder", "core Templates plugin"),
    ("plugins/templater-obsidian/data.json", "templates_folder", "Templater"),
)


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
    app = os.path.join(vault, ".obsidian", "app.json")  # str: see ``scan_vault``
    if not os.path.isfile(app):
        return []
    try:
        with open(app, encoding="utf-8") as fh:
            data = json.loads(fh.read())
    except (OSError, ValueError) as exc:
        warnings.append(f".obsidian/app.json: unreadable ({exc}); userIgnoreFilters not applied")
        return []
    filters = data.get("userIgnoreFilters") if isinstance(data, dict) else None
    return [str(f) for f in filters] if isinstance(filters, list) else []


def read_template_folders(vault: Path, warnings: list[str]) -> list[str]:
    """Vault-relative template folders named in Obsidian's settings (never the vault root)."""
    folders: list[str] = []
    for name, key, owner in TEMPLATE_SETTINGS:
        path = os.path.join(vault, ".obsidian", name)  # str: see ``scan_vault``
        if not os.path.isfile(path):
            continue
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.loads(fh.read())
        except (OSError, ValueError) as exc:
            warnings.append(f".obsidian/{name}: unreadable ({exc}); {owner} folder not excluded")
            continue
        folder = data.get(key) if isinstance(data, dict) else None
        if isinstance(folder, str):
            folder = posix_folder(folder)
            if folder and folder not in folders:
                folders.append(folder)
    return folders


def posix_folder(text: str) -> str:
    """``/Templates/`` or ``Templates\\Daily`` as a vault-relative folder; "" for the root."""
    parts = [p for p in text.replace("\\", "/").split("/") if p and p != "."]
    return "/".join(parts)


FILE_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def file_kind(mode: int) -> str:
    return next((name for test, name in FILE_KINDS if test(mode)), "not a regular file")


def scan_vault(
    vault: Path, exclude: tuple[str, ...] = (), exclude_templates: bool = True
) -> ScanResult:
    result = ScanResult()
    excluder = Excluder(exclude, read_ignore_filters(vault, result.warnings))
    templates = set(read_template_folders(vault, result.warnings)) if exclude_templates else set()
    seen_dirs: set[tuple[int, int]] = set()
    # Symlinked folders are walked after the real tree, so a link pointing back into
    # the vault is the one skipped, not the folder it points at.
    linked: list[tuple[str | Path, str]] = []
    # One listing per open folder, deepest last: the same order as a recursive walk.
    stack: list[tuple[Iterator[os.DirEntry[str]], str]] = []

    # Folders as the str paths scandir gives, not Path(entry.path): pathlib interns every
    # part of a path it parses, so a server scanning on each update used up CPython's
    # table of interned strings with dead names until it was resized, twice the size
    # (benchmarks/RESULTS.md, "Server memory over an hour, session 7").
    def enter(folder: str | Path, rel: str) -> None:
        try:
            st = os.stat(folder)
        except OSError as exc:
            result.warnings.append(f"{rel or '.'}: cannot read folder ({exc.strerror})")
            return
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:
            result.warnings.append(f"{rel}: folder already visited (symlink loop?); skipped")
            return
        seen_dirs.add(key)
        try:
            with os.scandir(folder) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError as exc:
            result.warnings.append(f"{rel or '.'}: cannot list folder ({exc.strerror})")
            return
        stack.append((iter(entries), rel))

    def visit(entry: os.DirEntry[str], rel: str) -> None:
        if entry.name.startswith("."):
            return
        child = f"{rel}/{entry.name}" if rel else entry.name
        if not _utf8(entry.name):
            # The index, links and uris are text: a name that is not UTF-8 cannot be one.
            shown = child.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            result.warnings.append(
                f"{shown}: name is not valid UTF-8; skipped (rename it to index it)"
            )
            return
        try:
            is_dir = entry.is_dir()  # follows symlinks
        except OSError:
            is_dir = False
        if is_dir:
            if child in templates:
                result.templates.append(child)
            elif excluder.excluded(child, is_dir=True):
                pass
            elif entry.is_symlink():
                linked.append((entry.path, child))
            else:
                enter(entry.path, child)
            return
        if excluder.excluded(child):
            return
        try:
            st = entry.stat()  # follows symlinks: a link is what it points at
        except OSError as exc:
            result.warnings.append(f"{child}: cannot stat ({exc.strerror}); skipped")
            return
        if not stat.S_ISREG(st.st_mode):
            result.warnings.append(f"{child}: {file_kind(st.st_mode)}, not a regular file; skipped")
            return
        item = FileEntry(child, st.st_size, st.st_mtime_ns)
        if entry.name.lower().endswith(".md"):
            result.notes.append(item)
        else:
            result.attachments.append(item)

    enter(vault, "")
    while stack or linked:
        if not stack:
            enter(*linked.pop(0))
            continue
        entries, rel = stack[-1]
        entry = next(entries, None)
        if entry is None:
            stack.pop()
        else:
            visit(entry, rel)
    return result


def _utf8(name: str) -> bool:
    """False for a name with bytes that are not UTF-8 (Python keeps them as surrogates)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
