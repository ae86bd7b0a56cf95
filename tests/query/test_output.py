"""Query mode output: JSON shape, explain, query-aware details, the CONTEXT prompt, filters."""

from __future__ import annotations

from graphrag.query.render import connection_lines, doc_block, render_prompt
from tests.support.query_vault import json_tokens, make_rag, uris

FILLER = "plain words about nothing much at all in this part of the page today"


def _long_note() -> str:
    return (
        "# Long\n\n"
        f"## Intro\n\n{FILLER} one.\n\n"
        "## Brine\n\nThe brine bath holds twenty percent salt by weight always.\n\n"
        f"## Other\n\n{FILLER} two.\n\n"
        "## Salt\n\nCoarse salt from the valley mill goes into the brine bath.\n\n"
        f"## Outro\n\n{FILLER} three.\n"
    )


def test_a_long_related_note_shows_its_best_chunks_in_order_with_heading_paths(tmp_path):
    rag = make_rag(
        tmp_path,
        {
            "Brine Bath Salt Percent.md": "# Brine Bath Salt Percent\n\nSee [[Long]].\n",
            "Long.md": _long_note(),
        },
        index={"chunk_tokens": 40},
        focus={"truncate_length": 260},
        query={"vector_entry_count": 1, "max_entries": 1, "tag_expansion_enabled": False},
    )
    result = rag.query("brine bath salt percent", seed=0)
    assert uris(result.entries) == ["Brine Bath Salt Percent"]
    note = {n.uri: n for n in result.related}["Long"].note
    assert note.details_truncated
    details = note.details
    assert "## Long > Brine\nThe brine bath holds" in details
    assert "## Long > Salt\nCoarse salt" in details
    assert details.index("## Long > Brine") < details.index("## Long > Salt")  # document order
    assert "Intro" not in details and "Outro" not in details  # not the first N characters
    assert "\n\n…\n\n" in details  # the left-out section between them
    assert len(details) <= 260 + 10


def test_json_shape_and_explain(tmp_path):
    rag = make_rag(
        tmp_path,
        {
            "Entry.md": "---\ntags: [cheese]\n---\n# Entry\n\nAlpine cheese aging. [[Linked]]\n",
            "Linked.md": "---\ntags: [cheese]\n---\n# Linked\n\nAlpine cheese cellar.\n",
        },
        query={"vector_entry_count": 1, "max_entries": 1},
    )
    data = rag.query("alpine cheese aging", budget=1000, seed=0).to_json()
    assert list(data) == ["query", "entryNotes", "relatedNotes", "tokens"]
    entry = data["entryNotes"][0]
    assert entry["uri"] == "Entry" and entry["matchedBy"] == ["vector", "lexical"]
    # Lists name notes outside the context (Entry links only to Linked, which is in it),
    # and an empty one is left out: it costs budget and says nothing.
    assert "outboundLinks" not in entry and "children" not in entry
    assert entry["tags"] == ["cheese"]
    assert "explain" not in entry
    rel = data["relatedNotes"][0]
    # reached from the first entry, the default focus: no focusUri
    assert rel["uri"] == "Linked" and "focusUri" not in rel and rel["sharedTags"] == ["cheese"]
    assert rel["relationToFocusNote"] == "Object"
    assert "explain" not in rel
    explained = rag.query("alpine cheese aging", budget=1000, seed=0, explain=True).to_json()
    parts = explained["relatedNotes"][0]["explain"]
    assert set(parts["parts"]) == {"relevance", "similarity", "recency"}
    assert parts["distance"] == 1 and parts["path"] == "Entry -object-> Linked"
    assert set(explained["entryNotes"][0]["explain"]["parts"]) == {
        "vector",
        "lexical",
        "tags",
        "title",
    }
    assert "skipped" in explained


CONTEXT_FILES = {
    "Apple Orchard.md": "---\ntags: [farm]\n---\n# Apple Orchard\n\nApple orchard pruning. [[Ladder]]\n",
    "Ladder.md": "---\ntags: [farm]\n---\n# Ladder\n\nA tall ladder for pruning apple trees.\n",
    "Bee Hives.md": "---\ntags: [farm]\n---\n# Bee Hives\n\nBee hives honey harvest.\n",
}


def test_the_prompt_is_the_seeds_context_format_with_connections(tmp_path):
    rag = make_rag(tmp_path, CONTEXT_FILES, query={"vector_entry_count": 1, "max_entries": 1})
    result = rag.query("apple orchard pruning", budget=3000, seed=0, output="prompt")
    text = render_prompt(result)
    assert text.startswith('CONTEXT:\n[1] Document: "Apple Orchard" (Entry note, matched by ')
    assert 'Content: "# Apple Orchard\n\nApple orchard pruning. [[Ladder]]"' in text
    # one hop: the relation names both ends, so no path repeats them
    assert (
        '[2] Document: "Ladder" (Distance: 1, Relation: Apple Orchard links to Ladder, '
        "Shared Tags: farm, URI: Ladder)"
    ) in text
    assert (
        "[Connection] Documents 1 and 2 are connected via a link: Apple Orchard links to Ladder "
        'and shared tag "farm"'
    ) in text
    # Connections come after every document.
    assert text.index("[Connection]") > text.rindex("Content:")
    # The budget counted each block and each connection line: exactly what is printed.
    docs = [*result.entries, *result.related]
    expected = sum(rag.tokenizer.count(doc_block(d, n)) for n, d in enumerate(docs, start=1))
    expected += sum(rag.tokenizer.count(line) for line in result.connections)
    assert result.tokens_used == expected


