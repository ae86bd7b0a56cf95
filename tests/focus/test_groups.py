"""Focus mode in vaults organised by properties: shared property values, folder
siblings weighed by folder size and by the vault's own groups, similar notes."""

from __future__ import annotations

import math

from graphrag.config.focus import DEFAULT_RELATION_WEIGHTS
from graphrag.focus.groups import PropertyGroups, crowd, property_groups
from graphrag.focus.relations import CHILD, PARENT
from graphrag.focus.render import render_prompt
from graphrag.focus.score import relation_factor
from graphrag.focus.traverse import Candidate
from graphrag.results.notes import Relation
from tests.support.query_vault import make_rag


def _note(props: dict[str, list[str]], body: str = "") -> str:
    lines = ["---"]
    for key, targets in props.items():
        lines.append(f"{key}:")
        lines.extend(f'  - "[[{t}]]"' for t in targets)
    return "\n".join([*lines, "---", body or "Nothing more to say here.", ""])


# kepano's layout: one flat folder of references, the structure in property links.
KEPANO = {
    "References/Kyoto.md": _note({"categories": ["Places"], "loc": ["Japan"]}, "Temples."),
    "References/Osaka.md": _note({"categories": ["Places"], "loc": ["Japan"]}, "Castle."),
    "References/Lisbon.md": _note({"categories": ["Places"], "loc": ["Portugal"]}, "Trams."),
    "References/Futurama.md": _note({"categories": ["Shows"], "genre": ["Sci-fi"]}),
    "References/Catan.md": _note({"categories": ["Board games"]}),
    "References/Tart.md": _note({"categories": ["Recipes"]}),
    "References/Tea.md": _note({"categories": ["Recipes"]}),
    "References/Parks.md": "A page about parks, with no properties.\n",
    "Notes/2023 Japan Trip.md": _note({"categories": ["Trips"], "loc": ["Kyoto"]}),
}
NO_SIMILAR = {"similar_notes": 0}


def _related(rag, note: str, **kw):
    result = rag.focus(note, budget=20_000, seed=1, explain=True, **kw)
    return result, {n.uri: n for n in result.related_notes}


def test_notes_sharing_a_property_value_outrank_folder_siblings(tmp_path):
    rag = make_rag(tmp_path, KEPANO, focus=NO_SIMILAR)
    result, related = _related(rag, "References/Kyoto")
    osaka = related["References/Osaka"]
    assert osaka.relation == Relation.SharesPropertyValue
    # Through a category page that was never written (a ghost): the target is named.
    assert osaka.predicate in ("categories", "loc") and osaka.object is not None
    assert osaka.object.title in ("Places", "Japan")
    assert related["References/Lisbon"].relation == Relation.SharesPropertyValue
    order = [n.uri for n in result.related_notes]
    assert order[0] == "Notes/2023 Japan Trip"  # linked first
    assert set(order[1:3]) == {"References/Osaka", "References/Lisbon"}  # same category
    # The folder siblings the BFS found come after, and those the vault's own
    # properties put in another category weigh as remote notes.
    elsewhere = {"References/Futurama", "References/Catan", "References/Tart", "References/Tea"}
    siblings = [related[u] for u in order[3:]]
    assert siblings and {n.uri for n in siblings} <= elsewhere
    w_rel = rag.settings.focus.w_relationship
    for n in siblings:
        assert n.explain is not None and n.explain.relationship == w_rel * 2.0
    # A sibling without properties is not in another group: the seed's weight.
    graph, fs = rag.graph, rag.settings.focus
    groups = PropertyGroups(graph)
    parent = graph.parent("References/Kyoto")
    assert parent is not None

    def sibling(uri: str) -> Candidate:
        return Candidate(
            uri, 2, (PARENT, CHILD), (parent,), "References/Kyoto", Relation.YoungerSibling, 0
        )

    assert relation_factor(graph, sibling("References/Parks"), fs, groups) == 1.0
    assert relation_factor(graph, sibling("References/Tea"), fs, groups) == 2.0 / 5.0
    prompt = render_prompt(result)
    assert "Osaka, like Kyoto, has" in prompt and "as its `" in prompt


def test_query_mode_finds_notes_sharing_an_entrys_property_value(tmp_path):
    rag = make_rag(tmp_path, KEPANO)
    result = rag.query("Kyoto", budget=4000, seed=1)
    related = {n.uri: n for n in result.related}
    assert related["References/Osaka"].note.relation == Relation.SharesPropertyValue


