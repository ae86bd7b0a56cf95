"""``vectors.faiss`` read with numpy alone gives what FAISS reads, or nothing."""

from __future__ import annotations

from pathlib import Path

import faiss
import numpy as np
import pytest

from indexer.flat_file import parse_flat, read_flat
from indexer.vectors import VectorIndex

DIM = 16


def _saved(tmp_path: Path, rows: int = 40) -> Path:
    rng = np.random.default_rng(0)
    index = VectorIndex(DIM)
    index.add(rng.integers(1, 2**62, rows), rng.standard_normal((rows, DIM)).astype(np.float32))
    index.remove(index.ids()[[3, 17]])  # ids out of order, rows moved by the removal
    path = tmp_path / "vectors.faiss"
    index.save(path)
    return path


def test_the_ids_and_vectors_are_faiss_own(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    ids, vectors = VectorIndex.load(path).matrix()
    got = read_flat(path)
    assert got is not None
    assert got[0].dtype == np.int64 and got[1].dtype == np.float32
    assert np.array_equal(got[0], ids) and np.array_equal(got[1], vectors)
    assert got[1].flags.writeable  # a copy, not a view of the file's bytes


def test_an_empty_index_reads_as_no_rows(tmp_path: Path) -> None:
    path = tmp_path / "vectors.faiss"
    VectorIndex(DIM).save(path)
    got = read_flat(path)
    assert got is not None and got[0].shape == (0,) and got[1].shape == (0, DIM)


@pytest.mark.parametrize(
    "index",
    [
        lambda: faiss.IndexIDMap2(faiss.IndexHNSWFlat(DIM, 8)),
        lambda: faiss.IndexFlatIP(DIM),  # no id map
        lambda: faiss.IndexIDMap2(faiss.IndexFlat(DIM, faiss.METRIC_L1)),  # a metric argument
    ],
)
def test_another_layout_is_left_to_faiss(tmp_path: Path, index) -> None:
    built = index()
    vectors = np.random.default_rng(1).standard_normal((5, DIM)).astype(np.float32)
    if isinstance(built, faiss.IndexIDMap2):
        built.add_with_ids(vectors, np.arange(5, dtype=np.int64))
    else:
        built.add(vectors)
    path = tmp_path / "other.faiss"
    faiss.write_index(built, str(path))
    assert read_flat(path) is None


def test_a_damaged_or_missing_file_is_left_to_faiss(tmp_path: Path) -> None:
    data = _saved(tmp_path).read_bytes()
    assert parse_flat(data) is not None
    assert parse_flat(data[:-1]) is None  # truncated ids
    assert parse_flat(data[: len(data) // 2]) is None  # truncated vectors
    assert parse_flat(data + b"\0") is None  # bytes after the ids
    assert parse_flat(b"") is None and parse_flat(data[:30]) is None
    assert read_flat(tmp_path / "missing.faiss") is None
