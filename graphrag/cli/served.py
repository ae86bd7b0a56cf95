"""Ask a running ``vault-graphrag serve`` for the same index instead of loading it.

A question from the shell otherwise pays for the index, the vectors and the
model every time; a server already holds them. ``connect`` finds the server
through ``INDEX_DIR/server.json`` (``graphrag.serve.server_file``) and uses it
only when it is certainly equivalent to answering in-process: alive, serving this
index folder, with the same answer-shaping settings, and serving the generation
on disk after the vault's changes (if the vault changed, the server is asked to
update first, as the in-process path would). Anything else (no file, a dead pid,
a refused connection, an error answer) returns None or raises ``Unavailable``, and
the command runs in-process: a stale file costs a failed connect, never a wrong
answer. ``--no-server`` skips all this (docs/architecture.md, serve hand-off).

Stdlib only (``http.client``): the point is to import nothing heavy.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphrag.serve.server_file import ServerInfo

CONNECT_SECONDS = 2.0
# The first answer after a server starts can wait for its model; an update for the vault.
ANSWER_SECONDS = 600.0
WILDCARD = ("0.0.0.0", "::", "")


class Unavailable(Exception):
    """The server could not give the answer the in-process path would: use that path."""


class Served:
    """A live server for one index folder."""

    def __init__(self, info: ServerInfo) -> None:
        self.info = info
        self.host = "127.0.0.1" if info.host in WILDCARD else info.host

    def request(
        self,
        method: str,
        path: str,
        body: dict[str, Any] | None = None,
        timeout: float = ANSWER_SECONDS,
    ) -> Any:
        """The JSON of a 200 answer; any other status, or no connection, is ``Unavailable``."""
        import http.client  # here: it pulls in ssl and email (~50 ms), needed only with a server

        headers = {"Accept": "application/json"}
        if self.info.token:
            headers["Authorization"] = f"Bearer {self.info.token}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn = http.client.HTTPConnection(self.host, self.info.port, timeout=CONNECT_SECONDS)
        try:
            conn.connect()
            if conn.sock is not None:
                conn.sock.settimeout(timeout)
            conn.request(method, path, body=payload, headers=headers)
            response = conn.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as exc:
            raise Unavailable(f"{self.host}:{self.info.port}: {exc}") from exc
        finally:
            conn.close()
        if response.status != 200:
            # Errors are reported by the in-process path, in its own words.
            raise Unavailable(f"{path}: HTTP {response.status}")
        try:
            return json.loads(data)
        except ValueError as exc:
            raise Unavailable(f"{path}: not JSON") from exc

    def post(self, path: str, body: dict[str, Any]) -> Any:
        return self.request("POST", path, body)


def connect(
    vault: Path | None, index_dir: Path, settings: Any, update: bool = True
) -> Served | None:
    """The server answering for ``index_dir`` as this process would, or None. Without
    ``update`` (``--no-update``) a changed vault is not indexed first: the server is asked
    only if it serves the generation on disk, the index as it is."""
    # Here, not at the top: with --no-server nothing about servers is read or imported.
    from graphrag.serve import server_file

    info = server_file.usable(index_dir, settings)
    if info is None:
        return None
    served = Served(info)
    try:
        if update and vault is not None and not _current(vault, index_dir, settings):
            served.post("/index", {"wait": True})
        status = served.request("GET", "/status", timeout=CONNECT_SECONDS * 5)
    except Unavailable:
        return None
    from indexer.store import read_manifest

    try:
        manifest = read_manifest(index_dir) or {}
    except Exception:
        return None
    if status.get("index_dir") != str(index_dir) or status.get("generation") != manifest.get(
        "generation"
    ):
        return None
    return served


def _current(vault: Path, index_dir: Path, settings: Any) -> bool:
    """Whether the vault is unchanged since the index was made. The model is compared by
    name only: the server was started with these embedding settings (the fingerprint)
    and brought its index to their kind of vectors before it listened, and the
    generation it serves is checked against the one on disk; so no embedder is made
    here (that imports numpy and the backends, ~0.1 s of a served command)."""
    from indexer.fresh import index_is_current

    return index_is_current(vault, index_dir, settings.index_config, settings.embedding.model)


def answer(
    vault: str,
    index_dir: str | None,
    settings: Any,
    no_server: bool,
    path: str,
    body: dict[str, Any],
    update: bool = True,
) -> Any:
    """The server's JSON answer to ``POST path`` for this vault, or None: answer in-process.
    ``update``: a changed vault is indexed first (see ``connect``)."""
    if no_server:
        return None
    from graphrag.api import locate

    found_vault, found_index = locate(vault, index_dir, settings)
    served = connect(found_vault, found_index, settings, update=update)
    if served is None:
        return None
    try:
        return served.post(path, body)
    except Unavailable:
        return None


def served_filters(filters: dict[str, Any]) -> dict[str, Any]:
    """The filters as a server's ``filters`` body: only those given."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in filters.items() if v}


def no_server_option(fn: Any) -> Any:
    """``--no-server``: answer in this process even when a server runs for the vault."""
    import click

    return click.option(
        "--no-server",
        is_flag=True,
        help="Answer in this process even if `vault-graphrag serve` runs for this vault.",
    )(fn)
