"""The index on disk: layout, manifest, schema, the graph and vectors read back from the store."""

from __future__ import annotations

import fcntl
import json
import sqlite3
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import indexer.parse
import indexer.read_notes
import indexer.store
from indexer import (
    IndexBusyError,
    IndexMissingError,
    IndexStaleError,
    __version__,
    build_index,
    load_index,
    parse_vault,
)
from indexer.chunk import _prefix
from indexer.store import MANIFEST, SCHEMA_VERSION
from indexer.tokens import get_tokenizer
from tests.support.fakes import HashEmbedder


@pytest.fixture
def indexed(sample_vault: Path, tmp_path: Path) -> tuple[Path, Path]:
    index_dir = tmp_path / "index"
    build_index(sample_vault, index_dir, embedder=HashEmbedder())
    return sample_vault, index_dir


def test_layout_and_manifest(indexed: tuple[Path, Path]) -> None:
    vault, index_dir = indexed
    manifest = json.loads((index_dir / MANIFEST).read_text())
    assert manifest["generation"] == "gen-000001"
    assert manifest["schema"] == SCHEMA_VERSION
    assert manifest["model"] == "test/hash-embedder"
    assert manifest["dim"] == 64
    assert manifest["tokenizer"] == "cl100k_base"
    assert manifest["tool_version"] == __version__
    assert manifest["vault"] == str(vault.resolve())
    assert isinstance(manifest["config_hash"], str) and manifest["config_hash"]
    assert manifest["counts"]["notes"] == 37
    gen = index_dir / "gen-000001"
    assert sorted(p.name for p in gen.iterdir()) == [
        "index.sqlite",
        "note_vectors.npz",
        "vectors.faiss",
    ]
    # Nothing else is left behind: no temp folders, no stray files.
    assert sorted(p.name for p in index_dir.iterdir()) == [".lock", "gen-000001", MANIFEST]


def test_sqlite_schema_version_and_tables(indexed: tuple[Path, Path]) -> None:
    _, index_dir = indexed
    db = sqlite3.connect(index_dir / "gen-000001" / "index.sqlite")
    assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert {"notes", "chunks", "links", "tags", "files", "nodes", "meta", "warnings"} <= tables
    assert db.execute("SELECT COUNT(*) FROM notes").fetchone()[0] == 37
    files = dict(db.execute("SELECT kind, COUNT(*) FROM files GROUP BY kind").fetchall())
    assert files == {"note": 37}  # sample_vault holds no attachments
    db.close()


def _edges(g) -> Counter:
    return Counter(
        (u, v, d.get("type"), d.get("predicate"), d.get("subpath"))
        for u, v, d in g.edges(data=True)
    )


def test_loaded_graph_equals_the_parsed_graph(indexed: tuple[Path, Path]) -> None:
    vault, index_dir = indexed
    built, _, _ = parse_vault(vault)
    loaded = load_index(index_dir).graph
    assert set(loaded.nodes) == set(built.graph.nodes)
    for uri, attrs in built.graph.nodes(data=True):
        assert dict(loaded.nodes[uri]) == dict(attrs), uri
    assert _edges(loaded) == _edges(built.graph)
    assert {d["type"] for _, _, d in loaded.edges(data=True)} == {
        "parent",
        "wikilink",
        "embed",
        "markdown",
        "property",
        "tag",
    }


