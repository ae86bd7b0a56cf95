"""Unlinked mentions (graphrag/query/mentions.py): a best hit's passage that names a
note by its title, without a link, joins the two notes as a link would."""

from __future__ import annotations

from typing import Any

from graphrag.query.mentions import passage_mentions
from tests.support.query_vault import make_rag, uris

TABLE = {
    "power word kill": [1],
    "heal": [2],
    "fireball": [3],
    "wand of fireballs": [4],
    "markdown": [5, 6],  # two notes bear it: it names neither
    "monk": [7],
}


def test_a_title_in_the_text_is_a_mention_in_any_case():
    text = "9th level (1 slot): Power Word Kill, and then the lich rests."
    assert passage_mentions(text, TABLE, 1, 4) == [1]


def test_a_one_word_title_is_a_mention_only_where_the_text_sets_it_off():
    assert passage_mentions("the disease ends only by heal", TABLE, 1, 4) == []
    assert passage_mentions("the disease ends only by *heal*", TABLE, 1, 4) == [2]
    assert passage_mentions("cast the **fireball** spell", TABLE, 1, 4) == [3]
    assert passage_mentions("cast the _fireball_ spell", TABLE, 1, 4) == [3]


def test_links_are_no_mentions():
    # a link is in the graph already; one hidden from it must not be read back
    assert (
        passage_mentions("see [[Power Word Kill]] and [*heal*](Spells/Heal.md)", TABLE, 1, 4) == []
    )
    assert passage_mentions("see [[Spells/X|power word kill]]", TABLE, 1, 4) == []


def test_a_name_several_notes_bear_or_inside_a_longer_one_names_nothing():
    assert passage_mentions("written in *markdown*", TABLE, 1, 4) == []
    # "wand of fireballs" is read whole: the shorter names in it are not mentions
    assert passage_mentions("a *wand of fireballs*", {**TABLE, "fireballs": [9]}, 1, 4) == [4]


def test_mentions_come_in_the_order_written():
    text = "Power word kill first, then *monk* and *heal*."
    assert passage_mentions(text, TABLE, 1, 4) == [1, 7, 2]


# -- in query mode ---------------------------------------------------------------------------
def _tales(prefix: str, count: int, lead: str) -> dict[str, str]:
    """``count`` notes ``<prefix> NN``, each ``lead`` (``{i}`` its number) and 40 words
    of its own."""
    name = prefix.rsplit("/", 1)[-1]
    return {
        f"{prefix} {i:02d}.md": f"# {name} {i:02d}\n\n{lead.format(i=i)} "
        + " ".join(f"{name.lower()}{i}x{j}" for j in range(40))
        + "\n"
        for i in range(count)
    }


QUESTION = "which is the strongest spell the lich has prepared and what does that spell do"


def _lich(named: str) -> dict[str, str]:
    # The lich's passage names the spell without a link; nothing links the two notes, and
    # the spell's note shares few words with the question. Thirty lore notes share more,
    # so the text ranking and the graph fill a small budget without it.
    files = _tales(
        "Lore", 30, "The strongest spell a lich has prepared, as tale {i} tells it, is a rumour."
    )
    files["Monsters/Lich.md"] = (
        "# Lich\n\nSpellcasting. The lich is a spellcaster and has prepared these spells: "
        f"cantrips *mage hand*; 9th level (1 slot): *{named}*. Its strongest spell.\n"
    )
    files["Spells/Power Word Kill.md"] = (
        "# Power Word Kill\n\nA spell: you utter a word of power and one creature with 100 "
        "hit points or fewer dies. What that spell does is final: the strongest word.\n"
    )
    return files