def test_connection_lines_name_links_hierarchy_and_tags(tmp_path):
    rag = make_rag(
        tmp_path,
        {
            "Folder/Folder.md": "---\ntags: [x]\n---\n# Folder\n\nThe folder note.\n",
            "Folder/Child.md": '---\ntags: [x, y]\nowner: "[[Other]]"\n---\n# Child\n\nChild text.\n',
            "Other.md": "---\ntags: [y]\n---\n# Other\n\nOther text.\n",
        },
    )
    result = rag.query("folder note child text other text", budget=5000, seed=0)
    order = [d.uri for d in (*result.entries, *result.related)]
    lines = connection_lines(rag.graph, [*result.entries, *result.related])
    pos = {u: i + 1 for i, u in enumerate(order)}
    a, b = sorted((pos["Folder/Folder"], pos["Folder/Child"]))
    assert any(
        line.startswith(
            f"[Connection] Documents {a} and {b} are connected via the hierarchy: "
            "Folder is the parent of Child"
        )
        for line in lines
    )
    a, b = sorted((pos["Folder/Child"], pos["Other"]))
    line = next(x for x in lines if x.startswith(f"[Connection] Documents {a} and {b} "))
    assert "Child links to Other (property owner)" in line and 'shared tag "y"' in line


def test_nothing_found_prompt_says_so(tmp_path):
    rag = make_rag(tmp_path, CONTEXT_FILES)
    result = rag.query("zeppelin", output="prompt")
    assert render_prompt(result).startswith("CONTEXT:\n(nothing found: no note is relevant")


FILTER_FILES = {
    "Dairy/Brine.md": "---\ncreated: 2020-05-01\nstage: done\n---\n# Brine\n\nSalt brine for cheese wheels. #cheese\n",
    "Dairy/Press.md": "---\ncreated: 2022-05-01\nstage: open\n---\n# Press\n\nPressing cheese wheels before brine.\n",
    "Huts/Cellar.md": "---\ncreated: 2021-05-01\n---\n# Cellar\n\nCheese wheels in salt brine. #cheese\n",
    "Huts/Roof.md": "---\ncreated: 2023-05-01\n---\n# Roof\n\nThe roof over the cheese wheels. [[Brine]]\n",
}
QUESTION = "salt brine for cheese wheels"


def _all(result) -> set[str]:
    return set(uris(result.entries)) | set(uris(result.related))


def test_filters_restrict_what_query_mode_returns(tmp_path):
    rag = make_rag(tmp_path, FILTER_FILES)
    everything = _all(rag.query(QUESTION, seed=0))
    assert {"Dairy/Brine", "Huts/Cellar"} <= everything
    assert _all(rag.query(QUESTION, seed=0, filters={"folder": "Dairy"})) == {
        "Dairy/Brine",
        "Dairy/Press",
    }
    assert _all(rag.query(QUESTION, seed=0, filters={"tag": ["cheese"]})) == {
        "Dairy/Brine",
        "Huts/Cellar",
    }
    assert _all(rag.query(QUESTION, seed=0, filters={"prop": ["stage=open"]})) == {"Dairy/Press"}
    dated = rag.query(QUESTION, seed=0, filters={"created": "2021-01-01..2022-12-31"})
    assert _all(dated) == {"Dairy/Press", "Huts/Cellar"}
    data = dated.to_json()
    assert data["filters"] == {"created": ["2021-01-01T00:00:00Z", "2022-12-31T23:59:59Z"]}
    nothing = rag.query(QUESTION, seed=0, filters={"folder": "Nowhere"})
    assert nothing.entries == () and "filters" in (nothing.message or "")


def test_query_details_fit_the_entry_share_of_a_small_budget(tmp_path):
    body = "\n\n".join(f"## Part {i}\n\nHarvest plan keyword{i}. " + FILLER for i in range(12))
    rag = make_rag(
        tmp_path,
        {"Plan.md": f"# Plan\n\n{body}\n", "Other.md": "# Other\n\nHarvest plan notes.\n"},
        index={"chunk_tokens": 40},
    )
    result = rag.query("keyword7", budget=300, seed=0)
    entry = {e.uri: e for e in result.entries}["Plan"]
    assert entry.details_truncated and len(entry.note.details) < len(body) / 3
    assert "## Plan > Part 7\nHarvest plan keyword7." in entry.note.details
    assert result.tokens_used <= 300


