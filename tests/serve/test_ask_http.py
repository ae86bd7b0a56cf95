"""``POST /ask`` (streamed and JSON), ``/models``, ``/tags``, ``/folders``, ``/status`` progress
and the web page's files, in-process (TestClient) against sample_vault."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from graphrag import VaultRAG
from graphrag.config import load_settings
from graphrag.config.server import ServerSettings
from graphrag.errors import ModelNotConfiguredError
from graphrag.serve.app import create_app
from graphrag.snapshot.filters import Filters
from tests.support.fakes import HashEmbedder
from tests.support.llm_fakes import CALLS, STREAM_PIECES, echoed, llm_user

QUESTION = "Where does the water for the shepherd's hut come from?"
SPRING_BOX = "Places/Huts/Spring Box"
QUIET = ServerSettings(watch=False, preload_model=False)


def events(text: str) -> list[tuple[str, Any]]:
    """A Server-Sent Events body as (event, parsed data) pairs; comment lines skipped."""
    out = []
    for block in text.split("\n\n"):
        lines = [line for line in block.split("\n") if line and not line.startswith(":")]
        if not lines:
            continue
        fields = dict(line.split(": ", 1) for line in lines)
        out.append((fields["event"], json.loads(fields["data"])))
    return out


def ask(client: TestClient, **body: Any) -> tuple[Any, list[tuple[str, Any]]]:
    with client.stream("POST", "/ask", json=body) as r:
        text = r.read().decode()
    return r, events(text) if r.status_code == 200 else json.loads(text)


@pytest.fixture
def client(rag: VaultRAG) -> Iterator[TestClient]:
    with TestClient(create_app(rag, QUIET), base_url="http://localhost") as c:
        yield c


def make_client(rag: VaultRAG, **settings: Any) -> TestClient:
    merged = {"watch": False, "preload_model": False, **settings}
    return TestClient(create_app(rag, ServerSettings(**merged)), base_url="http://localhost")


# -- the stream ---------------------------------------------------------------------------
def test_stream_is_context_then_deltas_then_done_with_llm_echo(
    client: TestClient, rag: VaultRAG
) -> None:
    r, got = ask(client, question=QUESTION, model="echo", seed=1)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["cache-control"] == "no-cache"
    names = [name for name, _ in got]
    assert names[0] == "context" and names[-1] == "done"
    assert set(names[1:-1]) == {"delta"} and len(names) >= 3
    context, done = got[0][1], got[-1][1]
    prepared = rag.prepare_ask(QUESTION, model="echo", seed=1)
    assert context == {
        "mode": "query",
        "question": QUESTION,
        "model": "echo",
        "sources": prepared.sources_json(),
        "tokens": {
            "budget": prepared.context.result.budget,
            "used": prepared.context.result.tokens_used,
        },
    }
    assert context["sources"] and all(s["relation"] for s in context["sources"])
    answer = "".join(data["text"] for name, data in got if name == "delta")
    assert done["answer"] == answer
    assert echoed(answer)["prompt"] == prepared.prompt.prompt
    assert echoed(answer)["prompt"].endswith(f"QUESTION: {QUESTION}\n")
    assert {s["uri"] for s in done["sources"]} == {s["uri"] for s in context["sources"]}
    assert done["nothingFound"] is False and set(done["seconds"]) == {"retrieval", "model"}
    assert isinstance(done["usage"]["input"], int) and isinstance(done["usage"]["output"], int)


def test_each_model_piece_is_a_delta_and_done_lists_cited_sources_first(
    client: TestClient,
) -> None:
    _, got = ask(client, question=QUESTION, model="test-stream", seed=1)
    assert [d["text"] for name, d in got if name == "delta"] == list(STREAM_PIECES)
    done = got[-1][1]
    assert done["cited"] == [SPRING_BOX]
    assert done["sources"][0] == {**done["sources"][0], "uri": SPRING_BOX, "cited": True}
    assert not any(s["cited"] for s in done["sources"][1:])
    context_order = [s["uri"] for s in got[0][1]["sources"]]
    assert [s["uri"] for s in done["sources"][1:]] == [u for u in context_order if u != SPRING_BOX]


def test_json_answer_is_the_cli_json(client: TestClient, rag: VaultRAG) -> None:
    r = client.post(
        "/ask", json={"question": QUESTION, "model": "echo", "seed": 1, "stream": False}
    )
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    expected = rag.ask(QUESTION, model="echo", seed=1).to_json()
    got = r.json()
    assert set(got["seconds"]) == {"retrieval", "model"}
    for data in (got, expected):
        data.pop("seconds")
    assert got == expected


def test_prompt_only_builds_the_prompt_without_a_model(client: TestClient, rag: VaultRAG) -> None:
    """``ask --prompt-only`` from the shell: no model named, none configured, none called;
    ``system`` replaces the system prompt, as ``--system`` does."""
    for system in (None, "Answer in haiku."):
        body = {"question": QUESTION, "seed": 1, "stream": False, "prompt_only": True}
        r = client.post("/ask", json={**body, "system": system})
        assert r.status_code == 200, r.text
        expected = rag.ask(QUESTION, seed=1, system=system, dry_run=True).to_json()
        got = r.json()
        for data in (got, expected):
            data.pop("seconds")
        assert got == expected and got["answer"] == "" and got["model"] == ""
        assert got["prompt"]["system"].startswith(system or "You answer")
    assert len(CALLS) == 0


def test_prompt_only_streamed_ends_with_the_prompt(client: TestClient, rag: VaultRAG) -> None:
    """``prompt_only`` with the default ``stream: true``: the ``done`` event carries the
    prompt (it is what was asked for), the same as the JSON answer's."""
    r, got = ask(client, question=QUESTION, seed=1, prompt_only=True)
    assert r.status_code == 200, r.text
    assert [name for name, _ in got] == ["context", "done"]
    expected = rag.ask(QUESTION, seed=1, dry_run=True).to_json()
    assert got[-1][1]["prompt"] == expected["prompt"] and got[-1][1]["answer"] == ""
    assert len(CALLS) == 0


