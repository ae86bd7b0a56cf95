"""The indexer makes no throwaway interned strings: a server runs it on every edit.

CPython 3.11's pathlib interns every part of every path it parses; a name interned and
freed again leaves a dead entry in the interpreter's table of interned strings, and
once those use the table up it is rebuilt, at twice the size while more than a third of
it is alive (+1.8 MB in a server, benchmarks/RESULTS.md, "Server memory over an hour,
session 7"). So what runs per update builds its new names (folders walked, notes read,
temp files, the new generation) as str paths. ``sys.intern`` is looked up by pathlib at
each call, so a recorder in its place sees every name parsed.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from indexer.block_cache import cached_blocks
from indexer.build import build_index
from indexer.scan import scan_vault
from indexer.store import temp_beside
from tests.support.fakes import HashEmbedder


@pytest.fixture
def interned(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The strings passed to ``sys.intern`` while the test runs (as copies: holding the
    strings themselves would keep them alive)."""
    seen: list[str] = []
    real = sys.intern

    def record(text: str) -> str:
        seen.append("".join(text))  # a new object (str[:] would be the same one)
        return real(text)

    monkeypatch.setattr(sys, "intern", record)
    yield seen


def folders_and_files(vault: Path) -> set[str]:
    return {p.name for p in vault.rglob("*")}


def test_scanning_a_vault_interns_no_name(sample_vault: Path, interned: list[str]) -> None:
    scanned = scan_vault(sample_vault)
    assert len(scanned.notes) > 10 and any("/" in n.path for n in scanned.notes)
    assert interned == []


def test_block_cache_files_intern_no_name(tmp_path: Path, interned: list[str]) -> None:
    folder = tmp_path / "blocks"
    interned.clear()  # the test's own path above
    first = cached_blocks("# A\n\nA paragraph ^one\n", folder)
    again = cached_blocks("# A\n\nA paragraph ^one\n", folder)
    assert first == again and first and len(list(folder.iterdir())) == 1
    assert interned == []


def test_an_update_interns_no_new_name(
    sample_vault: Path, tmp_path: Path, interned: list[str]
) -> None:
    index = tmp_path / "index"
    build_index(sample_vault, index, embedder=HashEmbedder())
    (sample_vault / "Places" / "New Pasture.md").write_text("# New Pasture\n\nGrass.\n", "utf-8")
    interned.clear()
    stats = build_index(sample_vault, index, embedder=HashEmbedder())
    assert stats.added == 1
    # No temp file or folder, no note or folder of the vault, not the new generation
    # (the previous one's name is what a server holds alive anyway).
    assert not [n for n in interned if ".tmp" in n or n.startswith(".gen-")]
    assert not set(interned) & folders_and_files(sample_vault)
    assert "gen-000002" not in interned
    assert (index / "gen-000002").is_dir()  # (only now: this Path interns the name)


def test_temp_names_beside_a_file(tmp_path: Path) -> None:
    name = temp_beside(tmp_path / "manifest.json")
    assert isinstance(name, str) and Path(name).parent == tmp_path
    assert Path(name).name.startswith(".manifest.json.") and name.endswith(".tmp")
    assert temp_beside(tmp_path / "x.npz", "7").endswith(".7.tmp")
