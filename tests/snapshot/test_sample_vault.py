"""sample_vault/ indexes as tests/SAMPLE_VAULT.md says: one test per edge case of its section 2.

The vault is only read (parse_vault writes nothing), so one parse serves the module.
"""

from __future__ import annotations

import datetime as dt
import unicodedata
from dataclasses import dataclass

import pytest

from graphrag.snapshot.graph import VaultGraph
from indexer import ParsedNote, parse_vault
from indexer.graphbuild import ResolvedLink, VaultGraphBuild
from tests.support.files import SAMPLE_VAULT

HUT = "Places/Huts/Shepherd's Hut"
ALPKAESE = "Dairy/Cheese Making/Recipes/Pradella Alpkäse"
KELLER = "Places/Käsekeller"
PEOPLE = [
    "People/Anneliese Brunner",
    "People/Ignaz Moser",
    "People/Jakob Steiner",
    "People/Lena Fux",
    "People/Mira Halvorsen",
    "People/Tobias Rainer",
]


@dataclass
class Sample:
    built: VaultGraphBuild
    notes: dict[str, ParsedNote]
    warnings: list[str]
    graph: VaultGraph

    def links_from(self, uri: str) -> list[ResolvedLink]:
        return [lk for lk in self.built.links if lk.source == uri]

    def out(self, uri: str) -> set[tuple[str, str]]:
        """Resolved outbound links as (target uri, kind), hierarchy links excluded."""
        return {
            (lk.target, f"property {lk.predicate}" if lk.kind == "property" else lk.kind)
            for lk in self.links_from(uri)
            if lk.target_kind in ("note", "folder") and not lk.hierarchy
        }

    def ghosts(self, uri: str) -> set[str]:
        return {lk.target for lk in self.links_from(uri) if lk.target_kind == "ghost"}

    def attachments(self, uri: str) -> set[str]:
        return {lk.target for lk in self.links_from(uri) if lk.target_kind == "attachment"}

    def tags(self, uri: str) -> list[str]:
        return self.notes[uri].tags

    def nodes_of_kind(self, kind: str) -> set[str]:
        return {u for u, d in self.built.graph.nodes(data=True) if d["kind"] == kind}

    def all_tags(self) -> set[str]:
        return {t for n in self.notes.values() for t in n.tags}


@pytest.fixture(scope="module")
def sv() -> Sample:
    built, notes, warnings = parse_vault(SAMPLE_VAULT)
    return Sample(built, {n.uri: n for n in notes}, warnings, VaultGraph.from_networkx(built.graph))


def _day(stamp: float) -> str:
    return dt.datetime.fromtimestamp(stamp, dt.UTC).date().isoformat()


def _mtime(uri: str) -> float:
    return (SAMPLE_VAULT / f"{uri}.md").stat().st_mtime_ns / 1e9


# -- section 1: counts and rules applied --------------------------------------------------------
def test_counts(sv: Sample) -> None:
    assert len(sv.notes) == 37
    assert sum(1 for n in sv.notes.values() if not n.body.strip()) == 1
    assert sv.nodes_of_kind("folder") == {
        "Dairy",
        "Dairy/Cheese Making/Recipes",
        "Places/Pastures",
        "Templates",
    }
    assert sv.nodes_of_kind("ghost") == {"Winter Pasture Plan", "Cheese Shop"}
    assert sv.nodes_of_kind("attachment") == {"map.png", "images/trail map.jpg"}


# -- section 2: rule coverage ---------------------------------------------------------------
def test_nested_folders_three_levels(sv: Sample) -> None:
    g = sv.graph
    assert g.parent("Dairy/Cheese Making/Recipes/Brine") == "Dairy/Cheese Making/Recipes"
    assert g.parent("Dairy/Cheese Making/Recipes") == "Dairy/Cheese Making"
    assert g.parent("Dairy/Cheese Making") == "Dairy"
    assert g.parent("Dairy") is None
    assert g.contextual_path("Dairy/Cheese Making/Recipes/Goat Ricotta") == [
        "Dairy",
        "Dairy/Cheese Making",
        "Dairy/Cheese Making/Recipes",
    ]


