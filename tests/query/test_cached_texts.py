"""Query mode keeps the texts it builds for a generation (``details.text.NoteText``):
a question answered with every cache warm gets the same answer as on a fresh snapshot."""

from __future__ import annotations

from pathlib import Path

from graphrag.api import VaultRAG
from tests.support.fakes import HashEmbedder

DIM = 64
QUESTIONS = (
    "who runs the cheese cellar",
    "Käsekeller ripening temperature",
    "meeting notes about the festival",
    "#project glossary terms",
    "what did we decide",
)


def test_answers_with_warm_caches_equal_answers_on_a_fresh_snapshot(
    sample_vault: Path, tmp_path: Path
):
    rag = VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder(DIM))
    asked = [
        (q, budget, output)
        for q in QUESTIONS
        for budget, output in ((600, "json"), (2000, "prompt"), (4000, "json"))
    ]
    warm = [
        rag.query(q, budget, seed=1, explain=True, output=o, now=1.8e9) for q, budget, o in asked
    ]
    for (q, budget, output), answer in zip(asked, warm, strict=True):
        rag.reload()  # a new snapshot: nothing cached
        fresh = rag.query(q, budget, seed=1, explain=True, output=output, now=1.8e9)
        assert fresh.to_json() == answer.to_json(), (q, budget, output)
