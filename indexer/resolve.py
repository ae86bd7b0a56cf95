"""Link resolution, as Obsidian does it, with Dendron's wikilinks as a fallback.

Given a link as written and the note it is in, find what it points to:

1. An empty target (``[[#Heading]]``) is the linking note itself.
2. Markdown links (``[t](a%20b.md)``) are URL-decoded by the parser and tried
   first relative to the linking note's folder, then from the vault root.
   Wikilinks starting with ``./`` or ``../`` are relative too.
3. Exact vault path, case-insensitive, ``.md`` optional: ``[[Places/Huts/Hut]]``;
   for a wikilink, then the same path from the linking note's folder, as Obsidian
   does, so ``[[Brine]]`` written in ``Dairy/`` means ``Dairy/Brine`` when it exists.
4. File name, case-insensitive: all notes whose file name (without ``.md``)
   equals the target's last segment. With several candidates, prefer those whose
   path ends with what was written (``[[Huts/Hut]]`` picks ``Places/Huts/Hut``),
   then the shortest path (fewest folders, then fewest characters, then
   alphabetical, so the choice never depends on scan order). A written folder
   that matches no candidate still resolves by file name.
5. An alias (front matter ``aliases``), when ``resolve_aliases`` is on. Obsidian
   only suggests aliases while typing; we resolve them as a last resort because
   for retrieval a link that names an alias means that note.
6. A folder path (``[[Places]]``) points at the note standing for the folder:
   its folder note, or the folder's virtual note.
7. Non-Markdown targets (``map.png``, ``doc.pdf``) are attachments: the file if
   the vault has it (same path and name rules), else a missing attachment.
8. Dendron's reading, for a ``[[...]]`` link (wikilink, embed, property) that
   Obsidian's reading leaves unresolved (a ghost, or an attachment the vault does
   not have): Dendron writes ``[[label|target]]``, the label first, and names a note
   of another vault ``dendron://<vault>/target``. The part after the pipe, without
   that prefix and with its ``#anchor`` as the subpath, is resolved by rules 2-7; if
   it is a note, the link points there and the part before the pipe is its display
   text. A ``[[dendron://<vault>/target]]`` without a pipe is resolved without its
   prefix the same way. A link Obsidian's reading resolves is never read Dendron's
   way, so no Obsidian vault's resolved links change.
9. Anything else is unresolved and becomes a ghost node named as written
   (without ``.md``, unless that would leave no name).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass

# The vault part of a Dendron cross-vault link: dendron://<vault name>/note.
DENDRON_VAULT_RE = re.compile(r"^dendron://[^/]*/", re.IGNORECASE)

ATTACHMENT_EXTENSIONS = frozenset(
    [
        "png",
        "jpg",
        "jpeg",
        "gif",
        "bmp",
        "svg",
        "webp",
        "avif",
        "tif",
        "tiff",
        "ico",
        "heic",
        "mp3",
        "wav",
        "m4a",
        "ogg",
        "flac",
        "webm",
        "3gp",
        "mp4",
        "mov",
        "mkv",
        "ogv",
        "avi",
        "pdf",
        "canvas",
        "base",
        "excalidraw",
        "csv",
        "json",
        "txt",
        "doc",
        "docx",
        "xls",
        "xlsx",
        "ppt",
        "pptx",
        "zip",
        "epub",
    ]
)


@dataclass(frozen=True, slots=True)
class Target:
    uri: str
    kind: str  # note | folder | attachment | ghost | self


@dataclass(frozen=True, slots=True)
class Reading:
    """A link as resolved: its target, and the target text, subpath and display text of
    the reading that found it (Obsidian's, or Dendron's with the label as display)."""

    target: Target
    written: str
    subpath: str
    display: str


def strip_dendron_vault(written: str) -> str:
    """``written`` without a leading ``dendron://<vault>/``."""
    return DENDRON_VAULT_RE.sub("", written.strip(), count=1)