def test_a_big_group_counts_less_per_member(tmp_path):
    assert crowd(10, 30) == 1.0 and crowd(30, 30) == 1.0
    assert math.isclose(crowd(120, 30), 0.5)
    files = {f"Big/Note {i:02d}.md": f"Note {i} of a big folder.\n" for i in range(40)}
    files |= {f"Small/Note {i}.md": f"Note {i} of a small folder.\n" for i in range(5)}
    rag = make_rag(tmp_path, files, focus=NO_SIMILAR)
    w = rag.settings.focus.w_relationship * DEFAULT_RELATION_WEIGHTS["YoungerSibling"]
    _, big = _related(rag, "Big/Note 00")
    explain = big["Big/Note 01"].explain
    assert explain is not None and math.isclose(explain.relationship, w * math.sqrt(30 / 40))
    _, small = _related(rag, "Small/Note 0")
    explain = small["Small/Note 1"].explain
    assert explain is not None and explain.relationship == w
    # A category linked by many notes: each one counts less, the same way.
    many = {f"R/Book {i:02d}.md": _note({"categories": ["Books"]}) for i in range(50)}
    rag = make_rag(tmp_path / "books", many, focus={**NO_SIMILAR, "shared_property_limit": 60})
    _, books = _related(rag, "R/Book 00")
    shared = [n for n in books.values() if n.relation == Relation.SharesPropertyValue]
    assert len(shared) == 49
    factor = math.sqrt(30 / 50)
    assert all(math.isclose(n.explain.relationship, 700.0 * factor) for n in shared)  # type: ignore[union-attr]


HIERARCHY = {
    "Dairy/Dairy.md": "The dairy. See [[Brine]].\n",
    "Dairy/Brine.md": "Salt bath for the wheels.\n",
    "Dairy/Press.md": "The press squeezes whey.\n",
    "Dairy/Cellar/Cellar.md": "Aging room.\n",
    "Dairy/Cellar/Shelves.md": "Larch boards.\n",
    "Places/Hut.md": '---\nwarden: "[[Ann]]"\n---\nA hut.\n',
    "Places/Barn.md": '---\nwarden: "[[Bob]]"\n---\nA barn.\n',
    "People/Ann.md": "Ann.\n",
    "People/Bob.md": "Bob.\n",
}


def _without_times(value: object) -> object:
    """The two vaults are written a moment apart, so file times may straddle a second."""
    if isinstance(value, dict):
        return {
            k: _without_times(v) for k, v in value.items() if k not in ("createdAt", "modifiedAt")
        }
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def test_a_vault_organised_by_folders_keeps_the_seeds_relations_and_scores(tmp_path):
    on = make_rag(tmp_path / "on", HIERARCHY, focus=NO_SIMILAR)
    off = make_rag(
        tmp_path / "off",
        HIERARCHY,
        focus={**NO_SIMILAR, "shared_property_limit": 0, "crowd_size": 0},
    )
    for note in ("Dairy/Brine", "Dairy/Cellar/Shelves", "Places/Hut", "People/Ann"):
        a = _without_times(on.focus(note, budget=5000, seed=3, explain=True).to_json())
        b = _without_times(off.focus(note, budget=5000, seed=3, explain=True).to_json())
        assert a == b, note
        # Every relationship part is the seed's weight for its relation: the two huts
        # have different wardens, but "warden" groups no notes, so they stay siblings.
        for n in a["relatedNotes"]:
            weight = DEFAULT_RELATION_WEIGHTS[n["relationToFocusNote"]]
            assert n["explain"]["parts"]["relationship"] == 100.0 * weight


SIMILAR = {
    "Dairy/Brine.md": "The brine bath: salt water for the cheese wheels, turned daily.\n",
    "Else/Salt bath.md": "A salt water bath where cheese wheels are turned daily.\n",
    "Other/Linked.md": "Wheels of cheese in salt water. Links to [[Brine]].\n",
    "Far/Goats.md": "Goats graze the upper pasture in summer.\n",
}


def test_similar_notes_join_focus_mode_as_their_own_relation(tmp_path):
    rag = make_rag(tmp_path, SIMILAR, focus={"similar_min_similarity": 0.3})
    result, related = _related(rag, "Dairy/Brine")
    salt = related["Else/Salt bath"]
    assert salt.relation == Relation.SimilarContent
    assert salt.explain is not None and 0.3 <= salt.explain.relationship / 500.0 <= 1.0
    # Found by the graph too: the graph's relation stays.
    assert related["Other/Linked"].relation == Relation.InboundReference
    assert "Far/Goats" not in related  # not alike enough
    assert "Salt bath is about the same as Brine (similar text; no link)" in render_prompt(result)
    off = make_rag(tmp_path / "off", SIMILAR, focus={"similar_notes": 0})
    _, without = _related(off, "Dairy/Brine")
    assert "Else/Salt bath" not in without


def test_property_groups_are_kept_per_graph_and_a_graph_without_links_has_its_own(tmp_path):
    rag = make_rag(tmp_path, KEPANO, focus=NO_SIMILAR)
    graph = rag.graph
    groups = property_groups(graph)
    assert property_groups(graph) is groups  # one per graph, for every request
    members = {"References/Kyoto", "References/Osaka", "References/Lisbon"}
    assert set(groups.members("categories", "Places")) == members
    # Hiding a link (eval --from-links) makes another graph: its groups do not see it.
    hidden = graph.without_links([("References/Osaka", "Places")])
    assert property_groups(hidden) is not groups
    assert set(property_groups(hidden).members("categories", "Places")) == {
        "References/Kyoto",
        "References/Lisbon",
    }
