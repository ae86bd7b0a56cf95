"""details.excerpt: a note's start within a limit, cut between blocks, the cut marked."""

from __future__ import annotations

import pytest

from graphrag.details import CUT, excerpt

NOTE = """First paragraph. It has two sentences.

1. Open Obsidian (assuming this is the first time)
2. Select one of the options:
\t1. **Desktop**: choose Setup
\t2. **Mobile**: Setup Obsidian Sync
3. Log in with your account

| name | value |
| ---- | ----- |
| one  | 1     |
| two  | 2     |
| three | 3    |

> [!warning] Careful
> Back up your vault first.
>
> Then sync.

```python
x = 1
y = 2
z = 3
```

Last paragraph."""


def _kept(text: str) -> str:
    """The text before the cut marker (and before a re-closed fence)."""
    return text.rsplit(CUT, 1)[0].rstrip()


def test_whole_text_when_it_fits() -> None:
    assert excerpt(NOTE, len(NOTE)) == (NOTE, False)


@pytest.mark.parametrize("limit", range(10, len(NOTE), 7))
def test_every_cut_is_marked_and_keeps_the_text_as_written(limit: int) -> None:
    text, cut = excerpt(NOTE, limit)
    assert cut and CUT in text
    kept = _kept(text)
    if kept.endswith("```") and NOTE.count("```") == 2 and "z = 3" not in kept:
        kept = kept[: -len("```")].rstrip()  # a code block cut inside is closed again
    assert NOTE.startswith(kept) or NOTE.startswith(kept.rsplit(" ", 1)[0])
    assert len(kept) <= limit


def test_a_list_is_cut_between_items_with_nested_items_kept() -> None:
    start = NOTE.index("1. Open")
    limit = NOTE.index("3. Log in") + 5  # room for items 1 and 2, not for 3
    text, cut = excerpt(NOTE, limit)
    assert cut
    assert text.endswith("\t2. **Mobile**: Setup Obsidian Sync\n\n" + CUT)
    assert NOTE[start : NOTE.index("3. Log in")].rstrip() in text
    assert "Log in" not in text


def test_a_table_keeps_its_header_and_whole_rows() -> None:
    limit = NOTE.index("| two") + 4
    text, _ = excerpt(NOTE, limit)
    assert "| name | value |\n| ---- | ----- |\n| one  | 1     |" in text
    assert "| two" not in text and text.endswith("|\n\n" + CUT)


def test_a_callout_is_cut_between_its_inner_blocks() -> None:
    limit = NOTE.index("> Then sync.") + 3
    text, _ = excerpt(NOTE, limit)
    assert text.endswith("> Back up your vault first.\n\n" + CUT)


def test_a_code_block_cut_inside_is_closed_again() -> None:
    limit = NOTE.index("z = 3") + 4
    text, _ = excerpt(NOTE, limit)
    assert text.endswith("x = 1\ny = 2\n```\n\n" + CUT)
    assert text.count("```") == 2


def test_a_paragraph_is_cut_after_a_sentence() -> None:
    text, cut = excerpt(NOTE, 30)
    assert (text, cut) == ("First paragraph. " + CUT, True)


def test_a_first_block_without_a_part_that_fits_is_cut_between_words() -> None:
    text, cut = excerpt("one two three four five six seven eight nine ten", 20)
    assert cut and text == "one two three four " + CUT


def test_a_first_list_item_longer_than_the_limit_is_cut_inside_it() -> None:
    text, cut = excerpt("- " + "word " * 50, 40)
    assert cut and text.startswith("- word word") and text.endswith(CUT)
