"""/focus answers as bytes: the lists joined from entries encoded once per snapshot, and
seeded answers kept per snapshot (graphrag/serve/focus_json.py)."""

from __future__ import annotations

import gc
import json
import weakref
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from graphrag import VaultRAG
from graphrag.config import load_settings
from graphrag.config.server import ServerSettings
from graphrag.focus.render import relation_sentence
from graphrag.serve import memory
from graphrag.serve.app import ANSWERS, LIST_ITEMS, create_app
from graphrag.serve.focus_json import Answers, ListItems, dumps, encode_focus
from tests.support.fakes import HashEmbedder
from tests.support.files import write

BIG_FOLDER = "Crowd"


def member(i: int) -> str:
    return f'{BIG_FOLDER}/Member {i} \u00e9 "q" <&>'


def crowded(vault: Path, notes: int = 40) -> None:
    """A folder of many notes linking a hub, so focus notes carry long lists (with
    quotes, backslashes and non-ASCII in the titles, which JSON escapes)."""
    for i in range(notes):
        write(
            vault,
            f"{member(i)}.md",
            f"# M{i}\n\nsee [[Home]] and [[Glossary]]\n",
        )


@pytest.fixture
def rag(indexed_vault: Path) -> VaultRAG:
    crowded(indexed_vault)
    return VaultRAG.open(indexed_vault, settings=load_settings(env={}), embedder=HashEmbedder())


def client(rag: VaultRAG) -> TestClient:
    app = create_app(rag, ServerSettings(watch=False, preload_model=False))
    return TestClient(app, base_url="http://127.0.0.1")


def expected(rag: VaultRAG, note: str, sentences: bool = False, **kw: Any) -> dict[str, Any]:
    """What /focus answered before its lists were cached: ``to_json`` (+ sentences)."""
    result = rag.focus(note, **kw)
    data = result.to_json()
    if sentences:
        for row, related in zip(data["relatedNotes"], result.related_notes, strict=True):
            row["relationSentence"] = relation_sentence(related, result.focus_note.title)
    return data


def test_the_bytes_are_to_jsons_for_every_note(rag: VaultRAG) -> None:
    items = ListItems()
    long_lists = 0
    for note in rag.graph.notes():
        result = rag.focus(note.uri, seed=7, explain=True)
        assert encode_focus(result, items) == dumps(result.to_json()), note.uri
        long_lists += (
            len(result.focus_note.prior_siblings) + len(result.focus_note.younger_siblings) > 30
        )
    assert long_lists >= 30  # the crowded folder's members
    # One encoding per distinct entry, however many lists hold it.
    assert len(items) <= len(list(rag.graph.notes())) + 200


def test_http_answers_are_the_same_json_cached_or_not(rag: VaultRAG) -> None:
    note = member(3)
    with client(rag) as http:
        bodies: list[dict[str, Any]] = [
            {"note": note, "seed": 1, "sentences": True, "budget": 300},
            {"note": "Home", "seed": 2, "explain": True},
            {"note": "Home", "seed": 2, "exclude": ["Glossary"]},
        ]
        for body in bodies:
            first = http.post("/focus", json=body)
            again = http.post("/focus", json=body)
            assert first.status_code == again.status_code == 200
            assert first.headers["content-type"] == "application/json"
            assert first.content == again.content
            kw = {k: v for k, v in body.items() if k != "note"}
            assert first.json() == json.loads(json.dumps(expected(rag, body["note"], **kw)))
        got = http.get(f"/notes/{note}/context", params={"seed": 1, "sentences": "true"})
        assert got.json() == json.loads(json.dumps(expected(rag, note, seed=1, sentences=True)))
        prompt = http.post("/focus", json={"note": "Home", "seed": 1, "format": "prompt"})
        assert "Home" in prompt.json()["prompt"]