def test_folder_note_named_like_its_folder(sv: Sample) -> None:
    assert sv.graph.parent("People/People") is None
    assert sv.graph.children("People/People") == tuple(PEOPLE)
    assert "People" not in sv.built.graph


def test_folder_note_index(sv: Sample) -> None:
    g = sv.graph
    assert g.parent("Places/index") is None
    assert g.children("Places/index") == ("Places/Huts/index", KELLER, "Places/Pastures")
    assert g.parent("Places/Huts/index") == "Places/index"
    assert g.info("Places/Huts/index").title == "Huts"
    assert g.children("Places/Huts/index") == (
        "Places/Huts/Hochleger Dairy Hut",
        HUT,
        "Places/Huts/Zirbenkopf Bivouac",
        "Places/Huts/Gamsjoch Hut",
    )
    assert "Places" not in sv.built.graph and "Places/Huts" not in sv.built.graph


def test_folder_note_beside_its_folder(sv: Sample) -> None:
    g = sv.graph
    assert g.parent("Dairy/Cheese Making") == "Dairy"
    assert g.children("Dairy/Cheese Making") == (
        "Dairy/Cheese Making/Renneting",
        "Dairy/Cheese Making/Cutting the Curd",
        "Dairy/Cheese Making/Pressing",
        "Dairy/Cheese Making/Brine",
        ALPKAESE,
        "Dairy/Cheese Making/Recipes",
    )
    assert g.parent("Meetings") is None
    assert g.children("Meetings") == (
        "Meetings/2022-11-20 Autumn Assembly",
        "Meetings/2023-06-02 Spring Assembly",
        "Meetings/2024-09-15 Board Meeting",
    )
    assert g.info("Dairy/Cheese Making").kind == "note" and g.info("Meetings").kind == "note"


def test_folder_note_readme(sv: Sample) -> None:
    assert sv.graph.parent("Projects/README") is None
    assert sv.graph.children("Projects/README") == (
        "Projects/Cellar Expansion",
        "Projects/Descent Festival",
    )
    assert sv.graph.parent("Projects/Hut Roof Repair") == HUT


def test_virtual_notes(sv: Sample) -> None:
    g = sv.graph
    expected = {
        "Dairy": ("Dairy", None, ("Dairy/Cheese Making", "Dairy/Goat Herd")),
        "Dairy/Cheese Making/Recipes": (
            "Recipes",
            "Dairy/Cheese Making",
            (
                "Dairy/Cheese Making/Recipes/Brine",
                "Dairy/Cheese Making/Recipes/Goat Ricotta",
                "Dairy/Cheese Making/Recipes/Smoked Ziger",
            ),
        ),
        "Places/Pastures": ("Pastures", "Places/index", ("Places/Pastures/Upper Pasture",)),
        "Templates": ("Templates", None, ("Templates/Meeting Template",)),
    }
    for uri, (title, parent, children) in expected.items():
        info = g.info(uri)
        assert (info.kind, info.title) == ("folder", title)
        assert (g.parent(uri), g.children(uri)) == (parent, children)
        assert g.details(uri) == "" and uri not in sv.notes


def test_up_in_front_matter(sv: Sample) -> None:
    assert sv.graph.parent(ALPKAESE) == "Dairy/Cheese Making"
    assert sv.graph.parent("Projects/Hut Roof Repair") == HUT
    assert ("Dairy/Cheese Making", "property up") not in sv.out(ALPKAESE)
    assert all(t != HUT for t, _ in sv.out("Projects/Hut Roof Repair"))
    assert ALPKAESE not in sv.graph.backlinks("Dairy/Cheese Making")
    assert "Projects/Hut Roof Repair" not in sv.graph.backlinks(HUT)


def test_up_inline_field(sv: Sample) -> None:
    assert sv.graph.parent("Places/Huts/Spring Box") == HUT
    assert sv.out("Places/Huts/Spring Box") == {("People/Jakob Steiner", "wikilink")}
    assert "Places/Huts/Spring Box" not in sv.graph.backlinks(HUT)
    assert sv.tags("Places/Huts/Spring Box") == []


