"""indexer.resolve: Obsidian link resolution."""

from __future__ import annotations

import random

import pytest

from indexer.parse import parse_note
from indexer.resolve import Resolver, Target

NOTES = [
    "Home",
    "Glossary",
    "People/Mira Halvorsen",
    "People/People",
    "Places/Huts/Shepherd's Hut",
    "Places/Huts/index",
    "Places/Käsekeller",
    "Dairy/Cheese Making",
    "Dairy/Cheese Making/Brine",
    "Dairy/Cheese Making/Recipes/Brine",
    "Dairy/Goat Herd",
    "Projects/Hut Roof Repair",
    "v1.2 Release",
]
ATTACHMENTS = ["img/photo.png", "Places/docs/Trail Map.pdf"]
ALIASES = {"Projects/Hut Roof Repair": ["Roof", "Shingles"], "People/Mira Halvorsen": ["Mira"]}
FOLDERS = {
    "People": "People/People",
    "Places": "Places",  # virtual
    "Places/Huts": "Places/Huts/index",
    "Dairy": "Dairy",  # virtual
    "Dairy/Cheese Making": "Dairy/Cheese Making",
}


@pytest.fixture
def resolver() -> Resolver:
    return Resolver(NOTES, ATTACHMENTS, aliases=ALIASES, folders=FOLDERS)


def test_exact_vault_path(resolver: Resolver) -> None:
    assert resolver.resolve("Places/Huts/Shepherd's Hut", "Home") == Target(
        "Places/Huts/Shepherd's Hut", "note"
    )
    assert resolver.resolve("/Places/Käsekeller", "Home") == Target("Places/Käsekeller", "note")


@pytest.mark.parametrize(
    "written",
    [
        "places/huts/shepherd's hut",
        "PLACES/HUTS/SHEPHERD'S HUT.MD",
        "Places/Huts/Shepherd's Hut.md",
    ],
)
def test_path_is_case_insensitive_and_md_optional(resolver: Resolver, written: str) -> None:
    assert resolver.resolve(written, "Home") == Target("Places/Huts/Shepherd's Hut", "note")


@pytest.mark.parametrize("written", ["Goat Herd", "goat herd", "Goat Herd.md", "GOAT HERD.MD"])
def test_file_name_case_insensitive(resolver: Resolver, written: str) -> None:
    assert resolver.resolve(written, "Home") == Target("Dairy/Goat Herd", "note")


def test_dots_in_a_note_name_are_not_an_extension(resolver: Resolver) -> None:
    assert resolver.resolve("v1.2 Release", "Home") == Target("v1.2 Release", "note")
    assert resolver.resolve("v1.3 Release", "Home") == Target("v1.3 Release", "ghost")


def test_two_candidates_the_written_path_wins(resolver: Resolver) -> None:
    source = "Dairy/Cheese Making/Pressing"
    assert resolver.resolve("Recipes/Brine", source).uri == "Dairy/Cheese Making/Recipes/Brine"
    assert resolver.resolve("Cheese Making/Brine", source).uri == "Dairy/Cheese Making/Brine"
    assert resolver.resolve("recipes/brine.md", "Home").uri == "Dairy/Cheese Making/Recipes/Brine"


def test_two_candidates_else_the_shortest_path(resolver: Resolver) -> None:
    assert resolver.resolve("Brine", "Home") == Target("Dairy/Cheese Making/Brine", "note")
    # A folder part that matches no candidate still resolves by file name.
    assert resolver.resolve("Elsewhere/Brine", "Home").uri == "Dairy/Cheese Making/Brine"


def test_shortest_path_does_not_depend_on_scan_order() -> None:
    notes = ["z/Dup", "a/b/Dup", "a/b/c/Dup", "y/Dup"]
    for seed in range(5):
        shuffled = notes[:]
        random.Random(seed).shuffle(shuffled)
        assert Resolver(shuffled).resolve("Dup", "Top").uri == "y/Dup"


def test_same_folder_candidate_is_preferred() -> None:
    resolver = Resolver(["Notes/Topic", "Deep/Folder/Here/Topic", "Deep/Folder/Here/Source"])
    assert resolver.resolve("Topic", "Deep/Folder/Here/Source").uri == "Deep/Folder/Here/Topic"


def _md_link(text: str, source: str, resolver: Resolver) -> Target:
    (link,) = parse_note(source + ".md", text.encode()).links
    return resolver.resolve(link.target, source, link.markdown)


