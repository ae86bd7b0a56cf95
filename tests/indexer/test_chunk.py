"""indexer.chunk: heading-aware chunks under the token limit, prefixed with title and headings."""

from __future__ import annotations

import random
import re

import pytest

from indexer import chunk as chunk_module
from indexer.chunk import chunk_note, sections, split_text, vector_id
from indexer.parse import parse_note
from indexer.tokens import Tokenizer, get_tokenizer

TOK = get_tokenizer("cl100k_base")
WORD_RE = re.compile(r"\w+")


def chunks_of(text: str, limit: int = 256, path: str = "Places/Käsekeller.md"):
    note = parse_note(path, text.encode())
    return note, chunk_note(note.title, note.body, note.headings, TOK, limit)


def test_tokenizer_is_cl100k() -> None:
    assert TOK.count("hello world") == 2
    assert TOK.decode(TOK.encode("Käsekeller")) == "Käsekeller"


LONG_NOTE = (
    "# Käsekeller\n\nThe cellar under the school house. " * 3
    + "\n\n## Climate\n\n"
    + "Cool, damp and steady, 11 to 13 degrees all year. " * 40
    + "\n\n### Vents\n\nTwo vents, one low and one high. Opened at night in summer.\n"
    + "\n## Shelves\n\n"
    + "\n\n".join(f"Row {i}: eight larch boards, room for 125 wheels." for i in range(60))
    + "\n\n## Daily Care\n\n"
    + "Young wheels are turned every day and smeared with salt water " * 60
    + "\n"
)


def test_chunks_follow_headings_and_carry_the_heading_path() -> None:
    note, chunks = chunks_of(LONG_NOTE)
    paths = [c.heading_path for c in chunks]
    assert paths[0] == "Käsekeller"
    assert "Käsekeller > Climate" in paths
    # A short sub-section merged into its neighbour keeps a path it lies under.
    (vents,) = [c for c in chunks if "Two vents" in c.text]
    assert vents.heading_path.startswith("Käsekeller > Climate")
    assert "Käsekeller > Shelves" in paths and "Käsekeller > Daily Care" in paths
    # Headings cut: no chunk holds text from both Shelves and Daily Care.
    assert not any("Row 59" in c.text and "Young wheels" in c.text for c in chunks)
    for c in chunks:
        assert c.embed_text == f"{note.title}\n{c.heading_path}\n\n{c.text}"


@pytest.mark.parametrize("limit", [32, 64, 128, 256])
def test_every_chunk_fits_the_limit(limit: int) -> None:
    _, chunks = chunks_of(LONG_NOTE, limit)
    assert len(chunks) > 3
    for c in chunks:
        assert TOK.count(c.embed_text) <= limit
        assert c.tokens == TOK.count(c.embed_text)
    assert [c.seq for c in chunks] == list(range(len(chunks)))


def _words(text: str) -> list[str]:
    return WORD_RE.findall(text)


@pytest.mark.parametrize("limit", [48, 256])
def test_no_text_is_lost(limit: int) -> None:
    note, chunks = chunks_of(LONG_NOTE, limit)
    # Over-long sentences are cut at token boundaries (maybe mid-word): compare characters.
    assert "".join("".join(c.text for c in chunks).split()) == "".join(note.body.split())


def _random_text(seed: int) -> str:
    rng = random.Random(seed)
    alphabet = "abcdefghij klmnop äöü ß 漢字かな 😀🧀 .,;!?\n"
    return "".join(rng.choice(alphabet) for _ in range(30_000))


@pytest.mark.parametrize(
    "body",
    [
        "word " * 20_000,  # one huge paragraph without sentence ends
        "x" * 50_000,  # one huge "word"
        "".join(chr(0x4E00 + i % 2000) for i in range(20_000)),  # CJK, no spaces
        "🐐🧀" * 10_000,  # multi-byte symbols that BPE splits mid-character
        _random_text(1),
        _random_text(2),
    ],
    ids=["long paragraph", "one word", "cjk", "emoji", "random 1", "random 2"],
)
def test_pathological_text_still_fits(body: str) -> None:
    _, chunks = chunks_of("# Title\n\n" + body, limit=64)
    assert chunks
    assert max(TOK.count(c.embed_text) for c in chunks) <= 64