@pytest.mark.parametrize("model", ["test-fail", "test-fail-async"])
def test_an_error_after_the_stream_began_is_an_error_event(client: TestClient, model: str) -> None:
    _, got = ask(client, question=QUESTION, model=model, seed=1)
    assert [name for name, _ in got] == ["context", "delta", "error"]
    assert got[1][1] == {"text": "partial "}
    assert got[2][1]["error"] == "model_error"
    assert f"model {model}: RuntimeError: connection reset by provider" in got[2][1]["detail"]
    r = client.post("/ask", json={"question": QUESTION, "model": model, "stream": False})
    assert r.status_code == 502 and r.json()["error"] == "model_error"


# -- before any model call ---------------------------------------------------------------
def test_without_a_model_409_with_the_cli_message_and_nothing_sent(client: TestClient) -> None:
    (llm_user() / "default_model.txt").write_text("echo")  # llm's own default is never used
    for stream in (True, False):
        r = client.post("/ask", json={"question": QUESTION, "stream": stream})
        assert r.status_code == 409
        assert r.json() == {
            "error": "model_not_configured",
            "detail": str(ModelNotConfiguredError()),
        }
    assert len(CALLS) == 0


def test_the_configured_model_answers(rag: VaultRAG) -> None:
    settings = load_settings(env={"VAULTRAG_LLM__MODEL": "test-spy"})
    configured = VaultRAG(rag.vault, rag.index_dir, settings, HashEmbedder())
    with make_client(configured) as client:
        _, got = ask(client, question=QUESTION, seed=1)
    assert got[0][1]["model"] == "test-spy" and got[-1][0] == "done"
    assert len(CALLS) == 1


