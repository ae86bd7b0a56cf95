"""Query mode, entry notes: tags, titles and aliases, the evidence gate, empty questions."""

from __future__ import annotations

import itertools
import random

import pytest

from graphrag.errors import InvalidRequestError
from graphrag.query.entry import FuzzyNames, parse_query, within_edits
from graphrag.results.notes import Relation
from tests.support.query_vault import make_rag, uris

TAGGED = {
    "Alpha.md": "# Alpha\n\n#project/alpha\nPlans for the new bridge.\n",
    "Beta.md": "---\ntags: [project]\n---\n# Beta\n\nA garden shed.\n",
    "Gamma.md": "# Gamma\n\n#projectile\nStones and slings.\n",
    "Delta.md": "# Delta\n\nUnrelated text about rivers.\n",
}


def test_parse_query_takes_tags_out_of_the_text_but_keeps_their_words():
    q = parse_query("Status of #project/alpha and #Garden-Beds, not #123 or mail#x?")
    assert q.tags == ("project/alpha", "garden-beds")
    assert q.search_text == "Status of project alpha and Garden Beds, not #123 or mail#x?"


def test_a_tag_in_the_question_makes_entries_of_its_notes_and_its_nested_tags(tmp_path):
    rag = make_rag(tmp_path, TAGGED)
    result = rag.query("what is the state of #project", seed=0)
    entries = {e.uri: e for e in result.entries}
    # Alpha carries only #project/alpha: a nested tag matches its ancestor in the question.
    assert set(entries) == {"Alpha", "Beta"}
    assert all("tag" in e.matched_by for e in entries.values())
    # Beta shares no word with the question: the tag alone made it an entry.
    assert "vector" not in entries["Beta"].matched_by
    # #projectile is not #project: Gamma shares no tag with an entry; it may only fill
    # the room left, as a plain search hit.
    gamma = [n for n in result.related if n.uri == "Gamma"]
    assert all(n.note.relation == Relation.MatchesQuestion for n in gamma)


def test_a_nested_tag_in_the_question_does_not_match_its_ancestor(tmp_path):
    rag = make_rag(tmp_path, TAGGED)
    result = rag.query("#project/alpha", seed=0)
    assert uris(result.entries) == ["Alpha"]


def test_a_title_or_alias_named_in_the_question_is_an_entry_however_weak_its_vector(tmp_path):
    rag = make_rag(
        tmp_path,
        {
            "Places/Zirbenkopf Bivouac.md": (
                "---\naliases: [Bivvy]\n---\n# Zirbenkopf Bivouac\n\nStone shelter, nine bunks.\n"
            ),
            "Maintenance.md": "# Maintenance\n\nWho maintains the shelters near the ridge?\n",
        },
        query={"vector_entry_count": 1},
    )
    result = rag.query("Who maintains the Bivvy near the ridge", seed=0, explain=True)
    entry = {e.uri: e for e in result.entries}["Places/Zirbenkopf Bivouac"]
    assert entry.matched_by == ("title",)
    assert entry.explain is not None
    assert entry.explain.vector < rag.settings.query.entry_min_similarity
    by_title = rag.query("how far is it to zirbenkopf bivouac", seed=0)
    assert "title" in by_title.entries[0].matched_by  # several words: any case


def test_a_title_is_named_in_any_case_but_a_stop_word_names_nothing(tmp_path):
    rag = make_rag(
        tmp_path,
        {
            "Aliases.md": "# Aliases\n\nOther names for a note.\n",
            "Tags.md": "# Tags\n\nLabels with a hash sign.\n",
            "Home.md": "# Home\n\nStart page.\n",
            "When.md": "# When\n\nA note about dates.\n",
            "Road.md": "# Road\n\nA road.\n",
        },
    )
    both = {e.uri: e for e in rag.query("aliases and tags", seed=0).entries}
    assert "title" in both["Aliases"].matched_by and "title" in both["Tags"].matched_by
    lower = {e.uri: e for e in rag.query("how do I get home from the ridge", seed=0).entries}
    assert "title" in lower["Home"].matched_by
    # "when" is a word of any question, not the name of a note.
    asked = rag.query("when does the road open", seed=0, explain=True)
    assert all(e.uri != "When" or "title" not in e.matched_by for e in asked.entries)
    # In a sentence a lower-case word is a word, whatever notes are titled; written as
    # a name, it names one.
    sentence = "which labels and other names can I give my notes before the road trip starts"
    prose = rag.query(sentence, seed=0)
    assert all("title" not in e.matched_by for e in prose.entries if e.uri in ("Road", "Tags"))
    named = rag.query(sentence.replace("road", "Road"), seed=0)
    assert "title" in {e.uri: e for e in named.entries}["Road"].matched_by


