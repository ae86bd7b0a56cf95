"""Tiny vaults for query-mode and search tests, indexed with a hashing embedder.

``HashEmbedder(1024)``: a bag of hashed words in 1024 dimensions, so two texts are
similar exactly when they share words (collisions are rare at that size), and a
test can reason about which note a question matches.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from graphrag.api import VaultRAG
from graphrag.config import load_settings
from graphrag.query_render import doc_json
from tests.conftest import write
from tests.fakes import HashEmbedder

DIM = 1024
NOW = 1_780_000_000.0  # a fixed "now" (2026-05) for the recency part of the score


def make_rag(tmp_path: Path, files: Mapping[str, str], **sections: Mapping[str, Any]) -> VaultRAG:
    """Write ``files`` into a fresh vault, index it, open it. ``sections`` override
    settings, e.g. ``query={"max_hops": 1}``, ``focus={"truncate_length": 300}``."""
    vault = tmp_path / "vault"
    for rel, text in files.items():
        write(vault, rel, text)
    settings = load_settings(env={}, overrides=dict(sections) or None)
    return VaultRAG.open(
        vault, index_dir=tmp_path / "idx", settings=settings, embedder=HashEmbedder(DIM)
    )


def uris(docs: Any) -> list[str]:
    return [d.uri for d in docs]


def json_tokens(rag: VaultRAG, result: Any) -> int:
    """What the budget should have counted for a JSON result: each note's compact JSON."""
    return sum(rag.tokenizer.count(doc_json(d)) for d in (*result.entries, *result.related))
