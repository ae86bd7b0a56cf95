"""indexer.parse: one note's bytes -> ParsedNote, by Obsidian's rules."""

from __future__ import annotations

import datetime as dt

import pytest

from indexer.parse import ParsedNote, parse_note


def parse(text: str | bytes, path: str = "Folder/Note.md", mtime: float = 1_000.0) -> ParsedNote:
    data = text if isinstance(text, bytes) else text.encode("utf-8")
    return parse_note(path, data, mtime)


def links(note: ParsedNote) -> list[tuple[str, str, str, str, str | None]]:
    return [(lk.kind, lk.target, lk.subpath, lk.display, lk.property) for lk in note.links]


def targets(note: ParsedNote) -> list[str]:
    return [lk.target for lk in note.links]


# -- links ------------------------------------------------------------------------------
def test_wikilink_target_subpath_and_display() -> None:
    note = parse("See [[Target#Some Heading|shown text]], [[Other#^blk-1]] and [[Plain]].")
    assert links(note) == [
        ("wikilink", "Target", "#Some Heading", "shown text", None),
        ("wikilink", "Other", "#^blk-1", "", None),
        ("wikilink", "Plain", "", "", None),
    ]


def test_embeds_are_their_own_kind() -> None:
    note = parse("![[Spring Box]]\n\n![[Glossary#^hirt]]\n\n![[map.png|300]]")
    assert links(note) == [
        ("embed", "Spring Box", "", "", None),
        ("embed", "Glossary", "#^hirt", "", None),
        ("embed", "map.png", "", "300", None),
    ]


def test_heading_only_link_has_empty_target() -> None:
    note = parse("Back to [[#Winter Room]] or [[#^anchor|here]].")
    assert links(note) == [
        ("wikilink", "", "#Winter Room", "", None),
        ("wikilink", "", "#^anchor", "here", None),
    ]


def test_markdown_links_are_url_decoded_and_external_ones_ignored() -> None:
    note = parse(
        '[a](My%20Note.md#Sec%20One) [b](<Other Note.md>) [c](../Up/x.md "title") '
        "[ext](https://example.com/a.md) [mail](mailto:a@b.c) [anchor](#local) "
        "![img](img/trail%20map.jpg)"
    )
    assert links(note) == [
        ("markdown", "My Note.md", "#Sec One", "a", None),
        ("markdown", "Other Note.md", "", "b", None),
        ("markdown", "../Up/x.md", "", "c", None),
        ("embed", "img/trail map.jpg", "", "img", None),
    ]
    assert all(lk.markdown for lk in note.links)


def test_wikilinks_are_not_markdown_links() -> None:
    assert [lk.markdown for lk in parse("[[A]] ![[B]]").links] == [False, False]


def test_front_matter_links_keep_the_property_name() -> None:
    note = parse(
        "---\n"
        'up: "[[Parent Note]]"\n'
        "author: '[[Ann|Ann B.]]'\n"
        'attendees:\n  - "[[Bob]]"\n  - "[[Cy#Role]]"\n'
        'nested:\n  inner: "[[Deep]]"\n'
        "plain: no link here\n"
        "---\nBody [[Body Link]]\n"
    )
    assert links(note) == [
        ("property", "Parent Note", "", "", "up"),
        ("property", "Ann", "", "Ann B.", "author"),
        ("property", "Bob", "", "", "attendees"),
        ("property", "Cy", "#Role", "", "attendees"),
        ("property", "Deep", "", "", "nested"),
        ("wikilink", "Body Link", "", "", None),
    ]


def test_inline_fields_make_property_links() -> None:
    note = parse(
        "up:: [[Parent]]\n"
        "- author:: [[Ann]]\n\n"
        "Text with [rating:: [[Five]]] and (mood:: [[Happy]]) then [[Plain]].\n"
    )
    assert links(note) == [
        ("property", "Parent", "", "", "up"),
        ("property", "Ann", "", "", "author"),
        ("property", "Five", "", "", "rating"),
        ("property", "Happy", "", "", "mood"),
        ("wikilink", "Plain", "", "", None),
    ]


def test_link_lines_are_lines_of_the_file() -> None:
    text = (
        "---\ntitle: x\nup: '[[P]]'\n---\nfirst line %% a comment %%\n%%\nmore\n%%\n"
        "[[On Line Eight]]\n\n| a |\n|---|\n| [[Row]] |\n"
    )
    note = parse(text)
    lines = text.split("\n")
    assert [(lk.target, lk.line) for lk in note.links] == [
        ("P", 0),
        ("On Line Eight", 8),
        ("Row", 12),
    ]
    assert "[[Row]]" in lines[12]
    assert [(lk.target, lk.line) for lk in parse("[[A]]\n\n[[B]]").links] == [("A", 0), ("B", 2)]