def test_order(sv: Sample) -> None:
    siblings = sv.graph.children("Places/Huts/index")
    i = siblings.index(HUT)
    assert siblings[:i] == ("Places/Huts/Hochleger Dairy Hut",)
    assert siblings[i + 1 :] == ("Places/Huts/Zirbenkopf Bivouac", "Places/Huts/Gamsjoch Hut")
    orders = {u: sv.notes[u].order for u in siblings}
    assert list(orders.values()) == [1.0, 2.0, 3.0, 4.0]
    steps = ["Renneting", "Cutting the Curd", "Pressing", "Brine"]
    assert [sv.notes[f"Dairy/Cheese Making/{s}"].order for s in steps] == [1.0, 2.0, 3.0, 4.0]


def test_aliases(sv: Sample) -> None:
    expected = {
        "Home": ["Start Here"],
        "People/Mira Halvorsen": ["Mira", "M. Halvorsen"],
        "People/Anneliese Brunner": ["Anni"],
        KELLER: ["Cheese Cellar", "Aging Cellar"],
        HUT: ["Hirtenhütte"],
        "Places/Pastures/Upper Pasture": ["Hochleger"],
        "Dairy/Cheese Making/Recipes/Goat Ricotta": ["Ziger"],
        "Projects/Descent Festival": ["Alpabzug", "Goat Descent"],
    }
    assert {u: n.aliases for u, n in sv.notes.items() if n.aliases} == expected
    assert sv.graph.info(HUT).aliases == ("Hirtenhütte",)


def test_alias_used_as_link_target(sv: Sample) -> None:
    assert ("Projects/Descent Festival", "wikilink") in sv.out("Home")
    assert ("Projects/Descent Festival", "wikilink") in sv.out("People/Tobias Rainer")
    assert sv.out("People/Lena Fux") == {("People/Anneliese Brunner", "wikilink")}
    assert not {"Alpabzug", "Anni"} & set(sv.built.graph.nodes)


def test_front_matter_tags_as_list(sv: Sample) -> None:
    assert sv.tags("Home") == ["cooperative", "home"]
    assert sv.tags(HUT) == ["goats", "hut", "summer"]
    assert sv.tags("Projects/Descent Festival") == ["festival", "project", "project/festival"]
    assert sv.tags("Meetings") == ["meeting"]


def test_front_matter_tags_as_string(sv: Sample) -> None:
    assert sv.tags("Glossary") == ["glossary", "reference"]
    assert sv.tags("Dairy/Cheese Making/Recipes/Goat Ricotta") == ["dairy", "recipe"]


def test_inline_tags(sv: Sample) -> None:
    assert "cooperative" in sv.tags("Home")
    assert "goats" in sv.tags(HUT)
    assert sv.tags("Places/Pastures/Upper Pasture") == ["pasture", "summer"]
    assert sv.tags("Meetings/2024-09-15 Board Meeting") == ["board"]


def test_nested_tags_and_their_ancestors(sv: Sample) -> None:
    assert sv.tags("Projects/Cellar Expansion") == ["cellar", "project", "project/cellar"]
    assert sv.tags("Projects/Hut Roof Repair") == ["project", "project/huts"]
    assert sv.tags(KELLER) == ["cellar", "cheese", "cheese/aging", "dairy"]
    assert sv.tags("Projects/README") == ["project"]
    assert sv.graph.tag_members["project"] == (
        "Projects/Cellar Expansion",
        "Projects/Descent Festival",
        "Projects/Hut Roof Repair",
        "Projects/README",
    )


def _link(sv: Sample, source: str, written: str) -> ResolvedLink:
    (link,) = [lk for lk in sv.links_from(source) if lk.written == written and not lk.hierarchy]
    return link


def test_embed_of_a_whole_note(sv: Sample) -> None:
    link = _link(sv, HUT, "Spring Box")
    assert (link.target, link.kind, link.subpath) == ("Places/Huts/Spring Box", "embed", "")


