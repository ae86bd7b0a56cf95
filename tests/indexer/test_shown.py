"""Per-chunk token counts stored at index time (``indexer/shown.py``): what each
chunk's shown text costs at least, in every form query mode counts it in; an index
written before them is read without them and counted by its next update, whole, in
the generation being written."""

from __future__ import annotations

import json
import re
import shutil
import sqlite3
from pathlib import Path

import pytest

import indexer.build
from indexer import build_index, load_index
from indexer.shown import SHOWN_TOKENS_VERSION, WHOLE_TOKENS_VERSION
from indexer.store import MANIFEST, SCHEMA_VERSION
from indexer.tokens import load_encoding
from tests.support.fakes import HashEmbedder


def _expected(heading_path: str, text: str) -> int:
    """The rule, written out again: the chunk under its heading path, counted by
    tiktoken itself as written, as a JSON string and quoted for the prompt."""
    enc = load_encoding("cl100k_base")
    body = text.strip("\n").rstrip()
    if heading_path:
        first, _, rest = body.partition("\n")
        if first.lstrip().startswith("#"):
            body = rest.strip()
        body = f"## {heading_path}\n{body}" if body else f"## {heading_path}"
    forms = (
        body,
        json.dumps(body, ensure_ascii=False)[1:-1],
        body.replace('"', '\\"'),
        body.strip().replace('"', '\\"'),
    )
    return min(len(enc.encode_ordinary(f)) for f in forms)


def _expected_whole(body: str) -> int:
    """The per-note rule, written out again: blank runs folded, counted as written, as
    a JSON string, quoted for the prompt, quoted with its ends or its end stripped."""
    enc = load_encoding("cl100k_base")
    text = re.sub(r"\n[ \t]*\n(?:[ \t]*\n)+", "\n\n", body)
    forms = (
        text,
        json.dumps(text, ensure_ascii=False)[1:-1],
        text.replace('"', '\\"'),
        text.strip().replace('"', '\\"'),
        text.rstrip().replace('"', '\\"'),
    )
    return min(len(enc.encode_ordinary(f)) for f in forms)


def _check_note_counts(index_dir: Path) -> int:
    rows = _db(index_dir).execute("SELECT body, shown_tokens FROM notes").fetchall()
    assert rows
    for body, stored in rows:
        assert stored == _expected_whole(body or ""), (body or "")[:60]
    return len(rows)


def _db(index_dir: Path) -> sqlite3.Connection:
    manifest = json.loads((index_dir / MANIFEST).read_text())
    return sqlite3.connect(index_dir / manifest["generation"] / "index.sqlite")


def _check_counts(index_dir: Path) -> int:
    rows = _db(index_dir).execute("SELECT heading_path, text, shown_tokens FROM chunks").fetchall()
    assert rows
    for path, text, stored in rows:
        assert stored == _expected(path or "", text or ""), (path, text[:60])
    return len(rows)


def _make_old(index_dir: Path, schema: int = 1) -> None:
    """Turn ``index_dir`` into an index as the version before the counts (``schema``
    1), or before the per-note counts (2), wrote it."""
    db = _db(index_dir)
    db.execute("ALTER TABLE notes DROP COLUMN shown_tokens")
    if schema == 1:
        db.execute("ALTER TABLE chunks DROP COLUMN shown_tokens")
    db.execute(f"PRAGMA user_version = {schema}")
    db.commit()
    db.close()
    manifest = json.loads((index_dir / MANIFEST).read_text())
    manifest.pop("whole_tokens")
    if schema == 1:
        manifest.pop("shown_tokens")
    manifest["schema"] = schema
    (index_dir / MANIFEST).write_text(json.dumps(manifest))