def test_a_seeded_request_asked_again_is_answered_from_the_snapshot(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[str] = []
    focus = rag.focus

    def counted(note: str, **kw: Any) -> Any:
        calls.append(note)
        return focus(note, **kw)

    monkeypatch.setattr(rag, "focus", counted)
    with client(rag) as http:
        for _ in range(3):
            http.post("/focus", json={"note": "Home", "seed": 1})
        assert calls == ["Home"]
        http.post("/focus", json={"note": "Home", "seed": 1, "budget": 100})  # another request
        http.post("/focus", json={"note": "Home"})  # no seed: varies per run, never kept
        http.post("/focus", json={"note": "Home"})
        assert calls == ["Home"] * 4
        assert len(rag.snapshot.derived(ANSWERS, Answers)) == 2


def test_an_edit_is_answered_from_the_new_snapshot(rag: VaultRAG) -> None:
    assert rag.vault is not None
    with client(rag) as http:
        before = http.post("/focus", json={"note": "Home", "seed": 1}).json()
        write(rag.vault, "Home.md", "# Home\n\nrewritten for the cache test\n")
        assert http.post("/index", json={}).status_code == 200
        after = http.post("/focus", json={"note": "Home", "seed": 1}).json()
    assert "rewritten for the cache test" in after["focusNote"]["details"]
    assert before["focusNote"]["details"] != after["focusNote"]["details"]


def test_replaced_snapshots_and_their_caches_are_collected(rag: VaultRAG) -> None:
    assert rag.vault is not None
    replaced: list[weakref.ref[Any]] = []
    with client(rag) as http:
        for i in range(3):
            # Fill every per-snapshot cache a served request can: focus's, the
            # searches' arrays and BM25 index, query mode's.
            assert http.post("/focus", json={"note": "Home", "seed": 1}).status_code == 200
            assert http.post("/focus", json={"note": member(i)}).status_code == 200
            assert (
                http.post("/query", json={"question": "who makes the cheese?"}).status_code == 200
            )
            for mode in ("hybrid", "lexical"):
                assert (
                    http.post("/search", json={"query": "brine", "mode": mode}).status_code == 200
                )
            snapshot = rag.snapshot
            assert len(snapshot.derived(ANSWERS, Answers)) == 1
            assert len(snapshot.derived(LIST_ITEMS, ListItems)) > 0
            replaced.append(weakref.ref(snapshot))
            del snapshot
            write(rag.vault, "Home.md", f"# Home\n\nedit {i} [[Glossary]]\n")
            assert http.post("/index", json={}).status_code == 200
        gc.collect()
        assert [ref() is None for ref in replaced] == [True, True, True]
        assert rag.snapshot is not None


def test_an_update_collects_the_snapshot_it_replaced_with_the_heap_frozen(rag: VaultRAG) -> None:
    """The server freezes its heap after the preload (``memory.freeze_heap``); an update's
    own trim must collect the snapshot it replaced, not freeze it until the next update
    (one stale generation and its caches, 12-17 MB on obsidian-help, held all the time)."""
    assert rag.vault is not None
    with client(rag) as http:
        assert http.post("/focus", json={"note": "Home", "seed": 1}).status_code == 200
        assert http.post("/query", json={"question": "who makes the cheese?"}).status_code == 200
        assert http.post("/search", json={"query": "brine", "mode": "hybrid"}).status_code == 200
        # The corpus, not the snapshot: its caches hold cycles, so only a collection
        # frees it once the snapshot is gone.
        replaced = weakref.ref(rag.snapshot.corpus)
        memory.freeze_heap()
        try:
            write(rag.vault, "Home.md", "# Home\n\nedited while frozen [[Glossary]]\n")
            assert http.post("/index", json={}).status_code == 200
            assert replaced() is None  # no collection here: the update's trim did it
        finally:
            gc.unfreeze()


def test_answers_are_bounded_in_bytes_least_recently_used_out() -> None:
    answers = Answers(max_bytes=100)
    for key, answer in (("a", b"x" * 40), ("b", b"y" * 40)):
        answers.put(key, answer, len(answer))
    assert answers.get("a") == b"x" * 40  # "b" is now the oldest
    answers.put("c", b"z" * 40, 40)
    assert answers.get("b") is None and answers.get("a") and answers.get("c")
    assert answers.used == 80
    answers.put("huge", b"h" * 101, 101)  # larger than the whole budget: not kept
    assert answers.get("huge") is None and len(answers) == 2
    answers.put("a", b"x" * 10, 10)  # replaced, not counted twice
    assert answers.used == 50
