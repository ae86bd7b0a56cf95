"""The entries' room at small budgets (graphrag/query/pack.py, ``Packer.pack_entries``):
when the entries' best passages do not all fit the entries' share of the budget, the
entries after the first show a related note's equal share, unless one is the best
vector or BM25 hit; when they fit, each shows its best passage whole."""

from __future__ import annotations

from graphrag.query.pack import CHARS_PER_TOKEN
from tests.support.query_vault import make_rag

QUESTION = "how long does the goat cheese age in the cellar"


def _cellars() -> dict[str, str]:
    # Five notes, each one paragraph (one chunk) of ~700 characters on the question's
    # words: each entry's best passage is its whole text, ~200 tokens shown. Every run
    # of words names its cellar, so no note is a copy of another.
    files = {}
    for i, name in enumerate(("Alp", "Barn", "Cave", "Dairy", "Eyrie")):
        shelves = " ".join(
            f"{name} shelf {j} carries {name} wheels wrapped in linen." for j in range(8)
        )
        files[f"{name} cellar.md"] = (
            f"# {name} cellar\n\nThe goat cheese in the {name} cellar is turned and aged "
            f"for {i + 3} months. {shelves}\n"
        )
    # The vector's best hit says the question's common words most often, BM25's best
    # the one word only it has ("long"): BM25's best is a later entry.
    files["Alp cellar.md"] = files["Alp cellar.md"].replace(
        "months.", "months: goat cheese does age in the cellar, goat cheese does age."
    )
    files["Cave cellar.md"] = files["Cave cellar.md"].replace("months.", "months, long.")
    return files


def _whole(entry) -> bool:
    """The note's last word is shown: its one paragraph, whole."""
    return f"{entry.uri.split()[0]} shelf 7 " in entry.note.details


def _best_hits(rag) -> set[str]:
    return {
        rag.semantic_search(QUESTION, top_k=1).hits[0].uri,
        rag.lexical_search(QUESTION, top_k=1).hits[0].uri,
    }


def test_later_entries_show_an_equal_share_when_their_passages_crowd_a_small_budget(tmp_path):
    rag = make_rag(tmp_path, _cellars(), query={"vector_entry_count": 5})
    budget = 1000
    result = rag.query(QUESTION, budget=budget, seed=0)
    assert len(result.entries) >= 3
    first, *later = result.entries
    assert _whole(first)  # the best entry's passage whole
    share = budget * CHARS_PER_TOKEN // rag.settings.query.documents
    best = _best_hits(rag)
    capped = [e for e in later if e.uri not in best]
    assert capped
    for entry in capped:
        assert len(entry.note.details) <= share, entry.uri
    kept = [e for e in later if e.uri in best]
    assert kept  # BM25's or the vector's best hit, after the first entry
    for entry in kept:  # the question's best evidence is never cut for structure
        assert _whole(entry), entry.uri
    assert result.tokens_used <= budget


def test_entries_show_their_passages_whole_when_the_share_holds_them(tmp_path):
    rag = make_rag(tmp_path, _cellars(), query={"vector_entry_count": 5})
    result = rag.query(QUESTION, budget=2000, seed=0)
    assert len(result.entries) >= 3
    for entry in result.entries:
        assert _whole(entry), entry.uri