def test_embed_of_a_heading(sv: Sample) -> None:
    link = _link(sv, "Projects/Cellar Expansion", "Käsekeller")
    assert (link.target, link.kind, link.subpath) == (KELLER, "embed", "#Climate")
    embeds = [lk for lk in sv.links_from("Projects/Descent Festival") if lk.kind == "embed"]
    assert [(lk.target, lk.subpath) for lk in embeds] == [(ALPKAESE, "#Tasting Notes")]
    assert ("Climate", 2) in [(h.text, h.level) for h in sv.notes[KELLER].headings]
    assert ("Tasting Notes", 2) in [(h.text, h.level) for h in sv.notes[ALPKAESE].headings]


def test_embed_of_a_block(sv: Sample) -> None:
    link = _link(sv, HUT, "Glossary")
    assert (link.target, link.kind, link.subpath) == ("Glossary", "embed", "#^hirt")
    body = sv.notes["Glossary"].body
    blocks = [
        "senn",
        "hirt",
        "alpabzug",
        "hochleger",
        "alpkaese",
        "lab",
        "schotte",
        "ziger",
        "keller",
        "harfe",
        "anteil",
        "gemeinwerk",
    ]
    assert [b for b in blocks if f" ^{b}\n" in body or body.rstrip().endswith(f" ^{b}")] == blocks


def test_link_to_a_heading(sv: Sample) -> None:
    cases = [
        ("Places/Huts/Zirbenkopf Bivouac", "Shepherd's Hut", HUT, "#Winter Room"),
        ("Meetings/2023-06-02 Spring Assembly", "Shepherd's Hut", HUT, "#Repairs"),
        ("Dairy/Cheese Making/Cutting the Curd", "Glossary", "Glossary", "#Cheese words"),
    ]
    for source, written, target, subpath in cases:
        link = _link(sv, source, written)
        assert (link.target, link.kind, link.subpath) == (target, "wikilink", subpath)
    assert ("Winter Room", 3) in [(h.text, h.level) for h in sv.notes[HUT].headings]


def test_link_to_a_block(sv: Sample) -> None:
    link = _link(sv, "Dairy/Cheese Making/Renneting", "Glossary")
    assert (link.target, link.kind, link.subpath) == ("Glossary", "wikilink", "#^lab")


def test_link_with_display_text(sv: Sample) -> None:
    mira = [
        lk
        for lk in sv.links_from(ALPKAESE)
        if lk.kind == "wikilink" and lk.target == "People/Mira Halvorsen"
    ]
    assert [lk.display for lk in mira] == ["our cheesemaker"]
    assert (
        _link(sv, "Home", "Places/Huts/index").display,
        _link(sv, "Home", "Projects/README").display,
    ) == ("The huts", "Projects")


def test_link_to_a_local_heading(sv: Sample) -> None:
    (self_link,) = [lk for lk in sv.links_from(HUT) if lk.target_kind == "self"]
    assert (self_link.target, self_link.subpath) == (HUT, "#Winter Room")
    assert not sv.built.graph.has_edge(HUT, HUT)
    assert HUT not in sv.graph.backlinks(HUT)
    assert "Winter Room" not in sv.built.graph and "winter" not in sv.all_tags()


def test_markdown_links_with_percent_encoding(sv: Sample) -> None:
    assert ("Dairy/Goat Herd", "markdown") in sv.out("Home")
    assert ("People/Mira Halvorsen", "markdown") in sv.out("People/People")
    assert ("Places/Huts/Gamsjoch Hut", "markdown") in sv.out(HUT)


def test_markdown_link_with_relative_path(sv: Sample) -> None:
    assert sv.out("People/Jakob Steiner") == {
        ("Places/Huts/Gamsjoch Hut", "wikilink"),
        ("Projects/Hut Roof Repair", "markdown"),
    }
    assert sv.graph.backlinks("Projects/Hut Roof Repair") == ("People/Jakob Steiner",)


