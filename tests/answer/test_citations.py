"""Which notes an answer cites: its [[links]] resolved as Obsidian resolves them."""

from __future__ import annotations

from graphrag.answer.citations import cited, link_targets

SOURCES = [
    ("Places/Huts/Spring Box", "Spring Box"),
    ("Places/Huts/Shepherd's Hut", "Shepherd's Hut"),
    ("Policies/Refunds", "Refund policy"),  # front matter title differs from the file name
    ("A/Hut", "Hut"),
    ("B/C/Hut", "Hut"),
]
ALIASES = {"Policies/Refunds": ["money back"]}


def test_link_targets_drop_display_heading_and_block() -> None:
    text = "[[A|shown]] [[B#Heading]] [[C#^block|x]] ![[D]] [[E\\|table]] [[#Only heading]] [[ ]]"
    assert link_targets(text) == ["A", "B", "C", "D", "E"]


def test_a_full_uri_cites_its_note() -> None:
    assert cited("Water comes from [[Places/Huts/Spring Box]].", SOURCES) == [
        "Places/Huts/Spring Box"
    ]


def test_file_name_title_alias_and_case_cite_the_note() -> None:
    assert cited("[[spring box]]", SOURCES) == ["Places/Huts/Spring Box"]
    assert cited("[[Refund policy]]", SOURCES) == ["Policies/Refunds"]
    assert cited("[[Money Back]]", SOURCES, ALIASES) == ["Policies/Refunds"]
    assert cited("[[Refunds.md]]", SOURCES) == ["Policies/Refunds"]


def test_display_text_and_headings_do_not_hide_the_target() -> None:
    text = "See [[Spring Box|the box]] and [[Refund policy#When]] and ![[Shepherd's Hut]]."
    assert cited(text, SOURCES) == [
        "Places/Huts/Spring Box",
        "Places/Huts/Shepherd's Hut",
        "Policies/Refunds",
    ]


def test_a_partial_path_picks_the_note_in_that_folder_else_the_shortest_path() -> None:
    assert cited("[[C/Hut]]", SOURCES) == ["B/C/Hut"]
    assert cited("[[Huts/Shepherd's Hut]]", SOURCES) == ["Places/Huts/Shepherd's Hut"]
    assert cited("[[Hut]]", SOURCES) == ["A/Hut"]  # Obsidian: fewest folders wins


def test_links_to_notes_not_given_to_the_model_cite_nothing() -> None:
    assert cited("[[Nowhere]] and [[Places/Huts]] and [[Spring]]", SOURCES) == []
    assert cited("no links at all", SOURCES) == []


def test_order_is_the_prompt_order_and_repeats_count_once() -> None:
    text = "[[Refund policy]] then [[Spring Box]] then [[Refund policy]] again"
    assert cited(text, SOURCES) == ["Places/Huts/Spring Box", "Policies/Refunds"]


def test_bare_uris_are_accepted_as_sources() -> None:
    assert cited("[[Spring Box]]", ["X/Other", "Places/Huts/Spring Box"]) == [
        "Places/Huts/Spring Box"
    ]
