"""Identifiers: the notes that write, whole, a rare identifier the question quotes
(docs/architecture.md, "Query mode", step 4).

A question that quotes an identifier (a plugin's ID ``obsidian-image-toolkit``, a date
``2023-09-12``, a file name ``app.json``: letters and digits joined by ``-``, ``_`` or
``.``) asks about the few notes that write that string. BM25 does not see it as one
term (it splits it into its words, each of them common) and the vector hardly at all,
so such a note ranks among BM25's best few but behind the entries' links once the
views are fused. Where the identifier is a note's name (its title or an alias) and at
most ``RARE_NOTES`` notes write it whole, those of BM25's best ``max_documents`` hits
that write it are tried before every other note query mode chooses
(``fusion.tried_first``). Without the name condition the phrases of the language ("long-term", "full-text",
"add-ons") count too: on the other vaults 16 such notes, none gold. With it, at 2,000
tokens (query code of 67c4b2d), the notes put first were gold 38 times in 61 on the
from-links questions of obsidian-hub (the page of a plugin's author, which lists the
plugin's ID in a comment: no link joins the two), 1 in 3 on the ten hand-written tuning
sets, and none were chosen on four other vaults' from-links questions
(benchmarks/RESULTS.md, "Session 11: a rare identifier the question quotes").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph
from graphrag.snapshot.lexical import LexicalIndex, note_texts

IDENTIFIER_RE = re.compile(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)+")
# An identifier held by more notes than this is a common compound ("built-in",
# "e.g"), not a name of one thing.
RARE_NOTES = 5
# The notes holding every word of an identifier are read to find the ones writing it
# whole; past this many, reading them costs more than a query should, and an
# identifier whose words so many notes share is taken for no rare one (none is read).
MAX_READ = 200


def identifiers(text: str) -> list[str]:
    """The identifier-like strings of ``text``, lower-cased, in order, once each."""
    return list(dict.fromkeys(m.lower() for m in IDENTIFIER_RE.findall(text)))


def holding(text: str, ident: str) -> bool:
    """Whether ``text`` writes ``ident`` whole (any case): not inside a longer one."""
    pattern = rf"(?<![\w-]){re.escape(ident)}(?![\w-])"
    return re.search(pattern, text, re.IGNORECASE) is not None


def named(graph: VaultGraph, uri: str, ident: str) -> bool:
    """Whether ``ident`` is the title or an alias of note ``uri`` (any case)."""
    info = graph.info(uri)
    return any(name.casefold() == ident for name in (info.title, *info.aliases))


def rare_holders(
    question: str,
    corpus: Corpus,
    graph: VaultGraph,
    lexical: LexicalIndex,
    most: int = RARE_NOTES,
) -> set[int]:
    """The notes (indices) that write one of ``question``'s identifiers whole, for each
    identifier that is a note's name (its title or an alias: a note writes its own name,
    as BM25 reads it) and that at most ``most`` notes write. The notes BM25 finds
    holding all of its words are read (a note writing it whole holds every word)."""
    out: set[int] = set()
    for ident in identifiers(question):
        terms = lexical.tokens(ident)
        if len(terms) < 2:  # one word: BM25 ranks it as a term already
            continue
        notes = lexical.notes_with_all(terms)
        if len(notes) == 0 or len(notes) > MAX_READ:
            continue
        texts = note_texts(corpus, [int(i) for i in notes])
        found = [int(i) for i, t in zip(notes, texts, strict=True) if holding(t, ident)]
        if 0 < len(found) <= most and any(named(graph, corpus.uris[i], ident) for i in found):
            out.update(found)
    return out


def identifier_hits(
    question: str,
    corpus: Corpus,
    graph: VaultGraph,
    lexical: LexicalIndex,
    best_lexical: Sequence[int],
    most: int = RARE_NOTES,
) -> list[int]:
    """Of BM25's best hits ``best_lexical`` (best first), those writing a rare identifier
    of the question whole (``rare_holders``)."""
    if IDENTIFIER_RE.search(question) is None:
        return []
    held = rare_holders(question, corpus, graph, lexical, most)
    return [i for i in best_lexical if i in held]