def test_links_in_non_hierarchy_properties(sv: Sample) -> None:
    assert ("People/Tobias Rainer", "property keeper") in sv.out(HUT)
    assert ("People/Jakob Steiner", "property warden") in sv.out("Places/Huts/Gamsjoch Hut")
    assert ("People/Mira Halvorsen", "property author") in sv.out(ALPKAESE)
    assert ("People/Lena Fux", "property lead") in sv.out("Projects/Descent Festival")
    assert ("People/Jakob Steiner", "property lead") in sv.out("Projects/Hut Roof Repair")
    attendees = {
        "Meetings/2022-11-20 Autumn Assembly": [
            "Anneliese Brunner",
            "Lena Fux",
            "Mira Halvorsen",
            "Tobias Rainer",
        ],
        "Meetings/2023-06-02 Spring Assembly": [
            "Anneliese Brunner",
            "Lena Fux",
            "Jakob Steiner",
            "Ignaz Moser",
        ],
    }
    for meeting, people in attendees.items():
        got = [lk.target for lk in sv.links_from(meeting) if lk.predicate == "attendees"]
        assert got == [f"People/{p}" for p in people]
    edge = sv.built.graph.get_edge_data(HUT, "People/Tobias Rainer")
    assert [(d["type"], d["predicate"]) for d in edge.values()] == [("property", "keeper")]


def test_fenced_code_is_not_links_or_tags(sv: Sample) -> None:
    assert "Firstname Lastname" not in sv.built.graph
    assert not {"project/short-name", "minutes"} & sv.all_tags()
    assert sv.tags("Home") == ["cooperative", "home"]
    assert sv.ghosts("Meetings") == set()


def test_inline_code_is_not_links_or_tags(sv: Sample) -> None:
    assert "draft" not in sv.all_tags()
    assert "Name Here" not in sv.built.graph
    assert sv.ghosts("Home") == set()


def test_inline_obsidian_comment(sv: Sample) -> None:
    uri = "Meetings/2022-11-20 Autumn Assembly"
    assert "Bank Statement 2022" not in sv.built.graph and "verify" not in sv.all_tags()
    body = sv.notes[uri].body
    assert (
        "Net result 24,400 francs" in body
        and "The first wheel of the summer went for 1,150 francs" in body
    )
    assert "check the auction figure" not in body
    assert sv.out(uri) == {
        ("People/Anneliese Brunner", "property attendees"),
        ("People/Lena Fux", "property attendees"),
        ("People/Mira Halvorsen", "property attendees"),
        ("People/Tobias Rainer", "property attendees"),
        (KELLER, "wikilink"),
    }


def test_multi_line_obsidian_comment(sv: Sample) -> None:
    uri = "Meetings/2023-06-02 Spring Assembly"
    assert "Private Notes Lena" not in sv.built.graph and "confidential" not in sv.all_tags()
    assert sv.ghosts(uri) == {"Winter Pasture Plan"}
    assert sv.tags(uri) == ["assembly", "meeting"]


def test_html_comment(sv: Sample) -> None:
    assert "Cellar Flood Records" not in sv.built.graph and "todo" not in sv.all_tags()
    assert sv.ghosts(KELLER) == set()


def test_math_block(sv: Sample) -> None:
    uri = "Dairy/Cheese Making/Recipes/Brine"
    assert "Salt Tables" not in sv.built.graph and "saltcheck" not in sv.all_tags()
    assert sv.tags(uri) == ["recipe", "salt"]
    assert sv.out(uri) == {("Dairy/Cheese Making", "wikilink")}


def test_escaped_brackets(sv: Sample) -> None:
    assert "not a link" not in sv.built.graph
    assert all(lk.written != "not a link" for lk in sv.built.links)


def test_numbers_and_heading_markers_are_not_tags(sv: Sample) -> None:
    assert "117" not in sv.all_tags() and "123" not in sv.all_tags()
    assert "Wheel #117 of 2023" in sv.notes[KELLER].body
    assert "the highest so far was #123" in sv.notes[KELLER].body
    # The vault's whole tag index (SAMPLE_VAULT.md 3.4): nothing from headings, code or comments.
    assert sv.all_tags() == {
        "assembly",
        "board",
        "cellar",
        "cheese",
        "cheese/aging",
        "cooperative",
        "dairy",
        "festival",
        "glossary",
        "goats",
        "herd",
        "hiking",
        "home",
        "hut",
        "huts",
        "meeting",
        "pasture",
        "people",
        "places",
        "process",
        "project",
        "project/cellar",
        "project/festival",
        "project/huts",
        "recipe",
        "reference",
        "safety",
        "salt",
        "summer",
    }


