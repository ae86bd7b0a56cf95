"""``POST /ask`` over a real loopback socket: a client that goes away stops the model, and
the real server (``python -m graphrag serve``) streams an answer from llm-echo."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from graphrag import VaultRAG
from graphrag.config.server import ServerSettings
from graphrag.serve.app import create_app
from tests.support.llm_fakes import SLOW, SLOW_PIECES, echoed
from tests.support.polling import wait_until
from tests.support.server import free_port, serve

QUESTION = "Where does the water for the shepherd's hut come from?"


@contextmanager
def in_process(rag: VaultRAG) -> Iterator[str]:
    """uvicorn on a loopback port in a thread of this process (where the test models are
    registered with llm); yields the base URL."""
    port = free_port()
    config = uvicorn.Config(
        create_app(rag, ServerSettings(watch=False, preload_model=False)),
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        wait_until(lambda: server.started, timeout=10)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def read_events(lines: Iterator[str]) -> Iterator[tuple[str, Any]]:
    """(event, data) pairs from a stream's lines, as they arrive."""
    name = None
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: ") and name is not None:
            yield name, json.loads(line[6:])
            name = None


def test_a_client_that_goes_away_stops_the_model(rag: VaultRAG) -> None:
    with in_process(rag) as base:
        body = {"question": QUESTION, "model": "test-slow", "seed": 1}
        with httpx.Client(timeout=10) as http, http.stream("POST", base + "/ask", json=body) as r:
            assert r.status_code == 200
            seen = []
            for name, _data in read_events(r.iter_lines()):
                seen.append(name)
                if seen.count("delta") == 3:
                    left_at = SLOW.produced
                    break  # leaving the block closes the connection mid-answer
        wait_until(SLOW.closed.is_set, timeout=30)
        # at the model's next pieces, not at its end: counted in pieces, so load cannot fail it
        assert SLOW.produced_at_close - left_at <= SLOW_PIECES // 4
        assert not SLOW.finished.is_set() and SLOW.produced < SLOW_PIECES
        # a JSON answer is stopped too when its client gives up waiting
        SLOW.reset()
        with pytest.raises(httpx.ReadTimeout):
            httpx.post(base + "/ask", json={**body, "stream": False}, timeout=0.5)
        wait_until(SLOW.closed.is_set, timeout=5)
        assert not SLOW.finished.is_set()


def test_an_async_model_is_stopped_at_once_even_before_its_first_piece(rag: VaultRAG) -> None:
    with in_process(rag) as base:
        body = {"question": QUESTION, "model": "test-slow-async", "seed": 1}
        with httpx.Client(timeout=10) as http, http.stream("POST", base + "/ask", json=body) as r:
            first = next(read_events(r.iter_lines()))
            assert first[0] == "context"  # then leave while the model still reads its prompt
        wait_until(SLOW.closed.is_set, timeout=30, step=0.02)
        assert not SLOW.read_prompt  # cancelled while it still read the prompt
        assert SLOW.produced == 0 and not SLOW.finished.is_set()
        # and it answers when nobody leaves (its pieces stream as deltas)
        SLOW.reset()
        short = {**body, "stream": False}
        with httpx.Client(timeout=30) as http:
            answer = http.post(base + "/ask", json=short).json()
        assert answer["answer"].startswith("piece 0 piece 1 ") and SLOW.finished.is_set()


def test_real_server_streams_an_answer_from_llm_echo(indexed_vault: Path) -> None:
    with (
        serve(indexed_vault, "--no-watch") as base,
        httpx.Client(base_url=base, timeout=20) as http,
    ):
        body = {"question": QUESTION, "model": "echo", "seed": 1}
        arrived: list[tuple[str, Any, float]] = []
        with http.stream("POST", "/ask", json=body, headers={"Origin": "app://obsidian.md"}) as r:
            assert r.status_code == 200
            assert r.headers["content-type"].startswith("text/event-stream")
            assert r.headers["access-control-allow-origin"] == "app://obsidian.md"
            for name, data in read_events(r.iter_lines()):
                arrived.append((name, data, time.monotonic()))
        names = [name for name, _, _ in arrived]
        assert names[0] == "context" and names[-1] == "done" and "delta" in names
        context, done = arrived[0][1], arrived[-1][1]
        assert context["model"] == "echo" and context["sources"]
        prompt = echoed(done["answer"])["prompt"]
        assert prompt.startswith("CONTEXT:\n") and prompt.endswith(f"QUESTION: {QUESTION}\n")
        for source in context["sources"]:
            assert f"URI: {source['uri']}" in prompt
        r = http.post("/ask", json={"question": QUESTION})
        assert r.status_code == 409 and r.json()["error"] == "model_not_configured"
        page = http.get("/")
        assert page.status_code == 200 and "static/app.js" in page.text