def test_escaped_pipe_inside_a_table_wikilink() -> None:
    note = parse("| note | pic |\n| --- | --- |\n| [[Target\\|Alias]] | ![[Pic.png\\|100]] |\n")
    assert links(note) == [
        ("wikilink", "Target", "", "Alias", None),
        ("embed", "Pic.png", "", "100", None),
    ]


def test_links_in_headings_lists_quotes_and_callouts_count() -> None:
    note = parse(
        "# Heading with [[H]]\n\n- item [[L]]\n  - nested [[N]]\n\n> quote [[Q]]\n\n"
        "> [!note] Title\n> callout [[C]]\n"
    )
    assert targets(note) == ["H", "L", "N", "Q", "C"]


# -- what is not a link or a tag ------------------------------------------------------
HIDDEN = "[[Hidden]] #hidden"

EXCLUDED_REGIONS = {
    "backtick fence": f"```\n{HIDDEN}\n```",
    "tilde fence with info": f"~~~markdown\n{HIDDEN}\n~~~",
    "longer fence holding a short one": f"````\n```\n{HIDDEN}\n```\n````",
    "indented code": f"    {HIDDEN}",
    "inline code": f"Write `{HIDDEN}` like this.",
    "double-backtick code": f"Write ``a ` {HIDDEN}`` like this.",
    "inline %% comment": f"Text %% {HIDDEN} %% more text.",
    "multi-line %% comment": f"%%\nsecret\n\n{HIDDEN}\n\nstill secret\n%%",
    "inline HTML comment": f"Text <!-- {HIDDEN} --> more.",
    "HTML comment block": f"<!--\n{HIDDEN}\n-->",
    "HTML comment across paragraphs": f"Text <!-- start\n\n{HIDDEN}\n\nend -->",
    "math block": f"$$\nx = 1 \\text{{ {HIDDEN} }}\n$$",
    "one-line math block": f"$$ {HIDDEN} $$",
    "inline math": f"Inline $x {HIDDEN}$ math.",
    "escaped brackets and hash": "Literal \\[\\[Hidden\\]\\] and \\#hidden.",
}


@pytest.mark.parametrize("region", list(EXCLUDED_REGIONS), ids=list(EXCLUDED_REGIONS))
def test_nothing_counts_inside_excluded_regions(region: str) -> None:
    note = parse(f"Before [[Shown]] #shown\n\n{EXCLUDED_REGIONS[region]}\n\nAfter [[Also]] #also\n")
    assert targets(note) == ["Shown", "Also"]
    assert note.tags == ["also", "shown"]


@pytest.mark.parametrize("marker", ["%%", "<!--", "$$"])
def test_comment_or_math_marker_inside_inline_code_is_literal(marker: str) -> None:
    # Obsidian's help writes "wrapping text with `%%`": code spans win over comments.
    note = parse(f"Wrap text with `{marker}` to hide it. See [[After]] #after\n\nMore [[Later]].\n")
    assert targets(note) == ["After", "Later"]
    assert note.tags == ["after"]
    assert f"`{marker}`" in note.body and "[[Later]]" in note.body


def test_comments_are_removed_from_the_body_keeping_line_numbers() -> None:
    note = parse("one %% secret [[S]] %% two\n%%\nhidden\n%%\n<!-- private -->\n[[Kept]]\n")
    assert "secret" not in note.body and "hidden" not in note.body and "private" not in note.body
    assert "one" in note.body and "two" in note.body
    assert note.body.count("\n") == 6
    assert [(lk.target, lk.line) for lk in note.links] == [("Kept", 5)]


def test_unclosed_comment_hides_the_rest_of_the_note() -> None:
    note = parse("[[Before]]\n\n%% never closed\n\n[[After]] #after\n")
    assert targets(note) == ["Before"]
    assert note.tags == []


def test_code_fence_content_does_not_open_a_comment() -> None:
    note = parse("```\n%% not a comment\n```\n\n[[After]]\n")
    assert targets(note) == ["After"]


# -- tags --------------------------------------------------------------------------------
def test_inline_tags_and_what_is_not_a_tag() -> None:
    note = parse(
        "# Heading\n\n## Also a heading\n\n"
        "#real and #y1984 but not #1984 or #12/34, foo#bar, http://x.org/#frag, "
        "[[Note#Heading]] or [[#Local]]. #Trailing.\n"
    )
    assert note.tags == ["real", "trailing", "y1984"]