def test_short_sections_are_merged_while_they_fit() -> None:
    text = "".join(f"## Part {i}\n\nShort text {i}.\n\n" for i in range(10))
    _, chunks = chunks_of(text, limit=256)
    assert len(chunks) == 1
    assert all(f"Short text {i}." in chunks[0].text for i in range(10))
    _, small = chunks_of(text, limit=24)
    assert len(small) > 1 and all(TOK.count(c.embed_text) <= 24 for c in small)


def test_text_before_the_first_heading_has_an_empty_heading_path() -> None:
    note, chunks = chunks_of("Intro paragraph.\n\n# Heading\n\n" + "Body text. " * 300)
    assert chunks[0].heading_path == ""
    assert chunks[0].embed_text.startswith(f"{note.title}\n\nIntro paragraph.")
    assert chunks[0].start_line == 0
    assert chunks[-1].heading_path == "Heading"


def test_line_ranges_point_into_the_body() -> None:
    note, chunks = chunks_of(LONG_NOTE, limit=256)
    lines = note.body.split("\n")
    for c in chunks:
        assert 0 <= c.start_line < c.end_line <= len(lines)
        span = "\n".join(lines[c.start_line : c.end_line])
        first_words = _words(c.text)[:3]
        assert " ".join(first_words) in " ".join(_words(span))


def test_sections_split_at_every_heading() -> None:
    note = parse_note("n.md", b"pre\n# A\na\n## B\nb\n# C\nc\n")
    assert sections(note.body, note.headings) == [
        ("", 0, 1),
        ("A", 1, 3),
        ("A > B", 3, 5),
        ("C", 5, 8),
    ]


def test_empty_note_is_one_title_chunk() -> None:
    _, chunks = chunks_of("", path="Dairy/Smoked Ziger.md")
    assert len(chunks) == 1
    assert chunks[0].embed_text == "Smoked Ziger" and chunks[0].text == ""
    assert chunks[0].tokens == TOK.count("Smoked Ziger")


def test_vector_id_comes_from_the_embedded_text() -> None:
    _, a = chunks_of("# H\n\nSame text.", path="A/Note.md")
    _, b = chunks_of("# H\n\nSame text.", path="B/Note.md")  # moved: same title, same text
    _, c = chunks_of("# H\n\nSame text.", path="B/Renamed.md")
    assert a[0].vec_id == b[0].vec_id == vector_id(a[0].embed_text)
    assert a[0].vec_id != c[0].vec_id  # the title is part of the embedded text
    assert 0 <= a[0].vec_id < 2**63


def test_a_heading_longer_than_the_limit_still_fits() -> None:
    _, chunks = chunks_of("# " + "very long heading " * 40 + "\n\n" + "text. " * 200, limit=64)
    assert max(TOK.count(c.embed_text) for c in chunks) <= 64


STEPS = (
    "# Set up\n\nIntro sentence before the steps.\n\n"
    + "\n".join(
        f"{i}. Step {i} opens the app (assuming this is the first time) and waits."
        + "".join(f"\n\t{j}. Sub-step {i}.{j} of the step, with its details." for j in (1, 2))
        for i in range(1, 13)
    )
    + "\n\n```python\n"
    + "\n".join(f"value_{i} = compute({i})  # line {i}" for i in range(40))
    + "\n```\n"
)


def test_a_long_list_is_cut_between_items_and_kept_as_written() -> None:
    note, chunks = chunks_of(STEPS, limit=96)
    lines = note.body.split("\n")
    assert len(chunks) > 3
    for c in chunks:
        # Verbatim: a chunk is a piece of the body, numbers and indentation included.
        assert c.text in note.body
        assert not c.text.rstrip().endswith(("1.", "2.", "3."))  # never "1.\n\nOpen ..."
        # Its own line range holds it.
        assert c.text in "\n".join(lines[c.start_line : c.end_line])
    item_lines = [line for line in lines if line.lstrip()[:2].rstrip(".").isdigit()]
    for line in item_lines:  # every item line whole in one chunk
        assert sum(line in c.text.split("\n") for c in chunks) == 1
    # A nested sub-step stays in the chunk of its step.
    for c in chunks:
        for n, line in enumerate(c.text.split("\n")):
            if line.startswith("\t1. Sub-step"):
                assert n > 0 and c.text.split("\n")[n - 1][0].isdigit()


