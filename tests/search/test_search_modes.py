"""The seeds' searches: semantic, lexical, hybrid (RRF), graph, hierarchical; filters on each;
get_note and neighbors."""

from __future__ import annotations

import pytest

from graphrag.errors import InvalidRequestError, NoteNotFoundError
from graphrag.search.searches import rrf
from tests.support.query_vault import KITCHEN, make_rag

RECIPE = "recipe with flour yeast onions lentil soup bread"


def hit_uris(result) -> list[str]:
    return [h.uri for h in result.hits]


def test_semantic_search_ranks_notes_by_their_best_chunk(tmp_path):
    rag = make_rag(tmp_path, KITCHEN)
    result = rag.semantic_search("bread recipe with flour and yeast", top_k=3)
    assert result.mode == "semantic" and len(result.hits) == 3
    assert result.hits[0].uri == "Cooking/Bread"
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    assert result.hits[0].heading == "Bread" and result.hits[0].snippet.startswith("Bread recipe")
    assert result.to_json()["results"][0]["uri"] == "Cooking/Bread"


def test_lexical_search_stems_words_and_needs_no_model(tmp_path):
    rag = make_rag(tmp_path, KITCHEN)
    calls = rag.embedder.calls
    result = rag.lexical_search("climbing bean", top_k=5)
    assert hit_uris(result) == ["Garden/Beans"]  # "climbing" ~ "climb", "bean" ~ "beans"
    assert rag.embedder.calls == calls
    empty = rag.lexical_search("zeppelin")
    assert empty.hits == () and "no note" in (empty.message or "")


def test_rrf_adds_reciprocal_ranks():
    fused = rrf({"vector": [1, 2, 3], "lexical": [3, 1], "graph": [4]}, k=60)
    assert [i for i, _, _ in fused] == [1, 3, 4, 2]  # 4 is first somewhere, 2 only second
    by_note = {i: (score, ranks) for i, score, ranks in fused}
    assert by_note[1][0] == pytest.approx(1 / 61 + 1 / 62)
    assert by_note[3][1] == {"vector": 3, "lexical": 1}
    assert by_note[4][0] == pytest.approx(1 / 61)
    # ties go to the lower index
    assert [i for i, _, _ in rrf({"a": [5], "b": [2]}, k=60)] == [2, 5]


def test_hybrid_search_fuses_vector_lexical_and_graph_rankings(tmp_path):
    files = {**KITCHEN, "Zindex.md": "# Zindex\n\n[[Soup]] [[Bread]] [[Pasta]]\n"}
    rag = make_rag(tmp_path, files)
    result = rag.hybrid_search("lentil onions", top_k=6)
    assert result.mode == "hybrid"
    first = result.hits[0]
    assert first.uri == "Cooking/Soup"
    assert set(first.ranks) == {"vector", "lexical", "graph"} and first.ranks["vector"] == 1
    # The index page shares no word with the question but links to the best hit: the
    # graph ranking lifts it into the results, where vector similarity alone does not.
    index = {h.uri: h for h in result.hits}["Zindex"]
    assert "lexical" not in index.ranks and index.ranks["graph"] == 1
    assert "Zindex" not in hit_uris(rag.semantic_search("lentil onions", top_k=6))
    s = rag.settings.query
    assert first.score == pytest.approx(sum(1 / (s.rrf_k + r) for r in first.ranks.values()))


def test_hierarchical_search_searches_only_the_chunks_under_the_chosen_hubs(tmp_path):
    rag = make_rag(tmp_path, KITCHEN, query={"hub_count": 1, "hub_max_fraction": 0.5})
    full = rag.semantic_search(RECIPE, top_k=10)
    assert "Travel/Rome" in hit_uris(full)[:3]  # a strong match outside the cooking folder
    result = rag.hierarchical_search(RECIPE, top_k=10)
    assert result.hubs == ("folder:Cooking",)
    assert set(hit_uris(result)) == {"Cooking/Soup", "Cooking/Bread", "Cooking/Pasta"}
    same = {h.uri: h.score for h in full.hits}
    assert all(h.score == pytest.approx(same[h.uri]) for h in result.hits)  # same vectors
    assert result.to_json()["hubs"] == ["folder:Cooking"]


