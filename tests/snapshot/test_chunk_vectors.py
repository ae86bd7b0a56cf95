"""The chunk-vector layouts a question is scanned against: float32, and float16 with the
best rows scored again in float32 (large vaults)."""

from __future__ import annotations

import numpy as np
import pytest

from graphrag.snapshot import chunk_vectors, corpus
from graphrag.snapshot.chunk_vectors import ExactVectors, HalfVectors, inner_products
from graphrag.snapshot.corpus import build_corpus
from tests.support.query_vault import KITCHEN, make_rag

pytest.importorskip("torch")

DIM = 64


def _vectors(rows: int, seed: int = 0) -> np.ndarray:
    m = np.random.default_rng(seed).standard_normal((rows, DIM)).astype(np.float32)
    return m / np.linalg.norm(m, axis=1, keepdims=True)


def _layouts(rows: int = 3000) -> tuple[ExactVectors, HalfVectors, np.ndarray]:
    """The same rows both ways; the FAISS-side storage is shuffled, and row 7 has no vector."""
    matrix = _vectors(rows)
    matrix[7] = 0.0
    shuffle = np.random.default_rng(1).permutation(rows)
    storage = np.ascontiguousarray(matrix[shuffle])
    positions = np.argsort(shuffle)  # row r is storage[positions[r]]
    positions[7] = -1
    return ExactVectors(matrix), HalfVectors.build(storage, positions, owner=None), matrix


def test_inner_products_is_matrix_times_vector_and_checks_the_dimension():
    m, q = _vectors(500), _vectors(1, seed=2)[0]
    assert np.allclose(inner_products(m, q), m @ q, atol=1e-6)
    assert np.allclose(inner_products(m[100:200], q), m[100:200] @ q, atol=1e-6)
    assert inner_products(m[:0], q).shape == (0,)
    with pytest.raises(ValueError, match="dimension"):
        inner_products(m, q[:10])


def test_half_scores_are_close_and_the_best_rows_exact(monkeypatch):
    monkeypatch.setattr(chunk_vectors, "RESCORE_ROWS", 50)
    exact, half, matrix = _layouts()
    q = _vectors(1, seed=3)[0]
    want, got = exact.scores(q), half.scores(q)
    assert got.dtype == np.float32 and got.shape == want.shape
    assert np.abs(got - want).max() < 2e-3
    best = np.argsort(-want)[:40]
    assert np.array_equal(got[best], want[best])  # exact, not merely close
    assert list(np.argsort(-got)[:40]) == list(best)
    assert got[7] == 0.0  # the row without a vector


def test_half_subsets_sums_and_matrix_match_float32(monkeypatch):
    monkeypatch.setattr(chunk_vectors, "RESCORE_ROWS", 10_000)  # every row exact
    exact, half, matrix = _layouts()
    q = _vectors(1, seed=4)[0]
    blocks, scattered = [(10, 400), (900, 950)], np.array([2000, 5, 2999, 7])
    want = exact.subset_scores(q, blocks, scattered)
    got = half.subset_scores(q, blocks, scattered)
    assert np.array_equal(np.isinf(got), np.isinf(want)) and np.isinf(got[500])
    assert np.array_equal(got[np.isfinite(got)], want[np.isfinite(want)])
    assert np.allclose(half.vector_sum(blocks, scattered), exact.vector_sum(blocks, scattered))
    assert half.nbytes() < exact.nbytes()
    assert np.array_equal(half.matrix, matrix)  # built on demand, for batch work


