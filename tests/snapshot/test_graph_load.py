"""Loading the served graph fast: ``VaultGraph.from_rows(*store_rows(db))`` must give
exactly the graph the old route gave, dict by dict and in the same order.

The reference is a frozen copy of ``VaultGraph.from_parts`` as it was before the
fast path (one dict per edge, built from ``store_parts``); ``from_parts`` and
``from_networkx`` now share ``from_rows``'s implementation, so they are checked
against the copy too.
"""

from __future__ import annotations

import random
import re
from dataclasses import fields
from pathlib import Path

import pytest

from graphrag import VaultRAG
from graphrag.snapshot.graph import NodeInfo, OutLink, VaultGraph
from indexer import build_index, load_index
from indexer.config import IndexConfig, IndexSettings
from indexer.load import graph_from_store, store_parts, store_rows
from tests.support.fakes import HashEmbedder
from tests.support.files import SAMPLE_VAULT, write

FIELDS = ("nodes", "parents", "children_of", "outlinks_of", "backlinks_of", "tag_members")


# -- the reference: VaultGraph.from_parts before the fast path, verbatim -----------------
def reference_natural_key(text: str) -> tuple:
    parts = re.split(r"(\d+)", text.casefold())
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p != "")


def reference_graph(node_attrs: dict[str, dict], edges) -> VaultGraph:
    nodes: dict[str, NodeInfo] = {}
    tags_of: dict[str, list[str]] = {}
    tag_members: dict[str, list[str]] = {}
    parents: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    out: dict[str, dict[tuple[str, str | None], OutLink]] = {}
    back: dict[str, set[str]] = {}

    for u, v, data in edges:
        etype = data.get("type")
        if etype == "parent":
            parents[u] = v
            children.setdefault(v, []).append(u)
        elif etype == "tag":
            tags_of.setdefault(u, []).append(v[1:])
            tag_members.setdefault(v[1:], []).append(u)
        elif u != v:
            predicate = data.get("predicate")
            per_note = out.setdefault(u, {})
            per_note.setdefault((v, predicate), OutLink(v, etype, predicate))
            back.setdefault(v, set()).add(u)

    for uri, data in node_attrs.items():
        kind = data.get("kind", "note")
        if kind == "tag":
            continue
        nodes[uri] = NodeInfo(
            uri=uri,
            title=data.get("title", uri.rsplit("/", 1)[-1]),
            kind=kind,
            created=float(data.get("created", 0.0) or 0.0),
            modified=float(data.get("modified", 0.0) or 0.0),
            path=data.get("path"),
            tags=tuple(sorted(tags_of.get(uri, ()))),
            aliases=tuple(data.get("aliases", ()) or ()),
        )

    def sibling_key(uri: str) -> tuple:
        order = node_attrs.get(uri, {}).get("order")
        title = nodes[uri].title if uri in nodes else uri
        return (
            (0, float(order), reference_natural_key(title))
            if order is not None
            else (
                1,
                0.0,
                reference_natural_key(title),
            )
        )

    return VaultGraph(
        nodes=nodes,
        parents=parents,
        children_of={p: tuple(sorted(cs, key=sibling_key)) for p, cs in children.items()},
        outlinks_of={u: tuple(links.values()) for u, links in out.items()},
        backlinks_of={v: tuple(sorted(srcs)) for v, srcs in back.items()},
        tag_members={t: tuple(sorted(ms)) for t, ms in tag_members.items()},
    )


def _typed(value: object) -> object:
    """A value with the types of its parts spelled out (1 == 1.0, but not here)."""
    if isinstance(value, NodeInfo | OutLink):
        return (type(value).__name__, tuple(_typed(getattr(value, f.name)) for f in fields(value)))
    if isinstance(value, tuple):
        return ("tuple", tuple(_typed(v) for v in value))
    return (type(value).__name__, value)


def assert_same_graph(got: VaultGraph, want: VaultGraph) -> None:
    for name in FIELDS:
        have, expected = getattr(got, name), getattr(want, name)
        assert list(have) == list(expected), f"{name}: keys or their order differ"
        for key, value in expected.items():
            assert _typed(have[key]) == _typed(value), f"{name}[{key!r}]"


