"""The pinned best hits (graphrag/query/mode.py, ``vector_agrees``): the best BM25 hit
is placed right after the entries only if the vector view ranks it among its best
``max_documents`` too; a long page that holds the question's words in different
sections is BM25's best and nobody else's."""

from __future__ import annotations

import numpy as np

from graphrag.query.mode import vector_agrees
from tests.support.query_vault import make_rag, uris

QUESTION = "how do alpine goats give milk on a cold morning"
# Words of the question that only the reference page writes: BM25's best note.
RARE = ["alpine", "give", "cold", "morning"]


def _herd(goats: int) -> dict[str, str]:
    # Each goat note shares most of the question's words (a good vector match); the
    # reference page writes the rare ones, each in a section of its own among a
    # hundred other words, so no chunk of it is much like the question.
    files = {
        f"Herd/Goat {i:02d}.md": f"# Goat {i:02d}\n\nHow do goats milk on a w{i}. "
        "How do goats milk on a hill.\n"
        for i in range(goats)
    }
    sections = []
    for n, word in enumerate(RARE):
        filler = " ".join(f"ref{n}y{j}" for j in range(150))
        sections.append(f"## Part {n}\n\n{filler} {word} {word} {filler}\n")
    files["Reference.md"] = "# Reference\n\n" + "\n".join(sections)
    return files


def test_the_best_bm25_hit_the_vector_ranks_low_is_not_pinned(tmp_path):
    rag = make_rag(tmp_path / "many", _herd(18))  # the reference is the vector's 19th
    result = rag.query(QUESTION, budget=500, seed=0)
    assert "Reference" not in uris(result.entries)
    related = uris(result.related)
    # Pinned, the reference took the place after the entries and the room of three goat
    # notes at 500 tokens; now the goat notes the vector ranks next come first.
    assert "Reference" not in related
    assert related[:3] == ["Herd/Goat 03", "Herd/Goat 04", "Herd/Goat 05"]
    # It is still a search hit, fused with the rest, when there is room.
    assert "Reference" in uris(rag.query(QUESTION, budget=1000, seed=0).related)


def test_the_best_bm25_hit_the_vector_ranks_among_its_best_stays_pinned(tmp_path):
    rag = make_rag(tmp_path / "few", _herd(10))  # the reference is the vector's 11th
    result = rag.query(QUESTION, budget=500, seed=0)
    assert "Reference" not in uris(result.entries)
    assert uris(result.related)[0] == "Reference"


def test_vector_agrees_counts_the_notes_ranked_above():
    sims = np.array([0.9, 0.8, 0.8, 0.5, 0.1], dtype=np.float32)
    assert vector_agrees(0, sims, None, 1)
    assert not vector_agrees(3, sims, None, 3)  # three notes above it
    assert vector_agrees(3, sims, None, 4)
    # Notes tied with it do not push it down; notes the filters leave out do not count.
    assert vector_agrees(2, sims, None, 2)
    allowed = np.array([False, False, True, True, True])
    assert vector_agrees(3, sims, allowed, 2)
    assert not vector_agrees(4, sims, allowed, 2)
