"""Soak: a watching server under concurrent clients while the vault is edited (issue 13).

For a bounded time (``SOAK_SECONDS``, default 75 s) a real uvicorn server on loopback
watches a copy of sample_vault. Client threads keep asking (focus, query, search, notes,
status) while an editor edits, renames and deletes notes and adds odd files: a FIFO named
like a note, a symlink to /dev/zero, a folder whose name is not UTF-8, notes named
``~...``, a note over ``index.max_note_bytes``. Then: no request failed (no 5xx, no broken
connection), every edit became visible over HTTP, and the served index equals one built
from scratch.
"""

from __future__ import annotations

import os
import random
import shutil
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import httpx
import pytest
import uvicorn

from graphrag import VaultRAG
from graphrag.config import load_settings
from graphrag.config.server import ServerSettings
from graphrag.serve.app import create_app
from indexer import build_index
from indexer.store import open_generation
from tests.support.fakes import HashEmbedder
from tests.support.files import SAMPLE_VAULT, write
from tests.support.polling import wait_until

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform != "linux", reason="FIFOs and byte names need Linux"),
]

SOAK_SECONDS = float(os.environ.get("SOAK_SECONDS", "75"))
MAX_NOTE_BYTES = 200_000
STABLE = ["Home", "Glossary", "Places/Huts/Shepherd's Hut", "Dairy/Brine"]


