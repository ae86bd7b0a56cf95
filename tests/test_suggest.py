"""Suggestions for a note name that matched nothing: a trigram shortlist, then difflib."""

from __future__ import annotations

import difflib
import random

import pytest

from graphrag.graph import NodeInfo, VaultGraph
from graphrag.suggest import SHORTLIST, NameIndex, name_index

WORDS = ["alpine", "cheese", "brine", "cellar", "hut", "shepherd", "meadow", "ledger", "cooperative", "rennet", "wheel", "summer"]


def graph_of(titles: list[str]) -> VaultGraph:
    nodes = {f"Notes/{t}": NodeInfo(f"Notes/{t}", t, "note") for t in titles}
    return VaultGraph(nodes=nodes, parents={}, children_of={}, outlinks_of={}, backlinks_of={}, tag_members={})


def titles(count: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    out = {" ".join(rng.sample(WORDS, 3)).title() + f" {i}" for i in range(count)}
    return sorted(out)


def full_difflib(graph: VaultGraph, query: str, n: int = 5) -> list[str]:
    names: dict[str, str] = {}
    for note in graph.notes():
        names.setdefault(note.title.casefold(), note.uri)
        names.setdefault(note.uri.casefold(), note.uri)
    out: list[str] = []
    for key in difflib.get_close_matches(query.casefold(), list(names), n=n * 2, cutoff=0.5):
        if names[key] not in out:
            out.append(names[key])
    return out[:n]


@pytest.mark.parametrize("query", ["Alpine Chese Brine 12", "shepherd hut", "Notes/Meadow Ledger", "zzz"])
def test_small_vault_ranks_every_name_as_difflib_does(query: str) -> None:
    graph = graph_of(titles(SHORTLIST // 4))
    assert NameIndex(graph).close(query) == full_difflib(graph, query)


@pytest.mark.parametrize("seed", range(2))
def test_large_vault_finds_what_difflib_finds(seed: int) -> None:
    graph = graph_of(titles(1000, seed))
    index = NameIndex(graph)
    assert len(index.keys) > SHORTLIST  # the shortlist is really in use
    rng = random.Random(seed)
    for title in rng.sample([n.title for n in graph.notes()], 8):
        typo = title[:3] + title[4:]  # one letter dropped
        assert index.close(typo)[0] == full_difflib(graph, typo)[0] == f"Notes/{title}"


def test_nothing_close_gives_nothing() -> None:
    assert NameIndex(graph_of(titles(1000))).close("qqqq xxxx") == []


def test_index_is_built_once_per_graph() -> None:
    graph = graph_of(titles(50))
    assert name_index(graph) is name_index(graph)
    assert name_index(graph_of(titles(50))) is not name_index(graph)


@pytest.mark.parametrize("query", ["note 3", "Nte 12", "Notes/Note 2999x", "Note 30000"])
def test_many_near_ties_rank_as_difflib_does(query: str) -> None:
    """Thousands of names share most trigrams with the query: the shortlist must
    not favour long names, nor drop names tied at its edge."""
    nodes = {f"Notes/Note {i}": NodeInfo(f"Notes/Note {i}", f"Note {i}", "note") for i in range(1, 3000)}
    graph = VaultGraph(nodes=nodes, parents={}, children_of={}, outlinks_of={}, backlinks_of={}, tag_members={})
    assert NameIndex(graph).close(query) == full_difflib(graph, query)
