"""The real server: ``vault-graphrag serve`` in a subprocess, HTTP over a loopback port."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support.files import ROOT, SAMPLE_VAULT, write
from tests.support.polling import wait_until
from tests.support.server import serve, subprocess_env

HUT = "Places/Huts/Shepherd's Hut"


def test_real_server_answers_over_loopback(indexed_vault: Path) -> None:
    with (
        serve(indexed_vault, "--no-watch") as base,
        httpx.Client(base_url=base, timeout=10) as http,
    ):
        assert http.get("/health").json()["status"] == "ok"
        status = http.get("/status").json()
        assert status["counts"]["notes"] == 37 and status["watching"] is False
        r = http.post("/focus", json={"note": "Shepherd's Hut", "budget": 500, "seed": 1})
        assert r.status_code == 200
        assert r.json()["focusNote"]["uri"] == HUT
        r = http.post("/focus", json={"note": "Nowhere Hut"})
        assert r.status_code == 404 and r.json()["error"] == "note_not_found"
        r = http.get("/status", headers={"Host": "rebound.example"})
        assert r.status_code == 403 and r.json()["error"] == "host_not_allowed"
        assert "server" not in r.headers  # no banner


def test_real_server_with_token(indexed_vault: Path, tmp_path: Path) -> None:
    token_file = tmp_path / "token"
    token_file.write_text("correct horse\n", encoding="utf-8")
    with serve(indexed_vault, "--no-watch", "--token-file", str(token_file)) as base:
        assert httpx.get(base + "/health").status_code == 200
        assert httpx.get(base + "/status").status_code == 401
        wrong = httpx.get(base + "/status", headers={"Authorization": "Bearer correct horsf"})
        assert wrong.status_code == 401
        right = httpx.get(base + "/status", headers={"Authorization": "Bearer correct horse"})
        assert right.status_code == 200


def test_edit_while_serving_shows_up_in_focus(indexed_vault: Path) -> None:
    with serve(indexed_vault, "--watch") as base, httpx.Client(base_url=base, timeout=10) as http:
        assert http.get("/status").json()["watching"] is True
        write(
            indexed_vault,
            "Places/Huts/Shepherd's Hut.md",
            "# Shepherd's Hut\n\nThe roof leaks again.\n",
        )

        def visible() -> bool:
            """the edit is in /focus"""
            r = http.post("/focus", json={"note": HUT, "budget": 200})
            return "roof leaks again" in r.json()["focusNote"]["details"]

        wait_until(visible, timeout=30)  # how soon is bench_watch.py's figure, not a test's
        write(indexed_vault, "Places/Huts/Summer Kitchen.md", "Next to [[Shepherd's Hut]].\n")
        wait_until(lambda: http.post("/focus", json={"note": "Summer Kitchen"}).status_code == 200)


def test_serve_refuses_lan_bind_without_token(indexed_vault: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "graphrag", "serve", str(indexed_vault), "--host", "0.0.0.0"],
        cwd=ROOT,
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert "refusing to listen on 0.0.0.0" in proc.stderr


@pytest.mark.slow
def test_real_model_through_the_real_server(tmp_path: Path) -> None:
    """MiniLM + FAISS + uvicorn on loopback: the server indexes the vault itself, then answers."""
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    with (
        serve(vault, "--no-watch", real_model=True, start_timeout=300) as base,
        httpx.Client(base_url=base, timeout=120) as http,
    ):
        status = http.get("/status").json()
        assert status["model"] == "sentence-transformers/all-MiniLM-L6-v2"
        assert status["counts"]["notes"] == 37
        r = http.post("/focus", json={"note": "Shepherd's Hut", "budget": 600, "seed": 1})
        assert r.status_code == 200, r.text
        assert r.json()["focusNote"]["uri"] == HUT
        # No word of the question is in the note's title: only the model's meaning finds it.
        question = "salt bath for the cheese wheels"
        r = http.post("/query", json={"question": question, "budget": 800, "seed": 1})
        assert r.status_code == 200, r.text
        assert r.json()["entryNotes"][0]["uri"].endswith("/Brine")
        r = http.post("/search", json={"query": question, "mode": "semantic", "top_k": 3})
        assert r.json()["results"][0]["uri"] == "Dairy/Cheese Making/Brine"
