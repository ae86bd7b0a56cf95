"""``INDEX_DIR/server.json``: how a command from the shell finds a running server.

``vault-graphrag serve`` writes it once it listens and removes it when it stops;
``query``, ``search``, ``focus`` and ``ask --prompt-only`` read it and ask that
server rather than loading the index and the model themselves
(docs/architecture.md, serve hand-off). It holds the pid, the address, the token
if one is set (so the file is private to its owner, like the index), the index
folder and a fingerprint of the settings that shape answers: a server started
with other settings would answer differently, and is not asked.

A file can outlive its server (a killed process): readers check that the pid is
alive and the index folder is theirs, and treat a refused connection the same way.
Stdlib only: a command that finds a server imports nothing else.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SERVER_FILE = "server.json"
# Settings sections that do not change an answer's bytes: where it listens, the model for /ask.
UNSHAPING = ("server", "llm")


@dataclass(frozen=True)
class ServerInfo:
    pid: int
    host: str
    port: int
    token: str | None
    index_dir: str
    settings: str  # ``fingerprint`` of the server's settings

    def to_json(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "host": self.host,
            "port": self.port,
            "token": self.token,
            "index_dir": self.index_dir,
            "settings": self.settings,
        }


def fingerprint(settings: Any) -> str:
    """Digest of every setting that can change an answer (``Settings.to_dict``)."""
    data = {k: v for k, v in settings.to_dict().items() if k not in UNSHAPING}
    text = json.dumps(data, sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def write(index_dir: Path, info: ServerInfo) -> Path:
    """Write ``server.json`` atomically (readers never see half a file), owner-only."""
    path = index_dir / SERVER_FILE
    tmp = index_dir / f".{SERVER_FILE}.{os.getpid()}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(info.to_json(), fh)
    os.replace(tmp, path)
    return path


def remove(index_dir: Path, pid: int) -> None:
    """Remove ``server.json`` if it is still this process's (a newer server may own it)."""
    path = index_dir / SERVER_FILE
    info = read(index_dir)
    if info is not None and info.pid == pid:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def read(index_dir: Path) -> ServerInfo | None:
    """The file's contents, or None if there is none or it is not one of ours."""
    try:
        data = json.loads((index_dir / SERVER_FILE).read_text(encoding="utf-8"))
        token = data.get("token")
        return ServerInfo(
            pid=int(data["pid"]),
            host=str(data["host"]),
            port=int(data["port"]),
            token=str(token) if token else None,
            index_dir=str(data["index_dir"]),
            settings=str(data["settings"]),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: not our server
        return False
    return True


def usable(index_dir: Path, settings: Any) -> ServerInfo | None:
    """The server for ``index_dir`` started with the same settings and still running."""
    info = read(index_dir)
    if info is None or not alive(info.pid):
        return None
    if Path(info.index_dir) != index_dir or info.settings != fingerprint(settings):
        return None
    return info
