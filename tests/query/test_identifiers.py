"""A rare identifier the question quotes (graphrag/query/identifiers.py): BM25's best hits
that write it whole, where it is a note's name and few notes write it, are tried before
every other note query mode chooses, though the vector ranks them low."""

from __future__ import annotations

from graphrag.query.identifiers import holding, identifiers, rare_holders
from graphrag.snapshot.lexical import lexical_index
from tests.support.query_vault import make_rag, uris

QUESTION = "Plugin ID: tidy-foot-notes. Developed by whom? Is the plugin mobile compatible?"


# An author's page is mostly the hub's template: the vector ranks it low.
FILLER = (
    "## Sponsor this author\n\nGitHub sponsors, Buy me a coffee, PayPal, Patreon.\n\n"
    "## Follow this author\n\nYouTube channels, Twitter, Mastodon, a blog about gardens, "
    "bicycles, sourdough bread, rivers, mountains, chess openings and old maps.\n\n"
    "## This note in GitHub\n\nEdit in GitHub, copy this note, download this vault.\n"
)


def _hub() -> dict[str, str]:
    # The plugin's page (the entry) links four category pages full of the question's
    # words; its author's page writes the plugin's ID and nothing else of the question,
    # and no link joins the two (the hub lists an author's plugins inside a comment).
    categories = [
        "Mobile plugins",
        "Desktop plugins",
        "Plugins by category",
        "All plugins",
        "New plugins",
        "Popular plugins",
    ]
    files = {
        "Plugins/tidy-foot-notes.md": "# tidy-foot-notes\n\nPlugin ID: tidy-foot-notes\n"
        "Developed by: the author. Mobile compatible: yes.\n\nListed in "
        + ", ".join(f"[[{c}]]" for c in categories)
        + ".\n",
        "People/Ann.md": "# Ann\n\nDevelops plugins.\n\n## Author of\n\n%% [[tidy-foot-notes]] %%\n\n"
        "tidy-foot-notes\n\n" + FILLER,
        "People/Bo.md": "# Bo\n\nDevelops plugins.\n\n## Author of\n\nfoot-notes-plus\n",
        "Plugins/foot-notes-plus.md": "# foot-notes-plus\n\nPlugin ID: foot-notes-plus\n"
        "Developed by: [[Bo]]. Mobile compatible: no.\n",
    }
    for n in range(6):  # other plugins' pages: the question's words, not its ID
        files[f"Plugins/other-tool-{n}.md"] = (
            f"# other-tool-{n}\n\nPlugin ID: other-tool-{n}\nDeveloped by: [[Bo]]. "
            "Mobile compatible: yes.\n"
        )
    for n, c in enumerate(categories):
        files[f"Categories/{c}.md"] = (
            f"# {c}\n\nPlugins in {c.lower()}, listed by plugin ID (page {n}). Which "
            f"plugin is developed by whom, and is it mobile compatible: section {n} of the "
            f"{c.lower()} list answers for plugin {n}, developed by author {n}, mobile "
            f"compatible from release {n}.\n"
        )
    return files


def test_identifiers_and_the_notes_writing_them(tmp_path):
    assert identifiers("Plugin ID: Tidy-Foot-Notes, see app.json or tidy-foot-notes") == [
        "tidy-foot-notes",
        "app.json",
    ]
    assert holding("author of tidy-foot-notes.", "tidy-foot-notes")
    assert not holding("author of tidy-foot-notes-pro", "tidy-foot-notes")
    assert not holding("tidy foot notes", "tidy-foot-notes")
    rag = make_rag(tmp_path, _hub())
    corpus = rag.snapshot.corpus
    lexicon = lexical_index(corpus)
    held = {corpus.uris[i] for i in rare_holders(QUESTION, corpus, rag.graph, lexicon)}
    assert held == {"Plugins/tidy-foot-notes", "People/Ann"}
    # Written by more notes than RARE_NOTES: a common compound, not one thing's name.
    assert rare_holders(QUESTION, corpus, rag.graph, lexicon, most=1) == set()
    # "mobile-compatible" is written nowhere whole, and no note is named so.
    assert rare_holders("mobile-compatible plugin", corpus, rag.graph, lexicon) == set()


def test_an_identifier_no_note_is_named_by_counts_for_nothing(tmp_path):
    files = _hub()
    # The same ID, but no note is named by it: a phrase, not an identifier of the vault.
    files["Plugins/tidy-foot-notes.md"] = files["Plugins/tidy-foot-notes.md"].replace(
        "# tidy-foot-notes", "# Tidy"
    )
    renamed = {k.replace("tidy-foot-notes.md", "Tidy plugin.md"): v for k, v in files.items()}
    rag = make_rag(tmp_path, renamed)
    corpus = rag.snapshot.corpus
    assert rare_holders(QUESTION, corpus, rag.graph, lexical_index(corpus)) == set()


def test_the_author_writing_the_plugins_id_is_tried_before_the_category_pages(tmp_path):
    rag = make_rag(tmp_path, _hub())
    for budget in (700, 800, 1000):
        result = rag.query(QUESTION, budget=budget, seed=0)
        assert uris(result.entries)[0] == "Plugins/tidy-foot-notes", budget
        related = uris(result.related)
        # Without the rule the author (BM25's, not the vector's: its page is the hub's
        # template) came after the category pages the entry links to and every other
        # plugin's page, and did not fit; now it is tried first.
        assert "People/Ann" in related, (budget, related)
        assert "Categories/Desktop plugins" not in related or related.index(
            "People/Ann"
        ) < related.index("Categories/Desktop plugins")
