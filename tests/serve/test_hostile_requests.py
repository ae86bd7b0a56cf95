"""What a client may send, however odd, gets an answer in the documented shape (issue 13).

Names starting with ``~`` (item 2), empty and over-long uris (6), loose types (8), the
field named in errors (9), and HTTP and MCP refusing the same inputs (11).
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
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
def test_tilde_names_are_notes_not_home_folders(
    rag: VaultRAG, client: TestClient, name: str
) -> None:
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


# -- item 4: the body limit counts the bytes actually read ---------------------------------------
def test_body_limit_holds_when_content_length_understates_a_chunked_body() -> None:
    """ASGI level: a Content-Length under the limit does not let more bytes through."""
    from graphrag.serve.guard import TokenAndBodyGuard

    read_by_app: list[int] = []

    async def app(scope: dict, receive: Any, send: Any) -> None:
        total, more = 0, True
        while more:
            message = await receive()
            total += len(message.get("body", b""))
            more = message.get("more_body", False)
        read_by_app.append(total)
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"{}"})

    sent_chunks = 0

    async def receive() -> dict:
        nonlocal sent_chunks
        sent_chunks += 1
        return {"type": "http.request", "body": b"x" * 65536, "more_body": sent_chunks < 3200}

    responses: list[dict] = []

    async def send(message: dict) -> None:
        responses.append(message)

    scope = {
        "type": "http",
        "method": "POST",
        "path": "/focus",
        "headers": [(b"content-length", b"10"), (b"transfer-encoding", b"chunked")],
    }
    asyncio.run(TokenAndBodyGuard(app, token="", max_body_bytes=65536)(scope, receive, send))
    assert responses[0]["status"] == 413
    assert read_by_app == []  # the endpoint never saw the body
    assert sent_chunks <= 2  # and the guard stopped reading just past the limit


def test_body_limit_over_a_real_socket_with_both_headers(rag: VaultRAG) -> None:
    import socket
    import threading

    import uvicorn

    from tests.support.polling import wait_until

    app = create_app(rag, ServerSettings(watch=False, preload_model=False))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, timeout=10, step=0.02)
        port = server.servers[0].sockets[0].getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
            conn.sendall(
                b"POST /focus HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                b"Content-Length: 15\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            chunk = b"x" * 65536
            try:
                for _ in range(64):  # 4 MiB offered; the server must answer long before
                    conn.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            except OSError:  # the server closed the connection: it stopped reading
                pass
            reply = b""
            try:
                while b"\r\n\r\n" not in reply:
                    piece = conn.recv(65536)
                    if not piece:
                        break
                    reply += piece
            except OSError:
                pass
        status_line = reply.split(b"\r\n", 1)[0]
        # uvicorn (h11) reads the chunks and ignores the Content-Length: the guard counts them.
        assert status_line.split()[1:2] == [b"413"], reply[:200]
    finally:
        server.should_exit = True
        thread.join(10)


# -- item 6: empty and over-long uris in paths ------------------------------------------------
@pytest.mark.parametrize(
    "path",
    [
        "/notes//context",
        "/notes/",
        "/notes//neighbors",
        f"/notes/{'x' * 1100}/context",
        f"/notes/{'x' * 1100}",
        f"/notes/{'y' * 1100}/neighbors",
    ],
)
def test_empty_and_overlong_uris_are_422_naming_uri(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert (r.status_code, r.json()["error"], r.json()["field"]) == (422, "invalid_request", "uri")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("/context?budgt=300", "budgt"),
        ("/context?budget=300&Seed=1", "Seed"),
        ("/neighbors?dir=in", "dir"),
    ],
)
def test_unknown_query_parameters_are_422_naming_them(
    client: TestClient, query: str, field: str
) -> None:
    r = client.get(f"/notes/{quote(HUT, safe='')}{query}")
    assert r.status_code == 422, r.text
    assert (r.json()["error"], r.json()["field"]) == ("invalid_request", field)
    assert r.json()["detail"].startswith(f"{field}: unknown parameter")


def test_the_documented_query_parameters_are_taken(client: TestClient) -> None:
    note = f"/notes/{quote(HUT, safe='')}"
    assert client.get(f"{note}/context?budget=300&seed=1&explain=true&sentences=true").is_success
    assert client.get(f"{note}/neighbors?direction=in").is_success


# -- item 8: strict types -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("route", "payload", "field"),
    [
        ("/focus", {"note": HUT, "budget": True}, "budget"),
        ("/focus", {"note": HUT, "explain": 0}, "explain"),
        ("/focus", {"note": HUT, "seed": "7"}, "seed"),
        ("/focus", {"note": HUT, "budget": 2.0}, "budget"),
        ("/query", {"question": "cheese", "explain": 1}, "explain"),
        ("/search", {"query": "cheese", "top_k": "5"}, "top_k"),
        ("/index", {"wait": 1}, "wait"),
        ("/ask", {"question": "cheese", "budget": False, "stream": False}, "budget"),
    ],
)
def test_loose_types_are_refused(client: TestClient, route: str, payload: dict, field: str) -> None:
    r = client.post(route, json=payload)
    assert r.status_code == 422, r.text
    assert (r.json()["error"], r.json()["field"]) == ("invalid_request", field)


# -- item 9: the field named is the one the client sent ------------------------------------------
@pytest.mark.parametrize(
    ("route", "payload", "field", "words"),
    [
        ("/query", {"question": "   "}, "question", "must not be blank"),
        ("/search", {"query": "\t\n"}, "query", "must not be blank"),
        ("/ask", {"question": " ", "stream": False}, "question", "must not be blank"),
        ("/focus", {"note": "  "}, "note", "must not be blank"),
        ("/query", {"question": "q", "filters": {"prop": "=x"}}, "filters.prop", "key=value"),
        (
            "/query",
            {"question": "q", "filters": {"property": ["a", "=x"]}},
            "filters.property",
            "key=value",
        ),
        (
            "/search",
            {"query": "q", "filters": {"created": "last week"}},
            "filters.created",
            "not a date",
        ),
        (
            "/graph_search",
            {"query": "q", "filters": {"modified": "2024-13-01"}},
            "filters.modified",
            "not a date",
        ),
        # A union's member tags (str, constrained-str, list[...]) are no field of the client's.
        ("/query", {"question": "q", "filters": {"tag": 5}}, "filters.tag", "valid string"),
        ("/search", {"query": "q", "filters": {"folder": [["a"]]}}, "filters.folder", "valid"),
        ("/query", {"question": "q", "filters": {"tag": {"b": 1}}}, "filters.tag", "valid string"),
        ("/ask", {"question": "q", "history": [{"question": "a"}]}, "history.0.answer", "required"),
        (
            "/ask",
            {"question": "q", "prompt_only": True, "options": {"a": {}}},
            "options.a",
            "valid",
        ),
        (
            "/ask",
            {"question": "q", "options": {"a": [1]}, "stream": False},
            "options.a",
            "valid string",
        ),
    ],
)
def test_errors_name_the_field_as_sent(
    client: TestClient, route: str, payload: dict, field: str, words: str
) -> None:
    r = client.post(route, json=payload)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field
    assert r.json()["detail"].startswith(f"{field}: ") and words in r.json()["detail"]


def test_malformed_json_names_the_body_not_a_byte_offset(client: TestClient) -> None:
    r = client.post(
        "/focus", content=b'{"note": "Home",,}', headers={"content-type": "application/json"}
    )
    assert r.status_code == 422
    assert r.json()["field"] == "body"
    assert r.json()["detail"].startswith("body: invalid JSON at byte 16")


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'{"note": "caf\xe9"}', "body: not UTF-8 (byte 13)"),  # Latin-1, not UTF-8
        (b'{"note": ' + b"[" * 5000 + b"]" * 5000 + b"}", "body: JSON nested too deeply"),
    ],
)
def test_an_unreadable_body_is_422_naming_the_body(
    client: TestClient, content: bytes, words: str
) -> None:
    r = client.post("/focus", content=content, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    assert (r.json()["error"], r.json()["field"]) == ("invalid_request", "body")
    assert r.json()["detail"].startswith(words)
    assert client.get("/health").status_code == 200


# -- item 8: the OpenAPI document describes the errors ------------------------------------------
def test_openapi_describes_every_error_response(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    schemas = spec["components"]["schemas"]
    assert "HTTPValidationError" not in schemas and "ValidationError" not in schemas
    assert set(schemas["Error"]["required"]) == {"error", "detail"}
    error = {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}
    ops = spec["paths"]
    for path, methods in ops.items():
        for method, op in methods.items():
            codes = set(op["responses"])
            for code, response in op["responses"].items():
                if code[0] in "45":
                    assert response["content"] == error, (path, method, code)
            if path != "/health":
                assert {"401", "403", "500", "503"} <= codes, (path, method)
            if method == "post":
                assert {"400", "413", "422"} <= codes, (path, method)
    assert "404" in ops["/focus"]["post"]["responses"]
    assert "404" in ops["/notes/{uri}"]["get"]["responses"]
    assert "409" in ops["/index"]["post"]["responses"]
    assert "409" in ops["/ask"]["post"]["responses"]
    assert ops["/health"]["get"]["responses"].keys() == {"200", "403"}


# -- item 11: MCP refuses what HTTP refuses -------------------------------------------------------
PARITY = [  # (MCP tool, its arguments, HTTP route, the same request's body, the field)
    ("focus", {"note": HUT, "colour": "red"}, "/focus", {"note": HUT, "colour": "red"}, "colour"),
    ("focus", {"note": HUT, "budget": True}, "/focus", {"note": HUT, "budget": True}, "budget"),
    ("focus", {"note": HUT, "budget": -1}, "/focus", {"note": HUT, "budget": -1}, "budget"),
    ("focus", {"note": "x" * 1025}, "/focus", {"note": "x" * 1025}, "note"),
    ("focus", {"note": " "}, "/focus", {"note": " "}, "note"),
    ("query", {"question": "q" * 4097}, "/query", {"question": "q" * 4097}, "question"),
    ("query", {"question": "  "}, "/query", {"question": "  "}, "question"),
    ("query", {"question": "q", "seed": 1.5}, "/query", {"question": "q", "seed": 1.5}, "seed"),
    ("search", {"text": "q", "top_k": 0}, "/search", {"query": "q", "top_k": 0}, "top_k"),
    ("search", {"text": "q", "mode": "fuzzy"}, "/search", {"query": "q", "mode": "fuzzy"}, "mode"),
    (
        "get_note",
        {"note": HUT, "path": "/etc/passwd"},
        "/focus",
        {"note": HUT, "path": "x"},
        "path",
    ),
]


@pytest.mark.parametrize(("tool", "arguments", "route", "body", "field"), PARITY)
def test_mcp_refuses_what_http_refuses(
    rag: VaultRAG,
    client: TestClient,
    tool: str,
    arguments: dict,
    route: str,
    body: dict,
    field: str,
) -> None:
    r = client.post(route, json=body)
    assert (r.status_code, r.json()["field"]) == (422, field)
    result = mcp_call(rag, tool, arguments)
    assert result.is_error, result
    assert field in result.content[0].text


def test_mcp_refuses_a_megabyte_question(rag: VaultRAG) -> None:
    result = mcp_call(rag, "query", {"question": "why? " * 200_000})
    assert result.is_error and "question" in result.content[0].text


def test_mcp_tools_publish_their_limits(rag: VaultRAG) -> None:
    async def listed() -> Any:
        async with Client(build_mcp_server(rag)) as session:
            return {t.name: t.input_schema for t in (await session.list_tools()).tools}

    schemas = asyncio.run(asyncio.wait_for(listed(), timeout=60))
    for schema in schemas.values():
        assert schema["additionalProperties"] is False
    assert schemas["query"]["properties"]["question"]["maxLength"] == 4096
    assert schemas["focus"]["properties"]["note"]["maxLength"] == 1024
