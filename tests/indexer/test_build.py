"""Incremental indexing: only what changed is parsed and embedded."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

import indexer.build
import indexer.read_notes
from indexer import build_index, load_index
from indexer.config import IndexConfig, IndexSettings
from indexer.store import MANIFEST
from tests.support.fakes import HashEmbedder
from tests.support.files import write

SAMPLE_CHUNKS = 77


@pytest.fixture
def index_dir(tmp_path: Path) -> Path:
    return tmp_path / "index"


@pytest.fixture
def indexed(sample_vault: Path, index_dir: Path) -> Path:
    """sample_vault (a private copy) indexed once; returns the vault."""
    stats = build_index(sample_vault, index_dir, embedder=HashEmbedder())
    assert stats.chunks_embedded == stats.chunks == SAMPLE_CHUNKS
    return sample_vault


def reindex(vault: Path, index_dir: Path, **kwargs: object):
    embedder = kwargs.pop("embedder", None) or HashEmbedder()
    stats = build_index(vault, index_dir, embedder=embedder, **kwargs)  # type: ignore[arg-type]
    return stats, embedder


def generation(index_dir: Path) -> str:
    return json.loads((index_dir / MANIFEST).read_text())["generation"]


@pytest.fixture
def parse_calls(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    calls: list[str] = []
    original = indexer.read_notes.parse_note

    def counting(path: str, *args: object, **kwargs: object):
        calls.append(path)
        return original(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(indexer.read_notes, "parse_note", counting)
    return calls


def test_first_run_counts(indexed: Path, index_dir: Path) -> None:
    manifest = json.loads((index_dir / MANIFEST).read_text())
    assert manifest["counts"]["added"] == 37 and manifest["counts"]["chunks_reused"] == 0


def test_no_change_embeds_nothing(indexed: Path, index_dir: Path, parse_calls: list[str]) -> None:
    stats, embedder = reindex(indexed, index_dir)
    assert stats.up_to_date
    assert embedder.calls == 0 and embedder.texts == []
    assert parse_calls == []
    assert (stats.notes, stats.chunks, stats.chunks_embedded, stats.chunks_reused) == (
        37,
        SAMPLE_CHUNKS,
        0,
        SAMPLE_CHUNKS,
    )
    assert stats.unchanged == 37 and stats.added == stats.changed == stats.removed == 0
    assert generation(index_dir) == "gen-000001"


def test_touching_a_file_reparses_nothing_and_is_not_read_again(
    indexed: Path, index_dir: Path, parse_calls: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = indexed / "Places/Käsekeller.md"
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    hashed: list[int] = []
    original = indexer.read_notes.content_hash
    monkeypatch.setattr(
        indexer.read_notes, "content_hash", lambda data: hashed.append(1) or original(data)
    )
    stats, embedder = reindex(indexed, index_dir)
    assert parse_calls == [] and embedder.texts == [] and len(hashed) == 1
    assert not stats.up_to_date and stats.changed == 0 and stats.unchanged == 37
    # The new mtime is recorded (the note's modified time follows it), so the next
    # run skips the file by size and mtime without reading it.
    note = load_index(index_dir).note_row("Places/Käsekeller")
    assert note is not None and note["modified"] == pytest.approx(st.st_mtime_ns / 1e9 + 5)
    stats, _ = reindex(indexed, index_dir)
    assert stats.up_to_date and len(hashed) == 1 and parse_calls == []


def test_editing_one_paragraph_re_embeds_only_that_chunk(
    indexed: Path, index_dir: Path, parse_calls: list[str]
) -> None:
    path = indexed / "Places/Käsekeller.md"
    before = {
        c.heading_path: c.vec_id for c in load_index(index_dir).chunks_of("Places/Käsekeller")
    }
    text = path.read_text()
    assert "Young wheels are turned every day" in text
    path.write_text(
        text.replace("Young wheels are turned every day", "Young wheels are flipped daily")
    )
    stats, embedder = reindex(indexed, index_dir)
    assert parse_calls == ["Places/Käsekeller.md"]
    assert len(embedder.texts) == 1
    assert "Young wheels are flipped daily" in embedder.texts[0]
    assert embedder.texts[0].startswith("Käsekeller\nKäsekeller > Daily Care\n\n")
    assert (stats.changed, stats.added, stats.removed, stats.unchanged) == (1, 0, 0, 36)
    assert stats.chunks_embedded == 1
    assert stats.chunks_embedded + stats.chunks_reused == stats.chunks == SAMPLE_CHUNKS
    snapshot = load_index(index_dir)
    after = {c.heading_path: c.vec_id for c in snapshot.chunks_of("Places/Käsekeller")}
    assert [k for k in after if after[k] != before.get(k)] == ["Käsekeller > Daily Care"]
    assert len(snapshot.vectors) == SAMPLE_CHUNKS  # the old vector was dropped
    assert "flipped daily" in snapshot.body("Places/Käsekeller")


def test_adding_a_note_embeds_only_it_and_resolves_old_links(
    indexed: Path, index_dir: Path
) -> None:
    assert load_index(index_dir).graph.nodes["Cheese Shop"]["kind"] == "ghost"
    write(indexed, "Projects/Cheese Shop.md", "# Cheese Shop\n\nA shop on the ground floor.\n")
    stats, embedder = reindex(indexed, index_dir)
    assert stats.added == 1 and stats.changed == 0
    assert len(embedder.texts) == 1 and embedder.texts[0].startswith("Cheese Shop\n")
    graph = load_index(index_dir).graph
    # Cellar Expansion was not re-parsed, yet its [[Cheese Shop]] now resolves.
    assert "Cheese Shop" not in graph
    assert graph.has_edge("Projects/Cellar Expansion", "Projects/Cheese Shop")
    assert graph.nodes["Projects/Cheese Shop"]["kind"] == "note"


def test_deleting_a_note_removes_its_rows_and_vectors(indexed: Path, index_dir: Path) -> None:
    before = load_index(index_dir)
    gone = {c.vec_id for c in before.chunks_of("People/Lena Fux")}
    assert gone
    (indexed / "People/Lena Fux.md").unlink()
    stats, embedder = reindex(indexed, index_dir)
    assert stats.removed == 1 and embedder.texts == []
    snap = load_index(index_dir)
    db = snap.db
    assert db.execute("SELECT COUNT(*) FROM notes WHERE uri = 'People/Lena Fux'").fetchone()[0] == 0
    assert (
        db.execute("SELECT COUNT(*) FROM chunks WHERE uri = 'People/Lena Fux'").fetchone()[0] == 0
    )
    assert db.execute("SELECT COUNT(*) FROM files WHERE path LIKE '%Lena Fux%'").fetchone()[0] == 0
    assert not gone & set(snap.vectors.ids().tolist())
    assert len(snap.vectors) == SAMPLE_CHUNKS - len(gone)
    assert "People/Lena Fux" not in snap.graph
    assert snap.graph.nodes["Lena Fux"]["kind"] == "ghost"  # links to her now point nowhere


def test_moving_a_note_keeps_its_vectors(indexed: Path, index_dir: Path) -> None:
    old_ids = [c.vec_id for c in load_index(index_dir).chunks_of("Dairy/Goat Herd")]
    (indexed / "Animals").mkdir()
    shutil.move(indexed / "Dairy/Goat Herd.md", indexed / "Animals/Goat Herd.md")
    stats, embedder = reindex(indexed, index_dir)
    assert embedder.texts == [] and stats.chunks_embedded == 0
    assert (stats.added, stats.removed) == (1, 1)
    snap = load_index(index_dir)
    assert [c.vec_id for c in snap.chunks_of("Animals/Goat Herd")] == old_ids
    assert snap.chunks_of("Dairy/Goat Herd") == []
    assert snap.graph.has_edge("Projects/Descent Festival", "Animals/Goat Herd")
    assert len(snap.vectors) == SAMPLE_CHUNKS


def test_renaming_a_note_with_a_title_keeps_its_vectors(indexed: Path, index_dir: Path) -> None:
    path = indexed / "Dairy/Goat Herd.md"
    path.write_text(path.read_text().replace("---\n", "---\ntitle: Goat Herd\n", 1))
    reindex(indexed, index_dir)
    old_ids = [c.vec_id for c in load_index(index_dir).chunks_of("Dairy/Goat Herd")]
    path.rename(indexed / "Places/Herd of Goats.md")
    stats, embedder = reindex(indexed, index_dir)
    assert embedder.texts == []
    assert [c.vec_id for c in load_index(index_dir).chunks_of("Places/Herd of Goats")] == old_ids


def test_another_embedder_forces_a_full_re_embed(indexed: Path, index_dir: Path) -> None:
    other = HashEmbedder(dim=32, name="test/other-model")
    stats, embedder = reindex(indexed, index_dir, embedder=other)
    assert "test/hash-embedder" in stats.full_reason and "test/other-model" in stats.full_reason
    assert "re-embedding" in stats.full_reason
    assert len(embedder.texts) == stats.chunks_embedded == SAMPLE_CHUNKS
    snap = load_index(index_dir)
    assert snap.manifest["model"] == "test/other-model"
    assert snap.manifest["dim"] == 32 and snap.vectors.dim == 32
    assert len(snap.vectors) == SAMPLE_CHUNKS


def test_full_re_embeds_everything(indexed: Path, index_dir: Path, parse_calls: list[str]) -> None:
    stats, embedder = reindex(indexed, index_dir, full=True)
    assert stats.full_reason == "--full"
    assert len(parse_calls) == 37
    assert len(embedder.texts) == SAMPLE_CHUNKS and stats.chunks_reused == 0
    assert not stats.up_to_date
    assert len(load_index(index_dir).vectors) == SAMPLE_CHUNKS


def test_changed_settings_re_parse_but_reuse_vectors(
    indexed: Path, index_dir: Path, parse_calls: list[str]
) -> None:
    config = IndexConfig(index=IndexSettings(hierarchy_properties=("up", "parent", "lead")))
    stats, embedder = reindex(indexed, index_dir, config=config)
    assert "settings changed" in stats.full_reason
    assert len(parse_calls) == 37
    assert embedder.texts == []  # chunk texts did not change
    graph = load_index(index_dir).graph
    # "lead" is now a hierarchy property: a parent edge instead of a property link.
    edges = graph.get_edge_data("Projects/Descent Festival", "People/Lena Fux")
    assert [d["type"] for d in edges.values()] == ["parent"]


def test_a_changed_chunk_limit_re_chunks(indexed: Path, index_dir: Path) -> None:
    config = IndexConfig(index=IndexSettings(chunk_tokens=64))
    stats, embedder = reindex(indexed, index_dir, config=config)
    assert stats.chunks > SAMPLE_CHUNKS
    assert stats.chunks_embedded == len(embedder.texts) > 0
    snap = load_index(index_dir)
    assert max(r[0] for r in snap.db.execute("SELECT tokens FROM chunks")) <= 64


def test_an_attachment_appearing_updates_link_targets(indexed: Path, index_dir: Path) -> None:
    write(indexed, "images/map.png", b"\x89PNG\r\n")
    stats, embedder = reindex(indexed, index_dir)
    assert not stats.up_to_date and embedder.texts == []
    graph = load_index(index_dir).graph
    assert graph.has_edge("Places/Pastures/Upper Pasture", "images/map.png")
    assert "map.png" not in graph


def test_a_changed_file_vanishing_mid_run_is_removed_cleanly(
    indexed: Path, index_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = indexed / "People/Ignaz Moser.md"
    victim.write_text(victim.read_text() + "\nA late addition.\n")
    glossary = indexed / "Glossary.md"
    glossary.write_text(glossary.read_text() + "\nOne more entry.\n")
    real_scan = indexer.build.scan_vault

    def scan_then_delete(*args: object, **kwargs: object):
        result = real_scan(*args, **kwargs)  # type: ignore[arg-type]
        victim.unlink()
        return result

    monkeypatch.setattr(indexer.build, "scan_vault", scan_then_delete)
    stats, _ = reindex(indexed, index_dir)
    assert stats.warnings == ["People/Ignaz Moser.md: vanished during indexing; skipped"]
    assert (stats.changed, stats.removed) == (1, 1)
    snap = load_index(index_dir)
    chunk_uris = {r[0] for r in snap.db.execute("SELECT DISTINCT uri FROM chunks")}
    assert "People/Ignaz Moser" not in chunk_uris
    assert chunk_uris <= set(snap.graph.nodes)  # no chunk belongs to a note the graph lacks
    note_paths = {r[0] for r in snap.db.execute("SELECT path FROM notes")}
    file_paths = {r[0] for r in snap.db.execute("SELECT path FROM files")}
    assert "People/Ignaz Moser.md" not in note_paths | file_paths
    assert set(snap.vectors.ids().tolist()) == {
        r[0] for r in snap.db.execute("SELECT vec_id FROM chunks")
    }


def test_stats_add_up_after_an_incremental_run(indexed: Path, index_dir: Path) -> None:
    (indexed / "People/Lena Fux.md").unlink()
    write(indexed, "People/New Member.md", "# New Member\n\nJoined in 2025.\n")
    stats, embedder = reindex(indexed, index_dir)
    assert stats.chunks_embedded == len(embedder.texts) == 1
    assert stats.chunks_embedded + stats.chunks_reused == stats.chunks
    assert stats.notes == 37
    assert stats.unchanged + stats.changed + stats.added == stats.notes


def test_an_index_inside_the_vault_does_not_index_itself(sample_vault: Path) -> None:
    index_dir = sample_vault / "Index Data"  # no dot: the scan would see it
    reindex(sample_vault, index_dir)
    stats, embedder = reindex(sample_vault, index_dir)
    assert stats.up_to_date and embedder.texts == []
    snap = load_index(index_dir)
    assert snap.manifest["generation"] == "gen-000001"
    files = [r[0] for r in snap.db.execute("SELECT path FROM files")]
    assert not any(p.startswith("Index Data/") for p in files)
