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
from graphrag.query.render import doc_json, json_text, render_prompt
from tests.support.fakes import HashEmbedder
from tests.support.files import write

DIM = 1024
NOW = 1_780_000_000.0  # a fixed "now" (2026-05) for the recency part of the score

# Ten notes in three folders; four of them share recipe words.
KITCHEN = {
    "Cooking/Soup.md": "# Soup\n\nLentil soup recipe with onions.\n",
    "Cooking/Bread.md": "# Bread\n\nBread recipe with flour and yeast.\n",
    "Cooking/Pasta.md": "# Pasta\n\nPasta recipe with tomato sauce.\n",
    "Travel/Rome.md": "# Rome\n\nIn Rome we learned a recipe with flour and yeast and onions.\n",
    "Travel/Oslo.md": "# Oslo\n\nFjords and ferries.\n",
    "Travel/Lima.md": "# Lima\n\nMarkets and mountains.\n",
    "Garden/Beans.md": "# Beans\n\nBeans climb poles.\n",
    "Garden/Peas.md": "# Peas\n\nPeas want cool weather.\n",
    "Garden/Kale.md": "# Kale\n\nKale survives frost.\n",
    "Garden/Leeks.md": "# Leeks\n\nLeeks stand all winter.\n",
}


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


def answers_by_budget(rag: VaultRAG, question: str, budgets: range) -> list[tuple[str, str]]:
    """Query mode's JSON and prompt for ``question`` at each budget (seeded): what a
    packing change that must not change output is compared on."""
    out = []
    for budget in budgets:
        for output in ("json", "prompt"):
            r = rag.query(question, budget=budget, seed=0, output=output)
            out.append((json_text(r), render_prompt(r)))
    return out
