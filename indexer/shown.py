"""What a chunk costs as query mode shows it, counted once when the chunk is stored.

Query mode shows a long note as its best chunks, each under its heading path
(``shown_text``), and counts each note it packs in its rendered form: a JSON string
(``json.dumps``) or a quoted prompt block (``"`` escaped, the whole text stripped).
Packing has to rule out hundreds of notes that cannot fit once the budget is nearly
spent; counting their texts to find that out cost as much as packing them. So each
chunk row carries ``shown_tokens``: the fewest tokens its shown text takes in any of
those forms (``shown_tokens``), a floor that holds whichever one the question asks for.
Query mode adds up the floors of the chunks a note would show and skips the note
unbuilt when even that is more than is left (``graphrag/details/cost.py``;
docs/architecture.md, "The index on disk" and "Query mode").

``SHOWN_TOKENS_VERSION`` names the rule (the text and its forms): the manifest
records it, and counts stored under another rule (or none, by an index written
before the column existed) are not used, and are recounted by the next update.
"""

from __future__ import annotations

import json
from typing import Protocol

SHOWN_TOKENS_VERSION = 1


class Counter(Protocol):
    def count(self, text: str) -> int: ...


def shown_text(heading_path: str, text: str) -> str:
    """The chunk under its full heading path (its own heading line replaced by the path).
    A chunk that starts inside a nested list keeps the indentation of its first line."""
    text = text.strip("\n").rstrip()
    if not heading_path:
        return text
    first, _, rest = text.partition("\n")
    if first.lstrip().startswith("#"):
        text = rest.strip()
    return f"## {heading_path}\n{text}" if text else f"## {heading_path}"


def shown_forms(text: str) -> set[str]:
    """``text`` as it may be counted: as written, as a JSON string's contents, quoted
    for the prompt (``"`` escaped), and quoted with its ends stripped (a note's text is
    stripped as a whole, so its first chunk may lose its indentation)."""
    return {
        text,
        json.dumps(text, ensure_ascii=False)[1:-1],
        text.replace('"', '\\"'),
        text.strip().replace('"', '\\"'),
    }


def shown_tokens(counter: Counter, heading_path: str, text: str) -> int:
    """The fewest tokens the chunk's shown text takes in any of its forms."""
    return min(counter.count(form) for form in shown_forms(shown_text(heading_path, text)))
