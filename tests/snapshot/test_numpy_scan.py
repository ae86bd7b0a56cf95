"""A small index is scored with numpy, not FAISS: the same rankings, no FAISS import."""

from __future__ import annotations

import faiss
import numpy as np
import pytest

from graphrag.snapshot import chunk_vectors, corpus
from graphrag.snapshot.chunk_vectors import FAISS_ROWS, ExactVectors, inner_products
from graphrag.snapshot.corpus import build_corpus
from tests.support.query_vault import KITCHEN, make_rag

DIM = 384  # the model's: FAISS's kernel and numpy's sum in different orders over it


def _unit(rows: int, seed: int) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _faiss_kernel(matrix: np.ndarray, q: np.ndarray) -> np.ndarray:
    out = np.empty(len(matrix), dtype=np.float32)
    faiss.fvec_inner_products_ny(
        faiss.swig_ptr(out), faiss.swig_ptr(q), faiss.swig_ptr(matrix), DIM, len(matrix)
    )
    return out


def test_numpy_scores_agree_with_a_faiss_flat_inner_product_index() -> None:
    matrix = _unit(5000, seed=0)
    index = faiss.IndexFlatIP(DIM)
    index.add(matrix)
    for seed in range(1, 6):
        q = _unit(1, seed)[0]
        scores = inner_products(matrix, q)
        assert len(matrix) < FAISS_ROWS  # so these came from numpy
        assert np.abs(scores - _faiss_kernel(matrix, q)).max() < 1e-6
        want_scores, want = index.search(q[None, :], 20)
        got = np.argsort(-scores, kind="stable")[:20]
        assert list(got) == list(want[0])
        assert np.allclose(scores[got], want_scores[0], atol=1e-6)


@pytest.mark.parametrize("faiss_rows", [FAISS_ROWS, 100])  # numpy's kernel, then FAISS's
def test_a_row_scores_the_same_bits_in_a_part_as_in_the_whole(monkeypatch, faiss_rows) -> None:
    monkeypatch.setattr(chunk_vectors, "FAISS_ROWS", faiss_rows)
    matrix = _unit(300, seed=7)
    exact, q = ExactVectors(matrix), _unit(1, seed=8)[0]
    whole = exact.scores(q)
    part = exact.subset_scores(q, [(10, 20), (250, 251)], np.array([3, 299, 120]))
    rows = [*range(10, 20), 250, 3, 299, 120]
    assert np.array_equal(part[rows], whole[rows])  # bit for bit
    assert np.isinf(np.delete(part, rows)).all()
    # the kernel is the whole matrix's: a 10-row part of a 300-row matrix uses FAISS's at 100
    kernel = _faiss_kernel if faiss_rows == 100 else inner_products
    assert np.array_equal(whole, kernel(matrix, q))


def test_the_corpus_read_without_faiss_is_the_one_read_through_it(tmp_path) -> None:
    rag = make_rag(tmp_path, KITCHEN)
    snap = rag.snapshot
    assert snap.index.loaded_vectors() is None
    numpy_read = build_corpus(snap.index, snap.graph)
    assert snap.index.loaded_vectors() is None  # the file was read with numpy alone
    snap.index.vectors  # noqa: B018 - loads FAISS's index, as a server's warm-up does
    faiss_read = build_corpus(snap.index, snap.graph)
    assert np.array_equal(numpy_read.matrix, faiss_read.matrix)
    assert numpy_read.chunk_start.tolist() == faiss_read.chunk_start.tolist()


def test_a_file_numpy_cannot_read_goes_through_faiss(tmp_path, monkeypatch) -> None:
    rag = make_rag(tmp_path, KITCHEN)
    snap = rag.snapshot
    want = build_corpus(snap.index, snap.graph).matrix
    monkeypatch.setattr(corpus, "read_flat", lambda path: None)
    assert np.array_equal(build_corpus(snap.index, snap.graph).matrix, want)
    assert snap.index.loaded_vectors() is not None
