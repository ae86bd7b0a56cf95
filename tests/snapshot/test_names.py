"""Finding a note by name: exact matches, and suggestions (trigram shortlist, then difflib)."""

from __future__ import annotations

import difflib
import random

import pytest

from graphrag.snapshot.graph import NodeInfo, VaultGraph
from graphrag.snapshot.names import SHORTLIST, NameIndex
from graphrag.snapshot.snapshot import Snapshot

WORDS = [
    "alpine",
    "cheese",
    "brine",
    "cellar",
    "hut",
    "shepherd",
    "meadow",
    "ledger",
    "cooperative",
    "rennet",
    "wheel",
    "summer",
]


def graph_of(titles: list[str]) -> VaultGraph:
    nodes = {f"Notes/{t}": NodeInfo(f"Notes/{t}", t, "note") for t in titles}
    return VaultGraph(
        nodes=nodes, parents={}, children_of={}, outlinks_of={}, backlinks_of={}, tag_members={}
    )


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


@pytest.mark.parametrize(
    "query", ["Alpine Chese Brine 12", "shepherd hut", "Notes/Meadow Ledger", "zzz"]
)
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


def test_index_is_built_once_per_snapshot() -> None:
    snapshot = Snapshot(None, graph_of(titles(50)))  # type: ignore[arg-type]  # names need no index
    assert snapshot.names is snapshot.names
    assert Snapshot(None, graph_of(titles(50))).names is not snapshot.names  # type: ignore[arg-type]


@pytest.mark.parametrize("query", ["note 3", "Nte 12", "Notes/Note 2999x", "Note 30000"])
def test_many_near_ties_rank_as_difflib_does(query: str) -> None:
    """Thousands of names share most trigrams with the query: the shortlist must
    not favour long names, nor drop names tied at its edge."""
    nodes = {
        f"Notes/Note {i}": NodeInfo(f"Notes/Note {i}", f"Note {i}", "note") for i in range(1, 3000)
    }
    graph = VaultGraph(
        nodes=nodes, parents={}, children_of={}, outlinks_of={}, backlinks_of={}, tag_members={}
    )
    assert NameIndex(graph).close(query) == full_difflib(graph, query)


def brute_force_matches(graph: VaultGraph, folded: str) -> list[str]:
    """The rules as ``resolve_note`` applied them by scanning every note."""
    notes = list(graph.notes())
    for matcher in (
        lambda n: n.uri.casefold() == folded,
        lambda n: n.title.casefold() == folded,
        lambda n: any(a.casefold() == folded for a in n.aliases),
        lambda n: n.uri.rsplit("/", 1)[-1].casefold() == folded,
        lambda n: n.uri.casefold().endswith("/" + folded),
    ):
        hits = sorted(n.uri for n in notes if matcher(n))
        if hits:
            return hits
    return []


def test_exact_matches_follow_the_rules_in_order() -> None:
    rng = random.Random(7)
    parts = ["Places", "places", "Huts", "Dairy", "Hut", "hut", "Brine", "Alp"]
    nodes = {}
    for _ in range(300):
        uri = "/".join(rng.choice(parts) for _ in range(rng.randint(1, 3)))
        title = rng.choice([uri.rsplit("/", 1)[-1], rng.choice(parts), "Home"])
        aliases = tuple(rng.sample(parts + ["Start", "HUT"], rng.randint(0, 2)))
        nodes[uri] = NodeInfo(uri, title, "note", aliases=aliases)
    graph = VaultGraph(
        nodes=nodes, parents={}, children_of={}, outlinks_of={}, backlinks_of={}, tag_members={}
    )
    index = NameIndex(graph)
    probes = {p.casefold() for p in parts} | {
        "home",
        "start",
        "huts/hut",
        "places/hut",
        "x/hut",
        "dairy/brine/alp",
    }
    probes |= {u.casefold() for u in rng.sample(sorted(nodes), 40)}
    for folded in sorted(probes):
        assert index.matches(folded) == brute_force_matches(graph, folded), folded


@pytest.mark.parametrize(
    ("probe", "expected"),
    [
        ("a/home page", ["A/Home Page"]),  # whole uri
        ("start", ["B/Other"]),  # a title beats an alias
        ("welcome", ["A/Home Page"]),  # title
        ("begin", ["A/Home Page"]),  # alias
        ("other", ["B/Other"]),  # file name
        ("hut", ["C/Deep/Hut", "D/Hut"]),  # file name, ambiguous
        ("deep/hut", ["C/Deep/Hut"]),  # end of a uri
        ("x/hut", []),
    ],
)
def test_each_rule(probe: str, expected: list[str]) -> None:
    nodes = {
        "A/Home Page": NodeInfo("A/Home Page", "Welcome", "note", aliases=("Start", "Begin")),
        "B/Other": NodeInfo("B/Other", "Start", "note"),
        "C/Deep/Hut": NodeInfo("C/Deep/Hut", "Hut", "note"),
        "D/Hut": NodeInfo("D/Hut", "Hut", "note"),
    }
    graph = VaultGraph(
        nodes=nodes, parents={}, children_of={}, outlinks_of={}, backlinks_of={}, tag_members={}
    )
    assert NameIndex(graph).matches(probe) == expected == brute_force_matches(graph, probe)