@contextmanager
def serving(rag: VaultRAG) -> Iterator[str]:
    settings = ServerSettings(watch=True, watch_debounce_ms=100, preload_model=False)
    server = uvicorn.Server(
        uvicorn.Config(create_app(rag, settings), host="127.0.0.1", port=0, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    wait_until(lambda: server.started, timeout=20, step=0.05)
    try:
        yield f"http://127.0.0.1:{server.servers[0].sockets[0].getsockname()[1]}"
    finally:
        server.should_exit = True
        thread.join(20)


class Clients:
    """Threads that keep asking until told to stop; every 5xx or broken request is kept."""

    def __init__(self, base: str, count: int = 3) -> None:
        self.base, self.stop = base, threading.Event()
        self.failures: list[str] = []
        self.requests = 0
        self.threads = [
            threading.Thread(target=self.run, args=(i,), daemon=True) for i in range(count)
        ]

    def run(self, seed: int) -> None:
        rnd = random.Random(seed)
        with httpx.Client(base_url=self.base, timeout=30) as http:
            while not self.stop.is_set():
                note = rnd.choice([*STABLE, "~Inbox", "Gone Note", "Soak/Edited 0"])
                kind = rnd.randrange(5)
                try:
                    if kind == 0:
                        r = http.post("/focus", json={"note": note, "budget": 500})
                    elif kind == 1:
                        r = http.post("/query", json={"question": "who makes the cheese?"})
                    elif kind == 2:
                        r = http.post("/search", json={"query": "brine", "mode": "lexical"})
                    elif kind == 3:
                        r = http.get(f"/notes/{quote(note, safe='')}")
                    else:
                        r = http.get("/status")
                except httpx.HTTPError as exc:
                    self.failures.append(f"{kind} {note}: {type(exc).__name__}: {exc}")
                    continue
                self.requests += 1
                if r.status_code >= 500 or r.status_code not in (200, 404):
                    self.failures.append(f"{kind} {note}: {r.status_code} {r.text[:300]}")

    def __enter__(self) -> Clients:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(60)


def odd_files(vault: Path, step: int) -> None:
    """One odd thing per step, each of a kind the probes found."""
    root = os.fsencode(vault)
    if step == 0:
        os.mkfifo(vault / "pipe.md")
    elif step == 1:
        os.symlink("/dev/zero", vault / "zero.md")
    elif step == 2:
        os.mkdir(os.path.join(root, b"Ordner \xfc"))
        with open(os.path.join(root, b"Ordner \xfc", b"drin.md"), "wb") as fh:
            fh.write(b"in a folder whose name is not UTF-8\n")
    elif step == 3:
        write(vault, "~Inbox.md", "# Inbox\n\npinned [[Home]]\n")
    elif step == 4:
        paragraph = "The herd went up to the high pasture and came back at dusk. " * 5
        write(vault, "Logs/Huge.md", "".join(f"{paragraph}[[Home]] {i}\n\n" for i in range(3000)))
    elif step == 5:
        write(vault, "Odd/Nul.md", "a NUL \x00 here, a [ghost](%00.md)\n")


def visible(http: httpx.Client, uri: str, marker: str) -> bool:
    r = http.get(f"/notes/{quote(uri, safe='')}")
    return r.status_code == 200 and marker in r.json()["details"]


TABLES = {
    "notes": "SELECT * FROM notes ORDER BY uri",
    "links": "SELECT * FROM links ORDER BY source, line, target, kind, written, subpath",
    "nodes": "SELECT * FROM nodes ORDER BY uri",
    "tags": "SELECT * FROM tags ORDER BY uri, tag",
    "chunks": "SELECT uri, seq, heading_path, text, start_line, end_line, tokens, vec_id "
    "FROM chunks ORDER BY uri, seq",
    "files": "SELECT * FROM files ORDER BY path",
}


def tables(index_dir: Path) -> dict[str, list[tuple]]:
    _, _, db = open_generation(index_dir)
    try:
        return {name: db.execute(sql).fetchall() for name, sql in TABLES.items()}
    finally:
        db.close()


def test_soak(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    settings = load_settings(env={"VAULTRAG_INDEX__MAX_NOTE_BYTES": str(MAX_NOTE_BYTES)})
    rag = VaultRAG.open(vault, settings=settings, embedder=HashEmbedder())
    edits, slowest = 0, 0.0
    with (
        serving(rag) as base,
        Clients(base) as clients,
        httpx.Client(base_url=base, timeout=30) as http,
    ):
        deadline = time.monotonic() + SOAK_SECONDS
        step = 0
        while time.monotonic() < deadline:
            uri, marker = f"Soak/Edited {step % 4}", f"marker-{step}"
            write(
                vault,
                f"{uri}.md",
                f"# Edited\n\n{marker} links [[Home]] and [[Soak/Edited {(step + 1) % 4}]]\n",
            )
            if step % 3 == 1 and (vault / "Gone Note.md").exists():
                (vault / "Gone Note.md").rename(vault / "Soak" / f"Renamed {step}.md")
            elif step % 3 == 1:
                write(vault, "Gone Note.md", f"back again {step}\n")
            if step % 5 == 2:
                doomed = sorted((vault / "Soak").glob("Renamed *.md"))
                if doomed:
                    doomed[0].unlink()
            odd_files(vault, step)
            written = time.monotonic()
            wait_until(lambda: visible(http, uri, marker), timeout=30, step=0.1)  # noqa: B023
            slowest = max(slowest, time.monotonic() - written)
            edits += 1
            step += 1
        status = http.get("/status").json()
    assert clients.failures == [], clients.failures[:5]
    assert clients.requests > 100 and edits >= 6
    # The folder whose name is not UTF-8 stops watchfiles: the server polls instead.
    assert status["watcher"]["state"] == "polling" and status["watcher"]["restarts"] >= 1

    # The served index, brought up to date, equals a from-scratch build of the same vault.
    rag.index()
    fresh = tmp_path / "fresh"
    build_index(vault, fresh, config=settings.index_config, embedder=HashEmbedder())
    served, scratch = tables(rag.index_dir), tables(fresh)
    for name in TABLES:
        assert served[name] == scratch[name], name
    assert any(r[1] == "Logs/Huge.md" for r in served["notes"])
    assert not any(r[1] in ("pipe.md", "zero.md") for r in served["notes"])
    print(
        f"soak: {clients.requests} requests, {edits} edits, slowest edit visible after "
        f"{slowest:.2f} s"
    )
