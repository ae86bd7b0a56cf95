"""Query mode, traversal and rerank: multi-source BFS, query-aware caps, tag and path
expansion, min_similarity, max_documents, the budget, determinism."""

from __future__ import annotations

from graphrag.query.render import json_text
from graphrag.results.notes import Relation
from tests.support.query_vault import NOW, json_tokens, make_rag, uris

NO_EXPANSION = {"tag_expansion_enabled": False, "path_expansion_enabled": False}


def related(result):
    return {n.uri: n for n in result.related}


def test_every_entry_is_a_source_and_related_notes_record_theirs(tmp_path):
    rag = make_rag(
        tmp_path,
        {
            "Cheese.md": "# Cheese\n\nCheese aging in the cellar. See [[Shelves]].\n",
            "Goats.md": "# Goats\n\nGoats graze the pasture. See [[Fences]].\n",
            "Shelves.md": "# Shelves\n\nLarch boards.\n",
            "Fences.md": "# Fences\n\nPosts and wire.\n",
        },
        query={"vector_entry_count": 2, **NO_EXPANSION},
    )
    result = rag.query("cheese aging cellar and goats graze pasture", seed=0)
    assert set(uris(result.entries)) == {"Cheese", "Goats"}
    notes = related(result)
    assert notes["Shelves"].focus.uri == "Cheese"
    assert notes["Fences"].focus.uri == "Goats"
    assert notes["Fences"].note.relation == Relation.Object
    data = {n["uri"]: n for n in result.to_json()["relatedNotes"]}
    assert data["Shelves"]["focusUri"] == "Cheese"
    assert data["Fences"]["relationToFocusNote"] == "Object"


def _family(relevant: int, kind: str) -> dict[str, str]:
    """An entry with six children (kind=child) or six backlinks (kind=inbound); only
    number ``relevant`` shares words with the question."""
    files = {"Hub.md": "# Hub\n\nAlpine dairy overview.\n"}
    for i in range(6):
        text = "The brine salt strength for wheels." if i == relevant else f"Other matter {i}."
        link = " [[Hub]]" if kind == "inbound" else ""
        folder = "Hub/" if kind == "child" else ""
        files[f"{folder}Item {i}.md"] = f"# Item {i}\n\n{text}{link}\n"
    return files


def test_children_filling_a_cap_are_the_ones_most_similar_to_the_question(tmp_path):
    rag = make_rag(
        tmp_path,
        _family(4, "child"),
        query={"vector_entry_count": 1, "max_entries": 1, "max_hops": 1, **NO_EXPANSION},
    )
    for seed in range(10):
        result = rag.query("alpine dairy overview brine salt strength", seed=seed)
        assert uris(result.entries) == ["Hub"]
        children = [n.uri for n in result.related if n.note.relation == Relation.Child]
        assert len(children) == 2  # the focus-mode cap at depth 1
        assert "Hub/Item 4" in children


def test_backlinks_filling_a_cap_are_the_ones_most_similar_to_the_question(tmp_path):
    rag = make_rag(
        tmp_path,
        _family(3, "inbound"),
        query={"vector_entry_count": 1, "max_entries": 1, "max_hops": 1, **NO_EXPANSION},
    )
    for seed in range(10):
        result = rag.query("alpine dairy overview brine salt strength", seed=seed)
        refs = [n.uri for n in result.related if n.note.relation == Relation.InboundReference]
        assert len(refs) == 2
        assert "Item 3" in refs


TAG_FILES = {
    "Entry.md": "---\ntags: [cheese]\n---\n# Entry\n\nAlpine cheese aging rules. [[Linked]]\n",
    "Linked.md": "# Linked\n\nCompletely different words here.\n",
    "Sibling Tag.md": "---\ntags: [cheese]\n---\n# Sibling Tag\n\nAlpine cheese aging in caves.\n",
    "Weak Tag.md": "---\ntags: [cheese]\n---\n# Weak Tag\n\nTractor repair manual.\n",
}


def test_tag_expansion_adds_notes_sharing_an_entrys_tags(tmp_path):
    rag = make_rag(tmp_path, TAG_FILES, query={"vector_entry_count": 1, "max_entries": 1})
    notes = related(rag.query("alpine cheese aging rules", seed=0))
    assert notes["Sibling Tag"].note.relation == Relation.SharesTag
    assert notes["Sibling Tag"].shared_tags == ("cheese",)
    assert notes["Sibling Tag"].focus.uri == "Entry"
    assert notes["Sibling Tag"].to_json(False)["sharedTags"] == ["cheese"]
    off = make_rag(
        tmp_path / "off",
        TAG_FILES,
        query={"vector_entry_count": 1, "max_entries": 1, "tag_expansion_enabled": False},
    )
    # Without tag expansion the note may still come in, found by its own text (packing's
    # search hits), but not through the tag.
    found = related(off.query("alpine cheese aging rules", seed=0)).get("Sibling Tag")
    assert found is None or found.note.relation == Relation.MatchesQuestion


