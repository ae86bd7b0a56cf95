"""Relations shared with more notes than the context holds (graphrag/query/pack.py,
``shared_widely`` and ``fuse``): a sibling through a big folder, or a note that links
to every note of one, gets no vote from the graph's ranking in the fusion."""

from __future__ import annotations

from graphrag.focus.traverse import Candidate
from graphrag.query.fusion import fuse, shared_widely
from graphrag.query.score import Found, Ranked
from graphrag.results.notes import Relation
from tests.support.query_vault import make_rag

SPELLS = ["Fireball", "Frost Ray", "Ice Storm", "Light", "Shield", "Sleep"]


def _grimoire() -> dict[str, str]:
    files = {f"Spells/{s}.md": f"# {s}\n\nA spell of the school of {s.lower()}.\n" for s in SPELLS}
    # The fireball links one of its siblings: that one is a neighbour, not a category.
    files["Spells/Fireball.md"] = "# Fireball\n\nFire in a sphere, unlike [[Ice Storm]].\n"
    files["Spell list.md"] = "# Spell list\n\n" + "\n".join(f"- [[{s}]]" for s in SPELLS) + "\n"
    files["Tools/Saw.md"] = "# Saw\n\nCuts wood, see [[Fireball]] for the sparks.\n"
    files["Tools/Hammer.md"] = "# Hammer\n\nDrives nails.\n"
    return files


def _ranked(uri: str, relation: Relation, origin: str = "E") -> Ranked:
    cand = Candidate(uri, 1, (), (), origin, relation, 0)
    return Ranked(Found(cand, True, (origin, uri), ""), None)  # type: ignore[arg-type]


def test_a_relation_shared_with_more_notes_than_the_context_holds_is_no_neighbourhood(tmp_path):
    rag = make_rag(tmp_path, _grimoire())
    graph = rag.graph
    found = [
        _ranked("Spells/Frost Ray", Relation.PriorSibling, "Spells/Fireball"),
        _ranked("Spells/Ice Storm", Relation.YoungerSibling, "Spells/Fireball"),
        _ranked("Spell list", Relation.InboundReference, "Spells/Fireball"),
        _ranked("Tools/Saw", Relation.InboundReference, "Spells/Fireball"),
        _ranked("Tools/Hammer", Relation.YoungerSibling, "Tools/Saw"),
    ]
    # Six spells in the folder, the list links all six: more than a context of 3 holds.
    weak = shared_widely(graph, found, ["Spells/Fireball", "Tools/Saw"], 3)
    # Ice Storm is a sibling the entry links; the saw links one note; the tools folder
    # holds two.
    assert weak == {"Spells/Frost Ray", "Spell list"}
    # A context that holds the whole folder: every sibling is a neighbour again.
    assert shared_widely(graph, found, ["Spells/Fireball"], 6) == set()


def test_a_widely_shared_note_ranks_by_the_search_alone():
    sibling = _ranked("Spells/Frost Ray", Relation.PriorSibling)
    other = _ranked("Tools/Saw", Relation.Object)
    # The graph ranks the sibling first; the search ranks a hit first and the sibling
    # second. With its graph vote the sibling leads; without it, it comes after the
    # graph's other note and the search's best hit, and stays a related note.
    assert fuse([sibling, other], ["Hit", "Spells/Frost Ray"], 60)[0] is sibling
    order = fuse([sibling, other], ["Hit", "Spells/Frost Ray"], 60, weak={"Spells/Frost Ray"})
    assert [x if isinstance(x, str) else x.found.cand.uri for x in order] == [
        "Tools/Saw",
        "Hit",
        "Spells/Frost Ray",
    ]
    assert order[-1] is sibling


QUESTION = "how strong is the werewolf bite and what cures lycanthropy"


def _bestiary() -> dict[str, str]:
    # The werewolf answers the first half; the herb, in another folder and unlinked,
    # the second. Twelve wolves share the werewolf's folder and two of the question's
    # words: the traversal reaches the ones most like the question as its siblings.
    files = {
        "Monsters/Werewolf.md": "# Werewolf\n\nThe werewolf bite is strong: it spreads "
        "lycanthropy to the bitten.\n",
        "Herbs/Belladonna.md": "# Belladonna\n\nBelladonna cures lycanthropy from a bite.\n",
        "Herbs/Mint.md": "# Mint\n\nMint freshens breath.\n",
    }
    for i in range(12):
        files[f"Monsters/Wolf {i:02d}.md"] = (
            f"# Wolf {i:02d}\n\nA strong bite, pack hunter number {i}, "
            + " ".join(f"fur{i}x{j}" for j in range(10))
            + ".\n"
        )
    return files


def test_a_sibling_in_a_folder_bigger_than_the_context_leaves_room_for_a_search_hit(tmp_path):
    small = make_rag(tmp_path / "s", _bestiary(), query={"max_documents": 5, "max_entries": 1})
    for budget in (150, 180):
        result = small.query(QUESTION, budget=budget, seed=0)
        assert [e.uri for e in result.entries] == ["Monsters/Werewolf"]
        # Thirteen monsters, a context of five: a wolf is no neighbour of the werewolf,
        # and the herb the search ranks comes first. With the graph's vote the nearest
        # wolf led and the herb did not fit.
        assert result.related[0].uri == "Herbs/Belladonna", budget
    # A context that holds the whole folder: the nearest wolf is a neighbour and leads.
    wide = make_rag(tmp_path / "w", _bestiary(), query={"max_documents": 15, "max_entries": 1})
    result = wide.query(QUESTION, budget=150, seed=0)
    assert result.related[0].uri == "Monsters/Wolf 00"
    assert result.related[0].note.relation == Relation.YoungerSibling
