"""The real vaults under ../shared/vaults/ parse without errors and resolve like Obsidian.

Parse only (no embeddings). Each vault is parsed once per module; all five take ~10 s.
"""

from __future__ import annotations

from functools import cache

import pytest

from indexer import ParsedNote, parse_vault
from indexer.graphbuild import VaultGraphBuild
from indexer.scan import read_template_folders
from tests.support.files import SHARED_VAULTS

pytestmark = pytest.mark.slow

VAULTS = sorted(
    p.name
    for p in (SHARED_VAULTS.iterdir() if SHARED_VAULTS.is_dir() else ())
    if p.is_dir() and not p.name.startswith(("_", "."))
)


@cache
def parsed(name: str) -> tuple[VaultGraphBuild, dict[str, ParsedNote], list[str]]:
    vault = SHARED_VAULTS / name
    if not vault.is_dir():
        pytest.skip(f"{vault} is not available")
    built, notes, warnings = parse_vault(vault)
    return built, {n.uri: n for n in notes}, warnings


def link(name: str, source: str, written: str) -> tuple[str, str]:
    built, _, _ = parsed(name)
    hits = {
        (lk.target, lk.target_kind)
        for lk in built.links
        if lk.source == source and lk.written == written
    }
    assert len(hits) == 1, (source, written, hits)
    return hits.pop()


@pytest.mark.skipif(not VAULTS, reason="../shared/vaults is not available")
@pytest.mark.parametrize("name", VAULTS)
def test_vault_parses_and_every_warning_names_a_file(name: str) -> None:
    built, notes, warnings = parsed(name)
    vault = SHARED_VAULTS / name
    templates = tuple(f + "/" for f in read_template_folders(vault, []))  # not indexed
    md_files = [
        p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".obsidian" not in p.parts
    ]
    assert len(notes) == sum(1 for p in md_files if not p.startswith(templates))
    # A file name may hold ": " itself (obsidian-hub has "RedShift: OLED Blue Light Filter").
    files = sorted(md_files + [".obsidian/app.json"], key=len, reverse=True)
    for warning in warnings:
        path = next((f for f in files if warning.startswith(f + ": ")), None)
        assert path is not None and (vault / path).exists(), warning
    # Every resolved note link points at a parsed note; the graph holds every note.
    for lk in built.links:
        if lk.target_kind == "note":
            assert lk.target in notes, lk
    assert set(notes) <= set(built.graph.nodes)


def test_obsidian_hub_has_exactly_the_15_invalid_yaml_notes() -> None:
    _, notes, warnings = parsed("obsidian-hub")
    invalid = sorted(w.partition(": ")[0] for w in warnings if "invalid YAML front matter" in w)
    assert len(invalid) == 15 == len(set(invalid))
    assert "01 - Community/People/kepano.md" in invalid
    assert "03 - Showcases & Templates/Vaults/Periodic PARA.md" in invalid
    # Their bodies are still indexed.
    assert notes["01 - Community/People/kepano"].body.strip()


@pytest.mark.parametrize(
    ("name", "source", "written", "target"),
    [
        # written in another case than the file name
        ("obsidian-help", "Bases/Bases syntax", "formulas", "Bases/Formulas"),
        ("obsidian-help", "Bases/Functions", "properties", "Editing and formatting/Properties"),
        (
            "obsidian-hub",
            "02 - Community Expansions/02.05 All Community Expansions/Plugins/anki-integration",
            "NoahBoos",
            "01 - Community/People/noahboos",
        ),
        (
            "obsidian-hub",
            "02 - Community Expansions/02.01 Plugins by Category/🗂️ 02.01 Plugins by Category",
            "Plugins to convert content into Markdown",
            "02 - Community Expansions/02.01 Plugins by Category/Plugins to convert content into markdown",
        ),
        # written with a folder path
        (
            "obsidian-hub",
            "01 - Community/People/🗂️ People",
            "01 - Community/People/0918nobita",
            "01 - Community/People/0918nobita",
        ),
        (
            "obsidian-hub",
            "01 - Community/🗂️ 01 - Community",
            "01 - Community/People/🗂️ People",
            "01 - Community/People/🗂️ People",
        ),
        (
            "obsidian-help",
            "Editing and formatting/Properties",
            "Plugins/Templates",
            "Plugins/Templates",
        ),
        # in a front matter property (kepano's category links)
        ("kepano-obsidian", "References/The Machine Stops", "Books", "Categories/Books"),
    ],
)
def test_links_resolve_like_obsidian(name: str, source: str, written: str, target: str) -> None:
    if not (SHARED_VAULTS / name).is_dir():
        pytest.skip(f"{name} is not available")
    assert link(name, source, written) == (target, "note")


def test_comment_markers_in_inline_code_do_not_hide_links() -> None:
    # "Internal links" writes `# | ^ : %% [[ ]]` in inline code; the links after it count.
    source = "Linking notes and files/Internal links"
    assert link("obsidian-help", source, "Command palette") == ("Plugins/Command palette", "note")
    assert link("obsidian-help", source, "Accepted file formats") == (
        "Files and folders/Accepted file formats",
        "note",
    )
    body = parsed("obsidian-help")[1][source].body
    assert "`# | ^ : %% [[ ]]`" in body


def test_escaped_brackets_and_local_headings_in_obsidian_help() -> None:
    built, notes, _ = parsed("obsidian-help")
    assert "Wikilinks" not in built.graph  # written \[\[Wikilinks\]\]
    self_links = [lk for lk in built.links if lk.target_kind == "self"]
    assert self_links and all(lk.source == lk.target for lk in self_links)
    assert len(built.unresolved) <= 10  # the docs' own example links to "Example"
