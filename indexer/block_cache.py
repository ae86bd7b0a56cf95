"""``blocks(text)`` remembered on disk, for the texts a command from the shell re-reads.

Showing an embed of a ``^block`` (``graphrag/details/embeds.py``) needs the Markdown
blocks of the whole note it comes from; importing markdown-it-py for that is 40-90 ms
of a cold ``focus`` or ``query``, more than the parse. A note's blocks depend only on
its text and the parser, so they are kept by content: a JSON file named by the text's
digest, in a folder named by this code and markdown-it-py's (path, size and mtime of
``blocks.py``, this module and markdown-it's package file). Later processes read it
instead of importing the parser. A missing, damaged or unwritable cache only means
parsing, as before (docs/architecture.md, start-up).

The cache is ``$XDG_CACHE_HOME/vault-graphrag/blocks/`` (one small file per note that
is the target of a block embed; safe to delete at any time). Each edit of such a note
adds a file and each upgrade a folder, so it prunes itself when it writes: past
``MAX_FILES`` the oldest files go, and another version's folder untouched for
``STALE_DAYS`` goes with them.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import time
from functools import lru_cache
from pathlib import Path

from . import blocks as parser
from .blocks import Block

FORMAT = 1
MAX_FILES = 4096  # a file is ~1 KB per 10 blocks: a few MB at most
STALE_DAYS = 30
_FOLDER_NAME = re.compile(r"[0-9a-f]{16}")


def cached_blocks(text: str, folder: Path | None = None) -> list[Block]:
    """``blocks(text)``, from the cache when this text was parsed before."""
    where = folder or cache_folder()
    if where is None:
        return parser.blocks(text)
    # str paths, not ``where / name``: pathlib interns every part it parses, and a
    # server would fill CPython's interned-string table with each text's digest.
    name = hashlib.blake2b(text.encode("utf-8", "surrogatepass")).hexdigest()[:32] + ".json"
    path = os.path.join(where, name)
    try:
        with open(path, encoding="utf-8") as fh:
            return [_block(row) for row in json.loads(fh.read())]
    except (OSError, ValueError, TypeError, KeyError):
        pass
    found = parser.blocks(text)
    rows = [[b.kind, b.start, b.end, b.head, [list(p) for p in b.parts], b.fence] for b in found]
    tmp = os.path.join(where, f".{name}.{os.getpid()}.tmp")
    try:
        os.makedirs(where, exist_ok=True)
        with open(tmp, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(rows))
        os.replace(tmp, path)
    except OSError:  # a read-only home: parse each time
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        return found
    with contextlib.suppress(OSError):  # pruning is housekeeping: never the command's error
        prune(str(where))
    return found


def prune(where: str, now: float | None = None) -> None:
    """Keep ``where`` to ``MAX_FILES`` (the newest), and drop sibling folders of other
    versions nobody wrote to for ``STALE_DAYS``. Only writes call it: a hit costs nothing."""
    with os.scandir(where) as it:
        files = [e for e in it if e.name.endswith(".json") and e.is_file()]
    if len(files) > MAX_FILES:
        # Down to three quarters, so the next writes do not each scan and delete again.
        files.sort(key=lambda e: e.stat().st_mtime_ns)
        for entry in files[: len(files) - MAX_FILES * 3 // 4]:
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
    parent, mine = os.path.split(where.rstrip(os.sep))
    cutoff = (time.time() if now is None else now) - STALE_DAYS * 86400
    with os.scandir(parent) as it:
        others = [e for e in it if e.name != mine and _FOLDER_NAME.fullmatch(e.name)]
    for entry in others:
        if entry.is_dir(follow_symlinks=False) and entry.stat().st_mtime < cutoff:
            shutil.rmtree(entry.path, ignore_errors=True)


def _block(row: list) -> Block:
    kind, start, end, head, parts, fence = row
    if not (isinstance(kind, str) and isinstance(fence, str)):
        raise ValueError("not a block")
    return Block(
        kind, int(start), int(end), int(head), tuple((int(a), int(b)) for a, b in parts), fence
    )


@lru_cache(maxsize=1)
def cache_folder() -> Path | None:
    """The folder for this version of the block rules; None if markdown-it is missing."""
    spec = importlib.util.find_spec("markdown_it")
    if spec is None or spec.origin is None:
        return None
    parts: list[object] = [FORMAT]
    try:
        for path in (Path(parser.__file__), Path(__file__), Path(spec.origin)):
            st = path.stat()
            parts += [path, st.st_size, st.st_mtime_ns]
    except OSError:
        return None
    key = hashlib.blake2b("\0".join(map(str, parts)).encode(), digest_size=8).hexdigest()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vault-graphrag" / "blocks" / key