def test_broken_links_become_ghosts(sv: Sample) -> None:
    assert sv.ghosts("Meetings/2023-06-02 Spring Assembly") == {"Winter Pasture Plan"}
    assert sv.ghosts("Projects/Cellar Expansion") == {"Cheese Shop"}
    for ghost, source in (
        ("Winter Pasture Plan", "Meetings/2023-06-02 Spring Assembly"),
        ("Cheese Shop", "Projects/Cellar Expansion"),
    ):
        assert sv.graph.info(ghost).kind == "ghost" and sv.graph.details(ghost) == ""
        assert sv.graph.backlinks(ghost) == (source,)
    assert [(lk.source, lk.written) for lk in sv.built.unresolved] == [
        ("Meetings/2023-06-02 Spring Assembly", "Winter Pasture Plan"),
        ("Projects/Cellar Expansion", "Cheese Shop"),
    ]


def test_same_file_name_in_two_folders(sv: Sample) -> None:
    step, recipe = "Dairy/Cheese Making/Brine", "Dairy/Cheese Making/Recipes/Brine"
    assert _link(sv, step, "Recipes/Brine").target == recipe
    assert _link(sv, ALPKAESE, "Recipes/Brine").target == recipe
    assert _link(sv, "Dairy/Cheese Making", "Cheese Making/Brine").target == step
    assert _link(sv, "Dairy/Cheese Making/Pressing", "Brine").target == step
    assert sv.notes[step].title == sv.notes[recipe].title == "Brine"


def test_link_differing_only_by_case(sv: Sample) -> None:
    link = _link(sv, "People/Tobias Rainer", "shepherd's hut")
    assert (link.target, link.target_kind, link.kind) == (HUT, "note", "wikilink")
    assert "shepherd's hut" not in sv.built.graph


def test_invalid_yaml_front_matter(sv: Sample) -> None:
    uri = "Meetings/2024-09-15 Board Meeting"
    note = sv.notes[uri]
    (warning,) = [w for w in sv.warnings if "front matter" in w]
    assert warning.startswith(f"{uri}.md: invalid YAML front matter (")
    assert note.properties == {}
    assert note.created == pytest.approx(_mtime(uri))
    assert note.title == "2024-09-15 Board Meeting"
    assert sv.graph.parent(uri) == "Meetings"
    assert note.tags == ["board"]
    assert sv.out(uri) == {
        ("Projects/Descent Festival", "wikilink"),
        ("People/Mira Halvorsen", "wikilink"),
        ("Projects/Cellar Expansion", "wikilink"),
    }
    assert note.body.startswith("# Board Meeting, 15 September 2024")


def test_non_ascii_file_names(sv: Sample) -> None:
    for uri in (KELLER, ALPKAESE):
        assert uri in sv.notes and unicodedata.is_normalized("NFC", uri)
        assert (SAMPLE_VAULT / f"{uri}.md").is_file()
    keller_in = sv.graph.backlinks(KELLER)
    assert len(keller_in) == 8 and "Projects/Cellar Expansion" in keller_in
    assert len(sv.graph.backlinks(ALPKAESE)) == 6


def test_empty_note(sv: Sample) -> None:
    uri = "Dairy/Cheese Making/Recipes/Smoked Ziger"
    note = sv.notes[uri]
    assert (note.title, note.body, note.tags, note.links, note.warnings) == (
        "Smoked Ziger",
        "",
        [],
        [],
        [],
    )
    assert note.created == pytest.approx(_mtime(uri))
    assert sv.graph.parent(uri) == "Dairy/Cheese Making/Recipes"
    assert sv.graph.backlinks(uri) == ("Dairy/Cheese Making/Recipes/Goat Ricotta",)


def test_image_embed(sv: Sample) -> None:
    uri = "Places/Pastures/Upper Pasture"
    assert sv.attachments(uri) == {"map.png"}
    assert sv.graph.info("map.png").kind == "attachment"
    assert sv.out(uri) == {(HUT, "wikilink"), ("Places/Huts/Hochleger Dairy Hut", "wikilink")}
    assert sv.ghosts(uri) == set()