def dendron_reading(target: str, subpath: str, display: str) -> tuple[str, str, str] | None:
    """(target as written, subpath, display) of Dendron's reading of a wikilink that
    Obsidian read as ``target``/``subpath``/``display``; None when it has no other.

    Obsidian splits ``[[a#x|b#y]]`` at the pipe into target ``a``, subpath ``#x`` and
    display ``b#y``; Dendron reads target ``b``, subpath ``#y``, label ``a#x``.
    """
    if display:
        written, hash_, sub = display.partition("#")
        written = written.strip()
        if not strip_dendron_vault(written):
            return None  # [[label|#anchor]]: no note named, and Obsidian's reading stands
        return written, ("#" + sub.strip()) if hash_ else "", target + subpath
    if DENDRON_VAULT_RE.match(target.strip()):
        return target, subpath, display
    return None


def _path_key(uri: str) -> tuple[int, int, str]:
    return (uri.count("/"), len(uri), uri)


class Resolver:
    """Lookup tables over every note, folder and attachment in the vault."""

    def __init__(
        self,
        note_uris: list[str],
        attachment_paths: list[str] = (),  # type: ignore[assignment]
        aliases: dict[str, list[str]] | None = None,
        folders: dict[str, str] | None = None,
        resolve_aliases: bool = True,
    ) -> None:
        self.by_path: dict[str, str] = {}
        self.by_name: dict[str, list[str]] = {}
        for uri in sorted(note_uris):
            self.by_path.setdefault(uri.casefold(), uri)
            self.by_name.setdefault(uri.rsplit("/", 1)[-1].casefold(), []).append(uri)
        for names in self.by_name.values():
            names.sort(key=_path_key)
        self.att_path: dict[str, str] = {}
        self.att_name: dict[str, list[str]] = {}
        for path in sorted(attachment_paths):
            self.att_path.setdefault(path.casefold(), path)
            self.att_name.setdefault(path.rsplit("/", 1)[-1].casefold(), []).append(path)
        for names in self.att_name.values():
            names.sort(key=_path_key)
        # folder path -> the uri standing for it (its folder note, or itself if virtual)
        self.folders = {f.casefold(): rep for f, rep in (folders or {}).items()}
        self._notes = set(note_uris)
        self._attachments = set(self.att_path.values())
        self.aliases: dict[str, str] = {}
        if resolve_aliases and aliases:
            for uri in sorted(aliases, key=_path_key):
                for alias in aliases[uri]:
                    self.aliases.setdefault(alias.casefold(), uri)
        self.ghosts: dict[str, str] = {}
        self._memo: dict[tuple[str, str, bool], Target] = {}

    def restart(self, ghosts: dict[str, str]) -> None:
        """Forget the answers given so far; missing notes take the spellings in ``ghosts``
        (casefolded name -> spelling) before any first spelling met from now on."""
        self.ghosts = dict(ghosts)
        self._memo.clear()

    def resolve(
        self, target: str, source_uri: str, markdown: bool = False, source_dir: str | None = None
    ) -> Target:
        """What ``target`` points to by Obsidian's rules (1-7, 9)."""
        return self._spelled(self._lookup(target, source_uri, markdown, source_dir))

    def resolve_link(
        self,
        target: str,
        subpath: str,
        display: str,
        source_uri: str,
        markdown: bool = False,
        source_dir: str | None = None,
    ) -> Reading:
        """A parsed link (``parse.Link``'s fields, read Obsidian's way) resolved by every
        rule, Dendron's reading (8) included."""
        if source_dir is None:
            source_dir = posixpath.dirname(source_uri)
        found = self._lookup(target, source_uri, markdown, source_dir)
        if not markdown and self._nothing(found):
            other = dendron_reading(target, subpath, display)
            if other is not None:
                written, sub, label = other
                hit = self._lookup(strip_dendron_vault(written), source_uri, False, source_dir)
                if hit.kind == "note":
                    return Reading(hit, written, sub, label)
        # A ghost takes its spelling only from the reading kept, so one a Dendron link
        # passed over cannot name the ghost of a later link.
        return Reading(self._spelled(found), target, subpath, display)

    def _nothing(self, found: Target) -> bool:
        """Whether Obsidian's reading points nowhere: a missing note or attachment."""
        if found.kind == "attachment":
            return found.uri not in self._attachments
        return found.kind == "ghost"

    def _spelled(self, found: Target) -> Target:
        if found.kind != "ghost":
            return found
        return Target(self.ghosts.setdefault(found.uri.casefold(), found.uri), "ghost")

    def _lookup(
        self, target: str, source_uri: str, markdown: bool, source_dir: str | None
    ) -> Target:
        """``resolve`` with a ghost named as written, its spelling not yet chosen."""
        written = target.strip().replace("\\", "/")
        if not written:
            return Target(source_uri, "self")
        if source_dir is None:
            source_dir = posixpath.dirname(source_uri)
        # Hub notes repeat the same targets thousands of times: the answer depends only
        # on what was written, where, and how.
        key = (written, source_dir, markdown)
        hit = self._memo.get(key)
        if hit is None:
            hit = self._memo[key] = self._resolve(written, source_dir, markdown)
        return hit

    def _resolve(self, written: str, source_dir: str, markdown: bool) -> Target:
        relative = markdown or written.startswith(("./", "../"))
        absolute = _normalise(written.lstrip("/"))
        beside = (
            _normalise(posixpath.join(source_dir, written))
            if source_dir and not written.startswith("/")
            else None
        )
        # Markdown and ./ ../ links are relative first; a wikilink is a vault path first,
        # then a path from the linking note's folder (so a same-named note there wins).
        candidates = [beside, absolute] if relative else [absolute, beside]

        ext = posixpath.splitext(written)[1][1:].casefold()
        for path in candidates:
            if path is None:
                continue
            note = self._note(path)
            if note is not None:
                return Target(note, "note")
        name_target = absolute or written
        note = self._by_name(name_target)
        if note is not None:
            return Target(note, "note")
        alias = self.aliases.get(written.casefold())
        if alias is not None:
            return Target(alias, "note")
        folder = self.folders.get((name_target or "").strip("/").casefold())
        if folder is not None:
            return Target(folder, "note" if folder in self._notes else "folder")
        if ext and ext != "md":
            for path in candidates:
                if path is not None and path.casefold() in self.att_path:
                    return Target(self.att_path[path.casefold()], "attachment")
            named = self.att_name.get(written.rsplit("/", 1)[-1].casefold())
            if named:
                return Target(self._prefer_written(named, written.casefold()), "attachment")
            if ext in ATTACHMENT_EXTENSIONS:
                return Target(name_target or written, "attachment")
        ghost = name_target or written
        if ghost.casefold().endswith(".md") and ghost[:-3].strip():
            ghost = ghost[:-3]  # "[[.md]]" keeps its name: a ghost is never nameless
        return Target(ghost, "ghost")

    def _note(self, path: str) -> str | None:
        key = path.casefold()
        if key.endswith(".md"):
            hit = self.by_path.get(key[:-3])
            if hit is not None:
                return hit
        return self.by_path.get(key)

    def _by_name(self, written: str) -> str | None:
        key = written.casefold()
        if key.endswith(".md"):
            key = key[:-3]
        names = self.by_name.get(key.rsplit("/", 1)[-1])
        if not names:
            return None
        return self._prefer_written(names, key)

    @staticmethod
    def _prefer_written(candidates: list[str], written_key: str) -> str:
        if len(candidates) == 1 or "/" not in written_key:
            return candidates[0]
        suffix = "/" + written_key.strip("/")
        for uri in candidates:  # already shortest-first
            folded = uri.casefold()
            if folded.endswith(suffix) or folded.endswith(suffix + ".md"):
                return uri
        return candidates[0]


def _normalise(path: str) -> str | None:
    """Collapse ``a/./b`` and ``a/../b``; None if the path climbs out of the vault."""
    norm = posixpath.normpath(path) if path else ""
    if norm in (".", ""):
        return None
    if norm.startswith("../") or norm == "..":
        return None
    return norm