def test_unknown_model_and_bad_options_are_422_naming_the_field(client: TestClient) -> None:
    r = client.post("/ask", json={"question": QUESTION, "model": "ecko"})
    assert r.status_code == 422
    assert r.json()["error"] == "unknown_model" and r.json()["field"] == "model"
    assert "echo" in r.json()["suggestions"]
    r = client.post("/ask", json={"question": QUESTION, "model": "echo", "options": {"tmp": 1}})
    assert r.status_code == 422 and r.json()["field"] == "options"
    assert "unknown option 'tmp'" in r.json()["detail"]
    r = client.post("/ask", json={"question": QUESTION, "model": "echo", "note": "Nowhere Hut"})
    assert r.status_code == 404 and r.json()["error"] == "note_not_found"
    r = client.post("/ask", json={"question": QUESTION, "history": [{"question": "q"}]})
    assert r.status_code == 422 and r.json()["field"] == "history.0.answer"
    assert len(CALLS) == 0


def test_nothing_found_is_answered_without_a_model_call(client: TestClient) -> None:
    _, got = ask(client, question=QUESTION, model="test-spy", filters={"tag": "no-such-tag"})
    assert [name for name, _ in got] == ["context", "delta", "done"]
    assert got[0][1]["sources"] == []
    assert got[1][1]["text"].startswith("Nothing in the vault matches this question")
    assert got[2][1]["nothingFound"] is True and got[2][1]["answer"] == got[1][1]["text"]
    assert got[2][1]["usage"] is None
    assert len(CALLS) == 0


# -- follow-ups and focus mode ------------------------------------------------------------
def test_history_reaches_the_prompt_and_steers_retrieval(client: TestClient) -> None:
    turn = {"question": QUESTION, "answer": f"From the spring box ([[{SPRING_BOX}|the box]])."}
    _, alone = ask(client, question="Who made it?", model="echo", seed=1)
    _, got = ask(client, question="Who made it?", model="echo", seed=1, history=[turn])
    prompt = echoed(got[-1][1]["answer"])["prompt"]
    assert prompt.endswith(
        "EARLIER IN THIS CONVERSATION:\n"
        f"Q: {turn['question']}\nA: {turn['answer']}\n\nQUESTION: Who made it?\n"
    )
    assert SPRING_BOX not in [s["uri"] for s in alone[0][1]["sources"]][:3]
    first = got[0][1]["sources"][0]
    assert first["uri"] == SPRING_BOX and "title" in first["relation"]


def test_note_asks_about_that_note_in_focus_mode(client: TestClient) -> None:
    _, got = ask(client, question="Who made the lid?", model="echo", note="Spring Box", seed=2)
    context = got[0][1]
    assert context["mode"] == "focus"
    assert context["sources"][0] == {
        "uri": SPRING_BOX,
        "title": "Spring Box",
        "relation": "Focus note",
    }
    assert "# Question\n\nWho made the lid?\n" in echoed(got[-1][1]["answer"])["prompt"]
    r = client.post(
        "/ask",
        json={"question": "q", "model": "echo", "note": "Spring Box", "filters": {"tag": "x"}},
    )
    assert r.status_code == 422 and r.json()["field"] == "filters"


# -- filters: the CLI's shapes --------------------------------------------------------------
def test_filters_take_a_string_or_a_list_and_property_or_prop(client: TestClient) -> None:
    def uris(filters: dict[str, Any]) -> list[str]:
        body = {"query": "cheese", "mode": "lexical", "top_k": 100, "filters": filters}
        r = client.post("/search", json=body)
        assert r.status_code == 200, r.text
        return [hit["uri"] for hit in r.json()["results"]]

    one = uris({"folder": "Dairy"})
    assert one and all(u.startswith("Dairy/") for u in one)
    assert uris({"folder": ["Dairy"]}) == one
    both = uris({"folder": ["Dairy", "Places"]})
    assert set(one) < set(both)
    assert uris({"tag": "cheese"}) == uris({"tag": ["cheese"]})
    by_property = uris({"property": "created"})
    assert by_property and by_property == uris({"prop": ["created"]})
    r = client.post("/search", json={"query": "x", "filters": {"folder": 3}})
    assert r.status_code == 422 and r.json()["field"].startswith("filters.folder")
    r = client.post("/search", json={"query": "x", "filters": {"props": "stage"}})
    assert r.status_code == 422 and r.json()["field"] == "filters.props"