def test_min_similarity_drops_weak_notes_unless_structurally_close(tmp_path):
    files = {**TAG_FILES, "Backlink.md": "# Backlink\n\nCompletely other words. [[Entry]]\n"}
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 1, "max_entries": 1})
    result = rag.query("alpine cheese aging rules", seed=0, explain=True)
    notes = related(result)
    floor = rag.settings.query.min_similarity
    # Backlink is as dissimilar as Weak Tag, but one link away from the entry.
    assert notes["Backlink"].explain.similarity < floor
    # Dropped from the graph's ranking; it may only fill the room left as a search hit.
    weak = notes.get("Weak Tag")
    assert weak is None or weak.note.relation == Relation.MatchesQuestion
    assert ("Weak Tag", "similarity") in {(s.uri, s.reason) for s in result.skipped}
    lenient = make_rag(
        tmp_path / "lenient",
        TAG_FILES,
        query={"vector_entry_count": 1, "max_entries": 1, "min_similarity": -1.0},
    )
    assert "Weak Tag" in related(lenient.query("alpine cheese aging rules", seed=0))


CHAIN_FILES = {
    "Entry.md": "# Entry\n\nAlpine cheese aging rules. [[Middle]]\n",
    "Middle.md": "# Middle\n\nShelves of larch. [[Far]]\n",
    "Far.md": "# Far\n\nTractor repair manual.\n",
}


def test_a_note_two_hops_out_is_structurally_close_by_default(tmp_path):
    # Far shares no word with the question and is two links from the entry: the
    # traversal's horizon (max_hops 2) is also what counts as close (close_depth 2).
    query = {"vector_entry_count": 1, "max_entries": 1, **NO_EXPANSION}
    rag = make_rag(tmp_path, CHAIN_FILES, query=query)
    assert rag.settings.query.close_depth == rag.settings.query.max_hops == 2
    result = rag.query("alpine cheese aging rules", seed=0, explain=True)
    far = related(result)["Far"]
    assert far.distance == 2 and far.explain.similarity < rag.settings.query.min_similarity
    # With only depth 1 close (the former default) the floor drops it.
    strict = make_rag(tmp_path / "strict", CHAIN_FILES, query={**query, "close_depth": 1})
    result = strict.query("alpine cheese aging rules", seed=0, explain=True)
    far = related(result).get("Far")
    assert far is None or far.note.relation == Relation.MatchesQuestion  # not through Middle
    assert ("Far", "similarity") in {(s.uri, s.reason) for s in result.skipped}


def test_the_linking_passage_counts_in_a_note_with_front_matter(tmp_path):
    # The entry's link sits in its second chunk, below front matter: a link's line
    # counts from the top of the file, a chunk's from the top of the body.
    files = {
        "Entry.md": "---\ntags: [x]\nstatus: draft\n---\n# Entry\n\nGoat herd notes.\n\n"
        "## Cellar\n\nAlpine cheese aging rules. [[Linked]]\n",
        "Linked.md": "# Linked\n\nCompletely different words here.\n",
    }
    rag = make_rag(
        tmp_path, files, query={"vector_entry_count": 1, "max_entries": 1, **NO_EXPANSION}
    )
    question = "alpine cheese aging rules cellar"
    own = {h.uri: h.score for h in rag.semantic_search(question, top_k=5).hits}
    result = rag.query(question, seed=0, explain=True)
    assert uris(result.entries) == ["Entry"]
    linked = related(result)["Linked"].explain.similarity
    assert linked > 0.5 > own.get("Linked", 0.0)  # the passage, not the note's own text


PATH_FILES = {
    "Apple Orchard.md": "# Apple Orchard\n\nApple orchard pruning. [[Middle]]\n",
    "Middle.md": "# Middle\n\nTools shed. [[Bee Hives]]\n",
    "Bee Hives.md": "# Bee Hives\n\nBee hives honey harvest.\n",
    "Far A.md": "# Far A\n\nLadders. [[Far B]]\n",
    "Far B.md": "# Far B\n\nBaskets.\n",
}