# -- vaults ---------------------------------------------------------------------------
TRICKY = {
    "Home.md": """---
aliases: [Start, "Front Page"]
tags: [hub, proj/alpha]
order: 1
created: 2023-04-01
---
# Home

[[Projects/Alpha]] and [[Projects/Alpha]] again, ![[Projects/Alpha]] embedded,
[[Missing Note]] and [[Missing Note#Part]] (ghosts), ![[images/map.png]], [[Home]]
(itself), [Beta](Projects/Beta.md) and [[Projects]]. #inline
""",
    "Projects.md": """---
tags: [hub]
---
# Projects

The folder note. [[Projects/Gamma]] [[Projects/Note 10]]
""",
    "Projects/Alpha.md": """---
up: "[[Home]]"
author: "[[People/Ann]]"
reviewer: "[[People/Ann]]"
related: ["[[Projects/Beta]]", "[[Projects/Beta]]"]
order: 2
tags: [proj/alpha, zeta, alpha]
---
# Alpha

[[People/Ann]] wrote it; [[Projects/Beta]] follows. [[Nowhere]]
lead:: [[People/Ann]]
""",
    "Projects/Beta.md": "# Beta\n\n[[Projects/Alpha]] ![[Projects/Alpha]] [[Projects/Alpha#Part]]\n",
    "Projects/Gamma.md": "---\norder: 0.5\n---\n# Gamma\n\n[[Projects/Alpha]] [[Missing Note]]\n",
    "Projects/Note 2.md": "# Note 2\n\n[[Projects/Note 10]] [[Projects/note 1]]\n",
    "Projects/Note 10.md": "# Note 10\n\n[[Projects/Note 2]]\n",
    "Projects/note 1.md": "---\naliases: []\n---\n# note 1\n\n[[Projects/Note 2]] #zeta\n",
    "People/Ann.md": "---\naliases: [Annie]\ntags: [person]\n---\n# Ann\n\n[[Projects/Alpha]] [[Home]]\n",
    "People/Bob.md": '---\nup: "[[People/Ann]]"\n---\n# Bob\n\n[[People/Ann]] [[Missing Note]]\n',
    "Archive/2020/Old.md": "---\ntags: [old]\n---\n# Old\n\n[[Home]] ![[images/map.png]] [[Archive/2020/Old]]\n",
    "Archive/2020/Older.md": "# Older\n\n[[Archive/2020/Old]] [[People/Bob]]\n",
}


def _index(vault: Path, index_dir: Path, config: IndexConfig | None = None) -> Path:
    build_index(vault, index_dir, config, embedder=HashEmbedder())
    return index_dir


@pytest.fixture(scope="module")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _index(SAMPLE_VAULT, tmp_path_factory.mktemp("sample") / "index")


@pytest.fixture(scope="module")
def tricky_vault(tmp_path_factory: pytest.TempPathFactory) -> Path:
    vault = tmp_path_factory.mktemp("tricky") / "vault"
    for rel, text in TRICKY.items():
        write(vault, rel, text)
    write(vault, "images/map.png", b"\x89PNG\r\n")
    return vault


@pytest.fixture(scope="module")
def tricky_index(tricky_vault: Path) -> Path:
    return _index(tricky_vault, tricky_vault.parent / "index")


@pytest.fixture(scope="module")
def apart_index(tricky_vault: Path) -> Path:
    """Projects.md beside Projects/ is not its folder note: the folder is virtual, "Projects/"."""
    config = IndexConfig(index=IndexSettings(folder_note_beside=False))
    return _index(tricky_vault, tricky_vault.parent / "index-apart", config)


@pytest.fixture(params=["sample", "tricky", "apart"])
def index_dir(request: pytest.FixtureRequest) -> Path:
    return request.getfixturevalue(f"{request.param}_index")


