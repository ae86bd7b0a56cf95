"""Tests for benchmarks/gen_vault.py, the synthetic vault generator."""

from __future__ import annotations

import importlib.util
import os
import re
import statistics
import subprocess
import sys
from collections import Counter
from pathlib import Path
from types import ModuleType
from urllib.parse import unquote

import pytest

from tests.support.files import ROOT

SCRIPT = ROOT / "benchmarks" / "gen_vault.py"
N = 300

FENCE = re.compile(r"^```.*?^```", re.S | re.M)
INLINE_CODE = re.compile(r"`[^`\n]*`")
WIKILINK = re.compile(r"!?\[\[([^\]|#]*)(?:#[^\]|]*)?(?:\|[^\]]*)?\]\]")
MD_LINK = re.compile(r"\]\(([^)\s]+\.md)\)")


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_vault", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_vault"] = module  # dataclasses look their module up by name
    spec.loader.exec_module(module)
    return module


gen_vault = _load()


def _snapshot(root: Path) -> dict[str, tuple[bytes, int]]:
    return {
        p.relative_to(root).as_posix(): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def _notes(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8")
        for p in sorted(root.rglob("*.md"))
    }


def _in_degrees(notes: dict[str, str]) -> tuple[Counter[str], int]:
    """Backlink counts per note path, and the number of links read (code excluded)."""
    by_path = {rel[:-3].casefold(): rel for rel in notes}
    by_name: dict[str, str] = {}
    for rel in notes:
        by_name.setdefault(rel.rsplit("/", 1)[-1][:-3].casefold(), rel)
    indeg: Counter[str] = Counter()
    total = 0
    for text in notes.values():
        text = INLINE_CODE.sub("", FENCE.sub("", text))
        for m in WIKILINK.finditer(text):
            total += 1
            key = m.group(1).casefold()
            target = by_path.get(key) or by_name.get(key)
            if target:
                indeg[target] += 1
        for m in MD_LINK.finditer(text):
            total += 1
            target = unquote(m.group(1))
            if target in notes:
                indeg[target] += 1
    return indeg, total


@pytest.fixture(scope="module")
def vault(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, object]:
    root = tmp_path_factory.mktemp("vault")
    stats = gen_vault.generate_vault(str(root), N, seed=0)
    return root, stats


def test_note_count_and_only_markdown(vault: tuple[Path, object]) -> None:
    root, stats = vault
    files = [p for p in root.rglob("*") if p.is_file()]
    assert len(files) == N
    assert all(p.suffix == ".md" for p in files)
    assert stats.notes == N
    assert stats.bytes == sum(p.stat().st_size for p in files)


def test_same_seed_same_bytes_different_seed_differs(
    vault: tuple[Path, object], tmp_path: Path
) -> None:
    root, _ = vault
    again, other = tmp_path / "again", tmp_path / "other"
    gen_vault.generate_vault(str(again), N, seed=0)
    gen_vault.generate_vault(str(other), N, seed=1)
    first = _snapshot(root)
    assert _snapshot(again) == first
    assert sorted(p.relative_to(again) for p in again.rglob("*")) == sorted(
        p.relative_to(root) for p in root.rglob("*")
    )
    second = _snapshot(other)
    assert len(second) == N
    assert second.keys() != first.keys()


def test_folder_tree_and_folder_note_conventions(vault: tuple[Path, object]) -> None:
    root, stats = vault
    folders = [p for p in root.rglob("*") if p.is_dir()]
    assert max(len(p.relative_to(root).parts) for p in folders) <= 4
    conventions: Counter[str] = Counter()
    for f in folders:
        if (f / f"{f.name}.md").is_file():
            conventions["inside"] += 1
        elif (f / "index.md").is_file():
            conventions["index"] += 1
        elif (f.parent / f"{f.name}.md").is_file():
            conventions["beside"] += 1
    assert set(conventions) == {"inside", "index", "beside"}
    assert conventions == Counter(stats.folder_notes)
    assert 0.2 <= sum(conventions.values()) / len(folders) <= 0.4


def test_links_are_skewed_and_varied(vault: tuple[Path, object]) -> None:
    root, stats = vault
    notes = _notes(root)
    indeg, total = _in_degrees(notes)
    degrees = sorted(indeg.get(rel, 0) for rel in notes)
    top, median = degrees[-1], statistics.median(degrees)
    assert top >= 20 * max(1, median), (top, median)
    assert 8 <= total / N <= 12
    assert total == stats.links

    text = "\n".join(notes.values())
    assert re.search(r"\[\[[^\]|]+\|[^\]]+\]\]", text)  # [[note|alias]]
    assert re.search(r"\[\[[^\]#]+#[^\]]+\]\]", text)  # [[note#heading]]
    assert "![[" in text
    assert re.search(r"\]\([^)]*%20[^)]*\.md\)", text)  # [x](Folder/Note%20Name.md)
    assert re.search(r"^#{2,3} \S", text, re.M)
    assert re.search(r"(?<![\w#])#\w+/\w+", FENCE.sub("", text))  # nested inline tag
    assert any("[[not a link]]" in block for block in FENCE.findall(text))


def test_front_matter_and_body_sizes(vault: tuple[Path, object]) -> None:
    root, _ = vault
    notes = _notes(root)
    with_fm = [t for t in notes.values() if t.startswith("---\n")]
    assert 0.45 <= len(with_fm) / N <= 0.75
    fm = "\n".join(t[: t.index("\n---\n", 3)] for t in with_fm)
    for key in ("created:", "tags:", "aliases:", 'up: "[[', "order:"):
        assert f"\n{key}" in fm, key
    assert re.search(r'^(related|source|project):.*"\[\[', fm, re.M) or '  - "[[' in fm
    sizes = sorted(len(t.encode()) for t in notes.values())
    median = statistics.median(sizes)
    assert 800 <= median <= 3000
    assert sizes[-1] >= 5 * median


def test_duplicate_and_non_ascii_titles(tmp_path: Path) -> None:
    gen_vault.generate_vault(str(tmp_path), 1000, seed=3)
    names = Counter(p.name.casefold() for p in tmp_path.rglob("*.md"))
    duplicated = sum(c for name, c in names.items() if c > 1 and name != "index.md")
    assert 0 < duplicated <= 0.05 * 1000
    assert any(not p.name.isascii() for p in tmp_path.rglob("*.md"))
    for folder in [tmp_path, *(p for p in tmp_path.rglob("*") if p.is_dir())]:
        here = [p.name.casefold() for p in folder.iterdir() if p.is_file()]
        assert len(here) == len(set(here))


def test_refuses_non_empty_dir(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path), "--notes", "20"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode != 0
    assert "not empty" in run.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
    with pytest.raises(FileExistsError):
        gen_vault.generate_vault(str(tmp_path), 20)

    gen_vault.generate_vault(str(tmp_path), 20, force=True)
    assert (tmp_path / "keep.txt").read_text() == "mine"
    assert len(list(tmp_path.rglob("*.md"))) == 20


def test_cli_prints_summary(tmp_path: Path) -> None:
    out = tmp_path / "v"
    run = subprocess.run(
        [sys.executable, str(SCRIPT), str(out), "--notes", "50", "--seed", "7"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = run.stdout.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("50 notes,") and "links" in lines[0] and "bytes" in lines[0]


def test_never_writes_through_a_symlink_out_of_the_vault(tmp_path: Path) -> None:
    probe = tmp_path / "probe"
    gen_vault.generate_vault(str(probe), 60, seed=5)
    top = sorted(p.name for p in probe.iterdir() if p.is_dir())[0]
    outside = tmp_path / "outside"
    outside.mkdir()
    target = tmp_path / "target"
    target.mkdir()
    os.symlink(outside, target / top)

    with pytest.raises(RuntimeError, match="outside"):
        gen_vault.generate_vault(str(target), 60, seed=5, force=True)
    assert list(outside.iterdir()) == []