def test_a_note_the_best_hit_names_without_a_link_is_pinned_after_it(tmp_path):
    rag = make_rag(tmp_path / "named", _lich("power word kill"))
    for budget in (600, 1000):
        result = rag.query(QUESTION, budget=budget, seed=0)
        shown = uris([*result.entries, *result.related])
        assert shown[0] == "Monsters/Lich"
        assert "Spells/Power Word Kill" in shown, budget
    # Without the mention (the lich prepares another spell) the budget goes elsewhere.
    other = make_rag(tmp_path / "other", _lich("time stop"))
    for budget in (600, 1000):
        result = other.query(QUESTION, budget=budget, seed=0)
        assert "Spells/Power Word Kill" not in uris([*result.entries, *result.related])


def test_a_mentioned_note_needs_evidence_of_its_own_to_be_pinned(tmp_path):
    files = _lich("power word kill")
    files["Spells/Power Word Kill.md"] = "# Power Word Kill\n\nOne creature with 100 hp dies.\n"
    rag = make_rag(tmp_path, files)
    result = rag.query(QUESTION, budget=1000, seed=0)
    assert "Spells/Power Word Kill" not in uris([*result.entries, *result.related])


# -- a mention the graph reaches too: a bridge --------------------------------------------
KNIGHT_QUESTION = "who guards the lich's tomb and how strong is that guard"


def _tomb(named: str) -> dict[str, str]:
    # Every monster links to the lich (the graph reaches them all, one hop back); five
    # say more about the question than the one the lich's passage names.
    files = _tales(
        "Monsters/Beast", 5, "A strong beast, seen near the tomb of the [[Lich]] in tale {i}."
    )
    files["Monsters/Lich.md"] = (
        "# Lich\n\nThe lich's tomb is guarded by a " + named + " sworn to it.\n"
    )
    files["Monsters/Dread Knight.md"] = (
        "# Dread Knight\n\nServes the [[Lich]]. Armour class 20, 150 hit points.\n"
    )
    return files


def test_a_mentioned_note_the_graph_reaches_ranks_as_a_bridge(tmp_path):
    rag = make_rag(tmp_path / "named", _tomb("dread knight"))
    result = rag.query(KNIGHT_QUESTION, budget=500, seed=0)
    assert uris(result.entries)[0] == "Monsters/Lich"
    assert uris(result.related)[0] == "Monsters/Dread Knight"  # ahead of the beasts
    other = make_rag(tmp_path / "other", _tomb("stone golem"))
    related = uris(other.query(KNIGHT_QUESTION, budget=500, seed=0).related)
    # No bridge: it may fill what the beasts leave, never take one's place.
    if "Monsters/Dread Knight" in related:
        assert related.index("Monsters/Dread Knight") == len(related) - 1 > 0


# -- an entry's passage: a name written as one --------------------------------------------
def test_an_entry_passage_names_a_note_only_where_it_writes_a_name():
    table = {"mobile app": [1], "obsidian sync": [2], "dread knight": [3]}
    # in passing, in lower case, an everyday phrase that titles a note is a phrase
    assert passage_mentions("open the mobile app", table, 1, 4, written_as_name=True) == []
    assert passage_mentions("open the mobile app", table, 1, 4) == [1]
    # capitalised or set off, it is a name
    assert passage_mentions("turn on Obsidian Sync", table, 1, 4, written_as_name=True) == [2]
    assert passage_mentions("a *dread knight*", table, 1, 4, written_as_name=True) == [3]
    assert passage_mentions("The Mobile App", table, 1, 4, written_as_name=True) == [1]


TOMB_QUESTION = "who guards the lich's tomb and how strong is that guard"


def _crypt(named: str) -> dict[str, str]:
    # The best hit (the tomb's lore) names no guard; the lich, an entry after it, names
    # one in its passage, without a link. Every monster links to the lich, so the graph
    # reaches them all one hop back from that entry; five say more about the question
    # than the guard the lich's passage names.
    files = _tales(
        "Monsters/Beast", 5, "A strong beast, seen near the tomb of the [[Lich]] in tale {i}."
    )
    files["Crypt/Tomb Lore.md"] = (
        "# Tomb Lore\n\nWho guards the lich's tomb, and how strong is that guard? The tomb "
        "guards its lich; strong wards guard the tomb.\n"
    )
    files["Monsters/Lich.md"] = (
        "# Lich\n\nThe lich rests in its tomb. The tomb is guarded by the " + named + ".\n"
    )
    files["Monsters/Dread Knight.md"] = (
        "# Dread Knight\n\nServes the [[Lich]]. Armour class 20, 150 hit points.\n"
    )
    return files


