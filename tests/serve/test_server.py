"""The HTTP app in-process (TestClient): every endpoint, the error shape, the guards."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from graphrag import ConfigError, VaultRAG
from graphrag.cli import cli
from graphrag.config import load_settings
from graphrag.config.server import ServerSettings
from graphrag.serve.app import create_app
from graphrag.serve.bind import check_bind, is_loopback
from indexer.store import write_lock
from tests.support.fakes import HASH_BACKEND, HashEmbedder
from tests.support.files import write

HUT = "Places/Huts/Shepherd's Hut"
QUIET = ServerSettings(watch=False, preload_model=False)


def open_rag(vault: Path) -> VaultRAG:
    return VaultRAG.open(vault, settings=load_settings(env={}), embedder=HashEmbedder())


@pytest.fixture(scope="module")
def shared_rag(tmp_path_factory: pytest.TempPathFactory) -> VaultRAG:
    """One indexed copy of sample_vault for the read-only tests of this module."""
    import shutil

    from tests.support.files import SAMPLE_VAULT

    vault = tmp_path_factory.mktemp("server") / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    return open_rag(vault)


@pytest.fixture
def client(shared_rag: VaultRAG) -> Iterator[TestClient]:
    with TestClient(create_app(shared_rag, QUIET), base_url="http://localhost") as c:
        yield c


@pytest.fixture
def rag(sample_vault: Path) -> VaultRAG:
    """A private, writable vault (for tests that change files or the index)."""
    return open_rag(sample_vault)


def make_client(rag: VaultRAG, **settings: object) -> TestClient:
    merged = {"watch": False, "preload_model": False, **settings}
    return TestClient(create_app(rag, ServerSettings(**merged)), base_url="http://localhost")  # type: ignore[arg-type]


# -- endpoints ------------------------------------------------------------------------------
def test_health_says_ok_and_nothing_about_the_vault(client: TestClient) -> None:
    r = client.get("/health")
    assert r.status_code == 200
    assert set(r.json()) == {"status", "version"} and r.json()["status"] == "ok"


def test_head_of_health_and_the_page_is_get_without_the_body(shared_rag: VaultRAG) -> None:
    # Uptime monitors and `curl -I` ask with HEAD; it answered 405. No token needed either.
    client = make_client(shared_rag, token="s3cret-token")
    for path in ("/health", "/"):
        got, head = client.get(path), client.head(path)
        assert (head.status_code, got.status_code) == (200, 200), path
        assert head.content == b"" and got.content, path
        assert head.headers == got.headers, path
    assert client.head("/status").status_code == 401  # HEAD is no way around the token


def test_status_reports_index_and_watching(client: TestClient, shared_rag: VaultRAG) -> None:
    body = client.get("/status").json()
    assert body["generation"] == shared_rag.status()["generation"]
    assert body["counts"]["notes"] == 37
    assert body["model"] == "test/hash-embedder"
    assert body["watching"] is False
    assert body["updating"] is False
    assert body["last_update"] is None


def test_focus_returns_the_cli_json_shape(client: TestClient, shared_rag: VaultRAG) -> None:
    r = client.post("/focus", json={"note": "Shepherd's Hut", "budget": 600, "seed": 3})
    assert r.status_code == 200
    assert r.headers["content-type"] == "application/json"
    expected = shared_rag.focus("Shepherd's Hut", budget=600, seed=3).to_json()
    assert r.json() == expected
    assert r.json()["focusNote"]["uri"] == HUT
    assert r.json()["relatedNotes"]


def test_focus_options_explain_exclude_and_prompt(client: TestClient) -> None:
    first = client.post("/focus", json={"note": HUT, "budget": 400, "seed": 1}).json()
    taken = [n["uri"] for n in first["relatedNotes"]]
    paged = client.post(
        "/focus", json={"note": HUT, "budget": 400, "seed": 1, "exclude": taken}
    ).json()
    assert not set(taken) & {n["uri"] for n in paged["relatedNotes"]}
    explained = client.post("/focus", json={"note": HUT, "seed": 1, "explain": True}).json()
    assert "explain" in json.dumps(explained)
    assert "explain" not in json.dumps(first)
    prompt = client.post("/focus", json={"note": HUT, "seed": 1, "format": "prompt"}).json()
    assert set(prompt) == {"prompt"}
    assert "Shepherd's Hut" in prompt["prompt"]


def test_note_context_is_focus_by_uri(client: TestClient) -> None:
    r = client.get(f"/notes/{quote(HUT)}/context", params={"budget": 500, "seed": 2})
    assert r.status_code == 200
    same = client.post("/focus", json={"note": HUT, "budget": 500, "seed": 2}).json()
    assert r.json() == same


def test_index_returns_counts_and_picks_up_changes(rag: VaultRAG) -> None:
    client = make_client(rag)
    r = client.post("/index", json={})
    assert r.status_code == 200
    assert r.json()["up_to_date"] is True and r.json()["notes"] == 37
    write(
        rag.vault, "Places/Huts/Shepherd's Hut.md", "# Shepherd's Hut\n\nNow with solar panels.\n"
    )
    write(rag.vault, "New Note.md", "A new note linking [[Shepherd's Hut]].\n")
    r = client.post("/index")  # no body at all is an incremental update too
    assert r.status_code == 200
    assert (r.json()["changed"], r.json()["added"], r.json()["notes"]) == (1, 1, 38)
    focus = client.post("/focus", json={"note": HUT}).json()
    assert "solar panels" in focus["focusNote"]["details"]
    status = client.get("/status").json()
    assert status["last_update"]["reason"] == "request"
    assert status["last_update"]["changed"] == 1
    full = client.post("/index", json={"full": True}).json()
    assert full["full_reason"] and full["chunks_embedded"] > 0


def test_query_returns_the_cli_json_shape(client: TestClient, shared_rag: VaultRAG) -> None:
    question = "how is the cheese brined and pressed?"
    r = client.post("/query", json={"question": question, "budget": 800, "seed": 4})
    assert r.status_code == 200
    assert r.json() == shared_rag.query(question, 800, seed=4).to_json()
    assert r.json()["entryNotes"]
    prompt = client.post(
        "/query", json={"question": question, "seed": 4, "format": "prompt"}
    ).json()
    assert set(prompt) == {"prompt"} and prompt["prompt"].startswith("CONTEXT:")


def test_query_filters(client: TestClient) -> None:
    r = client.post(
        "/query", json={"question": "cheese", "filters": {"folder": ["Dairy"], "tag": ["dairy"]}}
    )
    assert r.status_code == 200
    body = r.json()
    assert body["filters"]["folders"] == ["Dairy"]
    assert body["entryNotes"]
    assert all(n["uri"].startswith("Dairy/") for n in body["entryNotes"])
    r = client.post("/query", json={"question": "cheese", "filters": {"created": "last tuesday"}})
    assert (r.status_code, r.json()["field"]) == (422, "filters.created")  # as sent
    r = client.post("/query", json={"question": "cheese", "filters": {"colour": "red"}})
    assert (r.status_code, r.json()["field"]) == (422, "filters.colour")
    r = client.post("/query", json={"question": "", "budget": 10})
    assert (r.status_code, r.json()["field"]) == (422, "question")


@pytest.mark.parametrize("mode", ["semantic", "lexical", "hybrid", "hierarchical"])
def test_search_modes_match_the_facade(client: TestClient, shared_rag: VaultRAG, mode: str) -> None:
    r = client.post("/search", json={"query": "goat milk", "mode": mode, "top_k": 4})
    assert r.status_code == 200
    assert r.json()["mode"] == mode
    assert r.json() == getattr(shared_rag, f"{mode}_search")("goat milk", 4).to_json()
    assert 0 < len(r.json()["results"]) <= 4


def test_search_graph_mode_and_graph_search(client: TestClient, shared_rag: VaultRAG) -> None:
    expected = shared_rag.graph_search("goat milk", 2, hops=1).to_json()
    r = client.post("/search", json={"query": "goat milk", "mode": "graph", "top_k": 2})
    assert r.status_code == 200 and r.json() == expected
    r = client.post("/graph_search", json={"query": "goat milk", "top_k": 2, "hops": 1})
    assert r.status_code == 200 and r.json() == expected
    assert set(expected) >= {"focus", "parents", "children"}
    r = client.post("/graph_search", json={"query": "goat milk", "hops": 9})
    assert (r.status_code, r.json()["field"]) == (422, "hops")
    r = client.post("/search", json={"query": "goat milk", "mode": "psychic"})
    assert (r.status_code, r.json()["field"]) == (422, "mode")
    r = client.post("/search", json={"query": "goat milk", "top_k": 0})
    assert (r.status_code, r.json()["field"]) == (422, "top_k")


def test_get_note_by_uri(client: TestClient, shared_rag: VaultRAG) -> None:
    r = client.get(f"/notes/{quote(HUT)}")
    assert r.status_code == 200
    assert r.json() == shared_rag.get_note(HUT).to_json()
    assert r.json()["path"] == HUT + ".md" and "Hirtenhütte" in r.json()["aliases"]
    r = client.get("/notes/Places/Huts/Shepherds%20Hutt")
    assert r.status_code == 404 and HUT in r.json()["suggestions"]


def test_a_note_named_by_a_pasted_wikilink(client: TestClient) -> None:
    link = quote("[[Shepherd's Hut#Water|the hut]]")
    r = client.get(f"/notes/{link}")
    assert r.status_code == 200 and r.json()["uri"] == HUT
    r = client.post("/focus", json={"note": "![[Shepherd's Hut#^block]]", "budget": 0})
    assert r.status_code == 200 and r.json()["focusNote"]["uri"] == HUT


def test_neighbors_by_direction(client: TestClient, shared_rag: VaultRAG) -> None:
    both = client.get(f"/notes/{quote(HUT)}/neighbors").json()
    inbound = client.get(f"/notes/{quote(HUT)}/neighbors", params={"direction": "in"}).json()
    outbound = client.get(f"/notes/{quote(HUT)}/neighbors", params={"direction": "out"}).json()
    assert both == [n.to_json() for n in shared_rag.neighbors(HUT, "both")]
    assert inbound == [n.to_json() for n in shared_rag.neighbors(HUT, "in")]
    assert {n["relation"] for n in inbound} <= {"child", "backlink"}
    assert {n["relation"] for n in outbound} <= {"parent", "link"}
    assert len(both) == len(inbound) + len(outbound)
    r = client.get(f"/notes/{quote(HUT)}/neighbors", params={"direction": "sideways"})
    assert (r.status_code, r.json()["field"]) == (422, "direction")
    assert client.get("/notes/Nowhere/neighbors").status_code == 404


class SlowLoadingEmbedder(HashEmbedder):
    """Like the real model: a slow ``load()`` that must happen once, before any ``embed``."""

    def __init__(self) -> None:
        super().__init__()
        self.loads = 0
        self.embedded_before_load = False

    def load(self) -> None:
        time.sleep(0.5)
        self.loads += 1

    def embed(self, texts, progress=None):  # type: ignore[no-untyped-def]
        self.embedded_before_load = self.embedded_before_load or self.loads == 0
        return super().embed(texts, progress)


def test_preload_loads_the_model_once_and_queries_wait_for_it(shared_rag: VaultRAG) -> None:
    embedder = SlowLoadingEmbedder()
    rag = VaultRAG(shared_rag.vault, shared_rag.index_dir, shared_rag.settings, embedder)
    settings = ServerSettings(watch=False, preload_model=True)
    with TestClient(create_app(rag, settings), base_url="http://localhost") as client:
        assert client.post("/query", json={"question": "goat milk"}).status_code == 200
        assert client.post("/search", json={"query": "goat", "mode": "semantic"}).status_code == 200
        assert embedder.loads == 1 and not embedder.embedded_before_load
        deadline = time.monotonic() + 10
        while not client.get("/status").json()["preloaded"]:
            assert time.monotonic() < deadline, "preload never finished"
            time.sleep(0.05)
    assert rag.snapshot.index._vectors is not None  # loaded by the preload, not lazily


# -- errors ---------------------------------------------------------------------------------
def test_unknown_note_is_404_with_close_matches(client: TestClient) -> None:
    r = client.post("/focus", json={"note": "Shepherds Hutt"})
    assert r.status_code == 404
    body = r.json()
    assert body["error"] == "note_not_found"
    assert "Shepherds Hutt" in body["detail"]
    assert HUT in body["suggestions"]
    r = client.get("/notes/Places/Nowhere/context")
    assert r.status_code == 404 and r.json()["error"] == "note_not_found"


def test_ambiguous_note_is_422_with_candidates(client: TestClient) -> None:
    r = client.post("/focus", json={"note": "Brine"})
    assert r.status_code == 422
    body = r.json()
    assert body["error"] == "ambiguous_note" and body["field"] == "note"
    assert body["candidates"] == [
        "Dairy/Cheese Making/Brine",
        "Dairy/Cheese Making/Recipes/Brine",
    ]


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"note": HUT, "budget": -1}, "budget"),
        ({"note": HUT, "budget": "lots"}, "budget"),
        ({"note": HUT, "colour": "red"}, "colour"),
        ({"budget": 10}, "note"),
        ({"note": ""}, "note"),
        ({"note": HUT, "format": "xml"}, "format"),
        ({"note": HUT, "exclude": "not a list"}, "exclude"),
    ],
)
def test_bad_parameters_are_422_naming_the_field(
    client: TestClient, payload: dict, field: str
) -> None:
    r = client.post("/focus", json=payload)
    assert r.status_code == 422
    assert r.json()["error"] == "invalid_request"
    assert r.json()["field"] == field
    assert r.json()["detail"].startswith(field)


def test_bad_query_parameter_and_bad_json(client: TestClient) -> None:
    r = client.get(f"/notes/{quote(HUT)}/context", params={"budget": -5})
    assert (r.status_code, r.json()["field"]) == (422, "budget")
    r = client.post("/focus", content=b"{not json", headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["error"] == "invalid_request"
    r = client.post("/focus", content=b'{"note": "Home"}', headers={"content-type": "text/plain"})
    assert r.status_code == 422 and "Content-Type: application/json" in r.json()["detail"]
    r = client.post("/index", json={"full": True, "fast": True})
    assert (r.status_code, r.json()["field"]) == (422, "fast")


def test_unknown_route_and_method_keep_the_error_shape(client: TestClient) -> None:
    r = client.get("/nothing/here")
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    r = client.delete("/focus")
    assert r.status_code == 405 and r.json()["error"] == "method_not_allowed"


def test_index_busy_is_409_or_waits(rag: VaultRAG) -> None:
    client = make_client(rag)
    live = client.app.state.live  # type: ignore[attr-defined]
    live._lock.acquire()
    try:
        r = client.post("/index", json={})
        assert r.status_code == 409
        assert r.json()["error"] == "index_busy"
    finally:
        live._lock.release()

    live._lock.acquire()
    threading.Timer(0.4, live._lock.release).start()
    started = time.monotonic()
    r = client.post("/index", json={"wait": True})
    assert r.status_code == 200
    assert time.monotonic() - started >= 0.35


def test_another_process_holding_the_index_lock_is_409(rag: VaultRAG) -> None:
    client = make_client(rag)
    write(rag.vault, "Home.md", "changed\n")
    with write_lock(rag.index_dir):  # as another `vault-graphrag index` would
        r = client.post("/index", json={})
    assert r.status_code == 409 and r.json()["error"] == "index_busy"
    assert client.post("/index", json={}).json()["changed"] == 1


def test_request_body_is_limited(rag: VaultRAG) -> None:
    client = make_client(rag, max_body_bytes=200)
    r = client.post("/focus", json={"note": HUT, "exclude": ["x" * 50] * 10})
    assert r.status_code == 413 and r.json()["error"] == "body_too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: counted while read
        yield b'{"note": "'
        yield b"x" * 300
        yield b'"}'

    r = client.post("/focus", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert client.post("/focus", json={"note": HUT}).status_code == 200


def test_notes_are_looked_up_in_the_index_never_opened(
    client: TestClient, shared_rag: VaultRAG
) -> None:
    assert shared_rag.vault is not None
    ignored = (
        shared_rag.vault / "Archive" / "Price List 2019.md"
    )  # on disk, excluded from the index
    outside = shared_rag.vault.parent / "secret.md"
    outside.write_text("TOP SECRET\n", encoding="utf-8")
    for name in (str(ignored), "Archive/Price List 2019", str(outside), "../secret", "/etc/passwd"):
        r = client.post("/focus", json={"note": name})
        assert r.status_code == 404, name
        assert "TOP SECRET" not in r.text and "root:" not in r.text


def test_openapi_lists_every_endpoint(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/health",
        "/status",
        "/focus",
        "/notes/{uri}/context",
        "/query",
        "/search",
        "/graph_search",
        "/notes/{uri}",
        "/notes/{uri}/neighbors",
        "/index",
    ):
        assert path in paths, path
    assert client.get("/docs").status_code == 200


# -- security -------------------------------------------------------------------------------
PREFLIGHT = {
    "Access-Control-Request-Method": "POST",
    "Access-Control-Request-Headers": "authorization, content-type",
}


@pytest.mark.parametrize(
    "origin", ["app://obsidian.md", "capacitor://localhost", "http://localhost"]
)
def test_cors_preflight_allowed_for_obsidian_origins(client: TestClient, origin: str) -> None:
    r = client.options("/focus", headers={"Origin": origin, **PREFLIGHT})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == origin
    assert "authorization" in r.headers["access-control-allow-headers"].lower()
    assert "access-control-allow-credentials" not in r.headers
    r = client.post("/focus", json={"note": HUT}, headers={"Origin": origin})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == origin


@pytest.mark.parametrize("origin", ["https://evil.example", "null", "http://localhost:3000"])
def test_cors_refused_for_other_origins(client: TestClient, origin: str) -> None:
    r = client.options("/focus", headers={"Origin": origin, **PREFLIGHT})
    assert r.status_code == 403
    assert "access-control-allow-origin" not in r.headers
    # A "simple" cross-site POST skips the preflight: it must not reach the endpoint either.
    r = client.post(
        "/index", content=b"{}", headers={"Origin": origin, "content-type": "text/plain"}
    )
    assert r.status_code == 403 and r.json()["error"] == "origin_not_allowed"


def test_own_origin_is_allowed_other_local_ports_are_not(client: TestClient) -> None:
    """The server's own /docs page may try endpoints; a page on another local port may not."""
    host = {"Host": "127.0.0.1:8765"}
    r = client.post(
        "/focus", json={"note": HUT}, headers={"Origin": "http://127.0.0.1:8765", **host}
    )
    assert r.status_code == 200
    r = client.post(
        "/focus", json={"note": HUT}, headers={"Origin": "http://127.0.0.1:3000", **host}
    )
    assert r.status_code == 403 and r.json()["error"] == "origin_not_allowed"
    r = client.post(
        "/focus", json={"note": HUT}, headers={"Origin": "https://127.0.0.1:8765", **host}
    )
    assert r.status_code == 403


