"""NoteText's cache: bounded, most recently used kept, one per index generation."""

from __future__ import annotations

from pathlib import Path

from graphrag.snapshot.memo import Memo
from tests.support.files import write
from tests.support.query_vault import make_rag


def test_memo_keeps_the_most_recently_used_within_its_size():
    memo = Memo(chars=300)
    built: list[str] = []

    def make(key: str) -> str:
        built.append(key)
        return key * 40  # 40 characters (+50 counted for the entry)

    for key in ("a", "b", "c"):
        memo.get(key, lambda key=key: make(key))
    assert memo.used <= 300
    memo.get("a", lambda: make("a"))  # kept, and now the most recent
    memo.get("d", lambda: make("d"))  # over the size: "b", the least recent, goes
    assert built == ["a", "b", "c", "d"]
    memo.get("a", lambda: make("a"))
    memo.get("b", lambda: make("b"))
    assert built == ["a", "b", "c", "d", "b"]
    assert memo.used <= 300


def test_a_new_generation_shows_the_edited_text_not_the_cached_one(tmp_path: Path):
    rag = make_rag(
        tmp_path,
        {
            "Cellar.md": "# Cellar\n\nThe cellar keeps the cheese at eight degrees.\n",
            "Cheese.md": "# Cheese\n\nCheese ripens in the [[Cellar]].\n",
        },
    )
    first = rag.query("cellar cheese degrees", seed=0)
    shown = {d.uri: d.note.details for d in (*first.entries, *first.related)}
    assert "eight degrees" in shown["Cellar"]
    again = rag.query("cellar cheese degrees", seed=0)  # the same generation: same text
    assert {d.uri: d.note.details for d in (*again.entries, *again.related)} == shown
    write(rag.vault, "Cellar.md", "# Cellar\n\nThe cellar keeps the cheese at six degrees.\n")
    rag.index()
    edited = rag.query("cellar cheese degrees", seed=0)
    details = {d.uri: d.note.details for d in (*edited.entries, *edited.related)}
    assert "six degrees" in details["Cellar"] and "eight" not in details["Cellar"]