def test_hierarchical_search_without_a_usable_hub_searches_everything(tmp_path):
    rag = make_rag(tmp_path, KITCHEN, query={"hub_min_notes": 100})
    result = rag.hierarchical_search(RECIPE, top_k=4)
    assert result.hubs == ()
    assert hit_uris(result) == hit_uris(rag.semantic_search(RECIPE, top_k=4))


def test_hub_kinds_are_folders_tags_and_hub_notes(tmp_path):
    from graphrag.search.hubs import build_hubs

    files = {
        **KITCHEN,
        "Cooking/Bread.md": "---\ntags: [baking]\n---\n# Bread\n\nBread recipe.\n",
        "Travel/Rome.md": "---\ntags: [baking]\n---\n# Rome\n\nRoman bread.\n",
        "Map.md": "# Map\n\n" + " ".join(f"[[{n}]]" for n in ("Soup", "Oslo", "Kale", "Peas")),
    }
    rag = make_rag(tmp_path, files, query={"hub_min_links": 4, "hub_max_fraction": 0.5})
    names = build_hubs(rag.snapshot.corpus, rag.graph, rag.settings.query).names
    assert {"folder:Cooking", "folder:Garden", "tag:baking", "note:Map"} <= set(names)


def test_graph_search_returns_anchors_parents_and_children(tmp_path):
    rag = make_rag(
        tmp_path,
        {
            "Topic.md": "# Topic\n\nThe overview.\n",
            "Topic/Anchor.md": "# Anchor\n\nZebra crossing rules. [[Target]]\n",
            "Topic/Anchor/Detail.md": "# Detail\n\nA child note.\n",
            "Target.md": "# Target\n\nWhere the link goes. [[Beyond]]\n",
            "Beyond.md": "# Beyond\n\nTwo hops away.\n",
            "Referrer.md": "# Referrer\n\nSee [[Anchor]].\n",
        },
    )
    result = rag.graph_search("zebra crossing rules", top_k=1, hops=1)
    data = result.to_json()
    assert list(data) == ["query", "focus", "parents", "children"]
    assert [h["uri"] for h in data["focus"]] == ["Topic/Anchor"]
    assert {p["uri"] for p in data["parents"]} == {"Topic", "Target"}
    assert {c["uri"] for c in data["children"]} == {"Topic/Anchor/Detail", "Referrer"}
    two = rag.graph_search("zebra crossing rules", top_k=1, hops=2)
    assert "Beyond" in {p.uri for p in two.parents}
    zero = rag.graph_search("zebra crossing rules", top_k=1, hops=0)
    assert zero.parents == () and zero.children == ()
    with pytest.raises(InvalidRequestError):
        rag.graph_search("zebra", hops=-1)


FILTERED = {
    "Dairy/Brine.md": "---\ncreated: 2020-05-01\nstage: done\n---\n# Brine\n\nSalt brine for cheese wheels. #cheese\n",
    "Dairy/Press.md": "---\ncreated: 2022-05-01\nstage: open\n---\n# Press\n\nPressing cheese wheels before the brine.\n",
    "Dairy/Whey.md": "---\ncreated: 2022-06-01\n---\n# Whey\n\nWhey from the cheese wheels.\n",
    "Huts/Cellar.md": "---\ncreated: 2021-05-01\n---\n# Cellar\n\nCheese wheels in salt brine. #cheese\n",
    "Huts/Roof.md": "---\ncreated: 2023-05-01\n---\n# Roof\n\nThe roof over the cheese wheels. [[Brine]]\n",
    "Huts/Door.md": "---\ncreated: 2023-06-01\n---\n# Door\n\nThe cellar door for cheese wheels. [[Cellar]]\n",
}
FILTERS = [
    ({"folder": "Dairy"}, {"Dairy/Brine", "Dairy/Press", "Dairy/Whey"}),
    ({"tag": "#cheese"}, {"Dairy/Brine", "Huts/Cellar"}),
    ({"prop": "stage=done"}, {"Dairy/Brine"}),
    ({"prop": "stage"}, {"Dairy/Brine", "Dairy/Press"}),
    ({"created": "2022-01-01..2023-05-31"}, {"Dairy/Press", "Dairy/Whey", "Huts/Roof"}),
    ({"created": "2021..2022"}, {"Huts/Cellar", "Dairy/Press", "Dairy/Whey"}),  # whole years
    ({"created": "2023-05"}, {"Huts/Roof"}),  # a whole month
    ({"modified": "..1999-12-31"}, set()),
]
MODES = ["semantic", "lexical", "hybrid", "hierarchical", "graph"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("filters", "allowed"), FILTERS)
def test_every_search_mode_honours_every_filter(tmp_path, mode, filters, allowed):
    rag = make_rag(tmp_path, FILTERED, query={"hub_max_fraction": 1.0})
    question = "cheese wheels salt brine"
    if mode == "graph":
        result = rag.graph_search(question, top_k=10, hops=1, filters=filters)
        found = {h.uri for h in result.focus} | {n.uri for n in (*result.parents, *result.children)}
        unfiltered = rag.graph_search(question, top_k=10, hops=1)
        everything = {h.uri for h in unfiltered.focus}
    else:
        call = getattr(rag, f"{mode}_search")
        found = {h.uri for h in call(question, top_k=10, filters=filters).hits}
        everything = {h.uri for h in call(question, top_k=10).hits}
    assert found <= allowed
    if mode != "hierarchical":  # hubs may leave some allowed notes out; never others
        assert found == allowed & everything
    assert everything - allowed  # the filter had something to remove


