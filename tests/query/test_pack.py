"""Query mode's packing rules (graphrag/query/pack.py), one fixture vault each:
entry lists that only name notes outside the context, the best entry's best passage
kept whole, the best vector hit kept, copies folded, search hits when the graph has
nothing, and every related note's entry in the result."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from graphrag.api import VaultRAG
from graphrag.eval.context import query_context
from graphrag.focus.traverse import Candidate
from graphrag.query.copies import shingles
from graphrag.query.fusion import fuse
from graphrag.query.pack import restate
from graphrag.query.render import doc_json, render_prompt
from graphrag.query.score import Found, Ranked
from graphrag.results.notes import Relation
from graphrag.results.query import LIST_KEYS, EntryNote, QueryNote, QueryResult
from tests.support.fakes import HashEmbedder
from tests.support.query_vault import DIM, json_tokens, make_rag, uris


def _all_notes(result: QueryResult) -> list[EntryNote | QueryNote]:
    return [*result.entries, *result.related]


@pytest.fixture
def sample_rag(sample_vault: Path, tmp_path: Path) -> VaultRAG:
    return VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder(DIM))


# -- an entry with 40 siblings ----------------------------------------------------------------
def _spells() -> dict[str, str]:
    # Every sibling is some evidence (fire, damage), none is the answer.
    files = {
        f"Spells/Spell {i:02d}.md": f"# Spell {i:02d}\n\nHow much fire damage does this charm do? Little. "
        + " ".join(f"w{i}x{j}" for j in range(12))
        + "\n"
        for i in range(40)
    }
    files["Spells/Fireball.md"] = (
        "# Fireball\n\nA bright streak of flame explodes: fireball damage is eight dice of fire "
        "in a twenty foot radius sphere, a dexterity save halves it.\n"
    )
    return files


def test_an_entry_with_40_siblings_at_1000_tokens_spends_the_budget_on_text(tmp_path):
    rag = make_rag(tmp_path, _spells())
    result = rag.query("how much fire damage does a fireball do", budget=1000, seed=0)
    assert uris(result.entries)[0] == "Spells/Fireball"
    data = result.to_json()
    in_context = {n["uri"] for n in [*data["entryNotes"], *data["relatedNotes"]]}
    limit = rag.settings.query.entry_list_limit
    for entry in data["entryNotes"]:
        for key in LIST_KEYS:
            named = [item["uri"] for item in entry.get(key, [])]
            assert entry.get(key, None) != []  # an empty list is left out
            # lists only name notes the context does not hold, and never more than the limit
            assert not set(named) & in_context, key
            assert len(named) <= limit
    # A list of 40 sibling titles would be most of the budget; here the notes' text is.
    context = query_context(data, rag.tokenizer)
    assert context.tokens <= 1000 and context.tokens == json_tokens(rag, result)
    assert context.text_tokens > 2 * context.list_tokens
    # The notes fill the budget; the lists only get what no further note could use.
    spells = [d for d in result.related if d.uri.startswith("Spells/Spell")]
    assert len(_all_notes(result)) >= 5 and spells
    count = rag.tokenizer.count
    smallest = min(count(doc_json(d)) for d in spells)
    bare = (
        replace(e, note=replace(e.note, contextual_path=(), children=(), prior_siblings=()))
        for e in result.entries
    )
    bare = (
        replace(b, note=replace(b.note, younger_siblings=(), inbound_references=())) for b in bare
    )
    bare = (replace(b, note=replace(b.note, outbound_links=())) for b in bare)
    lists = sum(
        count(doc_json(e)) - count(doc_json(b)) for e, b in zip(result.entries, bare, strict=True)
    )
    assert lists + (1000 - result.tokens_used) < smallest
    explained = rag.query(
        "how much fire damage does a fireball do", budget=1000, seed=0, explain=True
    )
    assert any(s.reason == "budget" for s in explained.skipped or ())
    # The budget stopped the notes: what is left is slack, and no list is named in it.
    assert context.list_tokens == 0


def test_lists_grow_with_the_budget_up_to_the_limit(tmp_path):
    question = "how much fire damage does a fireball do"
    small = make_rag(tmp_path / "s", _spells()).query(question, budget=1000, seed=0)
    # Three notes at most: the rest of a large budget is left to the lists.
    capped = make_rag(tmp_path / "l", _spells(), query={"max_documents": 3})
    large = capped.query(question, budget=20_000, seed=0)
    limit = capped.settings.query.entry_list_limit
    # "Fireball" sorts before "Spell 00": every sibling is a younger one. Lists are named
    # once the notes are done (max_documents), not in the slack the budget leaves.
    assert small.entries[0].note.younger_siblings == ()
    assert len(large.entries[0].note.younger_siblings) == limit


# -- the best entry's best passage --------------------------------------------------------------
PASSAGE = (
    "We offer full refunds within seven days of purchase for the sync and publish services. "
    "Catalyst licenses and commercial licenses are not refundable because they support "
    "development and are not services. Credit is not refundable either."
)


def _refunds() -> dict[str, str]:
    other = " ".join(f"Section text {i} about billing history and invoices." for i in range(60))
    files = {
        "Refund policy.md": f"# Refund policy\n\n## Terms\n\n{PASSAGE}\n\n## Other\n\n{other}\n",
    }
    for name in ("Sync", "Publish", "Credit", "Store"):
        files[f"{name}.md"] = (
            f"# {name}\n\nThe {name.lower()} service purchase page. [[Refund policy]]\n"
        )
    return files


def test_the_best_entrys_best_passage_is_whole_at_a_small_budget(tmp_path):
    rag = make_rag(tmp_path, _refunds())
    for budget in (300, 400, 600, 800):
        for output in ("json", "prompt"):
            result = rag.query(
                "can I get a refund for my catalyst license", budget=budget, seed=0, output=output
            )
            best = result.entries[0]
            assert best.uri == "Refund policy"
            assert PASSAGE in best.note.details, (budget, output)
            assert result.tokens_used <= budget


def test_a_long_entry_shows_its_best_passages_in_a_related_notes_length(tmp_path):
    # The refund policy's other section is ~3,000 characters: at a large budget the entry
    # shows its best passage and no more text than a related note would (truncate_length).
    rag = make_rag(tmp_path, _refunds())
    result = rag.query("can I get a refund for my catalyst license", budget=8000, seed=0)
    best = result.entries[0]
    assert best.uri == "Refund policy" and PASSAGE in best.note.details
    assert best.details_truncated
    limit = max(rag.settings.focus.truncate_length, len(PASSAGE))
    assert len(best.note.details) <= limit + 200  # heading paths and the "…" between cuts


# -- the best vector hit -------------------------------------------------------------------------
def _hub_and_brine() -> dict[str, str]:
    parts = {
        f"Part {i}.md": f"# Part {i}\n\n" + " ".join(f"item{i}x{j}" for j in range(60)) + "\n"
        for i in range(30)
    }
    links = " ".join(f"[[Part {i}]]" for i in range(30))
    return {
        **parts,
        "Planner.md": f"# Planner\n\nThe summer plan. {links}\n",
        "Dairy Log.md": "# Dairy Log\n\nThe brine bath is kept at twenty percent salt strength.\n",
    }


def test_a_single_note_questions_best_vector_hit_is_never_displaced_by_structure(tmp_path):
    # Entries only by name: the question names Planner, whose 30 links fill any budget.
    rag = make_rag(tmp_path, _hub_and_brine(), query={"vector_entry_count": 0})
    question = "Planner: what salt strength is the brine bath kept at?"
    for budget in (600, 1000, 2000):
        result = rag.query(question, budget=budget, seed=0)
        assert uris(result.entries) == ["Planner"]
        related = {n.uri: n for n in result.related}
        assert "Dairy Log" in related, budget
        assert related["Dairy Log"].note.relation == Relation.MatchesQuestion
        assert related["Dairy Log"].focus.uri == "Dairy Log"  # found by its own match
    # the links still fill the rest
    assert sum(n.note.relation == Relation.Object for n in result.related) >= 5


def test_the_best_bm25_hit_is_never_displaced_by_structure_either(tmp_path):
    # The vector ranks the Dairy Log first (it shares the question's small words too),
    # BM25 the valve note (stop words left out, "zyxquat" three times).
    files = {
        **_hub_and_brine(),
        "Valve.md": "# Valve\n\nThe zyxquat valve: zyxquat seals, zyxquat rings.\n",
    }
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 0})
    question = "Planner: what is it at, the salt or the zyxquat?"
    best_vector = rag.semantic_search(question, top_k=1).hits[0].uri
    best_bm25 = rag.lexical_search(question, top_k=1).hits[0].uri
    assert (best_vector, best_bm25) == ("Dairy Log", "Valve")
    for budget in (600, 1000):
        result = rag.query(question, budget=budget, seed=0)
        assert uris(result.entries) == ["Planner"]
        assert uris(result.related)[:2] == ["Dairy Log", "Valve"], budget


# -- a duplicated folder ----------------------------------------------------------------------------
GHOUL = (
    "Claws. Melee weapon attack, reach five feet, one target. If the target is a creature other "
    "than an elf or undead, it must succeed on a constitution saving throw or be paralyzed for "
    "one minute, repeating the save at the end of each of its turns."
)


def _monsters() -> dict[str, str]:
    # The aggregate holds the ghoul's text among other monsters' (as in dnd-srd-wiki).
    # Long sections, so the ghoul's is a chunk of its own there too.
    others = "".join(
        f"## {name}\n\n" + " ".join(f"{name.lower()}{j}" for j in range(300)) + "\n\n"
        for name in ("Gargoyle", "Gelatin", "Ghast", "Giant", "Gnoll", "Goblin")
    )
    return {
        "Monsters/Ghoul.md": f"# Ghoul\n\nMedium undead.\n\n## Actions\n\n{GHOUL}\n",
        "Monsters (Alt)/Monsters G.md": (
            f"# Monsters G\n\n## Ghoul\n\nMedium undead.\n\n### Actions\n\n{GHOUL}\n\n{others}"
        ),
        "Wands/Wand of Fireballs.md": (
            "# Wand of Fireballs\n\nThis wand has seven charges. While holding it you can use an "
            "action to expend one or more of its charges to cast the fireball spell from it.\n"
        ),
        "Wands/Wand of Lightning Bolts.md": (
            "# Wand of Lightning Bolts\n\nThis wand has seven charges. While holding it you can use "
            "an action to expend one or more of its charges to cast the lightning bolt spell from it.\n"
        ),
    }


def test_a_duplicated_folder_takes_one_slot_and_names_the_copy(tmp_path):
    rag = make_rag(tmp_path, _monsters())
    result = rag.query("ghoul claws paralyzed saving throw", budget=2000, seed=0, explain=True)
    shown = uris(_all_notes(result))
    assert ("Monsters/Ghoul" in shown) != ("Monsters (Alt)/Monsters G" in shown)
    holder = next(d for d in _all_notes(result) if d.uri in shown and "Ghoul" in d.note.details)
    copy = ({"Monsters/Ghoul", "Monsters (Alt)/Monsters G"} - {holder.uri}).pop()
    assert [c.uri for c in holder.copies] == [copy]
    # named by its uri alone: its title is the uri's file name (``Monsters G``, ``Ghoul``)
    assert holder.to_json()["copies"] == [{"uri": copy}]
    assert (copy, f"copy of {holder.uri}") in {(s.uri, s.reason) for s in result.skipped or ()}
    # the prompt names the copy, and eval counts it as retrieved (its text is there)
    prompt = rag.query("ghoul claws paralyzed saving throw", budget=2000, seed=0, output="prompt")
    assert f"Same text in: {copy.rsplit('/', 1)[-1]} ({copy})" in render_prompt(prompt)
    assert copy in query_context(result.to_json(), rag.tokenizer).copies


def test_notes_written_from_one_template_are_not_copies(tmp_path):
    rag = make_rag(tmp_path, _monsters())
    result = rag.query("wand charges cast a spell", budget=2000, seed=0)
    shown = uris(_all_notes(result))
    assert {"Wands/Wand of Fireballs", "Wands/Wand of Lightning Bolts"} <= set(shown)
    assert not any(d.copies for d in _all_notes(result))


def test_shingles_ignore_headings_and_case():
    text = "one two three four five six seven eight nine"
    assert shingles(f"## Monsters (L) > Lich\n{text}") == shingles(f"# Lich\n{text.upper()}")
    assert len(shingles(text)) == 2 and shingles("too short") == frozenset()


# -- search hits when the graph has nothing -------------------------------------------------------
def test_search_hits_fill_the_budget_when_the_graph_finds_nothing(tmp_path):
    files = {
        "Soup.md": "# Soup\n\nLentil soup recipe with onions.\n",
        "Stew.md": "# Stew\n\nLentil stew recipe with onions and carrots.\n",
        "Dal.md": "# Dal\n\nRed lentil dal recipe.\n",
        "Oslo.md": "# Oslo\n\nFjords and ferries.\n",
    }
    off = {"max_hops": 0, "path_expansion_enabled": False, "tag_expansion_enabled": False}
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 1, **off})
    result = rag.query("lentil recipe with onions", budget=4000, seed=0)
    assert len(result.entries) == 1
    hits = {n.uri: n for n in result.related}
    assert all(n.note.relation == Relation.MatchesQuestion for n in hits.values())
    assert all(n.focus.uri == n.uri and n.distance == 0 for n in hits.values())
    # Oslo has no evidence (not a word of the question, no link): it only fills the
    # room the evidence left, last, as hybrid_search's ranking would have it.
    assert uris(result.related)[:-1] == [
        u for u in uris(result.related) if u in {"Soup", "Stew", "Dal"}
    ]
    assert set(hits) == {"Soup", "Stew", "Dal", "Oslo"} - set(uris(result.entries))
    assert uris(result.related)[-1] == "Oslo"


def test_fuse_alternates_two_rankings_and_keeps_a_related_note_over_its_hit():
    class _R:  # the part of a Ranked that fuse reads
        def __init__(self, uri: str) -> None:
            self.found = type("F", (), {"cand": type("C", (), {"uri": uri})()})()

    a, b = _R("A"), _R("B")
    order = fuse([a, b], ["X", "B", "Y"], k=60)  # type: ignore[list-item]
    assert [o if isinstance(o, str) else o.found.cand.uri for o in order] == ["B", "A", "X", "Y"]
    assert order[0] is b  # in both: it stays the related note


# -- a related note's entry is in the result ---------------------------------------------------------
QUESTIONS = (
    "Who runs the aging cellar?",
    "Where does the hut's water come from?",
    "What salt strength is the brine kept at?",
    "Who is the warden of the Gamsjoch hut?",
    "When is the Alpabzug festival?",
)


def test_every_related_notes_focus_is_in_the_result_at_small_budgets(sample_rag):
    for question in QUESTIONS:
        for budget in range(300, 520, 20):
            for output in ("json", "prompt"):
                result = sample_rag.query(question, budget=budget, seed=0, output=output)
                present = set(uris(_all_notes(result)))
                for note in result.related:
                    assert note.focus.uri in present, (question, budget, note.uri)
                    assert note.path[0].uri == note.focus.uri and note.path[-1].uri == note.uri


def test_restating_a_relation_against_a_note_on_its_path(sample_rag):
    result = sample_rag.query("Who is the warden of the Gamsjoch hut?", budget=20_000, seed=0)
    deep = [n for n in result.related if n.distance == 2 and n.note.relation != Relation.SharesTag]
    assert deep
    for note in deep[:5]:
        path = [p.uri for p in note.path]
        hops = note.note.hops
        cand = Candidate(note.uri, 2, hops, tuple(path[1:-1]), path[0], note.note.relation, 0)
        item = Ranked(Found(cand, True, tuple(path), ""), None)  # type: ignore[arg-type]
        # the entry is missing, the note between is present: one hop from it
        again = restate(sample_rag.graph, item, {path[1]})
        assert again is not None
        assert again.found.cand.origin == path[1] and again.found.cand.depth == 1
        assert again.found.cand.hops == hops[1:]
        assert again.found.path == (path[1], note.uri)
        assert restate(sample_rag.graph, item, set()) is None
        assert restate(sample_rag.graph, item, {path[0]}) is item


# -- keys that say nothing ------------------------------------------------------------------------
def test_keys_that_say_nothing_are_left_out_of_the_json(tmp_path):
    files = {
        "Hut.md": '---\nkeeper: "[[Tobias]]"\n---\n# Hut\n\nThe hut on the alp has a keeper.\n',
        "Tobias.md": "# Tobias\n\nTobias keeps the goats.\n",
    }
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 1, "max_entries": 1})
    data = rag.query("who is the keeper of the hut", budget=2000, seed=0).to_json()
    entry = data["entryNotes"][0]
    assert entry["uri"] == "Hut" and not set(LIST_KEYS) & set(entry)  # every list empty
    tobias = next(n for n in data["relatedNotes"] if n["uri"] == "Tobias")
    # reached by the entry's property link; the entry is the first one, every relation's
    # default focus: neither focusUri nor the link's other end repeats it
    assert "focusUri" not in tobias and tobias["predicate"] == "keeper"
    assert "subjectUriAndTitle" not in tobias and "sharedTags" not in tobias
    assert tobias["relationToFocusNote"] == "Object"
    # an entry is always Self, and has no tags here
    assert "relationToFocusNote" not in entry and "tags" not in entry


def test_what_a_notes_uri_and_details_already_say_is_left_out_of_the_json(tmp_path):
    files = {
        "Places/Huts/Hut.md": "---\ncreated: 2021-05-04\n---\n# Hut\n\nThe hut on the alp.\n",
        "Places/Huts/Shed.md": "# Shed\n\nThe shed by the hut on the alp.\n",
        # a folder note titled otherwise than its uri
        "Places/Huts.md": "---\ntitle: Mountain huts\n---\n# Huts\n\nThe huts of the alp.\n",
        "Places/Barn.md": "---\ndate: 2020-01-02\n---\n# Barn\n\nThe barn below the alp.\n",
    }
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 1, "max_entries": 1})
    data = rag.query("the hut on the alp", budget=4000, seed=0).to_json()
    notes = {n["uri"]: n for n in [*data["entryNotes"], *data["relatedNotes"]]}
    assert set(notes) == {"Places/Huts/Hut", "Places/Huts/Shed", "Places/Huts", "Places/Barn"}
    hut, barn, shed = notes["Places/Huts/Hut"], notes["Places/Barn"], notes["Places/Huts/Shed"]
    # the date is in the details as a property line: createdAt would say it twice
    assert "created: 2021-05-04" in hut["details"] and "createdAt" not in hut
    assert "date: 2020-01-02" in barn["details"] and "createdAt" not in barn
    # a file time is said nowhere else: shown, as its day (the time of day is noise)
    assert len(shed["createdAt"]) == 10 and shed["createdAt"][4] == "-"
    # a title that is the uri's file name is left out; one the front matter sets stays
    assert not {"title"} & (set(hut) | set(shed) | set(barn))
    assert notes["Places/Huts"]["title"] == "Mountain huts"
    # the parent the uri spells is left out; a folder note with its own title is not
    parents = {u: n.get("parentUriAndTitle") for u, n in notes.items()}
    assert parents["Places/Barn"] is None and parents["Places/Huts"] is None  # "Places"
    titled = {"uri": "Places/Huts", "title": "Mountain huts"}
    assert parents["Places/Huts/Hut"] == parents["Places/Huts/Shed"] == titled
    # a search hit is its own focus: no focusUri; the relation says how it was found
    hits = [n for n in data["relatedNotes"] if n["relationToFocusNote"] == "MatchesQuestion"]
    assert hits and all("focusUri" not in n for n in hits)


def test_a_related_note_names_its_focus_unless_it_is_the_first_entry(tmp_path):
    files = {
        "Cheese.md": "# Cheese\n\nAlpine cheese aging in brine. See [[Cellar]].\n",
        "Goats.md": "# Goats\n\nAlpine goats milking in spring. See [[Barn]].\n",
        "Cellar.md": "# Cellar\n\nA vaulted room under the school.\n",
        "Barn.md": "# Barn\n\nA wooden building by the road.\n",
    }
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 2, "max_entries": 2})
    result = rag.query("alpine cheese aging in brine and goats milking", budget=2000, seed=0)
    assert uris(result.entries) == ["Cheese", "Goats"]
    data = result.to_json()
    related = {n["uri"]: n for n in data["relatedNotes"]}
    # the first entry is the default focus: said once, by being first
    assert related["Cellar"]["relationToFocusNote"] == "Object"
    assert "focusUri" not in related["Cellar"]
    # any other focus is named
    assert related["Barn"]["focusUri"] == "Goats"
    # and the budget counted what is shown
    assert data["tokens"]["used"] == json_tokens(rag, result)


def test_details_truncated_is_left_out_where_the_cut_mark_shows(tmp_path):
    from graphrag.results.notes import RelatedNote, UriAndTitle

    def shown(details: str, cut: bool) -> dict:
        note = RelatedNote("A", "A", details, Relation.MatchesQuestion, details_truncated=cut)
        me = UriAndTitle("A", "A")
        return QueryNote(note, me, (), 0, (me,)).to_json()

    assert "detailsTruncated" not in shown("The start of it …", True)
    assert "detailsTruncated" not in shown("rating: 7\n\n…\n\n## A > Part\nText.", True)
    assert shown("Cut without a mark", True)["detailsTruncated"] is True
    assert "detailsTruncated" not in shown("Whole … as written", False)


def test_an_entry_list_names_a_note_by_its_uri_alone_where_the_uri_spells_its_title():
    from graphrag.results.notes import FocusNote, OutboundLink, UriAndTitle

    clippings = UriAndTitle("Categories/Clippings", "Clippings")
    titled = UriAndTitle("People/ann", "Ann Smith")  # a front-matter title: kept
    note = FocusNote(
        "Notes/Home",
        "Home",
        "Text.",
        created_at=None,
        parent=clippings,
        children=(clippings, titled),
        outbound_links=(OutboundLink("Ideas/Gone", "Gone", None, "ghost"),),
    )
    entry = EntryNote(note, ("vector",)).to_json()
    assert entry["children"] == [{"uri": "Categories/Clippings"}, titled.to_json()]
    assert entry["outboundLinks"] == [{"uri": "Ideas/Gone", "kind": "ghost"}]
    # only the lists, packed after the notes: the keys every note pays keep their shape
    assert entry["parentUriAndTitle"] == clippings.to_json()


def test_a_links_far_end_and_a_copy_are_named_by_their_uri_where_it_spells_their_title():
    from graphrag.results.notes import RelatedNote, UriAndTitle

    clippings = UriAndTitle("Categories/Clippings", "Clippings")
    titled = UriAndTitle("People/ann", "Ann Smith")  # a front-matter title: kept
    entry = UriAndTitle("Clippings/Buy wisely", "Buy wisely")
    index = UriAndTitle("Recipes/index", "index")  # a parent the uri does not spell
    note = RelatedNote(
        "Recipes/Tart",
        "Tart",
        "rating: 7",
        Relation.SharesPropertyValue,
        parent=index,
        subject=titled,
        object=clippings,
        predicate="categories",
    )
    me = UriAndTitle("Recipes/Tart", "Tart")
    copies = (UriAndTitle("Recipes (Alt)/Tart", "Tart"), titled)
    out = QueryNote(note, entry, (), 1, (entry, me), copies=copies).to_json()
    assert out["objectUriAndTitle"] == {"uri": "Categories/Clippings"}
    assert out["subjectUriAndTitle"] == titled.to_json()
    assert out["copies"] == [{"uri": "Recipes (Alt)/Tart"}, titled.to_json()]
    # the parent, a key every note pays (the baselines' search hits too), keeps its shape
    assert out["parentUriAndTitle"] == index.to_json()


# -- a related note's room at small budgets ----------------------------------------------------
def _long_linked_note() -> dict[str, str]:
    filler = "plain words about nothing much at all in this part of the page"
    sections = "".join(
        f"## Part {i}\n\nThe brine bath salt percent, part {i}: {filler} {i}.\n\n"
        for i in range(12)
    )
    return {
        "Brine Bath.md": "# Brine Bath\n\nThe brine bath salt percent is in [[Long]].\n",
        "Long.md": "# Long\n\n" + sections,
    }


def test_a_related_note_shows_its_best_passage_not_its_whole_text_at_a_small_budget(tmp_path):
    rag = make_rag(
        tmp_path,
        _long_linked_note(),
        index={"chunk_tokens": 40},
        query={"vector_entry_count": 1, "max_entries": 1, "max_documents": 15},
    )
    limit = rag.settings.focus.truncate_length
    sizes = {}
    for budget in (1000, 4000):
        result = rag.query("brine bath", budget=budget, seed=0)
        assert uris(result.entries) == ["Brine Bath"]
        sizes[budget] = len({n.uri: n for n in result.related}["Long"].note.details)
    share = 1000 * 4 // 15  # an equal share of 1,000 tokens among 15 notes, in characters
    # at 1,000 tokens: its best passage, at most two shares; at 4,000 a share is more
    # than truncate_length, which is all it gets
    assert sizes[1000] <= 2 * share + 20
    assert 2 * share + 20 < sizes[4000] <= limit + 20


# -- a link to a heading ---------------------------------------------------------------------------
def test_a_note_reached_through_a_link_to_a_heading_shows_that_section_first(tmp_path):
    words = " ".join(f"filler{i}" for i in range(90))
    files = {
        "Security.md": (
            "# Security\n\nLost your encryption password for sync? Then "
            "[[Setup#Create a vault|create a fresh vault]] and reconnect every device.\n"
        ),
        "Setup.md": (
            "# Setup\n\n## Install\n\nEncryption password sync lost device help. " + words + "\n\n"
            "## Create a vault\n\nOpen settings, choose remote, pick a region, set a new secret. "
            + " ".join(f"step{i}" for i in range(60))
            + "\n\n"
            "## Other\n\nEncryption password sync lost again. " + words + "\n"
        ),
    }
    question = "what to do after losing the sync encryption password"
    linked = make_rag(tmp_path / "a", files, query={"vector_entry_count": 1, "max_entries": 1})
    setup = next(n for n in linked.query(question, budget=4000, seed=0).related if n.uri == "Setup")
    assert setup.note.relation == Relation.Object
    assert "pick a region" in setup.note.details
    # without the heading in the link, the note shows the passages most like the question
    plain = {**files, "Security.md": files["Security.md"].replace("#Create a vault", "")}
    other = make_rag(tmp_path / "b", plain, query={"vector_entry_count": 1, "max_entries": 1})
    setup = next(n for n in other.query(question, budget=4000, seed=0).related if n.uri == "Setup")
    assert "pick a region" not in setup.note.details


# -- a bridge: the link in the entry's best passage -------------------------------------------------
def test_the_note_linked_from_the_entrys_best_passage_comes_before_notes_both_views_find(tmp_path):
    filler = " ".join(f"pad{i}" for i in range(60))
    long = " ".join(f"room{i}" for i in range(200))  # a chunk of its own
    files = {
        "Cellar.md": (
            "# Cellar\n\n## Who\n\nThe aging cellar is run by [[Mira]].\n\n"
            f"## Rooms\n\n{long} The cellar has rooms: [[Cellar Rooms]], [[Cellar Shelves]].\n"
        ),
        "Mira.md": "# Mira\n\nMira started at the cooperative in 2019. " + filler + "\n",
        "Cellar Rooms.md": "# Cellar Rooms\n\nThe aging cellar rooms are cold. " + filler + "\n",
        "Cellar Shelves.md": "# Cellar Shelves\n\nThe aging cellar shelves hold wheels. "
        + filler
        + "\n",
    }
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 1, "max_entries": 1})
    question = "who runs the aging cellar"
    full = rag.query(question, budget=4000, seed=0)
    assert uris(full.entries) == ["Cellar"]
    # Cellar Rooms and Shelves are both linked (graph) and similar (search); Mira only
    # linked, but from the passage that answers the question: she comes first.
    assert uris(full.related)[0] == "Mira"
    small = rag.query(question, budget=json_tokens(rag, full) - 1, seed=0)
    assert "Mira" in uris(small.related)


# -- the search's view is the text's ----------------------------------------------------------------
def test_the_entrys_neighbours_are_not_counted_twice_against_text_hits(tmp_path):
    # Four notes linked from the entry (away from its answer, in a section of their own)
    # and four notes that share the question's words. Fused with the graph's ranking,
    # the search ranking is the text's: hybrid_search's graph votes would put the four
    # neighbours first in it too, and every one of them before the first text hit.
    long = " ".join(f"room{i}" for i in range(200))
    links = " ".join(f"[[N{i}]]" for i in range(1, 5))
    files = {
        "Cellar.md": f"# Cellar\n\n## Aging\n\nThe aging cellar keeps wheels cold.\n\n"
        f"## Rooms\n\n{long} {links}\n",
        **{f"N{i}.md": f"# N{i}\n\nLarch boards number {i}.\n" for i in range(1, 5)},
        **{f"T{i}.md": f"# T{i}\n\nThe cellar note {i} on wheels.\n" for i in range(1, 5)},
    }
    # rrf_depth 5: the text's ranking holds the cellar and the four text hits, not the
    # neighbours' faint likeness (in a vault this small every note is in a deeper one).
    off = {"path_expansion_enabled": False, "tag_expansion_enabled": False, "rrf_depth": 5}
    rag = make_rag(tmp_path, files, query={"vector_entry_count": 1, "max_entries": 1, **off})
    result = rag.query("how does the aging cellar keep wheels cold", budget=8000, seed=0)
    assert uris(result.entries) == ["Cellar"]
    order = uris(result.related)
    assert {"N1", "N2", "N3", "N4", "T1"} <= set(order)
    # alternating: the text's best hit comes before the graph's third note
    first_text = min(order.index(f"T{i}") for i in range(1, 5))
    third_graph = sorted(order.index(f"N{i}") for i in range(1, 5))[2]
    assert first_text < third_graph, order


@pytest.mark.parametrize("budget", [600, 1000, 2000])
def test_explain_names_each_left_out_note_once(sample_rag: VaultRAG, budget: int):
    # The fill walks hybrid_search's ranking after query mode's own order: a note both
    # skipped is still one note left out, and one the fill shows did not lack room.
    result = sample_rag.query(
        "who looks after the sheep in winter", budget=budget, seed=0, explain=True
    )
    skipped = [s.uri for s in result.skipped or ()]
    assert skipped, "the budget leaves notes out"
    assert len(skipped) == len(set(skipped))
    room = {s.uri for s in result.skipped or () if s.reason in ("budget", "max_documents")}
    assert not room & set(uris(_all_notes(result)))
