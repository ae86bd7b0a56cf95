"""The server side of the HTTP benchmarks: a served 10k-note index in a subprocess,
and the small HTTP helpers the clients use.

``start_server`` runs this file as ``served.py --serve VAULT INDEX_DIR PORT [--watch]``:
``create_app`` + uvicorn, one worker, on 127.0.0.1. Its query embedder is the real
MiniLM model under the index's model name, so ``/query`` pays the real
question-embedding cost against the benchmarks' 384-d fake-embedded index. Only
loopback traffic.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.common import HASH_MODEL  # noqa: E402


class RealQueryEmbedder:
    """MiniLM for questions, under the index's model name (so nothing is re-embedded),
    from the default backend (``embedding.backend = "auto"``: ONNX Runtime on a CPU), as
    ``serve`` embeds them. Runs before 2026-11-23 17:30 used torch here (~10x the
    CPU of ONNX for one question on this machine)."""

    def __init__(self) -> None:
        from indexer.config import EmbeddingSettings
        from indexer.embed import make_embedder

        self._model = make_embedder(EmbeddingSettings())
        self.name = HASH_MODEL
        self.dim = 384

    def load(self) -> Any:
        return self._model.load()

    def embed(self, texts: Any, progress: Any = None) -> Any:
        return self._model.embed(texts, progress)


def serve(vault: str, index_dir: str, port: int, watch: bool = False) -> None:
    """``watch``: the file watcher on, started by ``create_app``'s lifespan exactly as
    ``vault-graphrag serve --watch`` does (``LiveIndex``, the configured debounce)."""
    import uvicorn

    from graphrag import VaultRAG
    from graphrag.config.server import ServerSettings
    from graphrag.serve.app import create_app

    rag = VaultRAG.open(vault, index_dir=index_dir, embedder=RealQueryEmbedder(), update=False)
    rag.snapshot  # noqa: B018 - load the graph before accepting requests
    settings = ServerSettings(
        watch=watch,
        watch_debounce_ms=rag.settings.server.watch_debounce_ms,
        preload_model=True,
        port=port,
    )
    app = create_app(rag, settings)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def start_server(vault: Path, index_dir: Path, port: int, watch: bool) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HF_HUB_OFFLINE="1")
    command = [sys.executable, __file__, "--serve", str(vault), str(index_dir), str(port)]
    return subprocess.Popen(command + (["--watch"] if watch else []), env=env)


def wait_ready(port: int, proc: subprocess.Popen, timeout: float = 180) -> None:
    """Until the server answers and its background preload (model, vectors, counts) is done."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            conn.request("GET", "/status")
            if json.loads(conn.getresponse().read()).get("preloaded"):
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("server did not start")


def note_titles(index_dir: Path) -> list[tuple[str, str]]:
    manifest = json.loads((index_dir / "manifest.json").read_text())
    db = sqlite3.connect(index_dir / manifest["generation"] / "index.sqlite")
    rows = db.execute("SELECT uri, title FROM notes ORDER BY uri").fetchall()
    db.close()
    return rows


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def request(conn: http.client.HTTPConnection, path: str, body: dict) -> tuple[int, bytes]:
    data = json.dumps(body).encode()
    conn.request("POST", path, body=data, headers={"Content-Type": "application/json"})
    resp = conn.getresponse()
    return resp.status, resp.read()


def get_json(conn: http.client.HTTPConnection, path: str) -> tuple[int, Any]:
    conn.request("GET", path)
    resp = conn.getresponse()
    data = resp.read()
    try:
        return resp.status, json.loads(data)
    except ValueError:
        return resp.status, None


def server_status(port: int) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        return get_json(conn, "/status")[1] or {}
    finally:
        conn.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--serve", nargs=3, metavar=("VAULT", "INDEX_DIR", "PORT"), required=True)
    ap.add_argument("--watch", action="store_true", help="the file watcher on")
    args = ap.parse_args()
    serve(args.serve[0], args.serve[1], int(args.serve[2]), watch=args.watch)
