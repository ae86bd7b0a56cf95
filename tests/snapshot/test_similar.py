"""Note vectors (indexer/note_vectors.py) and the notes nearest one (snapshot/similar.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from graphrag.api import VaultRAG
from graphrag.snapshot.similar import load_note_vectors
from indexer.note_vectors import FILE
from tests.support.fakes import HashEmbedder


def test_each_generation_holds_one_normalised_vector_per_note(sample_vault: Path, tmp_path: Path):
    rag = VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    index = rag.snapshot.index
    got = index.note_vectors()
    assert got is not None
    uris, matrix = got
    corpus = rag.snapshot.corpus
    assert uris == sorted(uris) and set(uris) <= set(corpus.uris) and len(uris) > 20
    assert np.allclose(np.linalg.norm(matrix.astype(np.float32), axis=1), 1.0, atol=1e-2)
    # The mean of the note's chunk vectors, normalised (float16: 3 digits).
    i = corpus.index_of["Places/Käsekeller"]
    lo, hi = corpus.chunk_rows(i)
    mean = corpus.matrix[lo:hi].mean(axis=0)
    expected = mean / np.linalg.norm(mean)
    assert np.allclose(matrix[uris.index("Places/Käsekeller")], expected, atol=2e-3)


def test_nearest_notes_best_first_without_the_note_itself(sample_vault: Path, tmp_path: Path):
    rag = VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    similar = rag.snapshot.similar
    near = similar.nearest("Places/Käsekeller", 5)
    assert len(near) == 5 and "Places/Käsekeller" not in [u for u, _ in near]
    scores = [s for _, s in near]
    assert scores == sorted(scores, reverse=True) and all(-1.0 <= s <= 1.0 for s in scores)
    m = similar.matrix
    me = m[similar.index_of["Places/Käsekeller"]]
    assert np.isclose(
        scores[0], float(np.max(np.delete(m @ me, similar.index_of["Places/Käsekeller"])))
    )
    assert (
        similar.nearest("No such note", 5) == [] and similar.nearest("Places/Käsekeller", 0) == []
    )


def test_an_index_without_the_file_gets_it_on_first_use(sample_vault: Path, tmp_path: Path):
    rag = VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    index = rag.snapshot.index
    path = index.generation / FILE
    uris, matrix = index.note_vectors()  # type: ignore[misc]
    path.unlink()
    assert index.note_vectors() is None
    again = load_note_vectors(index)
    assert again.uris == uris and np.allclose(again.matrix, matrix.astype(np.float32))
    assert path.exists()  # saved beside the generation for next time