TYPOS = {
    "Editing/Callouts.md": (
        "# Callouts\n\nA callout highlights a block of text in a box. "
        "Fold it with a minus sign after the type.\n"
    ),
    "Files/Manage vaults.md": (
        "# Manage vaults\n\nHow do you move a vault? How do you rename it? "
        "How do I open another one? Do it from the vault switcher.\n"
    ),
    "Files/Cables.md": "# Cables\n\nPower and network wiring.\n",
    "Files/Layout.md": "# Layout\n\nTables and columns arranged on a page.\n",
}


def test_a_misspelled_title_still_names_its_note_and_stop_words_are_no_evidence(tmp_path):
    # Only words and names make entries here (the hashing embedder likes shared "how"s).
    rag = make_rag(tmp_path, TYPOS, query={"entry_min_similarity": 0.9})
    result = rag.query("how do i colapse a calout", seed=0, explain=True)
    entries = {e.uri: e for e in result.entries}
    # "calout" is no word of the vault and one edit from "callout" (stemmed "Callouts").
    assert "title" in entries["Editing/Callouts"].matched_by
    # "how" and "do" are all the question shares with Manage vaults: no evidence.
    assert "Files/Manage vaults" not in entries


def test_a_real_word_is_no_misspelling_of_a_title(tmp_path):
    rag = make_rag(tmp_path, TYPOS)
    # "tables" is one edit from "cables", but the vault uses the word: it names nothing.
    result = rag.query("tables and rows", seed=0)
    assert all(e.uri != "Files/Cables" or "title" not in e.matched_by for e in result.entries)
    typo = rag.query("where do the cabels go", seed=0)
    assert "title" in {e.uri: e for e in typo.entries}["Files/Cables"].matched_by


def osa_distance(a: str, b: str) -> int:
    """Optimal string alignment distance by its table: the reference ``within_edits``
    must agree with."""
    d = [[i + j if i * j == 0 else 0 for j in range(len(b) + 1)] for i in range(len(a) + 1)]
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            d[i][j] = min(
                d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])
            )
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
    return d[len(a)][len(b)]


def test_within_edits_counts_a_swap_as_one_edit():
    assert within_edits("calout", "callout", 1)
    assert within_edits("obsidain", "obsidian", 1)  # neighbours swapped
    assert not within_edits("colaps", "callout", 2)
    assert within_edits("same", "same", 0)
    assert not within_edits("ab", "ba", 0)


def test_within_edits_agrees_with_the_distance_table():
    # Every pair of strings over small alphabets (where edits collide most), every limit.
    words = [
        "".join(p)
        for alphabet, longest in (("ab", 6), ("abc", 4))
        for n in range(longest + 1)
        for p in itertools.product(alphabet, repeat=n)
    ]
    for a in words:
        for b in words:
            distance = osa_distance(a, b)
            for limit in (0, 1, 2, 3):
                assert within_edits(a, b, limit) == (distance <= limit), (a, b, limit)


AMBIGUOUS = {
    "Pods/Markdown.md": "# Markdown\n\nExport pods write files.\n",
    "Tags/Markdown.md": "# Markdown\n\nA tag page.\n",
    "Doctor.md": "# Doctor\n\nThe doctor check finds clashing extensions.\n",
}


def test_a_name_several_notes_bear_does_not_make_entries_of_them(tmp_path):
    question = "Which Markdown tool does the doctor check list as clashing extensions"
    rag = make_rag(tmp_path, AMBIGUOUS, query={"vector_entry_count": 1})
    result = rag.query(question, seed=0)
    # Two notes are titled "Markdown": the question does not say which it means, so
    # neither takes an entry slot; the best match by score does.
    assert uris(result.entries) == ["Doctor"]
    lenient = make_rag(
        tmp_path / "lenient", AMBIGUOUS, query={"vector_entry_count": 1, "title_max_notes": 2}
    )
    named = set(uris(lenient.query(question, seed=0).entries))
    assert named == {"Doctor", "Pods/Markdown", "Tags/Markdown"}


def test_nothing_relevant_says_so_and_invents_no_entries(tmp_path):
    rag = make_rag(tmp_path, TAGGED)
    result = rag.query("quantum chromodynamics lattice", budget=2000, seed=0)
    assert result.entries == () and result.related == ()
    data = result.to_json()
    assert data["entryNotes"] == [] and data["relatedNotes"] == []
    assert data["tokens"] == {"budget": 2000, "used": 0}
    assert "no note is relevant" in data["message"]


def test_an_unknown_tag_is_named_in_the_message(tmp_path):
    rag = make_rag(tmp_path, TAGGED)
    result = rag.query("#nonexistent", seed=0)
    assert result.entries == ()
    assert "#nonexistent" in (result.message or "")


def test_one_shared_common_word_is_not_enough_for_a_lexical_entry(tmp_path):
    rag = make_rag(tmp_path, TAGGED)
    # "rivers" shares its stem with "river", but that is one term in four.
    assert rag.query("river kubernetes ingress controller", seed=0).entries == ()
    assert uris(rag.query("rivers unrelated", seed=0).entries)[0] == "Delta"


