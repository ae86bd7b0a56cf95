"""What query mode would make on first use for a vault's link hubs, made at the
snapshot's warm-up instead (``serve.live``), as the title tables are.

Two parts of a generation are read once per note and kept (``Corpus.derived``): a
note's link table (which chunk holds each link, ``score.LinkTable``: a bridge's
context) when it is an entry, and its whole-text shingles (``copies.BodyShingles``)
when it is in the context. Both cost in proportion to the note's size, and a few
notes are far larger than the rest: on obsidian-hub, 7 of 6,571 notes hold 9,213
links, and 96 hold 2.1 million of 10.3 million characters. The first question to meet
one after start-up or an update paid 15-20 ms per link table and ~25 ms for the
largest note's shingles (benchmarks/RESULTS.md, "The tail on obsidian-hub, session
8"); made here, they are also frozen with the warm heap (``memory.freeze_heap``), out
of the collector's way. The rest are still made on first use: the answers are the
same either way.
"""

from __future__ import annotations

from graphrag.query.copies import body_shingles
from graphrag.query.score import link_table
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph
from indexer.load import IndexSnapshot

WARM_LINKS = 100  # notes with at least this many links get their link table
WARM_TABLES = 64  # at most, the most links first
WARM_BODY_CHARS = 10_000  # notes with at least this many characters get their shingles,
WARM_BODIES = 128  # at most, the longest first (kept: ~1 byte a character)


def warm_hubs(corpus: Corpus, graph: VaultGraph, index: IndexSnapshot) -> tuple[int, int]:
    """Make the link tables of the notes with the most links (``WARM_LINKS``, at most
    ``WARM_TABLES``) and the whole-text shingles of the longest notes
    (``WARM_BODY_CHARS``, at most ``WARM_BODIES``, kept for the generation); how many
    of each there are."""
    linked = sorted(
        (-n, uri) for uri in corpus.uris if (n := len(graph.outlinks(uri))) >= WARM_LINKS
    )[:WARM_TABLES]
    for _n, uri in linked:
        link_table(corpus, uri)
    chars = corpus.body_chars
    long = sorted(
        (-int(chars[i]), uri) for i, uri in enumerate(corpus.uris) if chars[i] >= WARM_BODY_CHARS
    )[:WARM_BODIES]
    body_shingles(corpus, index).pin(uri for _n, uri in long)
    return len(linked), len(long)