def test_a_long_code_block_is_cut_between_whole_lines() -> None:
    note, chunks = chunks_of(STEPS, limit=96)
    code = [c for c in chunks if "value_" in c.text]
    assert len(code) > 1
    body_lines = set(note.body.split("\n"))
    for c in code:
        assert all(line in body_lines for line in c.text.split("\n"))


class CountingTokenizer:
    """The real tokenizer, keeping how much text it was asked to count."""

    def __init__(self, inner: Tokenizer) -> None:
        self.inner, self.name = inner, inner.name
        self.calls = self.chars = 0

    def count(self, text: str) -> int:
        self.calls += 1
        self.chars += len(text)
        return self.inner.count(text)

    def encode(self, text: str) -> list[int]:
        return self.inner.encode(text)

    def decode(self, tokens: list[int]) -> str:
        return self.inner.decode(tokens)


def reference_split(text: str, budget: int, tokenizer: Tokenizer) -> list[tuple[int, int]]:
    """The straightforward greedy: a span takes the next unit while the whole span fits."""
    spans: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for a, b in chunk_module._units(text, budget, tokenizer):
        if current is not None and tokenizer.count(text[current[0] : b]) <= budget:
            current = (current[0], b)
            continue
        if current is not None:
            spans.append(current)
        current = (a, b)
    if current is not None:
        spans.append(current)
    return spans


def _long_paragraph(shape: str, size: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    words = ["brine", "salt", "wheel", "cellar", "rind", "curd", "it's", "3.5%", "(vent)", "Käse"]
    out: list[str] = []
    while sum(map(len, out)) < size:
        if shape == "list":  # no sentence end: every unit is a word
            out.append(rng.choice(words) + ", ")
        elif shape == "prose":
            out.append(" ".join(rng.choices(words, k=rng.randint(3, 15))).capitalize() + ". ")
        else:  # lines but no blank line: one block, units joined by newlines and spaces
            out.append(rng.choice(words) + rng.choice([" ", "\n", ", ", ".\n", "\t", "  \n"]))
    return "".join(out).strip()


@pytest.mark.parametrize("shape", ["list", "prose", "lines"])
def test_a_long_paragraph_is_split_like_the_straightforward_greedy(shape: str) -> None:
    text = _long_paragraph(shape, 15_000)
    spy = CountingTokenizer(TOK)
    budget = 240
    spans = split_text(text, budget, spy)
    assert spans == reference_split(text, budget, TOK)
    assert len(spans) > 20
    assert all(TOK.count(text[a:b]) <= budget for a, b in spans)
    # Linear: each character is counted a few times (whole block, sentence, word, span),
    # not once per unit that joins its span (~100 times for the list).
    assert spy.chars < 6 * len(text)


def test_chunks_of_a_long_paragraph_equal_the_straightforward_ones(monkeypatch) -> None:
    text = "# Notes\n\n" + _long_paragraph("list", 12_000, seed=1)
    _, chunks = chunks_of(text, limit=128)
    monkeypatch.setattr(chunk_module, "split_text", reference_split)
    _, reference = chunks_of(text, limit=128)
    assert chunks == reference
    assert len(chunks) > 20 and all(c.tokens <= 128 for c in chunks)


@pytest.mark.parametrize("seed", range(4))
def test_counts_add_up_across_a_clean_cut(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = list("ab Ü1. ,'s\t\n\r-:") + [
        "\n\n",
        "  ",
        "\u00a0",
        "\x1c",
        "漢",
        "🧀",
        "'ll",
        "123",
    ]
    text = "".join(rng.choice(alphabet) for _ in range(2_000))
    cuts = [i for i in range(len(text)) if chunk_module._clean_cut(text, i)]
    assert len(cuts) > 200
    for i in rng.sample(cuts, 200):
        a, b = rng.randrange(0, i), rng.randrange(i + 1, len(text) + 1)
        assert TOK.count(text[a:b]) == TOK.count(text[a:i]) + TOK.count(text[i:b]), (a, i, b)


def test_another_encoding_counts_whole_spans() -> None:
    # Only cl100k's pattern is known to add up across a clean cut.
    spy = CountingTokenizer(TOK)
    spy.name = "p50k_base"
    text = _long_paragraph("list", 5_000)
    assert split_text(text, 64, spy) == reference_split(text, 64, TOK)
    assert spy.chars > 6 * len(text)
