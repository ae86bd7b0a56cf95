"""How a note's own text is shown: cut at blocks, embeds inlined, properties in YAML's
spelling, and for a question its best passages (docs/architecture.md, "Text shown to a
model")."""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# Imported with the package, as before: the function ``excerpt`` shares its name with
# its module, which would otherwise shadow it once any module imported the submodule.
from graphrag.details.excerpt import CUT, excerpt

if TYPE_CHECKING:
    from graphrag.details.passages import query_details, section_text
    from graphrag.details.properties import property_lines
    from graphrag.details.text import NoteText

# The other names are imported from their modules on first use (PEP 562), not with the
# package: a search that shows a chunk's section text needs none of the embed inlining
# (NoteText, the block cache) that they bring.
_HOME = {
    "query_details": "passages",
    "section_text": "passages",
    "property_lines": "properties",
    "NoteText": "text",
}

__all__ = ["CUT", "NoteText", "excerpt", "property_lines", "query_details", "section_text"]


def __getattr__(name: str) -> Any:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value