def test_wildcard_origin_is_refused(shared_rag: VaultRAG) -> None:
    with pytest.raises(ConfigError, match="every web page"):
        create_app(shared_rag, ServerSettings(cors_origins=("*",)))


def test_token_required_everywhere_but_health(shared_rag: VaultRAG) -> None:
    client = make_client(shared_rag, token="s3cret-token")
    assert client.get("/health").status_code == 200
    for method, path in (
        ("get", "/status"),
        ("post", "/focus"),
        ("get", "/openapi.json"),
        ("get", "/docs"),
        ("post", "/index"),
    ):
        r = client.request(method, path, json={"note": HUT} if path == "/focus" else None)
        assert r.status_code == 401, path
        assert r.json()["error"] == "unauthorized"
        assert r.headers["www-authenticate"] == "Bearer"
    wrong = client.get("/status", headers={"Authorization": "Bearer s3cret-tokeN"})
    assert wrong.status_code == 401 and wrong.json()["detail"] == "wrong token"
    basic = client.get("/status", headers={"Authorization": "Basic czNjcmV0LXRva2Vu"})
    assert basic.status_code == 401
    right = {"Authorization": "Bearer s3cret-token"}
    assert client.get("/status", headers=right).status_code == 200
    assert client.post("/focus", json={"note": HUT}, headers=right).status_code == 200


