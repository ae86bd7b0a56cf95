"""A query's filters are parsed once, where the query comes in, and reach query mode as
that one parsed ``Filters`` (docs/architecture.md, "The query request"): through the
Python API, HTTP ``/query``, the MCP tool and the CLI."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from mcp import Client

import graphrag.api
from graphrag import VaultRAG
from graphrag.cli import cli
from graphrag.config import load_settings
from graphrag.config.server import ServerSettings
from graphrag.query import mode
from graphrag.query.request import QueryRequest
from graphrag.serve.app import create_app
from graphrag.serve.mcp_server import build_mcp_server
from graphrag.snapshot.filters import Filters
from tests.support.fakes import HashEmbedder

DAIRY = Filters(folders=("Dairy",))


@dataclass
class Spy:
    """What reached ``run_query`` and how often ``Filters.parse`` ran on the way."""

    requests: list[QueryRequest] = field(default_factory=list)
    parses: int = 0

    def reset(self) -> None:
        self.requests.clear()
        self.parses = 0


@pytest.fixture
def spy(monkeypatch: pytest.MonkeyPatch) -> Spy:
    seen = Spy()
    real_run = mode.run_query
    real_parse = Filters.parse.__func__  # type: ignore[attr-defined]

    def run_query(request: QueryRequest, **data: Any) -> Any:
        seen.requests.append(request)
        return real_run(request, **data)

    def parse(cls: type[Filters], *args: Any, **kwargs: Any) -> Filters:
        seen.parses += 1
        return real_parse(cls, *args, **kwargs)

    monkeypatch.setattr(mode, "run_query", run_query)
    monkeypatch.setattr(Filters, "parse", classmethod(parse))
    return seen


@pytest.fixture
def rag(indexed_vault: Path) -> VaultRAG:
    return VaultRAG.open(indexed_vault, settings=load_settings(env={}), embedder=HashEmbedder())


@pytest.fixture
def client(rag: VaultRAG) -> Iterator[TestClient]:
    app = create_app(rag, ServerSettings(watch=False, preload_model=False))
    with TestClient(app, base_url="http://localhost") as c:
        yield c


def in_dairy(result: dict[str, Any]) -> list[str]:
    uris = [n["uri"] for n in (*result["entryNotes"], *result["relatedNotes"])]
    assert uris and all(u.startswith("Dairy/") for u in uris), uris
    assert result["filters"] == {"folders": ["Dairy"]}
    return uris


def test_the_python_api_parses_filter_keywords_once_and_passes_a_filters_object_through(
    rag: VaultRAG, spy: Spy
) -> None:
    result = rag.query("cheese", seed=3, filters={"folder": "Dairy"}).to_json()
    ((request,), parses) = (spy.requests, spy.parses)
    assert parses == 1 and request.filters == DAIRY
    in_dairy(result)

    spy.reset()
    rag.query("cheese", seed=3, filters=DAIRY)
    assert spy.parses == 0 and spy.requests[0].filters is DAIRY


def test_http_query_reaches_query_mode_as_the_python_api_does(
    rag: VaultRAG, client: TestClient, spy: Spy
) -> None:
    body = {"question": "cheese", "seed": 3, "filters": {"folder": "Dairy"}}
    r = client.post("/query", json=body)
    assert r.status_code == 200, r.text
    assert spy.parses == 1
    (served,) = spy.requests
    spy.reset()
    direct = rag.query("cheese", seed=3, filters={"folder": ["Dairy"]})
    assert served == spy.requests[0] and served.filters == DAIRY
    assert in_dairy(r.json()) == in_dairy(direct.to_json())


def test_the_mcp_tool_and_the_cli_build_the_same_request(
    rag: VaultRAG, indexed_vault: Path, spy: Spy, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def call() -> Any:
        async with Client(build_mcp_server(rag)) as mcp:
            return await mcp.call_tool("query", {"question": "cheese", "folder": ["Dairy"]})

    tool = asyncio.run(asyncio.wait_for(call(), timeout=60))
    assert not tool.is_error and spy.parses == 1
    in_dairy(tool.structured_content)
    (by_tool,) = spy.requests

    spy.reset()
    monkeypatch.setattr(graphrag.api, "make_embedder", lambda settings: HashEmbedder())
    where = ("--vault", str(indexed_vault), "--no-server")
    got = CliRunner().invoke(cli, ["query", "cheese", *where, "--folder", "Dairy"])
    assert got.exit_code == 0, got.output
    assert spy.parses == 1
    in_dairy(json.loads(got.stdout))
    (by_cli,) = spy.requests
    assert by_tool == by_cli and by_cli.filters == DAIRY