def test_markdown_links_are_decoded_and_relative_to_the_linking_note(resolver: Resolver) -> None:
    assert _md_link("[x](Mira%20Halvorsen.md)", "People/People", resolver) == Target(
        "People/Mira Halvorsen", "note"
    )
    assert _md_link("[x](../Projects/Hut%20Roof%20Repair.md)", "People/People", resolver) == Target(
        "Projects/Hut Roof Repair", "note"
    )
    assert _md_link("[x](Huts/Shepherd's%20Hut.md#Water)", "Places/Käsekeller", resolver) == Target(
        "Places/Huts/Shepherd's Hut", "note"
    )


def test_markdown_link_falls_back_to_the_vault_root_then_the_file_name(resolver: Resolver) -> None:
    assert _md_link("[x](Dairy/Goat%20Herd.md)", "Home", resolver).uri == "Dairy/Goat Herd"
    assert _md_link("[x](Dairy/Goat%20Herd.md)", "People/People", resolver).uri == "Dairy/Goat Herd"
    assert _md_link("[x](<Goat Herd.md>)", "People/People", resolver).uri == "Dairy/Goat Herd"


def test_relative_wikilinks(resolver: Resolver) -> None:
    assert (
        resolver.resolve("./Brine", "Dairy/Cheese Making/Pressing").uri
        == "Dairy/Cheese Making/Brine"
    )
    assert resolver.resolve("../Käsekeller", "Places/Huts/index").uri == "Places/Käsekeller"


def test_unresolved_becomes_a_ghost_named_as_written(resolver: Resolver) -> None:
    assert resolver.resolve("Winter Pasture Plan", "Home") == Target("Winter Pasture Plan", "ghost")
    assert resolver.resolve("Cheese Shop.md", "Home") == Target("Cheese Shop", "ghost")
    # Case variants of one missing target are one ghost (the first spelling seen).
    assert resolver.resolve("cheese shop", "Glossary") == Target("Cheese Shop", "ghost")


def test_non_markdown_targets_are_attachments(resolver: Resolver) -> None:
    assert resolver.resolve("photo.png", "Home") == Target("img/photo.png", "attachment")
    assert resolver.resolve("img/PHOTO.png", "Home") == Target("img/photo.png", "attachment")
    assert resolver.resolve("trail map.pdf", "Home") == Target(
        "Places/docs/Trail Map.pdf", "attachment"
    )
    # Missing, with a known extension: still an attachment, never a note or a ghost.
    assert resolver.resolve("map.png", "Places/index") == Target("map.png", "attachment")


def test_alias_fallback(resolver: Resolver) -> None:
    assert resolver.resolve("Roof", "Home") == Target("Projects/Hut Roof Repair", "note")
    assert resolver.resolve("shingles", "Home") == Target("Projects/Hut Roof Repair", "note")
    assert resolver.resolve("MIRA", "Home").uri == "People/Mira Halvorsen"


def test_a_file_name_beats_an_alias() -> None:
    resolver = Resolver(["A/Target", "B/Other"], aliases={"B/Other": ["Target"]})
    assert resolver.resolve("Target", "Home").uri == "A/Target"


def test_aliases_can_be_switched_off() -> None:
    resolver = Resolver(NOTES, aliases=ALIASES, resolve_aliases=False)
    assert resolver.resolve("Roof", "Home") == Target("Roof", "ghost")


@pytest.mark.parametrize("written", ["", "  "])
def test_heading_only_link_points_at_the_note_itself(resolver: Resolver, written: str) -> None:
    assert resolver.resolve(written, "Places/Huts/Shepherd's Hut") == Target(
        "Places/Huts/Shepherd's Hut", "self"
    )


def test_folder_link_points_at_the_folder_note(resolver: Resolver) -> None:
    assert resolver.resolve("Places/Huts", "Home") == Target("Places/Huts/index", "note")
    assert resolver.resolve("places/huts/", "Home") == Target("Places/Huts/index", "note")
    assert resolver.resolve("People", "Home") == Target("People/People", "note")  # by file name


def test_folder_without_folder_note_is_its_virtual_note(resolver: Resolver) -> None:
    assert resolver.resolve("Dairy", "Home") == Target("Dairy", "folder")
    assert resolver.resolve("Places", "Home") == Target("Places", "folder")


def test_a_path_climbing_out_of_the_vault_falls_back_to_the_file_name(resolver: Resolver) -> None:
    assert resolver.resolve("../../Home.md", "People/People", markdown=True) == Target(
        "Home", "note"
    )
    assert resolver.resolve("../../Nowhere.md", "People/People", markdown=True).kind == "ghost"