def test_max_entries_caps_named_notes_too(tmp_path):
    files = {f"N{i}.md": f"---\ntags: [batch]\n---\n# N{i}\n\nText {i}.\n" for i in range(8)}
    rag = make_rag(tmp_path, files, query={"max_entries": 4})
    assert len(rag.query("#batch", seed=0).entries) == 4


@pytest.mark.parametrize("question", ["", "   ", "\n\t"])
def test_an_empty_question_is_an_error_everywhere(tmp_path, question):
    rag = make_rag(tmp_path, TAGGED)
    calls = [
        rag.query,
        rag.semantic_search,
        rag.lexical_search,
        rag.hybrid_search,
        rag.hierarchical_search,
        rag.graph_search,
    ]
    for call in calls:
        with pytest.raises(InvalidRequestError, match="empty"):
            call(question)


def test_fuzzy_names_finds_what_comparing_every_name_finds():
    # Names made of a few letters (so many are a few edits apart), keys made from
    # them by random edits: ``near`` must keep exactly the names within the limit.
    rng = random.Random(7)
    letters = "aabcd e"
    names = sorted(
        {"a" + "".join(rng.choice(letters) for _ in range(rng.randint(4, 14))) for _ in range(400)}
    )
    table = FuzzyNames([(at, name, [at]) for at, name in enumerate(names)])
    for _ in range(300):
        key = list(rng.choice(names))
        for _ in range(rng.randint(0, 3)):
            at = rng.randrange(1, len(key))
            key[at : at + 1] = rng.choice(([], [rng.choice(letters)], [key[at], key[at]]))
        for limit in (1, 2):
            expected = [n for n in enumerate(names) if within_edits("".join(key), n[1], limit)]
            found = [(at, name) for at, name, _ in table.near("".join(key), limit)]
            assert found == expected


def test_the_server_s_warm_up_builds_the_title_tables_questions_read(tmp_path):
    """Built at the warm-up (with the BM25 index's language, the stemmed names for
    misspellings too), not by the first question, which then reads the same tables."""
    from graphrag.serve.live import LiveIndex
    from tests.support.query_vault import KITCHEN, make_rag

    rag = make_rag(tmp_path, KITCHEN)
    assert rag.settings.query.lexical_enabled
    LiveIndex(rag).warm(counts=True)
    corpus = rag.snapshot.corpus
    titles, fuzzy = corpus.cached("titles"), corpus.cached("titles-fuzzy-names")
    assert titles and fuzzy
    rag.query("lentil soup with onoins", seed=0)  # a misspelling: the fuzzy table is read
    assert corpus.cached("titles") is titles and corpus.cached("titles-fuzzy-names") is fuzzy


# A hub of plugin pages: each writes "GitHub" and "Links" in its generated line, as
# obsidian-hub's do; two notes bear those words as titles.
PLUGIN_HUB = {
    **{
        f"Plugins/plugin-{k}.md": (
            f"# plugin-{k}\n\nPlugin ID: plugin-{k}. {topic}\n\n"
            "Links: GitHub repository or Open in Obsidian.\n"
        )
        for k, topic in enumerate(
            ["Counts words.", "Draws charts.", "Syncs tasks.", "Plays music.", "Shows maps."]
        )
    },
    "Plugins/GitHub.md": "# GitHub\n\nA plugin that pushes the vault to a repository.\n",
    "Guides/Links.md": "# Links\n\nHow notes point at each other.\n",
    "People/Beeminder.md": "# Beeminder\n\nA goal tracker; plugin-0 reports to it.\n",
}


def test_a_name_most_notes_write_is_a_word_of_the_vault_not_a_named_note(tmp_path):
    # Only names make entries here: the hashing embedder's cosines stay under the floor.
    rag = make_rag(tmp_path, PLUGIN_HUB, query={"entry_min_similarity": 0.99})
    question = "Which plugin has Links: GitHub repository, and reports to Beeminder?"
    entries = {e.uri: e for e in rag.query(question, seed=0).entries}
    # Every plugin page writes "GitHub" and "Links": the question naming them does not
    # say it means the notes of those titles. "Beeminder" is written in one other note.
    for uri in ("Plugins/GitHub", "Guides/Links"):
        assert uri not in entries or "title" not in entries[uri].matched_by
    assert "title" in entries["People/Beeminder"].matched_by
    # Written as a link or in quotes, or as the whole question, a word is a name again.
    for asked in ("what does [[GitHub]] push, and Links?", 'what does "GitHub" push', "GitHub"):
        named = {e.uri: e for e in rag.query(asked, seed=0).entries}
        assert "title" in named["Plugins/GitHub"].matched_by, asked