def test_heading_text_can_hold_a_tag_but_the_marker_is_not_one() -> None:
    note = parse("# Title #inheading\n\n#########\n")
    assert note.tags == ["inheading"]


def test_nested_tags_count_for_their_ancestors_and_are_lower_cased() -> None:
    note = parse("Filed under #Project/Cellar/Phase-1 and #Käse/Reif.")
    assert note.tags == [
        "käse",
        "käse/reif",
        "project",
        "project/cellar",
        "project/cellar/phase-1",
    ]


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("tags: [dairy, 'process/step', '#hash']", ["dairy", "hash", "process", "process/step"]),
        ("tags:\n  - Home\n  - Cooperative", ["cooperative", "home"]),
        ('tags: "glossary reference"', ["glossary", "reference"]),
        ("tags: dairy, recipe", ["dairy", "recipe"]),
        ("tag: single", ["single"]),
        ("tags: 123", []),
        ("tags:", []),
    ],
    ids=[
        "flow list",
        "block list",
        "space string",
        "comma string",
        "singular key",
        "number",
        "empty",
    ],
)
def test_front_matter_tags(front: str, expected: list[str]) -> None:
    assert parse(f"---\n{front}\n---\nbody\n").tags == expected


def test_front_matter_and_inline_tags_merge_without_duplicates() -> None:
    note = parse("---\ntags: [a, b]\n---\n#b #c\n")
    assert note.tags == ["a", "b", "c"]


# -- aliases, title, created, order ----------------------------------------------------
@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("aliases: [Start Here, Home Page]", ["Start Here", "Home Page"]),
        ("aliases:\n  - Anni\n  - A. B.", ["Anni", "A. B."]),
        ("aliases: Mira, M. Halvorsen", ["Mira", "M. Halvorsen"]),
        ("alias: Solo", ["Solo"]),
        ("aliases:", []),
    ],
    ids=["flow list", "block list", "comma string", "singular key", "empty"],
)
def test_aliases(front: str, expected: list[str]) -> None:
    assert parse(f"---\n{front}\n---\n").aliases == expected


def test_title_from_front_matter_else_file_name() -> None:
    assert parse("---\ntitle: Huts\n---\n", path="Places/Huts/index.md").title == "Huts"
    assert parse("---\ntitle: '  '\n---\n", path="Places/Huts/index.md").title == "index"
    assert parse("# A Heading\n", path="Places/Käsekeller.md").title == "Käsekeller"
    note = parse("x", path="Places/Huts/Shepherd's Hut.md")
    assert (note.uri, note.path) == ("Places/Huts/Shepherd's Hut", "Places/Huts/Shepherd's Hut.md")


def _utc(*args: int) -> float:
    return dt.datetime(*args, tzinfo=dt.UTC).timestamp()


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("created: 2020-01-15", _utc(2020, 1, 15)),
        ("date: 2023-06-02", _utc(2023, 6, 2)),
        ("created: 2021-05-06T07:08:09", _utc(2021, 5, 6, 7, 8, 9)),
        ("created: '2021-05-06T07:08:09Z'", _utc(2021, 5, 6, 7, 8, 9)),
        ("created: 2020-01-15\ndate: 2023-06-02", _utc(2020, 1, 15)),
        ("created: '{{date}}'\ndate: 2023-06-02", _utc(2023, 6, 2)),
        ("created: '{{date}}'", 1_000.0),
        ("title: none", 1_000.0),
    ],
    ids=[
        "created",
        "date",
        "datetime",
        "iso string",
        "created wins",
        "bad created",
        "unparseable",
        "neither",
    ],
)
def test_created_from_front_matter_else_mtime(front: str, expected: float) -> None:
    note = parse(f"---\n{front}\n---\n", mtime=1_000.0)
    assert note.created == pytest.approx(expected)
    assert note.modified == 1_000.0


@pytest.mark.parametrize(
    ("value", "expected"), [("3", 3.0), ("2.5", 2.5), ("'7'", 7.0), ("first", None), ("true", None)]
)
def test_order(value: str, expected: float | None) -> None:
    assert parse(f"---\norder: {value}\n---\n").order == expected