def test_the_prompt_keeps_room_for_connection_lines(tmp_path):
    links = " ".join(f"[[Part {i}]]" for i in range(8))
    files = {"Hub.md": f"# Hub\n\nHarvest plan overview. {links}\n"}
    files.update(
        {f"Part {i}.md": f"# Part {i}\n\nHarvest plan step {i}. " + FILLER * 3 for i in range(8)}
    )
    rag = make_rag(tmp_path, files)
    share = rag.settings.query.connection_budget_share
    for budget in range(300, 1600, 50):
        result = rag.query("harvest plan overview", budget=budget, seed=0, output="prompt")
        docs = [*result.entries, *result.related]
        notes = sum(rag.tokenizer.count(doc_block(d, n)) for n, d in enumerate(docs, start=1))
        assert notes <= budget - int(budget * share)  # the notes leave the reserve alone
        assert result.tokens_used <= budget
        if len(docs) >= 2:
            assert result.connections  # Hub links to every part


PROPERTY_FILES = {
    "Meeting.md": '---\npeople: "[[Steph]]"\ndate: 2023-09-12\nloc: [Remote]\n---\n'
    "# Meeting\n\nDiscussed the cheese cellar.\n",
    "Steph.md": '---\ntwitter: kepano\ntags: [person]\norg: "[[Obsidian]]"\n---\n# Steph\n\nA person.\n',
}


def test_details_show_scalar_front_matter_properties_but_not_links(tmp_path):
    query = {"vector_entry_count": 1, "max_entries": 1, "tag_expansion_enabled": False}
    rag = make_rag(tmp_path, PROPERTY_FILES, query=query)
    result = rag.query("meeting cheese cellar", seed=0)
    assert uris(result.entries) == ["Meeting"]
    entry = result.entries[0].note.details
    assert entry.startswith("date: 2023-09-12\nloc: Remote\n\n# Meeting")
    steph = {n.uri: n for n in result.related}["Steph"].note.details
    assert steph.startswith("twitter: kepano\n\n")  # no tags line, no [[Obsidian]] link
    assert "[[" not in steph and "person" not in steph.split("\n\n")[0]
    # The properties are part of what the budget counts.
    assert result.tokens_used == json_tokens(rag, result)
    off = make_rag(tmp_path / "off", PROPERTY_FILES, query={**query, "show_properties": False})
    entry = off.query("meeting cheese cellar", seed=0).entries[0].note.details
    assert entry.startswith("# Meeting") and "2023-09-12" not in entry


def test_connection_lines_read_each_note_s_links_once_with_the_pairwise_rule(tmp_path):
    """Links between documents are found from one pass over each document's links; the
    lines are the ones the pair-by-pair rule gives: the first link from one to the other
    names its property, links both ways, a self-link, a note linked under a property
    after a body link."""
    from graphrag.query.expand import shared_tags
    from graphrag.query.render import MAX_CONNECTION_TAGS

    notes = {
        "Hub.md": '---\ntags: [t]\nrel: "[[B]]"\n---\n# Hub\n\n'
        + "".join(f"- [[N{k}]]\n" for k in range(30))
        + "- [[A]] and [[B]] and [[Hub]]\n",
        "A.md": "---\ntags: [t, u]\n---\n# A\n\nBack to [[Hub]]; see [[B]].\n",
        "B.md": '---\nup: "[[A]]"\ntags: [u]\n---\n# B\n\nText [[A]] again.\n',
        **{f"N{k}.md": f"# N{k}\n\nA note {k} [[Hub]]\n" for k in range(30)},
    }
    rag = make_rag(tmp_path, notes)
    graph = rag.graph
    docs = [
        type("D", (), {"uri": u, "title": graph.info(u).title})()
        for u in ["Hub", "A", "B", "N3", "N7", "Hub"]
    ]

    def pairwise(a: str, b: str, titles: dict[str, str]) -> list[str]:
        ways, links = [], []
        for src, dst in ((a, b), (b, a)):
            for link in graph.outlinks(src):
                if link.target == dst:
                    prop = f" (property {link.predicate})" if link.predicate else ""
                    links.append(f"{titles[src]} links to {titles[dst]}{prop}")
                    break
        if len(links) == 2:
            ways.append(f"links both ways: {links[0]}, {links[1]}")
        elif links:
            ways.append(f"a link: {links[0]}")
        for child, parent in ((a, b), (b, a)):
            if graph.parent(child) == parent:
                ways.append(f"the hierarchy: {titles[parent]} is the parent of {titles[child]}")
        tags = shared_tags(graph, a, b)[:MAX_CONNECTION_TAGS]
        if tags:
            word = "tag" if len(tags) == 1 else "tags"
            ways.append(f"shared {word} " + ", ".join(f'"{t}"' for t in tags))
        return ways

    titles = {d.uri: d.title for d in docs}
    expected = []
    for i, a in enumerate(docs):
        for j in range(i + 1, len(docs)):
            ways = pairwise(a.uri, docs[j].uri, titles)
            if ways:
                expected.append(
                    f"[Connection] Documents {i + 1} and {j + 1} are connected via "
                    + " and ".join(ways)
                )
    got = connection_lines(graph, docs)  # type: ignore[arg-type]
    assert got == expected
    assert any("(property rel)" in line for line in got)  # the first link to B is the property
    assert any("links both ways" in line for line in got)