def test_markdown_image(sv: Sample) -> None:
    # SAMPLE_VAULT.md's rule table names it "Places/images/trail map.jpg"; its tables 3.2 and 4
    # and the indexer keep a missing attachment under the path as written (as Obsidian lists an
    # unresolved link): "images/trail map.jpg".
    (link,) = [lk for lk in sv.links_from("Places/index") if lk.target_kind == "attachment"]
    assert (link.target, link.kind, link.written) == (
        "images/trail map.jpg",
        "embed",
        "images/trail map.jpg",
    )
    assert sv.ghosts("Places/index") == set()
    assert sv.out("Places/index") == {
        (KELLER, "wikilink"),
        ("Places/Huts/index", "wikilink"),
        ("Places/Pastures/Upper Pasture", "wikilink"),
    }


def test_user_ignore_filters(sv: Sample) -> None:
    assert "Archive/Price List 2019" not in sv.built.graph and "Archive" not in sv.built.graph
    assert not any(lk.source.startswith("Archive") for lk in sv.built.links)
    assert not {"archived", "prices"} & sv.all_tags()
    assert "Archive/Price List 2019" not in sv.graph.backlinks(ALPKAESE)


def test_templates_folder(sv: Sample) -> None:
    uri = "Templates/Meeting Template"
    assert sv.graph.parent(uri) == "Templates"
    assert sv.notes[uri].created == pytest.approx(_mtime(uri))
    assert sv.notes[uri].properties["created"] == "{{date}}"
    assert sv.tags(uri) == ["meeting"]
    assert sv.out(uri) == {("Meetings", "wikilink")}


def test_created_and_date(sv: Sample) -> None:
    from_front = {u for u, n in sv.notes.items() if n.created != pytest.approx(_mtime(u))}
    assert len(from_front) == 32  # 31 `created` + 1 `date`
    assert _day(sv.notes["Meetings/2023-06-02 Spring Assembly"].created) == "2023-06-02"
    assert _day(sv.notes["People/Anneliese Brunner"].created) == "2019-02-11"
    assert min(_day(sv.notes[u].created) for u in from_front) == "2019-02-11"
    assert max(_day(sv.notes[u].created) for u in from_front) == "2024-02-10"
    for uri in (
        "Places/index",
        "Places/Huts/Spring Box",
        "Dairy/Cheese Making/Recipes/Smoked Ziger",
    ):
        assert uri not in from_front


def test_front_matter_title(sv: Sample) -> None:
    assert sv.notes["Places/Huts/index"].title == "Huts"
    assert sv.graph.info("Places/Huts/index").title == "Huts"
    assert [u for u, n in sv.notes.items() if n.title != u.rsplit("/", 1)[-1]] == [
        "Places/Huts/index"
    ]


def test_demo_focus_note(sv: Sample) -> None:
    g = sv.graph
    assert g.parent(HUT) == "Places/Huts/index"
    assert g.children(HUT) == ("Projects/Hut Roof Repair", "Places/Huts/Spring Box")
    assert sv.out(HUT) == {
        ("People/Tobias Rainer", "property keeper"),
        ("Places/Huts/Hochleger Dairy Hut", "wikilink"),
        ("Places/Huts/Spring Box", "embed"),
        ("Glossary", "embed"),
        ("Places/Pastures/Upper Pasture", "wikilink"),
        ("Places/Huts/Gamsjoch Hut", "markdown"),
    }
    assert g.backlinks(HUT) == (
        "Meetings/2023-06-02 Spring Assembly",
        "People/Tobias Rainer",
        "Places/Huts/Zirbenkopf Bivouac",
        "Places/Huts/index",
        "Places/Pastures/Upper Pasture",
    )
    assert g.info(HUT).tags == ("goats", "hut", "summer")
    assert 4000 < len(sv.notes[HUT].body) < 6000


def test_long_and_short_notes(sv: Sample) -> None:
    long_notes = {u for u, n in sv.notes.items() if len(n.body) > 4000}
    assert long_notes == {HUT, KELLER, ALPKAESE, "Projects/Descent Festival"}
    for uri, note in sv.notes.items():
        if uri in long_notes or uri in (
            "Dairy/Cheese Making/Recipes/Smoked Ziger",
            "Templates/Meeting Template",
        ):
            continue
        assert 80 <= len(note.body.split()) <= 400, uri