# -- broken input ----------------------------------------------------------------------
def test_invalid_yaml_is_reported_and_the_body_still_indexed() -> None:
    note = parse(
        "---\ncreated: {{date}}\ntags: [meeting, board\n---\n# Board Meeting\n\nSee [[Festival]] #board\n",
        path="Meetings/Board.md",
        mtime=42.0,
    )
    assert len(note.warnings) == 1
    warning = note.warnings[0]
    assert warning.startswith("Meetings/Board.md: invalid YAML front matter (")
    assert "expected" in warning  # the YAML parser's reason is carried along
    assert note.properties == {}
    assert note.body.startswith("# Board Meeting")
    assert targets(note) == ["Festival"]
    assert note.tags == ["board"]
    assert note.created == 42.0
    assert note.title == "Board"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "---\ntitle: tabs\n\tkey: value\n---\nBody\n",
            "line 3, column 1: found a tab character that violates indentation "
            "(while scanning a plain scalar at line 2, column 8)",
        ),
        (  # found only at the block's end: where the unclosed [ began is named too
            "---\ncreated: x\ntags: [meeting, board\n---\nBody\n",
            "line 4, column 1: did not find expected ',' or ']' "
            "(while parsing a flow sequence at line 3, column 7)",
        ),
        ("---\na: b\n  c: d\n---\n", "line 3, column 4: mapping values are not allowed"),
    ],
)
def test_invalid_yaml_warning_names_the_notes_own_line(text: str, reason: str) -> None:
    (warning,) = parse(text, path="T.md").warnings
    assert warning.startswith(f"T.md: invalid YAML front matter ({reason}")
    assert "<unicode string>" not in warning and "^" not in warning and "  " not in warning


def test_front_matter_that_is_not_a_mapping_is_ignored() -> None:
    note = parse("---\n- a\n- b\n---\n[[Link]] #t\n", path="List.md")
    assert note.properties == {}
    assert note.body == "[[Link]] #t\n"
    assert targets(note) == ["Link"]
    assert note.tags == ["t"]


def test_non_utf8_is_decoded_with_replacement_and_reported() -> None:
    note = parse(b"# Caf\xe9\n\n[[Home]] #latin\n", path="Old/latin1.md")
    assert note.warnings == ["Old/latin1.md: not valid UTF-8 (byte 5); decoded with replacement"]
    assert "Caf\ufffd" in note.body
    assert targets(note) == ["Home"]
    assert note.tags == ["latin"]


def test_bom_and_crlf_line_endings() -> None:
    note = parse(b"\xef\xbb\xbf---\r\ntitle: T\r\ntags: [a]\r\n---\r\n# H\r\n\r\n[[X]] #b\r\n")
    assert note.title == "T"
    assert note.tags == ["a", "b"]
    assert targets(note) == ["X"]
    assert "\r" not in note.body


def test_empty_note() -> None:
    note = parse(b"", path="Dairy/Smoked Ziger.md", mtime=7.0)
    assert (note.title, note.body, note.links, note.tags, note.warnings) == (
        "Smoked Ziger",
        "",
        [],
        [],
        [],
    )
    assert note.created == 7.0


def test_odd_front_matter_value_types_do_not_crash() -> None:
    note = parse(
        "---\ntitle: 123\naliases: {a: b}\ntags: [[nested]]\ncreated: [2020]\n"
        "order: .nan\nwhen: 10:30\nup: 5\n---\nbody [[X]]\n"
    )
    assert note.title == "Note"  # a non-string title falls back to the file name
    assert note.aliases == []
    assert note.tags == []  # a list inside a list is not a tag name
    assert note.created == 1_000.0
    assert note.order is None
    assert note.warnings == [  # what was left out is said, naming the file
        'Folder/Note.md: aliases: ignored {"a": "b"} (an alias is text)',
        'Folder/Note.md: tags: ignored ["nested"] (a tag is text with a letter in it)',
    ]
    assert targets(note) == ["X"]


def test_impossible_date_keeps_the_other_properties() -> None:
    note = parse("---\ncreated: 2023-02-30\ntags: [kept]\nup: '[[Parent]]'\n---\nbody\n")
    assert note.tags == ["kept"]
    assert targets(note) == ["Parent"]
    assert note.created == 1_000.0


def test_headings_are_recorded_with_level_and_line() -> None:
    note = parse("# One\n\ntext\n\n## Two #tag\n\nSetext\n------\n")
    assert [(h.level, h.text, h.line) for h in note.headings] == [
        (1, "One", 0),
        (2, "Two #tag", 4),
        (2, "Setext", 6),
    ]


def test_hash_size_and_properties_are_recorded() -> None:
    data = b"---\nrating: 5\nwhen: 2020-01-02\n---\nbody\n"
    note = parse(data)
    assert note.size == len(data)
    assert note.hash and note.hash == parse(data).hash != parse(data + b"x").hash
    assert note.properties == {"rating": 5, "when": "2020-01-02"}