# -- lists for a client ---------------------------------------------------------------------
def test_models_lists_llm_models_and_the_configured_default(
    client: TestClient, rag: VaultRAG
) -> None:
    body = client.get("/models").json()
    assert body["default"] is None
    ids = {m["id"]: m for m in body["models"]}
    assert {"echo", "test-stream", "test-spy"} <= set(ids)
    assert ids["echo"] == {"id": "echo", "name": "Echo: echo", "aliases": []}
    settings = load_settings(env={"VAULTRAG_LLM__MODEL": "echo"})
    with make_client(VaultRAG(rag.vault, rag.index_dir, settings, HashEmbedder())) as other:
        assert other.get("/models").json()["default"] == "echo"


def test_tags_are_a_tree_with_counts_of_notes_under_each(client: TestClient, rag: VaultRAG) -> None:
    tree = client.get("/tags").json()["tags"]
    graph = rag.graph

    def carrying(tag: str) -> int:
        return len(
            {
                u
                for t, us in graph.tag_members.items()
                if t == tag or t.startswith(tag + "/")
                for u in us
            }
        )

    def walk(nodes: list[dict[str, Any]], parent: str) -> list[str]:
        assert [n["name"] for n in nodes] == sorted(n["name"] for n in nodes)
        seen = []
        for n in nodes:
            assert set(n) == {"tag", "name", "count", "children"}
            assert n["tag"] == (f"{parent}/{n['name']}" if parent else n["name"])
            assert n["count"] == carrying(n["tag"]) > 0
            seen += [n["tag"], *walk(n["children"], n["tag"])]
        return seen

    assert sorted(walk(tree, "")) == sorted(graph.tag_members)
    project = next(n for n in tree if n["tag"] == "project")
    assert "project/festival" in [c["tag"] for c in project["children"]]


def test_folders_count_what_the_folder_filter_keeps(client: TestClient, rag: VaultRAG) -> None:
    folders = client.get("/folders").json()["folders"]
    paths = [f["path"] for f in folders]
    assert paths == sorted(paths) and "Places/Huts" in paths and "Places" in paths
    snapshot = rag.snapshot
    corpus = snapshot.corpus
    for f in folders:
        mask = Filters.parse(folder=f["path"]).mask(corpus, snapshot.graph)
        assert f["notes"] == int(mask.sum()) > 0, f


# -- /status progress -------------------------------------------------------------------------
def test_status_reports_a_running_updates_progress(rag: VaultRAG, monkeypatch: Any) -> None:
    reported, release = threading.Event(), threading.Event()
    real_index = rag.index

    def slow_index(full: bool = False, progress: Any = None) -> Any:
        progress("embedding", 120, 400)
        reported.set()
        release.wait(10)
        return real_index(full=full)

    monkeypatch.setattr(rag, "index", slow_index)
    with make_client(rag) as client:
        assert client.get("/status").json()["progress"] is None
        updating = threading.Thread(target=lambda: client.post("/index", json={"wait": True}))
        updating.start()
        assert reported.wait(10)
        status = client.get("/status").json()
        assert status["updating"] is True
        assert status["progress"] == {"phase": "embedding", "done": 120, "total": 400}
        release.set()
        updating.join(10)
        assert client.get("/status").json()["progress"] is None