def test_the_graph_is_loaded_from_the_store_not_re_parsed(
    indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, index_dir = indexed
    built, _, _ = parse_vault(vault)

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("load_index must not parse notes")

    monkeypatch.setattr(indexer.parse, "parse_note", forbidden)
    monkeypatch.setattr(indexer.read_notes, "parse_note", forbidden)
    for path in vault.rglob("*.md"):  # the vault's notes are not even there any more
        path.unlink()
    snapshot = load_index(index_dir)
    assert _edges(snapshot.graph) == _edges(built.graph)
    assert snapshot.body("Places/Huts/Spring Box").lstrip().startswith("up:: [[Shepherd's Hut]]")
    assert snapshot.note_row("Home")["aliases"] == ["Start Here"]


def test_vector_ids_match_chunk_rows(indexed: tuple[Path, Path]) -> None:
    _, index_dir = indexed
    snapshot = load_index(index_dir)
    db_ids = {r[0] for r in snapshot.db.execute("SELECT vec_id FROM chunks")}
    faiss_ids = snapshot.vectors.ids().tolist()
    assert len(faiss_ids) == len(set(faiss_ids))
    assert set(faiss_ids) == db_ids
    assert len(snapshot.vectors) == snapshot.manifest["counts"]["chunks"] == len(db_ids)
    # Each stored vector is the embedding of that chunk's own text.
    embedder = HashEmbedder()
    titles = dict(snapshot.db.execute("SELECT uri, title FROM notes").fetchall())
    for uri in ("Places/Käsekeller", "Home", "Dairy/Cheese Making/Recipes/Smoked Ziger"):
        for chunk in snapshot.chunks_of(uri):
            text = (_prefix(titles[uri], chunk.heading_path) + chunk.text).strip()
            expected = embedder.embed([text])[0]
            assert np.allclose(snapshot.vectors.get([chunk.vec_id])[0], expected, atol=1e-6)


def test_stored_chunks_fit_the_limit_and_carry_title_and_headings(
    indexed: tuple[Path, Path],
) -> None:
    _, index_dir = indexed
    snapshot = load_index(index_dir)
    tokenizer = get_tokenizer("cl100k_base")
    titles = dict(snapshot.db.execute("SELECT uri, title FROM notes").fetchall())
    rows = snapshot.db.execute("SELECT uri, heading_path, text, tokens FROM chunks").fetchall()
    assert len(rows) == 77
    for uri, heading_path, text, tokens in rows:
        embedded = (_prefix(titles[uri], heading_path) + text).strip()
        assert tokens == tokenizer.count(embedded) <= 256
    paths = {hp for uri, hp, _, _ in rows if uri == "Places/Käsekeller"}
    assert {"Käsekeller > Climate", "Käsekeller > History"} <= paths


def test_vector_search_finds_the_chunk_it_was_given(indexed: tuple[Path, Path]) -> None:
    _, index_dir = indexed
    snapshot = load_index(index_dir)
    chunk = snapshot.chunks_of("Dairy/Goat Herd")[0]
    scores, ids = snapshot.vectors.search(snapshot.vectors.get([chunk.vec_id])[0], 3)
    assert ids[0] == chunk.vec_id and scores[0] == pytest.approx(1.0, abs=1e-5)
    (row,) = snapshot.chunks_for_vectors([int(ids[0])])
    assert row.uri == "Dairy/Goat Herd"


def test_each_update_is_a_new_generation_and_old_ones_are_cleaned(
    indexed: tuple[Path, Path],
) -> None:
    vault, index_dir = indexed
    first = load_index(index_dir)
    (vault / "New One.md").write_text("# New\n\nfresh [[Home]]\n")
    build_index(vault, index_dir, embedder=HashEmbedder())
    assert json.loads((index_dir / MANIFEST).read_text())["generation"] == "gen-000002"
    # A reader of the previous generation keeps a consistent snapshot.
    assert (index_dir / "gen-000001").is_dir()
    assert first.body("New One") == "" and "New One" not in first.graph
    (vault / "New Two.md").write_text("# Two\n")
    build_index(vault, index_dir, embedder=HashEmbedder())
    gens = sorted(p.name for p in index_dir.iterdir() if p.name.startswith("gen-"))
    assert gens == ["gen-000002", "gen-000003"]
    latest = load_index(index_dir)
    assert "New One" in latest.graph and "New Two" in latest.graph


def test_missing_index_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(IndexMissingError, match="run `vault-graphrag index VAULT` first"):
        load_index(tmp_path / "nothing")


def test_an_unknown_older_schema_is_stale_and_rebuilt(indexed: tuple[Path, Path]) -> None:
    vault, index_dir = indexed
    manifest_path = index_dir / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    manifest_path.write_text(json.dumps(dict(manifest, schema=0)))
    with pytest.raises(IndexStaleError, match="schema 0 is not 1-3; re-index with --full"):
        load_index(index_dir)
    embedder = HashEmbedder()
    stats = build_index(vault, index_dir, embedder=embedder)
    assert "schema" in stats.full_reason
    assert len(embedder.texts) == stats.chunks == 77
    assert load_index(index_dir).manifest["schema"] == SCHEMA_VERSION


def test_a_newer_schema_is_refused_not_rebuilt(indexed: tuple[Path, Path]) -> None:
    vault, index_dir = indexed
    manifest_path = index_dir / MANIFEST
    newer = dict(json.loads(manifest_path.read_text()), schema=SCHEMA_VERSION + 1)
    manifest_path.write_text(json.dumps(newer))
    with pytest.raises(IndexStaleError, match="written by a newer vault-graphrag"):
        load_index(index_dir)
    embedder = HashEmbedder()
    # An update would throw the newer version's index away with older rules: refused.
    with pytest.raises(IndexStaleError, match="upgrade vault-graphrag, or rebuild .* --full"):
        build_index(vault, index_dir, embedder=embedder)
    assert embedder.texts == [] and json.loads(manifest_path.read_text()) == newer
    # Asked for in so many words, the rebuild goes ahead.
    stats = build_index(vault, index_dir, embedder=embedder, full=True)
    assert stats.chunks == 77
    assert load_index(index_dir).manifest["schema"] == SCHEMA_VERSION


def test_one_writer_at_a_time(indexed: tuple[Path, Path]) -> None:
    vault, index_dir = indexed
    with open(index_dir / ".lock", "a+") as fh:
        fcntl.flock(fh.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            with pytest.raises(IndexBusyError, match="another indexer is running"):
                build_index(vault, index_dir, embedder=HashEmbedder(), full=True)
        finally:
            fcntl.flock(fh.fileno(), fcntl.LOCK_UN)
    assert build_index(vault, index_dir, embedder=HashEmbedder()).up_to_date


def test_crash_before_the_manifest_replace_keeps_the_old_generation(
    indexed: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    vault, index_dir = indexed
    old_body = load_index(index_dir).body("Glossary")
    (vault / "Glossary.md").write_text("# Glossary\n\nRewritten entirely.\n")

    def crash(path: Path, data: dict) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(indexer.store, "write_json_atomic", crash)
    with pytest.raises(OSError, match="disk full"):
        build_index(vault, index_dir, embedder=HashEmbedder())
    snapshot = load_index(index_dir)
    assert snapshot.manifest["generation"] == "gen-000001"
    assert snapshot.body("Glossary") == old_body
    assert len(snapshot.vectors) == 77
    assert not [p for p in index_dir.iterdir() if ".tmp" in p.name]

    monkeypatch.undo()
    stats = build_index(vault, index_dir, embedder=HashEmbedder())
    assert stats.changed == 1 and not stats.up_to_date
    after = load_index(index_dir)
    assert after.manifest["generation"] == "gen-000002"
    assert after.body("Glossary").strip().endswith("Rewritten entirely.")


def _free_pages(index_dir: Path) -> tuple[int, int]:
    """(free pages, all pages) of the current generation's SQLite file."""
    gen = json.loads((index_dir / MANIFEST).read_text())["generation"]
    db = sqlite3.connect(index_dir / gen / "index.sqlite")
    try:
        return (
            db.execute("PRAGMA freelist_count").fetchone()[0],
            db.execute("PRAGMA page_count").fetchone()[0],
        )
    finally:
        db.close()


@pytest.mark.parametrize("compacts", [True, False])
def test_an_update_that_frees_much_of_the_file_compacts_it(
    sample_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, compacts: bool
) -> None:
    index_dir = tmp_path / "index"
    build_index(sample_vault, index_dir, embedder=HashEmbedder())
    for note in sorted(sample_vault.rglob("*.md"))[::2]:
        note.unlink()  # half the notes: their rows' pages are freed in the copy
    monkeypatch.setattr(indexer.store, "COMPACT_MIN_BYTES", 0)
    if not compacts:  # the control: the same update, never compacted
        monkeypatch.setattr(indexer.store, "COMPACT_SHARE", 2.0)
    build_index(sample_vault, index_dir, embedder=HashEmbedder())
    free, pages = _free_pages(index_dir)
    if compacts:
        assert free == 0
    else:
        assert free > pages / 10  # what the update leaves behind without compacting
    # either way the index answers for the notes left
    assert len(load_index(index_dir).graph) > 0


def test_a_few_free_pages_are_kept_rather_than_rewriting_the_file(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / "x.sqlite")
    db.execute("CREATE TABLE t (b BLOB)")
    db.executemany("INSERT INTO t VALUES (?)", [(b"x" * 4000,)] * 1000)  # ~4 MB
    db.commit()
    db.execute("DELETE FROM t WHERE rowid <= 100")  # a tenth freed: under the share
    db.commit()
    assert indexer.store.compact(db) is False
    assert db.execute("PRAGMA freelist_count").fetchone()[0] >= 100
    db.execute("DELETE FROM t WHERE rowid <= 600")  # over half freed
    db.commit()
    assert indexer.store.compact(db) is True
    assert db.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert db.execute("SELECT count(*) FROM t").fetchone()[0] == 400