def test_notes_on_a_path_between_entries_are_added_and_kept(tmp_path):
    files = {
        **PATH_FILES,
        "Apple Orchard.md": "# Apple Orchard\n\nApple orchard pruning. [[Middle]] [[Far A]]\n",
        "Bee Hives.md": "# Bee Hives\n\nBee hives honey harvest. [[Far B]]\n",
    }
    # max_hops 0: no BFS at all, so only path expansion can find these notes.
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 2, "max_hops": 0})
    result = rag.query("apple orchard pruning and bee hives honey harvest", seed=0)
    assert set(uris(result.entries)) == {"Apple Orchard", "Bee Hives"}
    notes = related(result)
    middle = notes["Middle"]
    assert middle.note.relation == Relation.OnPathBetweenEntries
    # The path runs from the note's own entry to the other one.
    ends = [middle.focus.uri, "Middle", ({"Apple Orchard", "Bee Hives"} - {middle.focus.uri}).pop()]
    assert [p.uri for p in middle.path] == ends
    # Two steps: Apple Orchard - Far A - Far B - Bee Hives (a path of length 3).
    assert notes["Far A"].note.relation == Relation.OnPathBetweenEntries
    assert notes["Far B"].note.relation == Relation.OnPathBetweenEntries
    assert notes["Far A"].focus.uri == "Apple Orchard" and notes["Far B"].focus.uri == "Bee Hives"
    off = make_rag(
        tmp_path / "off",
        files,
        query={"vector_entry_count": 2, "max_hops": 0, "path_expansion_enabled": False},
    )
    # Without path expansion (and no BFS) they are only search hits: linked to the entries.
    rest = off.query("apple orchard pruning and bee hives honey harvest", seed=0).related
    assert {n.note.relation for n in rest} <= {Relation.MatchesQuestion}


def test_max_documents_caps_entries_and_related_notes_together(tmp_path):
    links = " ".join(f"[[Part {i}]]" for i in range(8))
    files = {"Hub.md": f"# Hub\n\nHarvest plan overview. {links}\n"}
    files.update({f"Part {i}.md": f"# Part {i}\n\nHarvest plan step {i}.\n" for i in range(8)})
    rag = make_rag(tmp_path, files, query={"max_documents": 4})
    result = rag.query("harvest plan overview", budget=10_000, seed=0)
    assert len(result.entries) + len(result.related) == 4
    wide = make_rag(tmp_path / "wide", files, query={"max_documents": 15})
    wide_result = wide.query("harvest plan overview", budget=10_000, seed=0)
    assert len(wide_result.entries) + len(wide_result.related) == 9


def test_the_budget_covers_entry_notes(tmp_path):
    links = " ".join(f"[[Part {i}]]" for i in range(8))
    files = {"Hub.md": f"# Hub\n\nHarvest plan overview. {links}\n" + "More words. " * 200}
    files.update({f"Part {i}.md": f"# Part {i}\n\nHarvest plan step {i}. " * 20 for i in range(8)})
    rag = make_rag(tmp_path, files)
    for budget in (0, 150, 400, 900, 3000):
        result = rag.query("harvest plan overview", budget=budget, seed=0)
        assert result.tokens_used == json_tokens(rag, result) <= budget
        assert result.to_json()["tokens"] == {"budget": budget, "used": result.tokens_used}
    assert rag.query("harvest plan overview", budget=0, seed=0).entries == ()
    small = rag.query("harvest plan overview", budget=400, seed=0)
    large = rag.query("harvest plan overview", budget=3000, seed=0)
    assert small.entries and len(small.related) < len(large.related)


def test_a_seed_makes_the_result_byte_identical(tmp_path):
    rag = make_rag(tmp_path, TAG_FILES | PATH_FILES)
    first = json_text(
        rag.query("alpine cheese aging and apple orchard", seed=7, explain=True, now=NOW)
    )
    again = json_text(
        rag.query("alpine cheese aging and apple orchard", seed=7, explain=True, now=NOW)
    )
    assert first == again
    reopened = make_rag(tmp_path, TAG_FILES | PATH_FILES)  # a new process would see the same
    third = json_text(
        reopened.query("alpine cheese aging and apple orchard", seed=7, explain=True, now=NOW)
    )
    assert third == first


def test_a_reindex_is_seen_by_the_next_query(tmp_path):
    rag = make_rag(tmp_path, TAG_FILES)
    assert "Newcomer" not in uris(rag.query("zeppelin hangar doors", seed=0).entries)
    (rag.vault / "Newcomer.md").write_text(
        "# Newcomer\n\nZeppelin hangar doors.\n", encoding="utf-8"
    )
    rag.index()
    assert uris(rag.query("zeppelin hangar doors", seed=0).entries) == ["Newcomer"]
