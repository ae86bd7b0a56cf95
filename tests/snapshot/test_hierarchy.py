"""Parents, folder notes, virtual folders and sibling order (docs/architecture.md, "Vault to graph")."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.snapshot.graph import VaultGraph
from indexer import parse_vault
from indexer.config import IndexConfig, IndexSettings
from indexer.graphbuild import VaultGraphBuild
from tests.support.files import write


def build(tmp_path: Path, files: dict[str, str], **settings: object) -> VaultGraphBuild:
    vault = tmp_path / "vault"
    vault.mkdir(exist_ok=True)
    for rel, text in files.items():
        write(vault, rel, text)
    config = IndexConfig(index=IndexSettings(**settings)) if settings else None  # type: ignore[arg-type]
    built, _, warnings = parse_vault(vault, config)
    built.warnings[:] = warnings
    return built


def view(built: VaultGraphBuild) -> VaultGraph:
    return VaultGraph.from_networkx(built.graph)


def link_edges(built: VaultGraphBuild) -> set[tuple[str, str]]:
    return {
        (u, v) for u, v, d in built.graph.edges(data=True) if d["type"] not in ("parent", "tag")
    }


def test_top_level_notes_are_roots_and_not_siblings(tmp_path: Path) -> None:
    built = build(tmp_path, {"A.md": "", "B.md": "", "C.md": "[[A]]", "F/x.md": ""})
    g = view(built)
    for uri in ("A", "B", "C"):
        assert g.parent(uri) is None
    assert g.parent("F") is None  # a top-level folder is a root too
    assert all(uri not in kids for kids in g.children_of.values() for uri in ("A", "B", "C"))
    assert "" not in g.nodes and "." not in g.nodes  # the vault itself is not a note


FOLDER_NOTE_CONVENTIONS = {
    "F/F.md": "Top/F/F",
    "F/index.md": "Top/F/index",
    "F/README.md": "Top/F/README",
    "F.md beside F/": "Top/F",
}


@pytest.mark.parametrize("convention", list(FOLDER_NOTE_CONVENTIONS))
def test_folder_note_conventions(tmp_path: Path, convention: str) -> None:
    folder_note = FOLDER_NOTE_CONVENTIONS[convention]
    built = build(
        tmp_path,
        {
            "Top/Top.md": "",
            folder_note + ".md": "",
            "Top/F/x.md": "",
            "Top/F/Sub/y.md": "",
        },
    )
    g = view(built)
    assert g.parent("Top/F/x") == folder_note
    assert g.parent("Top/F/Sub") == folder_note  # sub-folders hang under it too (virtual here)
    assert g.parent("Top/F/Sub/y") == "Top/F/Sub"
    # The folder note stands for its folder: its parent is the parent of that folder.
    assert g.parent(folder_note) == "Top/Top"
    assert "Top/F" not in built.virtual_folders
    assert g.info(folder_note).kind == "note"
    assert set(g.children(folder_note)) == {"Top/F/x", "Top/F/Sub"}


def test_top_level_folder_note_has_no_parent(tmp_path: Path) -> None:
    built = build(
        tmp_path,
        {
            "Meetings.md": "",
            "Meetings/2024-01-01.md": "",
            "People/People.md": "",
            "People/Ann.md": "",
        },
    )
    g = view(built)
    assert g.parent("Meetings") is None and g.parent("People/People") is None
    assert g.parent("Meetings/2024-01-01") == "Meetings"
    assert g.parent("People/Ann") == "People/People"
    assert built.virtual_folders == []


def test_folder_note_precedence_and_case(tmp_path: Path) -> None:
    built = build(
        tmp_path,
        {
            "A/A.md": "",
            "A/index.md": "",
            "A/README.md": "",
            "A.md": "",
            "B/index.md": "",
            "B/README.md": "",
            "C/readme.md": "",
            "C/x.md": "",
            "D/d.md": "",
            "D/x.md": "",
        },
    )
    g = view(built)
    assert g.parent("A/index") == "A/A"
    assert g.parent("A/README") == "A/A"
    assert g.parent("A") is None  # A.md beside A/ loses to A/A.md and stays a plain root note
    assert g.parent("B/README") == "B/index"
    assert g.parent("C/x") == "C/readme"
    assert g.parent("D/x") == "D/d"


def test_folder_note_names_setting(tmp_path: Path) -> None:
    files = {"F/index.md": "", "F/_folder.md": "", "F/x.md": "", "H/index.md": "", "H/z.md": ""}
    g = view(build(tmp_path, files, folder_note_names=("_folder",)))
    assert g.parent("F/x") == "F/_folder"
    assert g.parent("F/index") == "F/_folder"
    assert g.parent("H/z") == "H" and g.info("H").kind == "folder"  # index is no longer a name


def test_folder_note_beside_can_be_switched_off(tmp_path: Path) -> None:
    g = view(build(tmp_path, {"G.md": "", "G/y.md": ""}, folder_note_beside=False))
    assert g.info("G").kind == "note"
    parent = g.parent("G/y")
    assert parent is not None and g.info(parent).kind == "folder"  # a virtual note, not G.md
    assert parent == "G/" and g.info(parent).title == "G"  # cannot collide with the note G


def test_folder_without_folder_note_is_a_virtual_note(tmp_path: Path) -> None:
    built = build(
        tmp_path,
        {"Dairy/Goat Herd.md": "", "Dairy/Cheese/Recipes/Brine.md": "", "Dairy/Cheese.md": ""},
    )
    g = view(built)
    assert sorted(built.virtual_folders) == ["Dairy", "Dairy/Cheese/Recipes"]
    recipes = g.info("Dairy/Cheese/Recipes")
    assert (recipes.kind, recipes.title, recipes.path) == (
        "folder",
        "Recipes",
        "Dairy/Cheese/Recipes",
    )
    assert g.details("Dairy/Cheese/Recipes") == ""
    assert g.parent("Dairy/Cheese/Recipes/Brine") == "Dairy/Cheese/Recipes"
    assert g.parent("Dairy/Cheese/Recipes") == "Dairy/Cheese"
    assert g.parent("Dairy/Cheese") == "Dairy"
    assert g.parent("Dairy") is None
    assert g.contextual_path("Dairy/Cheese/Recipes/Brine") == [
        "Dairy",
        "Dairy/Cheese",
        "Dairy/Cheese/Recipes",
    ]


@pytest.mark.parametrize(
    "how",
    [
        '---\nup: "[[Hut]]"\n---\nbody',
        "up:: [[Hut]]\n\nbody",
        '---\nparent: "[[Hut]]"\n---\n',
        "- up:: [[Places/Hut|the hut]]\n",
    ],
    ids=["front matter up", "inline up::", "front matter parent", "inline in a list item"],
)
def test_hierarchy_property_sets_the_parent_and_no_link_edge(tmp_path: Path, how: str) -> None:
    built = build(
        tmp_path,
        {
            "Places/Hut.md": "",
            "Places/index.md": "",
            "Projects/Roof.md": how,
            "Projects/README.md": "",
            "Projects/Other.md": "[[Hut]]",
        },
    )
    g = view(built)
    assert g.parent("Projects/Roof") == "Places/Hut"
    assert "Projects/Roof" in g.children("Places/Hut")
    assert "Projects/Roof" not in g.children("Projects/README")
    assert ("Projects/Roof", "Places/Hut") not in link_edges(built)
    assert g.outlinks("Projects/Roof") == ()
    assert g.backlinks("Places/Hut") == ("Projects/Other",)
    # The link table still records it, marked as a hierarchy link.
    (link,) = [lk for lk in built.links if lk.source == "Projects/Roof"]
    assert link.hierarchy and link.target == "Places/Hut"


def test_custom_hierarchy_property(tmp_path: Path) -> None:
    files = {"A.md": "", "B.md": '---\nbelongs_to: "[[A]]"\nup: "[[C]]"\n---\n', "C.md": ""}
    built = build(tmp_path, files, hierarchy_properties=("belongs_to",))
    g = view(built)
    assert g.parent("B") == "A"
    assert {(o.target, o.predicate) for o in g.outlinks("B")} == {("C", "up")}


def test_up_to_a_folder_means_its_folder_note_or_virtual_note(tmp_path: Path) -> None:
    built = build(
        tmp_path,
        {
            "Places/index.md": "",
            "Dairy/Milk.md": "",
            "T/a.md": '---\nup: "[[Places]]"\n---\n',
            "T/b.md": '---\nup: "[[Dairy]]"\n---\n',
        },
    )
    g = view(built)
    assert g.parent("T/a") == "Places/index"
    assert g.parent("T/b") == "Dairy"


def test_unresolved_up_keeps_the_folder_parent_with_a_warning(tmp_path: Path) -> None:
    built = build(tmp_path, {"T/T.md": "", "T/a.md": '---\nup: "[[Nowhere]]"\n---\n'})
    assert view(built).parent("T/a") == "T/T"
    assert any(w.startswith("T/a.md: ") and "Nowhere" in w for w in built.warnings)
    assert "Nowhere" not in built.graph  # a hierarchy link makes no ghost either


def test_up_cycle_is_ignored_with_a_warning(tmp_path: Path) -> None:
    built = build(
        tmp_path,
        {
            "Loop/A.md": '---\nup: "[[B]]"\n---\n',
            "Loop/B.md": '---\nup: "[[C]]"\n---\n',
            "Loop/C.md": '---\nup: "[[A]]"\n---\n',
        },
    )
    g = view(built)
    cycle_warnings = [w for w in built.warnings if "cycle" in w]
    assert len(cycle_warnings) == 1
    assert cycle_warnings[0].startswith("Loop/C.md: ")
    assert (g.parent("Loop/A"), g.parent("Loop/B"), g.parent("Loop/C")) == (
        "Loop/B",
        "Loop/C",
        "Loop",
    )
    for uri in ("Loop/A", "Loop/B", "Loop/C"):
        path = g.contextual_path(uri)
        assert len(path) == len(set(path)) and path[0] == "Loop"


def test_up_to_a_descendant_of_a_folder_note_is_a_cycle(tmp_path: Path) -> None:
    built = build(tmp_path, {"F/F.md": '---\nup: "[[Child]]"\n---\n', "F/Child.md": ""})
    assert view(built).parent("F/Child") == "F/F"
    assert view(built).parent("F/F") is None
    assert any(w.startswith("F/F.md: ") and "cycle" in w for w in built.warnings)


def test_up_to_itself_is_ignored_with_a_warning(tmp_path: Path) -> None:
    built = build(tmp_path, {"F/Self.md": "up:: [[Self]]", "F/F.md": ""})
    assert view(built).parent("F/Self") == "F/F"
    assert any(w.startswith("F/Self.md: ") for w in built.warnings)


def test_children_order_by_order_then_natural_title(tmp_path: Path) -> None:
    files = {
        "Steps/Steps.md": "",
        "Steps/Note 10.md": "",
        "Steps/note 2.md": "",
        "Steps/Note 1.md": "",
        "Steps/alpha.md": "",
        "Steps/Zulu.md": "---\norder: 1\n---\n",
        "Steps/Yankee.md": "---\norder: 2.5\n---\n",
        "Steps/Xray.md": "---\norder: 2\n---\n",
        "Steps/Beta/x.md": "",
        "Steps/Titled.md": "---\ntitle: Aardvark\n---\n",
    }
    g = view(build(tmp_path, files))
    assert g.children("Steps/Steps") == (
        "Steps/Zulu",
        "Steps/Xray",
        "Steps/Yankee",
        "Steps/Titled",  # title "Aardvark"
        "Steps/alpha",
        "Steps/Beta",
        "Steps/Note 1",
        "Steps/note 2",
        "Steps/Note 10",
    )