def test_a_large_vault_gets_the_half_layout_with_the_same_answers(tmp_path, monkeypatch):
    rag = make_rag(tmp_path, KITCHEN)
    snap = rag.snapshot
    small = build_corpus(snap.index, snap.graph)
    monkeypatch.setattr(corpus, "HALF_ROWS", 1)
    monkeypatch.setattr(corpus, "half_scan_is_faster", lambda: True)
    large = build_corpus(snap.index, snap.graph)
    assert isinstance(small.vectors, ExactVectors) and isinstance(large.vectors, HalfVectors)
    assert large.chunk_count == small.chunk_count and large.dim == small.dim
    assert np.array_equal(large.matrix, small.matrix)
    q = rag.embed_query("bread recipe with flour and yeast")
    scores = small.chunk_scores(q)
    assert np.array_equal(large.chunk_scores(q), scores)
    sims = small.note_sims(scores)
    assert np.array_equal(large.note_sims(scores), sims)  # torch's segment max
    some = np.array([1, 4, 5])
    part = small.note_sims(scores, some)
    assert np.array_equal(part[some], sims[some]) and (np.delete(part, some) == -1).all()
    rows = np.arange(small.chunk_count)
    assert list(small.notes_of_rows(rows)) == [
        i for i in range(len(small)) if small.chunk_rows(i)[1] > small.chunk_rows(i)[0]
    ]

    # Through the searches and query mode: the same results from a fresh snapshot.
    before = rag.semantic_search("bread recipe", top_k=5), rag.query("bread recipe", seed=0)
    hier = rag.hierarchical_search("bread recipe", top_k=5)
    rag.reload()
    after = rag.semantic_search("bread recipe", top_k=5), rag.query("bread recipe", seed=0)

    assert isinstance(rag.snapshot.corpus.vectors, HalfVectors)
    assert [h.uri for h in after[0].hits] == [h.uri for h in before[0].hits]
    assert [h.score for h in after[0].hits] == [h.score for h in before[0].hits]
    assert after[1].to_json() == before[1].to_json()
    assert rag.hierarchical_search("bread recipe", top_k=5).hits == hier.hits


def test_a_long_half_scan_split_over_two_threads_gives_the_same_scores(monkeypatch):
    exact, half, matrix = _layouts(rows=5000)
    q = _vectors(1, seed=5)[0]
    whole, part = half.scores(q), half.subset_scores(q, [(0, 3000)], None)
    monkeypatch.setattr(chunk_vectors, "SPLIT_ROWS", 1000)
    assert np.array_equal(half.scores(q), whole)
    assert np.array_equal(half.subset_scores(q, [(0, 3000)], None), part)


def test_a_large_vault_keeps_float32_where_float16_scans_no_faster(tmp_path, monkeypatch):
    rag = make_rag(tmp_path, KITCHEN)
    monkeypatch.setattr(corpus, "HALF_ROWS", 1)
    monkeypatch.setattr(corpus, "half_scan_is_faster", lambda: False)
    snap = rag.snapshot
    assert isinstance(build_corpus(snap.index, snap.graph).vectors, ExactVectors)


@pytest.fixture
def fresh_probe(monkeypatch, tmp_path):
    """No answer remembered in this process or cache; the measurement is ours to fake."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(chunk_vectors, "_HALF_FASTER", None)
    measured = []

    def measure(ratio):
        monkeypatch.setattr(chunk_vectors, "_measure_half", lambda: measured.append(1) or ratio)

    return measure, measured


@pytest.mark.parametrize(("ratio", "faster"), [(0.6, True), (0.95, False), (1.3, False)])
def test_float16_is_chosen_by_measurement_once_per_machine(fresh_probe, ratio, faster, monkeypatch):
    measure, measured = fresh_probe
    measure(ratio)
    assert chunk_vectors.half_scan_is_faster() is faster
    assert chunk_vectors.half_scan_is_faster() is faster and measured == [1]  # once a process
    # Another process on this machine reads the answer instead of measuring again.
    monkeypatch.setattr(chunk_vectors, "_HALF_FASTER", None)
    measure(99.0)
    assert chunk_vectors.half_scan_is_faster() is faster and measured == [1]


def test_the_remembered_answer_is_per_cpu_and_torch_version(fresh_probe, monkeypatch):
    measure, measured = fresh_probe
    measure(0.5)
    assert chunk_vectors.half_scan_is_faster()
    monkeypatch.setattr(chunk_vectors, "_HALF_FASTER", None)
    monkeypatch.setattr(chunk_vectors, "_cpu_name", lambda: "Another CPU")
    measure(2.0)
    assert not chunk_vectors.half_scan_is_faster() and measured == [1, 1]


def test_the_measurement_times_both_scans_the_way_searches_run_them():
    ratio = chunk_vectors._measure_half(rows=2000, dim=16)
    assert 0 < ratio < 1000
