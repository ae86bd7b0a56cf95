"""``vault-graphrag mcp``: an MCP client session over stdio (the SDK's own client)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from graphrag.config import load_settings
from graphrag.config.focus import FocusSettings
from graphrag.config.query import QuerySettings
from graphrag.serve.mcp_server import build_mcp_server
from tests.support.fakes import HASH_BACKEND, HashEmbedder
from tests.support.files import ROOT

HUT = "Places/Huts/Shepherd's Hut"
TOOLS = {"query", "focus", "search", "get_note"}


def stdio_server(vault: Path) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "graphrag", "mcp", str(vault)],
        cwd=str(ROOT),
        env={
            "PYTHONPATH": str(ROOT),
            "VAULTRAG_EMBEDDING__BACKEND": HASH_BACKEND,
            "HF_HUB_OFFLINE": "1",
        },
    )


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, timeout=60))


def test_stdio_session_lists_and_calls_the_tools(indexed_vault: Path) -> None:
    async def session() -> dict[str, Any]:
        out: dict[str, Any] = {}
        # "legacy": the initialize handshake that Claude Desktop and IDE clients use today.
        async with Client(stdio_server(indexed_vault), mode="legacy") as client:
            tools = (await client.list_tools()).tools
            out["tools"] = {t.name: t for t in tools}
            out["focus"] = await client.call_tool(
                "focus", {"note": "Shepherd's Hut", "budget": 400, "seed": 1}
            )
            out["query"] = await client.call_tool(
                "query", {"question": "how is cheese pressed?", "budget": 600, "seed": 1}
            )
            out["search"] = await client.call_tool(
                "search", {"text": "goat milk", "mode": "lexical", "top_k": 3}
            )
            out["note"] = await client.call_tool("get_note", {"note": "Shepherd's Hut"})
            out["missing"] = await client.call_tool("focus", {"note": "Shepherds Hutt"})
            out["bad"] = await client.call_tool("focus", {"note": HUT, "budget": -5})
        return out

    out = run(session())
    assert set(out["tools"]) == TOOLS
    schema = out["tools"]["focus"].input_schema
    assert schema["required"] == ["note"]
    assert schema["properties"]["budget"]["anyOf"][0]["type"] == "integer"
    assert out["tools"]["focus"].description.startswith("The context around one note")
    # the defaults the assistant is told are the settings' defaults
    for name, section in (("focus", FocusSettings), ("query", QuerySettings)):
        told = out["tools"][name].input_schema["properties"]["budget"]["description"]
        assert f"(default {section().default_budget}: [{name}] default_budget)" in told
    # the model reads query's JSON by this: a relation without focusUri is to the first entry
    assert "the first entry note when it names none" in out["tools"]["query"].description

    focus = out["focus"]
    assert not focus.is_error
    assert focus.structured_content["focusNote"]["uri"] == HUT
    assert focus.structured_content["relatedNotes"]

    query = out["query"]
    assert not query.is_error and query.structured_content["entryNotes"]
    search = out["search"]
    assert not search.is_error and search.structured_content["mode"] == "lexical"
    assert 0 < len(search.structured_content["results"]) <= 3
    note = out["note"]
    assert not note.is_error and note.structured_content["uri"] == HUT
    assert "Hirtenhütte" in note.structured_content["aliases"]
    assert out["tools"]["search"].input_schema["properties"]["mode"]["enum"] == [
        "semantic",
        "lexical",
        "hybrid",
        "hierarchical",
        "graph",
    ]

    missing = out["missing"]
    assert missing.is_error
    assert "no note matches 'Shepherds Hutt'" in missing.content[0].text
    assert HUT in missing.content[0].text  # the closest match, for the assistant to retry
    assert out["bad"].is_error and "budget" in out["bad"].content[0].text


def test_in_process_tools_match_the_facade(indexed_vault: Path) -> None:
    from graphrag import VaultRAG

    rag = VaultRAG.open(indexed_vault, settings=load_settings(env={}), embedder=HashEmbedder())

    async def call() -> Any:
        async with Client(build_mcp_server(rag)) as client:
            return await client.call_tool("focus", {"note": HUT, "budget": 300, "seed": 2})

    result = run(call())
    assert result.structured_content == rag.focus(HUT, budget=300, seed=2).to_json()

    async def more() -> tuple[Any, Any]:
        async with Client(build_mcp_server(rag)) as client:
            q = await client.call_tool(
                "query", {"question": "cheese", "seed": 3, "folder": ["Dairy"]}
            )
            s = await client.call_tool("search", {"text": "goat milk", "mode": "semantic"})
            return q, s

    q, s = run(more())
    assert (
        q.structured_content == rag.query("cheese", seed=3, filters={"folder": ["Dairy"]}).to_json()
    )
    assert s.structured_content == rag.semantic_search("goat milk").to_json()


def test_search_has_graph_mode_with_graph_searchs_shape(indexed_vault: Path) -> None:
    from graphrag import VaultRAG

    rag = VaultRAG.open(indexed_vault, settings=load_settings(env={}), embedder=HashEmbedder())

    async def call() -> tuple[Any, Any, Any]:
        async with Client(build_mcp_server(rag)) as client:
            args = {"text": "goat milk", "mode": "graph", "top_k": 2}
            graph = await client.call_tool("search", {**args, "hops": 2})
            default = await client.call_tool("search", args)
            too_far = await client.call_tool("search", {**args, "hops": 4})
            return graph, default, too_far

    graph, default, too_far = run(call())
    assert not graph.is_error
    assert graph.structured_content == rag.graph_search("goat milk", 2, hops=2).to_json()
    assert set(graph.structured_content) == {"query", "focus", "parents", "children"}
    assert default.structured_content == rag.graph_search("goat milk", 2, hops=1).to_json()
    assert too_far.is_error and "hops" in too_far.content[0].text  # 0..3, as over HTTP
