"""A note's front-matter properties as ``key: value`` lines, spelled as YAML spells them.

kepano-style vaults keep most of a note's facts in properties (``rating: 7``,
``start: 2023-09-12``) and the body alone never shows them, so details open
with them. They are shown as the author wrote them in YAML, not as Python
prints the parsed values: ``true``/``false`` (not ``True``), dates as written
(the indexer keeps them as text), numbers as numbers. Left out: links
(``[[X]]``: they are edges of the graph, shown as relations), nested tables,
empty values, the keys shown elsewhere (title, tags, aliases) and the
bookkeeping keys of ``[details] hidden_properties``. See docs/architecture.md
("Text shown to a model").
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

# Shown elsewhere in a note's output: the title, its tags, its aliases.
SHOWN_ELSEWHERE = frozenset({"title", "tags", "tag", "aliases", "alias"})
MAX_PROPERTY_CHARS = 200
ELLIPSIS = "…"


def yaml_scalar(value: Any) -> str | None:
    """A scalar as YAML writes it; None for what is not a scalar worth a line (null,
    empty text, tables, lists)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return ".nan"
        if math.isinf(value):
            return ".inf" if value > 0 else "-.inf"
        return repr(value)
    if isinstance(value, str):
        return value if value.strip() else None
    return None


def property_lines(properties: Mapping[str, Any], hidden: Collection[str] = ()) -> str:
    """``key: value`` lines for the scalar properties (and lists of scalars, comma
    separated) in front-matter order; see the module docstring for what is left out."""
    skip = SHOWN_ELSEWHERE | {h.casefold() for h in hidden}
    lines = []
    for key, value in properties.items():
        if str(key).casefold() in skip:
            continue
        items = value if isinstance(value, list) else [value]
        shown = [text for v in items if (text := yaml_scalar(v)) is not None and "[[" not in text]
        if not shown:
            continue
        text = ", ".join(shown)
        if len(text) > MAX_PROPERTY_CHARS:
            text = text[: MAX_PROPERTY_CHARS - 1] + ELLIPSIS
        lines.append(f"{key}: {text}")
    return "\n".join(lines)
