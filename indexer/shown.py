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

A note short enough to be shown whole is not shown as chunks: each note row carries
``shown_tokens`` too, the fewest tokens of its whole text as shown (``whole_text``) in
the forms a note's details take (``whole_tokens``), so such a note is ruled out
unbuilt as well.

``SHOWN_TOKENS_VERSION`` and ``WHOLE_TOKENS_VERSION`` name the rules (the text and its
forms): the manifest records them, and counts stored under another rule (or none, by
an index written before the column existed) are not used, and are recounted by the
next update.
"""

from __future__ import annotations

import json
import re
from typing import Protocol

SHOWN_TOKENS_VERSION = 1
WHOLE_TOKENS_VERSION = 1
BLANK_RUN_RE = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


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


def whole_text(body: str) -> str:
    """A note's stored body as query mode shows it whole, before any embed is inlined:
    a run of blank lines (a removed comment's) folded to one."""
    return BLANK_RUN_RE.sub("\n\n", body)


def whole_tokens(counter: Counter, body: str) -> int:
    """The fewest tokens the note's whole text takes in any form its details are
    counted in: ``shown_forms``, and quoted with only its end stripped (the prompt
    strips the details as a whole, and property lines may come before the text)."""
    text = whole_text(body)
    forms = shown_forms(text) | {text.rstrip().replace('"', '\\"')}
    return min(counter.count(form) for form in forms)