def test_a_bad_filter_value_is_a_clear_error(tmp_path):
    rag = make_rag(tmp_path, FILTERED)
    with pytest.raises(InvalidRequestError, match="created"):
        rag.semantic_search("cheese", filters={"created": "last tuesday"})
    for month in ("2022-13", "2022-00", "2022-+1", "..2022-13"):
        with pytest.raises(InvalidRequestError, match="is not a date"):
            rag.semantic_search("cheese", filters={"created": month})
    with pytest.raises(InvalidRequestError, match="property"):
        rag.semantic_search("cheese", filters={"prop": "=x"})
    with pytest.raises(InvalidRequestError, match="'2030..2020' ends before it starts"):
        rag.semantic_search("cheese", filters={"modified": "2030..2020"})
    assert rag.semantic_search("cheese", filters={"created": "2023-05-01..2023-05-01"}).hits


def test_get_note_and_neighbors(tmp_path):
    rag = make_rag(tmp_path, FILTERED)
    note = rag.get_note("Roof")
    data = note.to_json()
    assert data["uri"] == "Huts/Roof" and data["properties"]["created"] == "2023-05-01"
    assert data["createdAt"] == "2023-05-01T00:00:00Z"
    assert {"uri": "Dairy/Brine", "title": "Brine", "relation": "link"} in data["neighbours"]
    assert "The roof over" in data["details"]
    out = [(n.uri, n.relation) for n in rag.neighbors("Brine", "out")]
    assert out == [("Dairy", "parent")]
    inbound = [(n.uri, n.relation) for n in rag.neighbors("Dairy/Brine", "in")]
    assert inbound == [("Huts/Roof", "backlink")]
    both = rag.neighbors("Dairy/Brine", "both")
    assert [(n.uri, n.relation) for n in both] == out + inbound
    assert both[0].kind == "folder"  # a virtual folder, not a note
    with pytest.raises(InvalidRequestError):
        rag.neighbors("Brine", "sideways")
    with pytest.raises(NoteNotFoundError):
        rag.get_note("Nowhere at all")


def test_search_dispatches_every_mode_to_its_method(tmp_path) -> None:
    from graphrag.search.modes import RANKED_MODES, SEARCH_MODES

    rag = make_rag(tmp_path, KITCHEN)
    assert set(SEARCH_MODES) == {*RANKED_MODES, "graph"}
    for mode in RANKED_MODES:
        by_name = getattr(rag, f"{mode}_search")(RECIPE, 3, filters={"folder": ["Cooking"]})
        assert rag.search(RECIPE, mode, 3, filters={"folder": ["Cooking"]}) == by_name
    graph = rag.search(RECIPE, "graph", 2, hops=0)
    assert graph == rag.graph_search(RECIPE, 2, hops=0) and not graph.parents
    with pytest.raises(InvalidRequestError, match="mode: 'fuzzy' is unknown"):
        rag.search(RECIPE, "fuzzy")
