"""Unlinked mentions: the notes a best hit's passage names by title without a link
(docs/architecture.md, "Query mode", step 4).

A two-part question ("what is the lich's most powerful spell, and what does it
do?") is often answered by two notes joined by their text alone: the lich's
spellcasting passage names *power word kill*, the spell has a note of that
title, and no link says so. A link there would make the spell a bridge (the
entry links to it from its best passage); a mention is the same evidence,
written without brackets. Obsidian lists these as a note's "unlinked mentions".

Read from the best-matching passage (chunk) of each best text hit (the best
vector hit, the best BM25 hit) and of each entry, as a bridge is read from an
entry's passage:

* a mention is a run of words equal to a note's title or alias (as
  ``entry.title_matches`` compares names: any case, whole words), borne by at
  most ``title_max_notes`` notes, at least ``title_min_chars`` long;
* a one-word name counts only when the passage emphasises it (``*heal*``,
  ``**Fireball**``, ``_word_``): in running text "heal" or "monk" is a word,
  set off it is a name, as the SRD writes spell names;
* text inside links (``[[...]]``, ``[...](...)``) is no mention: a link is in
  the graph already (and a link hidden from it, as ``eval --from-links`` does,
  must not be read back from the text);
* in an entry's passage (``written_as_name``), read further from the question
  than a best hit's, a name counts only where it is written as one: with a
  capital letter or emphasised. Docs vaults title notes after everyday phrases
  ("Mobile app", "Community plugins") and write them in lower case in passing.

A best hit's passage often names more than one note the graph does not reach ("a
*calm emotions* spell can suppress madness, while a *lesser restoration* spell can
rid a character of it"): the most similar to the question is pinned after the best
hit, and every one written as a name whose text is evidence counts as a bridge
(``mode._mentioned``), unless the passage names more than ``score.LIST_LINKS`` notes:
then it is a list.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from graphrag.query.entry import MAX_TITLE_WORDS, name_words, title_table
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph
from indexer.load import IndexSnapshot

LINK_RE = re.compile(r"!?\[\[[^\[\]\n]*\]\]|!?\[[^\[\]\n]*\]\([^()\n]*\)")
EDGE_UNDERSCORES_RE = re.compile(r"(?<!\w)_+|_+(?!\w)")
EMPHASIS_RE = re.compile(r"(\*{1,3}|_{1,3})(?=\S)([^*_\n]+?)(?<=\S)\1")


def best_chunk(corpus: Corpus, chunk_scores: np.ndarray, note: int) -> int | None:
    """The position (within the note) of the note's chunk most similar to the question."""
    lo, hi = corpus.chunk_rows(note)
    if hi <= lo:
        return None
    return int(np.argmax(chunk_scores[lo:hi]))


def passage_mentions(
    text: str,
    table: dict[str, list[int]],
    max_notes: int,
    min_chars: int,
    written_as_name: bool = False,
) -> list[int]:
    """Notes ``text`` names by title or alias outside its links (``table``:
    ``entry.title_table``), longest names first, in order of first mention. With
    ``written_as_name``, a name counts only where the text writes it as one: with a
    capital letter or emphasised ("the mobile app" is a phrase, "Obsidian Sync" a name)."""
    text = LINK_RE.sub(" | ", text)  # "|" splits no word run; keeps both sides apart
    emphasised = {
        " ".join(w.casefold() for w in name_words(m[2])) for m in EMPHASIS_RE.finditer(text)
    }
    # _emphasis_: its underscores are no part of the word
    raw = name_words(EDGE_UNDERSCORES_RE.sub(" ", text))
    words = [w.casefold() for w in raw]
    found: dict[int, int] = {}  # note -> first word position
    taken = [False] * len(words)
    for n in range(min(MAX_TITLE_WORDS, len(words)), 0, -1):
        for start in range(len(words) - n + 1):
            if any(taken[start : start + n]):
                continue  # inside a longer name already read ("wand of fireballs")
            key = " ".join(words[start : start + n])
            bearers = table.get(key)
            if bearers is None or len(bearers) > max_notes or len(key) < min_chars:
                continue
            if n == 1 and key not in emphasised:
                continue
            if (
                written_as_name
                and key not in emphasised
                and all(w.islower() for w in raw[start : start + n])
            ):
                continue
            taken[start : start + n] = [True] * n
            for i in bearers:
                found.setdefault(i, start)
    return sorted(found, key=found.__getitem__)


def unlinked_mentions(
    index: IndexSnapshot,
    corpus: Corpus,
    graph: VaultGraph,
    chunk_scores: np.ndarray,
    sources: Sequence[int],
    max_notes: int,
    min_chars: int,
    written_as_name: bool = False,
    most: int | None = None,
) -> list[int]:
    """The notes the best-matching passages of ``sources`` (note indices) mention
    without a link, the sources themselves left out (see the module and
    ``passage_mentions`` for ``written_as_name``). A passage naming more than ``most``
    notes is a list and names none of them, as a passage linking to more than
    ``score.LIST_LINKS`` lends its likeness to none."""
    table = title_table(corpus, graph)
    out: dict[int, None] = {}
    for i in dict.fromkeys(sources):
        at = best_chunk(corpus, chunk_scores, i)
        chunks = index.chunks_of(corpus.uris[i]) if at is not None else []
        if at is None or at >= len(chunks):
            continue
        named = [
            j
            for j in passage_mentions(chunks[at].text, table, max_notes, min_chars, written_as_name)
            if j not in sources
        ]
        if most is not None and len(named) > most:
            continue
        for j in named:
            out.setdefault(j, None)
    return list(out)
