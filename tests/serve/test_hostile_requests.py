"""What a client may send, however odd, gets an answer in the documented shape (issue 13).

Names starting with ``~`` (item 2), empty and over-long uris (6), loose types (8), the
field named in errors (9), and HTTP and MCP refusing the same inputs (11).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient
from mcp import Client

from graphrag import NoteNotFoundError, VaultRAG
from graphrag.config import load_settings
from graphrag.config.server import ServerSettings
from graphrag.serve.app import create_app
from graphrag.serve.mcp_server import build_mcp_server
from tests.support.fakes import HashEmbedder
from tests.support.files import SAMPLE_VAULT, write

HUT = "Places/Huts/Shepherd's Hut"


@pytest.fixture(scope="module")
def rag(tmp_path_factory: pytest.TempPathFactory) -> VaultRAG:
    vault = tmp_path_factory.mktemp("hostile") / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    write(vault, "~Inbox.md", "# Inbox\n\nPinned: call the cheese maker. [[Home]]\n")
    write(vault, "Dairy/~Pinned Recipe.md", "A pinned recipe. [[Brine]]\n")
    return VaultRAG.open(vault, settings=load_settings(env={}), embedder=HashEmbedder())


@pytest.fixture(scope="module")
def client(rag: VaultRAG) -> Iterator[TestClient]:
    app = create_app(rag, ServerSettings(watch=False, preload_model=False))
    with TestClient(app, base_url="http://localhost") as c:
        yield c


def mcp_call(rag: VaultRAG, tool: str, arguments: dict[str, Any]) -> Any:
    async def call() -> Any:
        async with Client(build_mcp_server(rag)) as session:
            return await session.call_tool(tool, arguments)

    return asyncio.run(asyncio.wait_for(call(), timeout=60))


# -- item 2: names starting with "~" --------------------------------------------------------------
@pytest.mark.parametrize("name", ["~Inbox", "~Inbox.md", "Dairy/~Pinned Recipe", "~Pinned Recipe"])
def test_tilde_names_are_notes_not_home_folders(rag: VaultRAG, client: TestClient, name: str) -> None:
    uri = rag.resolve_note(name)
    assert uri.rsplit("/", 1)[-1].startswith("~")
    assert rag.focus(name).focus_note.uri == uri
    assert client.get(f"/notes/{quote(name)}").json()["uri"] == uri
    assert client.get(f"/notes/{quote(name)}/context").json()["focusNote"]["uri"] == uri
    assert client.post("/focus", json={"note": name}).json()["focusNote"]["uri"] == uri
    result = mcp_call(rag, "get_note", {"note": name})
    assert not result.is_error and result.structured_content["uri"] == uri


@pytest.mark.parametrize("name", ["~nobody-here", "~", "~/", "~root/x"])
def test_unknown_tilde_names_are_not_found(rag: VaultRAG, client: TestClient, name: str) -> None:
    with pytest.raises(NoteNotFoundError):
        rag.resolve_note(name)
    r = client.post("/focus", json={"note": name})
    assert (r.status_code, r.json()["error"]) == (404, "note_not_found")
    r = client.get(f"/notes/{quote(name, safe='')}")
    assert r.status_code == 404
    result = mcp_call(rag, "get_note", {"note": name})
    assert result.is_error and "no note matches" in result.content[0].text
