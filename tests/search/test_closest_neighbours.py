"""The hybrid ranking's graph votes go to each seed's neighbours most similar to the
question (``searches._closest_neighbours``): the rule spelled out, on every note."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from graphrag.api import VaultRAG
from graphrag.search.searches import _closest_neighbours
from tests.support.fakes import HashEmbedder


def test_closest_neighbours_are_the_most_similar_ties_to_the_lower_index(
    sample_vault: Path, tmp_path: Path
):
    rag = VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder(64))
    corpus, graph = rag.snapshot.corpus, rag.graph
    hidden = graph.without_links([("Projects/Cellar Expansion", "People/Mira Halvorsen")])
    rng = np.random.default_rng(11)
    for view in (graph, hidden, graph):
        # Rounded scores: many ties, which must go to the lower index.
        sims = np.round(rng.uniform(-1, 1, len(corpus)), 1).astype(np.float32)
        for limit in (1, 3, 50):
            for uri in corpus.uris:
                near = [corpus.index_of[u] for u in view.neighbours(uri) if u in corpus.index_of]
                expected = sorted(near, key=lambda i: (-float(sims[i]), i))[:limit]
                assert _closest_neighbours(view, corpus, uri, sims, limit) == expected, uri
