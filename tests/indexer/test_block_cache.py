"""indexer.block_cache: the parser's blocks, read back from disk in a later process."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from indexer import block_cache
from indexer import blocks as parser
from indexer.block_cache import cached_blocks
from tests.support.files import SAMPLE_VAULT

TEXTS = [
    "",
    "one paragraph ^id",
    "- a\n- b ^item\n  - nested\n\n| h | i |\n|---|---|\n| 1 | 2 |\n",
    "```python\nx = 1\n```\n\n> [!note] title\n> body ^q\n\n$$\nmath\n$$\n\n    indented\n",
    "# H\n\n<div>\nhtml\n</div>\n\n[ref]: /url\n\n---\n\nlast ^x\n",
    "a lone surrogate \ud800 and more ^s",
] + [p.read_text(encoding="utf-8") for p in sorted(SAMPLE_VAULT.rglob("*.md"))]


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "blocks"


def test_cached_blocks_are_the_parsers_on_a_miss_and_on_a_hit(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    want = [parser.blocks(t) for t in TEXTS]
    assert [cached_blocks(t, folder) for t in TEXTS] == want  # parsed and kept
    assert len(list(folder.glob("*.json"))) == len(set(TEXTS))

    def no_parsing(text: str) -> None:
        raise AssertionError("parsed although the blocks were kept")

    monkeypatch.setattr(parser, "blocks", no_parsing)
    assert [cached_blocks(t, folder) for t in TEXTS] == want  # read back


def test_a_damaged_file_is_parsed_again_and_replaced(folder: Path) -> None:
    text = TEXTS[2]
    want = cached_blocks(text, folder)
    (path,) = folder.glob("*.json")
    whole = path.read_bytes()
    for damaged in (whole[: len(whole) // 2], b"[[1, 2]]", b'[["list", 0, "x", 0, [], ""]]', b""):
        path.write_bytes(damaged)
        assert cached_blocks(text, folder) == want
        assert path.read_bytes() == whole


def test_an_unwritable_cache_only_means_parsing(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder would be")
    assert cached_blocks(TEXTS[3], blocker / "blocks") == parser.blocks(TEXTS[3])


def test_the_folder_is_named_by_the_parser_and_lives_in_the_user_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    block_cache.cache_folder.cache_clear()
    try:
        folder = block_cache.cache_folder()
        assert folder is not None and folder.parent == tmp_path / "vault-graphrag" / "blocks"
        monkeypatch.setattr(block_cache, "FORMAT", block_cache.FORMAT + 1)
        block_cache.cache_folder.cache_clear()
        assert block_cache.cache_folder() != folder  # other rules: other files
    finally:
        block_cache.cache_folder.cache_clear()


def test_a_full_cache_drops_its_oldest_files_when_it_writes(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(block_cache, "MAX_FILES", 8)
    texts = [f"note {i} ^b{i}" for i in range(8)]
    for age, text in enumerate(texts):
        cached_blocks(text, folder)
        newest = max(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
        stamp = 1_000_000 + age  # distinct, in writing order, whatever the clock's grain
        os.utime(newest, (stamp, stamp))
    assert len(list(folder.glob("*.json"))) == 8  # at the bound: nothing pruned yet
    oldest = {p.name for p in sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime)[:3]}
    cached_blocks("one more ^m", folder)
    left = {p.name for p in folder.glob("*.json")}
    assert len(left) == 6  # nine pruned to three quarters of the bound
    assert not oldest & left
    assert cached_blocks(texts[0], folder) == parser.blocks(texts[0])  # a pruned text: parsed


def test_another_versions_folder_goes_once_stale_and_a_recent_one_stays(tmp_path: Path) -> None:
    root = tmp_path / "blocks"
    mine, stale, recent, foreign = (root / n for n in ("0" * 16, "a" * 16, "b" * 16, "keep"))
    for d in (stale, recent, foreign):
        d.mkdir(parents=True)
        (d / "x.json").write_text("[]")
    month_ago = time.time() - (block_cache.STALE_DAYS + 1) * 86400
    os.utime(stale, (month_ago, month_ago))
    os.utime(foreign, (month_ago, month_ago))
    cached_blocks("a note ^x", mine)
    assert not stale.exists()
    assert recent.exists() and foreign.exists()  # not ours by name: never touched
    assert cached_blocks("a note ^x", mine) == parser.blocks("a note ^x")