def test_unauthorised_answer_is_readable_by_the_plugin(shared_rag: VaultRAG) -> None:
    client = make_client(shared_rag, token="t0ken")
    r = client.get("/status", headers={"Origin": "app://obsidian.md"})
    assert r.status_code == 401
    assert r.headers["access-control-allow-origin"] == "app://obsidian.md"
    # The preflight itself carries no token and must succeed.
    r = client.options("/status", headers={"Origin": "app://obsidian.md", **PREFLIGHT})
    assert r.status_code == 200


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8765", "localhost.evil.example", "192.168.1.20:8765"]
)
def test_foreign_host_header_is_refused(client: TestClient, host: str) -> None:
    r = client.get("/status", headers={"Host": host})
    assert r.status_code == 403
    assert r.json()["error"] == "host_not_allowed"
    assert client.get("/health", headers={"Host": host}).status_code == 403


@pytest.mark.parametrize(
    "host", ["localhost", "localhost:8765", "127.0.0.1:8765", "[::1]:8765", "127.0.0.2"]
)
def test_loopback_host_headers_are_accepted(client: TestClient, host: str) -> None:
    assert client.get("/status", headers={"Host": host}).status_code == 200


def test_configured_and_bound_hosts_are_accepted(shared_rag: VaultRAG) -> None:
    client = make_client(shared_rag, allowed_hosts=("mybox.lan",), host="192.168.1.20", token="t")
    auth = {"Authorization": "Bearer t"}
    assert client.get("/status", headers={"Host": "mybox.lan:8765", **auth}).status_code == 200
    assert client.get("/status", headers={"Host": "192.168.1.20:8765", **auth}).status_code == 200
    assert client.get("/status", headers={"Host": "other.lan", **auth}).status_code == 403