# -- guards -------------------------------------------------------------------------------
def test_cors_headers_reach_the_stream(client: TestClient) -> None:
    origin = {"Origin": "app://obsidian.md"}
    with client.stream(
        "POST", "/ask", json={"question": QUESTION, "model": "echo"}, headers=origin
    ) as r:
        r.read()
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    assert r.headers["access-control-allow-origin"] == "app://obsidian.md"
    pre = client.options(
        "/ask",
        headers={
            **origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type",
        },
    )
    assert pre.status_code == 200
    assert pre.headers["access-control-allow-origin"] == "app://obsidian.md"
    r = client.post("/ask", json={"question": QUESTION}, headers={"Origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"] == "origin_not_allowed"


def test_token_guards_the_api_but_not_the_page(rag: VaultRAG) -> None:
    with make_client(rag, token="s3cret") as client:
        for path in ("/models", "/tags", "/folders"):
            assert client.get(path).status_code == 401
        assert client.post("/ask", json={"question": QUESTION, "model": "echo"}).status_code == 401
        auth = {"Authorization": "Bearer s3cret"}
        with client.stream(
            "POST", "/ask", json={"question": QUESTION, "model": "echo"}, headers=auth
        ) as r:
            assert events(r.read().decode())[-1][0] == "done"
        page = client.get("/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert "default-src 'self'" in page.headers["content-security-policy"]
        script = client.get("/static/app.js")
        assert script.status_code == 200
        assert script.headers["content-type"].startswith("text/javascript")
        assert client.get("/static/style.css").headers["content-type"].startswith("text/css")
        assert client.get("/static/nothing.js").status_code == 404
        assert client.get("/static/../openapi.json").status_code in (401, 404)
        assert client.get("/openapi.json").status_code == 401


def test_the_page_loads_its_files_by_relative_url(client: TestClient) -> None:
    html = client.get("/").text
    for ref in ('src="static/app.js"', 'href="static/style.css"'):
        assert ref in html
    assert (
        client.get("/static/app.js").content
        == (Path(__file__).resolve().parents[2] / "graphrag/serve/static/app.js").read_bytes()
    )


def test_ask_body_is_limited(rag: VaultRAG) -> None:
    with make_client(rag, max_body_bytes=2048) as client:
        history = [{"question": "q", "answer": "a" * 4000}]
        r = client.post("/ask", json={"question": QUESTION, "model": "echo", "history": history})
        assert r.status_code == 413 and r.json()["error"] == "body_too_large"
    assert len(CALLS) == 0


def test_openapi_documents_the_new_endpoints(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    for path in ("/ask", "/models", "/tags", "/folders"):
        assert path in spec["paths"], path
    ask_doc = spec["paths"]["/ask"]["post"]
    assert "text/event-stream" in ask_doc["responses"]["200"]["content"]
    assert {"404", "409", "422"} <= set(ask_doc["responses"])
    assert "/" not in spec["paths"] and not any(p.startswith("/static") for p in spec["paths"])


def test_focus_can_add_each_related_notes_relation_sentence(
    client: TestClient, rag: VaultRAG
) -> None:
    from graphrag.focus.render import relation_sentence

    plain = client.post("/focus", json={"note": "Spring Box", "seed": 1}).json()
    assert "relationSentence" not in json.dumps(plain)
    got = client.post("/focus", json={"note": "Spring Box", "seed": 1, "sentences": True}).json()
    result = rag.focus("Spring Box", seed=1)
    assert [n["uri"] for n in got["relatedNotes"]] == [n["uri"] for n in plain["relatedNotes"]]
    assert [n["relationSentence"] for n in got["relatedNotes"]] == [
        relation_sentence(n, result.focus_note.title) for n in result.related_notes
    ]
    assert got["relatedNotes"][0]["relationSentence"].startswith(got["relatedNotes"][0]["title"])
    by_uri = client.get(f"/notes/{SPRING_BOX}/context", params={"seed": 1, "sentences": "true"})
    assert by_uri.json() == got


def test_a_real_update_reports_the_indexers_phases(
    sample_vault: Path, tmp_path: Path, monkeypatch: Any
) -> None:
    from graphrag.serve.live import LiveIndex

    rag = VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())

    seen: list[dict[str, Any]] = []
    real = LiveIndex._progress

    def spy(self: LiveIndex, phase: str, done: int, total: int) -> None:
        real(self, phase, done, total)
        seen.append(dict(self.progress or {}))

    monkeypatch.setattr(LiveIndex, "_progress", spy)
    (sample_vault / "Places/Huts/New Hut.md").write_text("# New Hut\n\nBy [[Spring Box]].\n")
    with make_client(rag) as client:
        assert client.post("/index", json={"wait": True}).status_code == 200
        assert client.get("/status").json()["progress"] is None
    phases = [p["phase"] for p in seen]
    assert phases[0] == "starting" and phases[-1] == "loading" and "embedding" in phases
    for p in seen:
        assert isinstance(p["done"], int) and isinstance(p["total"], int)
        assert 0 <= p["done"] <= max(p["total"], p["done"])
