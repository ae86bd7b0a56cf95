"""Fuzzing the parser and the resolver (hypothesis) over Markdown, front matter and links.

Whatever the bytes: no exception, every warning names its file, the same bytes parse the
same way, and every resolved link points at something with a printable, non-empty name
(issue 13, "keep probing").
"""

from __future__ import annotations

import unicodedata

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from indexer.graphbuild import build_graph
from indexer.parse import ParsedNote, parse_note

# Names as vaults have them: words, spaces, unicode, odd punctuation, nested folders.
NAME = (
    st.text(alphabet=st.sampled_from(list("abcXYZ019 _-.'()&é日🐐~#^|%")), min_size=1, max_size=12)
    .map(str.strip)
    .filter(lambda s: s not in ("", ".", ".."))
)
PATH = st.lists(NAME, min_size=1, max_size=3).map(lambda parts: "/".join(parts))
NASTY = st.sampled_from(
    [
        "\x00",
        "\x01",
        "\x7f",
        "\r\n",
        "\r",
        "\ufeff",
        "\u200b",
        "\u2028",
        "\t",
        "\\",
        "`",
        "$",
        "%%",
        "<!--",
        "-->",
        "|",
        "#",
        "^",
        "!",
        "[[",
        "]]",
        "](",
        ")",
        "::",
        "%00",
        "%20",
        "%",
        "\ud7ff",
    ]
)
TARGET = st.one_of(
    PATH,
    NAME.map(lambda n: n + ".md"),
    NAME.map(lambda n: n + ".png"),
    st.text(max_size=8),
    NASTY,
    st.just(".md"),
    st.just("/"),
    st.just("../" * 3),
)


def _wikilink(draw: st.DrawFn) -> str:
    target = draw(TARGET)
    sub = draw(st.sampled_from(["", "#Heading", "#^block", "#"]))
    display = draw(st.sampled_from(["", "|shown", "|"]))
    return f"{draw(st.sampled_from(['', '!']))}[[{target}{sub}{display}]]"


def _mdlink(draw: st.DrawFn) -> str:
    target = draw(TARGET).replace(" ", draw(st.sampled_from(["%20", " "])))
    return f"{draw(st.sampled_from(['', '!']))}[{draw(st.text(max_size=5))}]({target})"


@st.composite
def fragments(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return _wikilink(draw)
    if kind == 1:
        return _mdlink(draw)
    if kind == 2:
        return "#" + draw(st.text(alphabet="ab1/_-é", max_size=6))
    if kind == 3:
        return f"\n{'#' * draw(st.integers(1, 7))} {draw(st.text(max_size=10))}\n"
    if kind == 4:
        fence = draw(st.sampled_from(["```", "~~~", "````"]))
        return f"\n{fence}\n{draw(st.text(max_size=20))}\n{draw(st.sampled_from([fence, '']))}\n"
    if kind == 5:
        return f"{draw(st.text(alphabet='abc ', max_size=6))}:: {_wikilink(draw)}"
    if kind == 6:
        return draw(NASTY)
    if kind == 7:
        return f"- {draw(st.text(max_size=10))}\n"
    if kind == 8:
        return f"| a | {_wikilink(draw)} |\n|---|---|\n"
    if kind == 9:
        return f"> {_mdlink(draw)}\n"
    return draw(st.text(max_size=30))


YAML_VALUE = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(),
        st.floats(),
        st.text(max_size=10),
        st.sampled_from(["[[Home]]", '"[[a|b]]"', "2023-02-30", "{{date}}", ".nan", "~"]),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(st.text(alphabet="abxy", max_size=3), inner, max_size=3),
    ),
    max_leaves=6,
)


def _yaml(value: object) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k or 'k'}: {_yaml(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_yaml(v) for v in value) + "]"
    if value is None:
        return "null"
    return str(value)


@st.composite
def front_matter(draw: st.DrawFn) -> str:
    kind = draw(st.integers(0, 3))
    if kind == 0:
        return ""
    if kind == 1:  # arbitrary text between the fences: often not YAML at all
        return f"---\n{draw(st.text(max_size=40))}\n---\n"
    keys = st.sampled_from(
        [
            "title",
            "tags",
            "tag",
            "aliases",
            "alias",
            "up",
            "parent",
            "created",
            "date",
            "order",
            "author",
            "x",
        ]
    )
    props = draw(st.dictionaries(keys, YAML_VALUE, max_size=5))
    body = "".join(f"{k}: {_yaml(v)}\n" for k, v in props.items())
    if kind == 3:  # a list, a scalar or a broken document instead of a mapping
        body = draw(st.sampled_from(["- a\n- b\n", "just text\n", "[unclosed\n", "a: [1, {b: \n"]))
    return f"---\n{body}---\n"


@st.composite
def markdown(draw: st.DrawFn) -> bytes:
    text = draw(front_matter()) + "".join(draw(st.lists(fragments(), max_size=12)))
    data = text.encode("utf-8", "surrogatepass")
    if draw(st.booleans()):
        return data
    # Damage: stray bytes that are not UTF-8, a BOM, or a cut in the middle.
    cut = draw(st.integers(0, len(data)))
    return draw(st.sampled_from([b"", b"\xff", b"\xef\xbb\xbf", b"\xc3"])) + data[:cut]


def _no_control(name: str) -> bool:
    """No control character but the tab (a file name may hold one, so a link may too)."""
    return not any(unicodedata.category(c) == "Cc" and c != "\t" for c in name)


FUZZ = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@settings(FUZZ, max_examples=200)
@given(path=PATH.map(lambda p: p + ".md"), data=markdown())
def test_parse_never_raises_names_its_file_and_is_deterministic(path: str, data: bytes) -> None:
    note = parse_note(path, data, 1000.0)
    assert all(w.startswith(f"{path}: ") for w in note.warnings), note.warnings
    assert parse_note(path, data, 1000.0) == note
    for link in note.links:
        assert _no_control(link.target), link
        assert link.target.strip().removesuffix(".md").strip(" /.") or not link.target.strip()


@settings(FUZZ, max_examples=80)
@given(
    files=st.dictionaries(PATH.map(lambda p: p + ".md"), markdown(), min_size=1, max_size=6),
    attachments=st.lists(PATH.map(lambda p: p + ".png"), max_size=3),
)
def test_resolving_a_fuzzed_vault_never_raises_and_names_files(
    files: dict[str, bytes], attachments: list[str]
) -> None:
    # Two paths differing only in case are two notes on Linux: keep one of each, as a vault can.
    seen: set[str] = set()
    notes: list[ParsedNote] = []
    for path, data in files.items():
        if path.casefold() not in seen:
            seen.add(path.casefold())
            notes.append(parse_note(path, data, 1000.0))
    built = build_graph(notes, attachments)
    paths = {n.path for n in notes}
    for warning in built.warnings:
        assert warning.split(": ", 1)[0] in paths, warning
    kinds = {"note", "folder", "attachment", "ghost", "self"}
    uris = {n.uri for n in notes}
    for link in built.links:
        assert link.target_kind in kinds
        assert link.target and _no_control(link.target), link
        if link.target_kind == "note":
            assert link.target in uris
    for node in built.graph.nodes:
        assert node and _no_control(node), node
    # The same notes in another order resolve to the same graph.
    again = build_graph(list(reversed(notes)), list(reversed(attachments)))
    assert sorted(map(repr, again.links)) == sorted(map(repr, built.links))