def test_bind_rules() -> None:
    for host in ("127.0.0.1", "localhost", "::1", "127.8.0.1"):
        assert is_loopback(host)
        check_bind(host, "")
    for host in ("0.0.0.0", "192.168.1.20", "::", "mybox.lan"):
        assert not is_loopback(host)
        with pytest.raises(ConfigError, match="refusing to listen on"):
            check_bind(host, "")
        check_bind(host, "a-token")


# -- the command line -----------------------------------------------------------------------
@pytest.fixture
def test_embedder_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULTRAG_EMBEDDING__BACKEND", HASH_BACKEND)


@pytest.mark.usefixtures("test_embedder_env")
def test_serve_get_runs_one_request_in_process(sample_vault: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(
        cli, ["serve", str(sample_vault), "--get", "/status"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["counts"]["notes"] == 37
    path = f"/notes/{quote(HUT)}/context?budget=300&seed=1"
    result = runner.invoke(cli, ["serve", str(sample_vault), "--get", path], catch_exceptions=False)
    assert json.loads(result.output)["focusNote"]["uri"] == HUT
    result = runner.invoke(cli, ["serve", str(sample_vault), "--get", "/notes/Nowhere/context"])
    assert result.exit_code == 1
    assert json.loads(result.output)["error"] == "note_not_found"


@pytest.mark.usefixtures("test_embedder_env")
def test_serve_get_with_a_token_file(sample_vault: Path, tmp_path: Path) -> None:
    token = tmp_path / "token"
    token.write_text("from-a-file\n", encoding="utf-8")
    result = CliRunner().invoke(
        cli, ["serve", str(sample_vault), "--token-file", str(token), "--get", "/status"]
    )
    assert result.exit_code == 0, result.output
    both = ["serve", str(sample_vault), "--token", "x", "--token-file", str(token), "--get", "/"]
    result = CliRunner().invoke(cli, both)
    assert result.exit_code == 2 and "not both" in result.output
    token.write_text("\n", encoding="utf-8")
    result = CliRunner().invoke(cli, ["serve", str(sample_vault), "--token-file", str(token)])
    assert result.exit_code == 2 and "is empty" in result.output


def test_serve_refuses_a_non_loopback_bind_without_token(sample_vault: Path) -> None:
    result = CliRunner().invoke(cli, ["serve", str(sample_vault), "--host", "0.0.0.0"])
    assert result.exit_code != 0
    assert "refusing to listen on 0.0.0.0" in result.output
    assert "token" in result.output
    assert not (sample_vault / ".graphrag").exists()  # refused before any work


def test_serve_and_mcp_have_help() -> None:
    for command in ("serve", "mcp"):
        result = CliRunner().invoke(cli, [command, "--help"])
        assert result.exit_code == 0
        assert "vault-graphrag " + command in result.output
    assert "127.0.0.1" in CliRunner().invoke(cli, ["serve", "--help"]).output
