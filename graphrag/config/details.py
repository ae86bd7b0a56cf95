"""How a note's own text is shown to a model (``[details]`` in configs/default.toml).

See docs/architecture.md ("Text shown to a model"): embeds inlined with these
limits, and the front-matter keys left out of a note's properties because they
carry no meaning for a reader (publishing and styling bookkeeping, Dendron's
``id`` and ``updated``).
"""

from __future__ import annotations

from dataclasses import dataclass

# Bookkeeping keys of Obsidian Publish, CSS snippets and Dendron: never worth a token.
BOOKKEEPING_PROPERTIES = ("permalink", "publish", "cssclasses", "cssclass", "id", "updated")


@dataclass(frozen=True)
class DetailsSettings:
    inline_embeds: bool = True
    embed_max_depth: int = 2
    embed_max_chars: int = 1000
    hidden_properties: tuple[str, ...] = BOOKKEEPING_PROPERTIES