# -- the store's rows -------------------------------------------------------------------
def test_the_tricky_vault_has_the_tricky_cases(tricky_index: Path) -> None:
    g = VaultGraph.from_rows(*load_index(tricky_index).graph_rows())
    kinds = {n.kind for n in g.nodes.values()}
    assert {"note", "folder", "ghost", "attachment"} <= kinds
    assert g.nodes["People"].kind == "folder" and g.nodes["People"].path == "People"
    assert g.nodes["Home"].aliases == ("Start", "Front Page")
    assert g.nodes["Projects/note 1"].aliases == ()
    assert g.nodes["Projects/Alpha"].tags == ("alpha", "proj", "proj/alpha", "zeta")
    assert g.parents["Projects/Alpha"] == "Home"  # a hierarchy property
    assert g.parents["Projects/Beta"] == "Projects"  # the folder note
    # front-matter order first, then natural order, case-blind
    assert g.children("Projects") == (
        "Projects/Gamma",
        "Projects/Beta",
        "Projects/note 1",
        "Projects/Note 2",
        "Projects/Note 10",
    )
    alpha = g.outlinks("Projects/Alpha")
    ann = [(o.kind, o.predicate) for o in alpha if o.target == "People/Ann"]
    assert ann == [
        ("property", "author"),
        ("property", "reviewer"),
        ("wikilink", None),
        ("property", "lead"),
    ]
    home = [(o.target, o.kind) for o in g.outlinks("Home")]
    assert home.count(("Projects/Alpha", "wikilink")) == 1  # the embed came later: dropped
    assert ("images/map.png", "embed") in home and "Home" not in dict(home)
    assert g.backlinks("Missing Note") == ("Home", "People/Bob", "Projects/Gamma")
    assert "Archive/2020/Old" not in g.backlinks("Archive/2020/Old")


def test_a_folder_apart_from_its_note(apart_index: Path) -> None:
    g = VaultGraph.from_rows(*load_index(apart_index).graph_rows())
    folder = g.nodes["Projects/"]
    assert (folder.kind, folder.path, folder.title) == ("folder", "Projects", "Projects")
    assert g.nodes["Projects"].kind == "note" and g.parents["Projects/Beta"] == "Projects/"


def test_rows_give_the_old_graph(index_dir: Path) -> None:
    snap = load_index(index_dir)
    want = reference_graph(*store_parts(snap.db))
    assert len(want.nodes) > 10 and want.outlinks_of and want.tag_members and want.children_of
    assert_same_graph(VaultGraph.from_rows(*snap.graph_rows()), want)
    assert_same_graph(VaultGraph.from_rows(*store_rows(snap.db)), want)


def test_parts_and_networkx_give_the_old_graph(index_dir: Path) -> None:
    snap = load_index(index_dir)
    want = reference_graph(*store_parts(snap.db))
    assert_same_graph(VaultGraph.from_parts(*snap.parts), want)
    # networkx lists a note's edges by neighbour, so its links come in another order
    g = graph_from_store(snap.db)
    assert_same_graph(
        VaultGraph.from_networkx(g), reference_graph(dict(g.nodes(data=True)), g.edges(data=True))
    )


@pytest.mark.parametrize("seed", range(4))
def test_links_in_any_order(index_dir: Path, seed: int) -> None:
    """Links out of uri order, a note's links apart: backlinks still sorted, first link wins."""
    snap = load_index(index_dir)
    node_attrs, _ = store_parts(snap.db)
    rows = store_rows(snap.db)
    links = list(rows.links)
    random.Random(seed).shuffle(links)
    if seed == 0:
        links.reverse()
    edges = (
        [(c, p, {"type": "parent"}) for c, p in rows.parents]
        + [(s, t, {"type": k, "predicate": p}) for s, t, k, p in links]
        + [(u, "#" + t, {"type": "tag"}) for u, t in rows.tags]
    )
    got = VaultGraph.from_rows(rows.nodes, rows.parents, links, rows.tags)
    assert_same_graph(got, reference_graph(node_attrs, edges))


def test_the_server_reload_gives_the_old_graph(tricky_vault: Path, tmp_path: Path) -> None:
    rag = VaultRAG.open(tricky_vault, index_dir=tmp_path / "index", embedder=HashEmbedder())
    snapshot = rag.reload()
    assert_same_graph(snapshot.graph, reference_graph(*store_parts(snapshot.index.db)))
    assert snapshot.graph.text_source("Home") == snapshot.index.body("Home")