@pytest.fixture
def vault(sample_vault: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "vault-copy"
    shutil.copytree(sample_vault, copy)
    return copy


def test_each_chunk_stores_the_fewest_tokens_of_its_shown_text(vault: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    build_index(vault, index_dir, embedder=HashEmbedder())
    assert _check_counts(index_dir) > 30
    index = load_index(index_dir)
    assert index.manifest["shown_tokens"] == SHOWN_TOKENS_VERSION
    assert index.manifest["schema"] == SCHEMA_VERSION
    assert index.has_shown_tokens
    uri = index.db.execute("SELECT uri FROM chunks LIMIT 1").fetchone()[0]
    rows = index.chunks_of(uri)
    assert all(r.shown_tokens == _expected(r.heading_path, r.text) for r in rows)


def test_each_note_stores_the_fewest_tokens_of_its_whole_text(vault: Path, tmp_path: Path) -> None:
    (vault / "Blank runs.md").write_text('# Blank runs\n\nSay "this".\n\n\n  \n\nThen  \n')
    index_dir = tmp_path / "index"
    build_index(vault, index_dir, embedder=HashEmbedder())
    assert _check_note_counts(index_dir) > 30
    index = load_index(index_dir)
    assert index.manifest["whole_tokens"] == WHOLE_TOKENS_VERSION and index.has_whole_tokens
    body = index.body("Blank runs")
    assert "\n\n\n" in body  # stored as written, counted as shown (folded)
    assert index.whole_tokens("Blank runs") == _expected_whole(body)
    assert index.whole_tokens("No such note") is None


def test_an_index_from_before_the_note_counts_is_read_without_them_and_counted_next(
    vault: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    build_index(vault, index_dir, embedder=HashEmbedder())
    _make_old(index_dir, schema=2)
    old = load_index(index_dir)
    assert old.has_shown_tokens and not old.has_whole_tokens
    uri = old.db.execute("SELECT uri FROM notes LIMIT 1").fetchone()[0]
    assert old.whole_tokens(uri) is None
    old.close()

    note = next(vault.rglob("*.md"))
    note.write_text(note.read_text() + "\nOne more line.\n")
    stats = build_index(vault, index_dir, embedder=HashEmbedder())
    assert stats.changed == 1 and stats.chunks_embedded <= 3
    _check_note_counts(index_dir)  # kept notes counted too, not only the changed one
    _check_counts(index_dir)
    new = load_index(index_dir)
    assert new.has_whole_tokens and new.manifest["schema"] == SCHEMA_VERSION == 3


def test_an_index_from_before_the_counts_is_read_without_them_and_its_update_counts_them(
    vault: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    build_index(vault, index_dir, embedder=HashEmbedder())
    _make_old(index_dir)
    old = load_index(index_dir)
    assert not old.has_shown_tokens
    uri = old.db.execute("SELECT uri FROM chunks LIMIT 1").fetchone()[0]
    assert [r.shown_tokens for r in old.chunks_of(uri)] == [None] * len(old.chunks_of(uri))
    old.close()

    note = next(vault.rglob("*.md"))
    note.write_text(note.read_text() + "\nOne more line.\n")
    stats = build_index(vault, index_dir, embedder=HashEmbedder())
    assert stats.changed == 1 and stats.chunks_embedded <= 3  # counting re-embeds nothing
    _check_counts(index_dir)  # kept rows counted too, not only the changed note's
    _check_note_counts(index_dir)
    new = load_index(index_dir)
    assert new.has_shown_tokens and new.has_whole_tokens
    assert new.manifest["schema"] == SCHEMA_VERSION


def test_counts_under_another_rule_are_ignored_and_counted_again(
    vault: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "index"
    build_index(vault, index_dir, embedder=HashEmbedder())
    db = _db(index_dir)
    db.execute("UPDATE chunks SET shown_tokens = 0")
    db.commit()
    db.close()
    manifest = json.loads((index_dir / MANIFEST).read_text())
    (index_dir / MANIFEST).write_text(json.dumps(dict(manifest, shown_tokens=0)))
    assert not load_index(index_dir).has_shown_tokens

    note = next(vault.rglob("*.md"))
    note.write_text(note.read_text() + "\nOne more line.\n")
    build_index(vault, index_dir, embedder=HashEmbedder())
    _check_counts(index_dir)


def test_counting_that_fails_midway_leaves_the_previous_generation_whole(
    vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index_dir = tmp_path / "index"
    build_index(vault, index_dir, embedder=HashEmbedder())
    _make_old(index_dir)
    before = (index_dir / MANIFEST).read_text()
    real = indexer.build.shown_tokens
    calls = 0

    def failing(*args: object) -> int:
        nonlocal calls
        calls += 1
        if calls > 10:
            raise KeyboardInterrupt  # killed while counting the kept rows
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer.build, "shown_tokens", failing)
    note = next(vault.rglob("*.md"))
    note.write_text(note.read_text() + "\nOne more line.\n")
    with pytest.raises(KeyboardInterrupt):
        build_index(vault, index_dir, embedder=HashEmbedder())
    assert calls > 10
    assert (index_dir / MANIFEST).read_text() == before
    assert sorted(p.name for p in index_dir.iterdir()) == [".lock", "gen-000001", MANIFEST]
    assert not load_index(index_dir).has_shown_tokens  # still the old index, readable

    monkeypatch.setattr(indexer.build, "shown_tokens", real)
    build_index(vault, index_dir, embedder=HashEmbedder())
    _check_counts(index_dir)
