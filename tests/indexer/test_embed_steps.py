"""Progress while embedding: loading the model is a step of its own, then the bar moves
batch by batch from zero (issue 16: it sat at 0% and jumped to 100%)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from indexer import build_index
from tests.support.fakes import HashEmbedder
from tests.support.files import write


class Batched(HashEmbedder):
    """Embeds in batches of two, reporting each; records when it was loaded."""

    def __init__(self, events: list[tuple[str, int, int]]) -> None:
        super().__init__()
        self.events = events

    def load(self) -> None:
        self.events.append(("load() called", 0, 0))

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        parts = []
        for start in range(0, len(texts), 2):
            parts.append(super().embed(texts[start : start + 2], progress))
        return np.concatenate(parts) if parts else super().embed([])


def test_loading_is_its_own_step_and_embedding_moves_per_batch(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for i in range(5):
        write(vault, f"N{i}.md", f"# N{i}\n\nnote number {i}\n")
    events: list[tuple[str, int, int]] = []
    build_index(
        vault, tmp_path / "idx", embedder=Batched(events), progress=lambda *e: events.append(e)
    )
    steps = [e for e in events if e[0] != "parsing"]
    assert steps == [
        ("loading model", 0, 1),
        ("load() called", 0, 0),
        ("loading model", 1, 1),
        ("embedding", 0, 5),
        ("embedding", 2, 5),
        ("embedding", 4, 5),
        ("embedding", 5, 5),
    ]