def test_a_note_an_entry_names_as_a_name_ranks_as_a_bridge(tmp_path):
    rag = make_rag(tmp_path / "named", _crypt("Dread Knight"))
    result = rag.query(TOMB_QUESTION, budget=500, seed=0)
    entries = uris(result.entries)
    assert entries[0] == "Crypt/Tomb Lore" and "Monsters/Lich" in entries
    assert uris(result.related)[0] == "Monsters/Dread Knight"  # ahead of the beasts
    # Written in passing, in lower case, it is a phrase: no bridge.
    other = make_rag(tmp_path / "phrase", _crypt("dread knight"))
    related = uris(other.query(TOMB_QUESTION, budget=500, seed=0).related)
    if "Monsters/Dread Knight" in related:
        assert related.index("Monsters/Dread Knight") == len(related) - 1 > 0


# -- every name a best hit's passage writes: bridges -----------------------------------------
FINGER = (
    "# Finger of Death\n\nA spell of negative energy: the creature takes 7d8 + 30 necrotic "
    "damage, and one it kills rises as a zombie. What that spell does.\n"
)


def _two_spells(spells: str, more: int = 0) -> dict[str, str]:
    # The lich's passage, the best hit, names two spells without links: the one more
    # like the question is pinned after it; the other says less about the question than
    # thirty lore notes do, and loses the budget to them unless it counts as a bridge.
    files = _lich("power word kill")
    files["Monsters/Lich.md"] = (
        "# Lich\n\nSpellcasting. The lich is a spellcaster and has prepared these spells: "
        f"9th level (1 slot): {spells}. Its strongest spell.\n"
    )
    files["Spells/Finger of Death.md"] = FINGER
    for i in range(more):  # notes the passage names too, with no evidence of their own
        files[f"Spells/Rune {i}.md"] = f"# Rune {i}\n\nA glyph carved in stone.\n"
    return files


def _related(rag: Any, budget: int) -> list[str]:
    result = rag.query(QUESTION, budget=budget, seed=0)
    assert uris(result.entries)[0] == "Monsters/Lich"
    return uris(result.related)


def test_every_note_a_best_hit_names_as_a_name_ranks_as_a_bridge(tmp_path):
    rag = make_rag(tmp_path / "named", _two_spells("*power word kill*, *finger of death*"))
    for budget in (600, 1000):
        # the pin, then the bridge, ahead of every lore note that is no entry
        assert _related(rag, budget)[:2] == ["Spells/Power Word Kill", "Spells/Finger of Death"]


def test_a_name_in_lower_case_or_in_a_list_is_no_bridge(tmp_path):
    # In lower case a run of words is read as a name for the pin, not for a bridge.
    lower = make_rag(tmp_path / "lower", _two_spells("*power word kill*, finger of death"))
    # Naming more than five notes, a passage is a list: it says none of them answers.
    runes = ", ".join(f"*rune {i}*" for i in range(5))
    listed = make_rag(
        tmp_path / "list", _two_spells(f"*power word kill*, *finger of death*, {runes}", 5)
    )
    for rag in (lower, listed):
        for budget in (600, 1000):
            related = _related(rag, budget)
            assert related[0] == "Spells/Power Word Kill"
            # no bridge: it may fill what the lore notes leave, never lead them
            lore = next(i for i, u in enumerate(related) if u.startswith("Lore"))
            if "Spells/Finger of Death" in related:
                assert related.index("Spells/Finger of Death") > lore, budget