def test_a_one_note_edit_reloads_to_the_old_graph(tricky_vault: Path, tmp_path: Path) -> None:
    """An incremental update rewrites the tables; the rows still give the old route's graph."""
    vault = tmp_path / "vault"
    for rel, text in TRICKY.items():
        write(vault, rel, text)
    index_dir = _index(vault, tmp_path / "index")
    write(vault, "Projects/Alpha.md", TRICKY["Projects/Alpha.md"] + "\n[[Zulu]] [[Home]] #new\n")
    write(vault, "Aardvark.md", "# Aardvark\n\n[[Projects/Alpha]] [[Zulu]]\n")
    build_index(vault, index_dir, embedder=HashEmbedder())
    snap = load_index(index_dir)
    assert_same_graph(
        VaultGraph.from_rows(*snap.graph_rows()), reference_graph(*store_parts(snap.db))
    )


# -- the shared implementation on arbitrary parts -------------------------------------
def _random_parts(rng: random.Random) -> tuple[dict[str, dict], list[tuple[str, str, dict]]]:
    uris = [
        f"{rng.choice(['A', 'b', 'C/d'])}/{rng.choice(['x', 'X', 'n'])} {rng.randint(0, 12)}"
        for _ in range(40)
    ]
    uris = list(dict.fromkeys(uris))
    node_attrs: dict[str, dict] = {}
    for uri in uris:
        attrs: dict[str, object] = {}
        if rng.random() < 0.9:
            attrs["kind"] = rng.choice(["note", "note", "note", "folder", "ghost", "attachment"])
        if rng.random() < 0.8:
            attrs["title"] = rng.choice(
                [uri.rsplit("/", 1)[-1], uri.upper(), "Same", "same", "Note 2", "note 10"]
            )
        for key in ("created", "modified"):
            if rng.random() < 0.6:
                attrs[key] = rng.choice([None, 0, 1700000000, 1700000000.5])
        if rng.random() < 0.5:
            attrs["order"] = rng.choice([None, 0, 1, 2.5, -1])
        if rng.random() < 0.5:
            attrs["path"] = rng.choice([None, uri + ".md"])
        if rng.random() < 0.5:
            attrs["aliases"] = rng.choice([None, (), [], ["a"], ("a", "b")])
        node_attrs[uri] = attrs
    tags = [f"#t{i}" for i in range(5)]
    for tag in tags:
        node_attrs[tag] = {"kind": "tag", "title": tag}
    stray = ["Stray/one", "Stray/two"]  # edge ends that are not nodes
    ends = uris + stray
    edges: list[tuple[str, str, dict]] = []
    for _ in range(300):
        u, v = rng.choice(ends), rng.choice(ends)
        roll = rng.random()
        if roll < 0.1:
            edges.append((u, v, {"type": "parent"}))
        elif roll < 0.25:
            edges.append((u, rng.choice(tags), {"type": "tag"}))
        elif roll < 0.3:
            edges.append((u, u, {"type": "wikilink"}))
        else:
            data: dict[str, object] = {
                "type": rng.choice(["wikilink", "embed", "markdown", "property"])
            }
            if rng.random() < 0.5:
                data["predicate"] = rng.choice([None, "author", "related"])
            if rng.random() < 0.05:
                del data["type"]
            edges.append((u, v, data))
    return node_attrs, edges


@pytest.mark.parametrize("seed", range(25))
def test_from_parts_on_arbitrary_parts(seed: int) -> None:
    node_attrs, edges = _random_parts(random.Random(seed))
    assert_same_graph(VaultGraph.from_parts(node_attrs, edges), reference_graph(node_attrs, edges))


def test_the_checks_see_a_broken_order() -> None:
    """The comparison is strict: the same dicts in another order do not pass."""
    node_attrs, edges = _random_parts(random.Random(1))
    want = reference_graph(node_attrs, edges)
    got = VaultGraph.from_parts(node_attrs, edges)
    got.children_of = {p: tuple(reversed(cs)) for p, cs in got.children_of.items()}
    with pytest.raises(AssertionError):
        assert_same_graph(got, want)
    got = VaultGraph.from_parts(node_attrs, edges)
    got.backlinks_of = dict(reversed(got.backlinks_of.items()))
    with pytest.raises(AssertionError):
        assert_same_graph(got, want)
    got = VaultGraph.from_parts(node_attrs, edges)
    first = next(u for u, n in got.nodes.items() if n.created)
    got.nodes[first] = NodeInfo(
        **{f.name: getattr(got.nodes[first], f.name) for f in fields(NodeInfo)}
        | {"created": int(got.nodes[first].created)}
    )
    with pytest.raises(AssertionError):
        assert_same_graph(got, want)
