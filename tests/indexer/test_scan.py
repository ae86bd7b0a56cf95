"""indexer.scan: walking the vault, excludes, dot-folders, change detection inputs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from indexer import build_index, parse_vault
from indexer.config import IndexConfig, IndexSettings
from indexer.scan import Excluder, scan_vault
from tests.support.files import write

FILES = [
    "Home.md",
    "Templates/Meeting.md",
    "Templates/Sub/Deep.md",
    "Drawings/Plan.excalidraw.md",
    "Drawings/Notes.md",
    "Archive/Old.md",
    "Archive2/Kept.md",
    "Drafts/WIP.md",
    "Notes/Drafts/Nested.md",
    "Notes/keep.md",
    "Daily/2024-01-01.md",
    "Daily/2024-01-02.md",
    "Daily/Summary.md",
    "img/photo.png",
]


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    for rel in FILES:
        write(root, rel, f"# {rel}\n")
    return root


def notes_of(vault: Path, exclude: tuple[str, ...] = ()) -> list[str]:
    return [e.path for e in scan_vault(vault, exclude).notes]


def test_everything_is_listed_without_excludes(vault: Path) -> None:
    result = scan_vault(vault)
    assert sorted(e.path for e in result.notes) == sorted(f for f in FILES if f.endswith(".md"))
    assert [e.path for e in result.attachments] == ["img/photo.png"]
    assert result.warnings == []
    entry = next(e for e in result.notes if e.path == "Home.md")
    st = (vault / "Home.md").stat()
    assert (entry.size, entry.mtime_ns) == (st.st_size, st.st_mtime_ns)


def test_config_globs(vault: Path) -> None:
    kept = notes_of(vault, ("Templates/*", "*.excalidraw.md", "Drafts"))
    assert "Templates/Meeting.md" not in kept and "Templates/Sub/Deep.md" not in kept
    assert "Drawings/Plan.excalidraw.md" not in kept and "Drawings/Notes.md" in kept
    # A bare folder name excludes that folder wherever it is.
    assert "Drafts/WIP.md" not in kept and "Notes/Drafts/Nested.md" not in kept
    assert "Notes/keep.md" in kept and "Home.md" in kept


def test_glob_with_trailing_slash_and_double_star(vault: Path) -> None:
    kept = notes_of(vault, ("Archive/", "Daily/**"))
    assert not any(p.startswith(("Archive/", "Daily/")) for p in kept)
    assert "Archive2/Kept.md" in kept


def _app_json(vault: Path, filters: list[str]) -> None:
    write(vault, ".obsidian/app.json", json.dumps({"userIgnoreFilters": filters, "other": 1}))


def test_user_ignore_filters_prefix(vault: Path) -> None:
    _app_json(vault, ["Archive/", "Drawings/Plan"])
    kept = notes_of(vault)
    assert "Archive/Old.md" not in kept
    assert "Archive2/Kept.md" in kept  # "Archive/" is a folder prefix, not "Archive*"
    assert "Drawings/Plan.excalidraw.md" not in kept and "Drawings/Notes.md" in kept


def test_user_ignore_filters_prefix_without_slash_is_a_plain_prefix(vault: Path) -> None:
    _app_json(vault, ["Archive"])
    kept = notes_of(vault)
    assert "Archive/Old.md" not in kept and "Archive2/Kept.md" not in kept


def test_user_ignore_filters_regex(vault: Path) -> None:
    _app_json(vault, [r"/^Daily/\d{4}-\d{2}-\d{2}\.md$/", "/excalidraw/"])
    kept = notes_of(vault)
    assert "Daily/2024-01-01.md" not in kept and "Daily/2024-01-02.md" not in kept
    assert "Daily/Summary.md" in kept
    assert "Drawings/Plan.excalidraw.md" not in kept


def test_invalid_app_json_is_a_warning_not_a_crash(vault: Path) -> None:
    write(vault, ".obsidian/app.json", "{not json")
    result = scan_vault(vault)
    assert len(result.notes) == len([f for f in FILES if f.endswith(".md")])
    assert len(result.warnings) == 1 and result.warnings[0].startswith(".obsidian/app.json: ")


def test_invalid_regex_filter_is_skipped(vault: Path) -> None:
    _app_json(vault, ["/[unclosed/", "Archive/"])
    kept = notes_of(vault)
    assert "Archive/Old.md" not in kept and "Home.md" in kept


def test_dot_folders_and_dot_files_are_skipped(vault: Path) -> None:
    for rel in (
        ".obsidian/workspace.md",
        ".trash/Deleted.md",
        ".graphrag/x.md",
        "Notes/.hidden/h.md",
        ".hidden.md",
        "Notes/.draft.md",
    ):
        write(vault, rel, "[[Home]]")
    paths = [e.path for e in scan_vault(vault).notes + scan_vault(vault).attachments]
    assert not any(part.startswith(".") for p in paths for part in p.split("/"))


def test_excluded_notes_are_not_indexed_at_all(vault: Path, tmp_path: Path) -> None:
    write(vault, "Archive/Old.md", "---\ntags: [old]\n---\n[[Home]] [[Ghost From Archive]]")
    _app_json(vault, ["Archive/"])
    config = IndexConfig(index=IndexSettings(exclude=("Templates/*",)))
    built, notes, _ = parse_vault(vault, config)
    uris = {n.uri for n in notes}
    assert "Archive/Old" not in uris and "Templates/Meeting" not in uris
    assert "Archive" not in built.graph and "Templates" not in built.graph
    assert "Ghost From Archive" not in built.graph and "#old" not in built.graph
    # The same excludes apply to build_index.
    from tests.support.fakes import HashEmbedder

    stats = build_index(vault, tmp_path / "idx", config=config, embedder=HashEmbedder())
    assert stats.notes == len(uris)


def test_excluder_matches_folders_and_files() -> None:
    ex = Excluder(("Templates/*", "*.tmp.md"), ["Archive/", "/^Private/"])
    assert ex.excluded("Archive", is_dir=True)
    assert ex.excluded("Private/x.md")
    assert ex.excluded("Templates/a.md")
    assert ex.excluded("Deep/x.tmp.md")
    assert not ex.excluded("ArchiveOld", is_dir=True)
    assert not ex.excluded("Notes/Private.md")


def test_symlink_into_the_vault_never_replaces_the_real_folder(vault: Path) -> None:
    os.symlink(vault / "Notes", vault / "Linked")  # "Linked" sorts before "Notes"
    result = scan_vault(vault)
    paths = [e.path for e in result.notes]
    assert "Notes/keep.md" in paths and "Notes/Drafts/Nested.md" in paths
    assert not any(p.startswith("Linked/") for p in paths)
    assert result.warnings == ["Linked: folder already visited (symlink loop?); skipped"]


def test_symlink_to_a_folder_outside_the_vault_is_followed(vault: Path, tmp_path: Path) -> None:
    write(tmp_path / "elsewhere", "Shared.md", "# shared")
    os.symlink(tmp_path / "elsewhere", vault / "External")
    result = scan_vault(vault)
    assert "External/Shared.md" in [e.path for e in result.notes]
    assert result.warnings == []