# -- section 3.1: the whole hierarchy ---------------------------------------------------------
HIERARCHY = {
    "Glossary": None,
    "Home": None,
    "Meetings": None,
    "Dairy/Cheese Making": "Dairy",
    "Dairy/Cheese Making/Brine": "Dairy/Cheese Making",
    "Dairy/Cheese Making/Cutting the Curd": "Dairy/Cheese Making",
    "Dairy/Cheese Making/Pressing": "Dairy/Cheese Making",
    "Dairy/Cheese Making/Recipes/Brine": "Dairy/Cheese Making/Recipes",
    "Dairy/Cheese Making/Recipes/Goat Ricotta": "Dairy/Cheese Making/Recipes",
    ALPKAESE: "Dairy/Cheese Making",
    "Dairy/Cheese Making/Recipes/Smoked Ziger": "Dairy/Cheese Making/Recipes",
    "Dairy/Cheese Making/Renneting": "Dairy/Cheese Making",
    "Dairy/Goat Herd": "Dairy",
    "Meetings/2022-11-20 Autumn Assembly": "Meetings",
    "Meetings/2023-06-02 Spring Assembly": "Meetings",
    "Meetings/2024-09-15 Board Meeting": "Meetings",
    **{p: "People/People" for p in PEOPLE},
    "People/People": None,
    "Places/Huts/Gamsjoch Hut": "Places/Huts/index",
    "Places/Huts/Hochleger Dairy Hut": "Places/Huts/index",
    "Places/Huts/index": "Places/index",
    HUT: "Places/Huts/index",
    "Places/Huts/Spring Box": HUT,
    "Places/Huts/Zirbenkopf Bivouac": "Places/Huts/index",
    "Places/index": None,
    KELLER: "Places/index",
    "Places/Pastures/Upper Pasture": "Places/Pastures",
    "Projects/Cellar Expansion": "Projects/README",
    "Projects/Descent Festival": "Projects/README",
    "Projects/Hut Roof Repair": HUT,
    "Projects/README": None,
    "Templates/Meeting Template": "Templates",
    "Dairy": None,
    "Dairy/Cheese Making/Recipes": "Dairy/Cheese Making",
    "Places/Pastures": "Places/index",
    "Templates": None,
}


def test_every_parent(sv: Sample) -> None:
    assert set(HIERARCHY) == set(sv.notes) | sv.nodes_of_kind("folder")
    assert {u: sv.graph.parent(u) for u in HIERARCHY} == HIERARCHY


# -- section 4: things that must not exist ----------------------------------------------------
def test_things_that_must_not_exist(sv: Sample) -> None:
    nodes = set(sv.built.graph.nodes)
    for uri in (
        "Archive/Price List 2019",
        "Archive",
        "People",
        "Places",
        "Places/Huts",
        "Projects",
    ):
        assert uri not in nodes, uri
    for ghost in (
        "Firstname Lastname",
        "Name Here",
        "Bank Statement 2022",
        "Private Notes Lena",
        "Cellar Flood Records",
        "Salt Tables",
        "not a link",
        "Alpabzug",
        "Anni",
        "shepherd's hut",
        "Recipes/Brine",
        "Brine",
        "Pradella Alpkäse",
    ):
        assert ghost not in nodes, ghost
    assert not any(u.startswith(".obsidian") for u in nodes)
    assert all(not u.startswith(".") for u in sv.notes)
    unwanted_tags = {
        "draft",
        "project/short-name",
        "minutes",
        "verify",
        "confidential",
        "todo",
        "saltcheck",
        "117",
        "archived",
        "prices",
        "winter",
    }
    assert not unwanted_tags & sv.all_tags()
    for child, parent in (
        ("Projects/Hut Roof Repair", HUT),
        ("Places/Huts/Spring Box", HUT),
        (ALPKAESE, "Dairy/Cheese Making"),
    ):
        types = [d["type"] for d in (sv.built.graph.get_edge_data(child, parent) or {}).values()]
        assert types == ["parent"], (child, types)
