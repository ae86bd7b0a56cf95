"""A killed build resumes its embedding: ``INDEX/embedding.partial`` (partial_vectors.py)
keeps each slice's vectors, and the next build embeds only the chunks it lacks."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

import indexer.partial_vectors as pv
from indexer import build_index, load_index
from indexer.store import MANIFEST
from tests.support.fakes import HashEmbedder
from tests.support.files import ROOT
from tests.support.kill import kill_when_flagged

SLICE = 10  # sample_vault's 77 chunks: eight slices


class Killed(Exception):
    pass


class DiesAfter(HashEmbedder):
    """Embeds ``slices`` calls' worth of texts, then fails as a killed process would."""

    def __init__(self, slices: int, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.slices = slices

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        if self.calls == self.slices:
            raise Killed
        return super().embed(texts, progress)


@pytest.fixture(autouse=True)
def small_slices(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pv, "SLICE_TEXTS", SLICE)


def build(vault: Path, index_dir: Path, embedder: HashEmbedder | None = None, **kwargs: object):
    embedder = embedder or HashEmbedder()
    stats = build_index(vault, index_dir, embedder=embedder, **kwargs)  # type: ignore[arg-type]
    return stats, embedder


def interrupted(vault: Path, index_dir: Path, slices: int = 3, **kwargs: object) -> DiesAfter:
    embedder = DiesAfter(slices, **kwargs)
    with pytest.raises(Killed):
        build_index(vault, index_dir, embedder=embedder)  # type: ignore[arg-type]
    return embedder


def stored(index_dir: Path) -> dict[int, np.ndarray]:
    return pv.PartialVectors.open(index_dir, HashEmbedder()).vectors


def vectors_by_id(index_dir: Path) -> dict[int, np.ndarray]:
    snap = load_index(index_dir)
    try:
        ids, vecs = snap.vectors.matrix()
        return dict(zip(ids.tolist(), vecs.copy(), strict=True))
    finally:
        snap.close()


def chunk_rows(index_dir: Path) -> list[tuple]:
    snap = load_index(index_dir)
    try:
        return snap.db.execute(
            "SELECT uri, seq, heading_path, text, vec_id FROM chunks ORDER BY uri, seq"
        ).fetchall()
    finally:
        snap.close()


def assert_same_index(index_dir: Path, fresh_dir: Path) -> None:
    assert chunk_rows(index_dir) == chunk_rows(fresh_dir)
    mine, fresh = vectors_by_id(index_dir), vectors_by_id(fresh_dir)
    assert sorted(mine) == sorted(fresh)
    for i, vec in fresh.items():
        np.testing.assert_allclose(mine[i], vec, atol=1e-6)
    # Retrieval: the same top 10, in the same order, for questions from the vault's words.
    for question in ("cheese cellar temperature", "brine salt", "project meeting notes"):
        query = HashEmbedder().embed([question])[0]
        a, b = (load_index(d) for d in (index_dir, fresh_dir))
        try:
            assert (
                a.vectors.search(query, 10)[1].tolist() == b.vectors.search(query, 10)[1].tolist()
            )
        finally:
            a.close()
            b.close()


@pytest.fixture
def fresh_dir(sample_vault: Path, tmp_path: Path) -> Path:
    """An uninterrupted build of the same vault, to compare with."""
    build(sample_vault, tmp_path / "fresh")
    return tmp_path / "fresh"


def test_a_build_killed_mid_embedding_resumes_where_it_stopped(
    sample_vault: Path, tmp_path: Path, fresh_dir: Path
) -> None:
    index_dir = tmp_path / "idx"
    dead = interrupted(sample_vault, index_dir, slices=3)
    assert not (index_dir / MANIFEST).exists()  # nothing committed ...
    kept = stored(index_dir)  # ... but the three slices embedded are kept
    assert len(kept) == 3 * SLICE == len(dead.texts)

    stats, embedder = build(sample_vault, index_dir)
    total = stats.chunks_embedded + stats.chunks_resumed
    assert stats.chunks_resumed == 3 * SLICE
    assert len(embedder.texts) == stats.chunks_embedded == total - 3 * SLICE
    assert not set(embedder.texts) & set(dead.texts)  # none embedded twice
    assert stats.chunks_reused == stats.chunks - total
    assert_same_index(index_dir, fresh_dir)
    assert not (index_dir / pv.FILE).exists()  # committed: the partial file is gone


def test_progress_counts_resumed_chunks_as_done(sample_vault: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    interrupted(sample_vault, index_dir, slices=2)
    seen: list[tuple[int, int]] = []

    def progress(phase: str, done: int, total: int) -> None:
        if phase == "embedding":
            seen.append((done, total))

    stats = build_index(sample_vault, index_dir, embedder=HashEmbedder(), progress=progress)
    total = stats.chunks_embedded + stats.chunks_resumed
    assert seen[:2] == [(0, total), (2 * SLICE, total)]
    assert seen[-1] == (total, total)


def test_a_torn_last_slice_is_ignored(sample_vault: Path, tmp_path: Path, fresh_dir: Path) -> None:
    index_dir = tmp_path / "idx"
    interrupted(sample_vault, index_dir, slices=3)
    path = index_dir / pv.FILE
    whole = path.read_bytes()
    path.write_bytes(whole[:-100])  # the third slice cut short, as a kill mid-write leaves it
    assert len(stored(index_dir)) == 2 * SLICE

    stats, embedder = build(sample_vault, index_dir)
    assert stats.chunks_resumed == 2 * SLICE
    assert len(embedder.texts) == stats.chunks_embedded
    assert_same_index(index_dir, fresh_dir)


def test_a_damaged_slice_and_what_follows_are_ignored_and_cut_off(
    sample_vault: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "idx"
    interrupted(sample_vault, index_dir, slices=3)
    path = index_dir / pv.FILE
    data = bytearray(path.read_bytes())
    data[-5] ^= 0xFF  # a flipped byte in the third slice: its checksum fails
    path.write_bytes(bytes(data) + b"garbage after it")
    assert len(stored(index_dir)) == 2 * SLICE
    # The next killed run appends after the two good slices, so all it embedded is kept.
    again = interrupted(sample_vault, index_dir, slices=2)
    assert len(stored(index_dir)) == 2 * SLICE + len(again.texts) == 4 * SLICE


@pytest.mark.parametrize(
    "other", [{"name": "test/another-model"}, {"dim": 32}], ids=["model", "dim"]
)
def test_a_partial_file_of_another_embedder_is_replaced(
    sample_vault: Path, tmp_path: Path, fresh_dir: Path, other: dict
) -> None:
    index_dir = tmp_path / "idx"
    interrupted(sample_vault, index_dir, slices=3, **other)
    header = json.loads((index_dir / pv.FILE).read_bytes().split(b"\n")[1])
    assert header["model"] == other.get("name", "test/hash-embedder")
    assert stored(index_dir) == {}  # not this embedder's: nothing usable

    dead = interrupted(sample_vault, index_dir, slices=2)  # replaced, not appended to
    header = json.loads((index_dir / pv.FILE).read_bytes().split(b"\n")[1])
    assert header == {
        "model": "test/hash-embedder",
        "embedding": {"backend": "custom", "dtype": "float32"},
        "dim": 64,
    }
    assert len(stored(index_dir)) == len(dead.texts) == 2 * SLICE

    stats, _ = build(sample_vault, index_dir)
    assert stats.chunks_resumed == 2 * SLICE
    assert_same_index(index_dir, fresh_dir)


def test_a_stale_partial_file_gives_only_what_is_still_needed(
    sample_vault: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "idx"
    interrupted(sample_vault, index_dir, slices=3)
    kept = set(stored(index_dir))
    for path in sample_vault.rglob("*.md"):  # each note's last chunk changes
        path.write_text(path.read_text(encoding="utf-8") + "\n\nEdited.\n", encoding="utf-8")
    build(sample_vault, tmp_path / "fresh")
    needed = set(vectors_by_id(tmp_path / "fresh"))
    assert 0 < len(kept & needed) < len(kept)

    stats, embedder = build(sample_vault, index_dir)
    assert stats.chunks_resumed == len(kept & needed)
    assert stats.chunks_embedded == len(needed - kept) == len(embedder.texts)
    assert_same_index(index_dir, tmp_path / "fresh")
    assert not (index_dir / pv.FILE).exists()


def test_an_up_to_date_run_removes_a_leftover_partial_file(
    sample_vault: Path, tmp_path: Path
) -> None:
    index_dir = tmp_path / "idx"
    build(sample_vault, index_dir)
    interrupted_full = DiesAfter(2)
    with pytest.raises(Killed):
        build_index(sample_vault, index_dir, embedder=interrupted_full, full=True)  # type: ignore[arg-type]
    assert (index_dir / pv.FILE).exists()
    stats, _ = build(sample_vault, index_dir)
    assert stats.up_to_date
    assert sorted(p.name for p in index_dir.iterdir()) == [".lock", "gen-000001", MANIFEST]


def test_a_one_slice_job_writes_no_partial_file(
    sample_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pv, "SLICE_TEXTS", 1000)
    index_dir = tmp_path / "idx"
    interrupted(sample_vault, index_dir, slices=0)
    assert not (index_dir / pv.FILE).exists()


CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    sys.path.insert(0, {root!r})
    import indexer.partial_vectors as pv
    from indexer import build_index
    from tests.support.fakes import HashEmbedder

    pv.SLICE_TEXTS = {slice!r}
    flag = Path({flag!r})

    class Slow(HashEmbedder):
        def embed(self, texts, progress=None):
            if self.calls == 3:  # three slices appended: wait for the kill
                flag.write_text(str(len(self.texts)))
                time.sleep(600)
            return super().embed(texts, progress)

    build_index({vault!r}, {index_dir!r}, embedder=Slow())
    """
)


def test_kill_9_mid_embedding_then_the_next_build_embeds_only_the_rest(
    sample_vault: Path, tmp_path: Path, fresh_dir: Path
) -> None:
    index_dir, flag, script = tmp_path / "idx", tmp_path / "flag", tmp_path / "child.py"
    script.write_text(
        CHILD.format(
            root=str(ROOT),
            slice=SLICE,
            flag=str(flag),
            vault=str(sample_vault),
            index_dir=str(index_dir),
        )
    )
    kill_when_flagged(script, flag)
    assert len(stored(index_dir)) == 3 * SLICE
    assert any(p.name.startswith(".gen-") for p in index_dir.iterdir())  # its temp generation

    stats, embedder = build(sample_vault, index_dir)
    assert stats.chunks_resumed == 3 * SLICE
    assert len(embedder.texts) == stats.chunks_embedded
    assert stats.leftovers_removed  # the temp generation went, the partial file served
    assert_same_index(index_dir, fresh_dir)
    assert sorted(p.name for p in index_dir.iterdir()) == [".lock", "gen-000001", MANIFEST]
