"""indexer.blocks: the top-level Markdown blocks of a text and where each may be cut."""

from __future__ import annotations

from indexer.blocks import blocks, fenced_lines, line_offsets

NOTE = """Intro paragraph,
on two lines.

1. Open Obsidian (assuming this is the first time)
2. Select one of the options:
\t1. **Desktop**: choose Setup
\t2. **Mobile**: Setup Obsidian Sync
3. Log in

| a | b |
| - | - |
| 1 | 2 |
| 3 | 4 |

> [!note] A callout
> Its first paragraph.
>
> - and a list inside

A paragraph with an id.
^para-id

```python
x = 1

y = 2
```

$$
a

b
$$

[ref]: https://example.com
## Heading"""


def _by_kind(text: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for b in blocks(text):
        out.setdefault(b.kind, []).append(b)
    return out


def test_each_block_with_its_lines_and_cut_points() -> None:
    lines = NOTE.split("\n")
    found = blocks(NOTE)
    assert [b.kind for b in found] == [
        "paragraph",
        "list",
        "table",
        "quote",
        "paragraph",
        "code",
        "math",
        "paragraph",
        "heading",
    ]
    para, lst, table, quote, with_id, code, math, ref, heading = found
    assert (para.start, para.end, para.parts) == (0, 2, ())
    # A list is cut between top-level items; an item keeps its nested items.
    assert [lines[a:b] for a, b in lst.parts] == [
        ["1. Open Obsidian (assuming this is the first time)"],
        [
            "2. Select one of the options:",
            "\t1. **Desktop**: choose Setup",
            "\t2. **Mobile**: Setup Obsidian Sync",
        ],
        ["3. Log in"],
    ]
    # A table keeps its header and delimiter rows (head) and is cut between body rows.
    assert table.head == 2 and [lines[a] for a, _ in table.parts] == ["| 1 | 2 |", "| 3 | 4 |"]
    assert lines[quote.start] == "> [!note] A callout" and len(quote.parts) == 2
    # A block id on the line after a block belongs to it.
    assert lines[with_id.end - 1] == "^para-id"
    # Code: the opening fence is kept by any cut, which must close it again.
    assert code.head == 1 and code.fence == "```" and lines[code.end - 1] == "```"
    assert [lines[a] for a, _ in code.parts] == ["x = 1", "", "y = 2"]
    # $$ math is one block, blank lines and all.
    assert (lines[math.start], lines[math.end - 1]) == ("$$", "$$")
    # A link reference definition makes no markdown-it token, but its line is not lost.
    assert lines[ref.start] == "[ref]: https://example.com"
    assert lines[heading.start] == "## Heading"


def test_blocks_cover_every_line_that_has_text() -> None:
    covered = set()
    for b in blocks(NOTE):
        covered.update(range(b.start, b.end))
    lines = NOTE.split("\n")
    assert {n for n, line in enumerate(lines) if line.strip()} <= covered
    assert all(lines[b.end - 1].strip() for b in blocks(NOTE))  # no trailing blank line


def test_empty_text_has_no_blocks_and_offsets_point_at_line_starts() -> None:
    assert blocks("") == [] and blocks("\n \n") == []
    text = "ab\ncd\n"
    offsets = line_offsets(text)
    assert [text[o : o + 2] for o in offsets[:2]] == ["ab", "cd"]
    assert offsets[-1] == len(text) + 1


def test_a_nested_list_item_is_part_of_its_parent_only() -> None:
    kinds = _by_kind("- a\n  - a1\n  - a2\n- b\n")
    (lst,) = kinds["list"]
    assert lst.parts == ((0, 3), (3, 4))


def test_fenced_lines_agree_with_the_parsers_code_blocks() -> None:
    text = NOTE + "\n\n~~~~\n```\nstill code\n~~~~\nafter\n````\nunclosed\n"
    fenced = {
        n for b in blocks(text) if b.kind == "code" and b.fence for n in range(b.start, b.end)
    }
    lines = text.split("\n")
    fenced |= {len(lines) - 1}  # an unclosed fence runs to the end, its last blank line too
    assert set(fenced_lines(text)) == fenced
