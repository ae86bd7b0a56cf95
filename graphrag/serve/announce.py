"""Run the HTTP server and announce it in ``INDEX_DIR/server.json`` while it listens.

The file (``server_file``) is written once the socket is bound (so a reader never
finds a port that refuses it while the server lives, and ``--port 0`` announces the
port the system chose) and removed when the server stops, on Ctrl-C or SIGTERM as on
a normal exit (docs/architecture.md, serve hand-off). A killed server leaves the file
behind; readers check the pid and the connection.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Any

import uvicorn

from graphrag.serve import server_file
from graphrag.serve.memory import Trimmer, limit_arenas


class AnnouncedServer(uvicorn.Server):
    """A uvicorn server that writes ``server.json`` after binding and removes it after."""

    def __init__(self, config: uvicorn.Config, rag: Any, settings: Any) -> None:
        super().__init__(config)
        self.rag = rag
        self.settings = settings
        self.announced = False

    async def startup(self, sockets: Any = None) -> None:
        await super().startup(sockets)
        if self.should_exit or not self.servers:
            return
        host, port = self.servers[0].sockets[0].getsockname()[:2]
        server = self.settings.server
        where = f"http://{server.host}:{port}"
        print(
            f"serving {self.rag.vault or self.rag.index_dir} on {where} (docs: {where}/docs)",
            file=sys.stderr,
            flush=True,
        )
        info = server_file.ServerInfo(
            pid=os.getpid(),
            host=server.host,
            port=int(port),
            token=server.token or None,
            index_dir=str(self.rag.index_dir),
            settings=server_file.fingerprint(self.settings),
        )
        try:
            server_file.write(self.rag.index_dir, info)
            self.announced = True
        except OSError as exc:  # a read-only index folder: serve anyway, unannounced
            print(
                f"warning: cannot write {server_file.SERVER_FILE} ({exc}); "
                "commands will not find this server",
                file=sys.stderr,
            )

    async def shutdown(self, sockets: Any = None) -> None:
        # Here, not after run(): uvicorn re-raises the SIGTERM or SIGINT it caught once
        # it has shut down, which ends the process before run() returns.
        self.withdraw()
        await super().shutdown(sockets)

    def withdraw(self) -> None:
        if self.announced:
            with contextlib.suppress(OSError):
                server_file.remove(self.rag.index_dir, os.getpid())
            self.announced = False


def run_announced(app: Any, rag: Any, settings: Any) -> None:
    """Serve ``app`` on ``settings.server``'s host and port until stopped."""
    server = settings.server
    config = uvicorn.Config(
        app, host=server.host, port=server.port, log_level="warning", server_header=False
    )
    runner = AnnouncedServer(config, rag, settings)
    limit_arenas()
    trimmer = Trimmer().start()
    try:
        runner.run()
    finally:
        trimmer.stop()
        runner.withdraw()
