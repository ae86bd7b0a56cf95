"""details.embeds / details.text: embeds inlined the way Obsidian shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.api import VaultRAG
from graphrag.config import load_settings
from graphrag.config.details import DetailsSettings
from graphrag.details import CUT, NoteText
from graphrag.details.embeds import dendron_range
from tests.support.fakes import HashEmbedder
from tests.support.files import write

GUIDE = """Guide intro paragraph.

## Setup

Install the app, then open it.

### Details

Pick a folder for the vault.

## Other

Unrelated text about something else.

A tip worth embedding. ^tip

- first item
- second item with an id ^item
  - its nested item
- third item
"""

HOST = """# Host

Whole note:
![[Guide]]

A section:
![[Guide#Setup]]

A nested heading path:
![[Guide#Setup#Details]]

A block:
![[Guide#^tip]]

A list item:
![[Guide#^item]]

The same section again:
![[Guide#Setup]]

In code it stays: `![[Guide]]`

```
![[Guide#Other]]
```

An image: ![[picture.png]] and a missing heading ![[Guide#Nowhere]].

- in a list: ![[Guide#^tip]]
"""


@pytest.fixture
def vault(tmp_path: Path) -> Path:
    root = tmp_path / "vault"
    write(root, "Guide.md", GUIDE)
    write(root, "Host.md", HOST)
    write(root, "Loop A.md", "A says:\n\n![[Loop B]]\n")
    write(root, "Loop B.md", "B says:\n\n![[Loop A]]\n")
    write(root, "Deep 1.md", "one\n\n![[Deep 2]]\n")
    write(root, "Deep 2.md", "two\n\n![[Deep 3]]\n")
    write(root, "Deep 3.md", "three\n")
    write(root, "Big.md", "Big note.\n\n![[Long]]\n")
    write(root, "Long.md", "\n\n".join(f"Paragraph {i} of a long note." for i in range(200)))
    return root


def _rag(vault: Path, tmp_path: Path, **details: object) -> VaultRAG:
    settings = load_settings(overrides={"details": details} if details else None)
    return VaultRAG.open(
        vault, index_dir=tmp_path / "idx", embedder=HashEmbedder(), settings=settings
    )


def _text(rag: VaultRAG) -> NoteText:
    return NoteText(rag.snapshot.index, rag.settings.details)


def test_note_heading_and_block_embeds_are_inlined_and_framed(vault: Path, tmp_path: Path):
    rag = _rag(vault, tmp_path)
    full = _text(rag).full("Host")
    # The whole note, framed and named as coming from it.
    assert "Whole note:\n> [!embed] [[Guide]]\n> Guide intro paragraph." in full
    # A heading: its section down to the next heading of its level, the heading included.
    setup = full.split("A section:\n")[1].split("\n\nA nested")[0]
    assert setup.startswith("> [!embed] [[Guide#Setup]]\n> ## Setup\n>\n> Install the app")
    assert "> Pick a folder for the vault." in setup and "Unrelated" not in setup
    nested = full.split("A nested heading path:\n")[1].split("\n\nA block")[0]
    assert "> ### Details" in nested and "Install the app" not in nested
    # A block: the paragraph, without its ^id.
    block = full.split("A block:\n")[1].split("\n\nA list item")[0]
    assert block == "> [!embed] [[Guide#^tip]]\n> A tip worth embedding."
    # A list item: the item with its nested items, not the whole list.
    item = full.split("A list item:\n")[1].split("\n\nThe same")[0]
    assert "> - second item with an id\n>   - its nested item" in item
    shown = item.split("\n", 1)[1]  # below the header naming the block
    assert "first item" not in shown and "^item" not in shown


def test_each_embed_once_code_attachments_and_missing_targets_stay(vault: Path, tmp_path: Path):
    full = _text(_rag(vault, tmp_path)).full("Host")
    # The second embed of the same section is a pointer to the first.
    again = full.split("The same section again:\n")[1].split("\n")[0]
    assert again == "> [!embed] [[Guide#Setup]] (shown above)"
    assert full.count("> Install the app, then open it.") == 2  # whole note + section, once each
    # Code is code; an image has no text to show; a missing heading shows nothing.
    assert "In code it stays: `![[Guide]]`" in full
    assert "```\n![[Guide#Other]]\n```" in full
    assert "![[picture.png]]" in full and "![[Guide#Nowhere]]" in full
    # In a list item, the frame is indented under the item.
    assert "- in a list: ![[Guide#^tip]]\n  > [!embed] [[Guide#^tip]] (shown above)" in full


def test_cycles_stop_and_depth_is_limited(vault: Path, tmp_path: Path):
    text = _text(_rag(vault, tmp_path))
    loop = text.full("Loop A")
    assert "> [!embed] [[Loop B]]\n> B says:\n>\n> > [!embed] [[Loop A]] (shown above)" in loop
    # embed_max_depth 2: the note's own embed and the embeds inside that one.
    assert "> [!embed] [[Deep 2]]\n> two\n>\n> > [!embed] [[Deep 3]]\n> > three" in text.full(
        "Deep 1"
    )


def test_settings_turn_inlining_off_and_limit_each_embed(vault: Path, tmp_path: Path):
    off = _text(_rag(vault, tmp_path, inline_embeds=False)).full("Host")
    assert "[!embed]" not in off and "![[Guide#Setup]]" in off
    small = _text(_rag(vault, tmp_path / "b", embed_max_chars=300, embed_max_depth=1))
    big = small.full("Big")
    assert big.startswith("Big note.\n\n> [!embed] [[Long]]\n> Paragraph 0 of a long note.")
    assert big.rstrip().endswith("> " + CUT) and len(big) < 400
    one_level = small.full("Deep 1")  # embed_max_depth 1: only the note's own embeds
    assert "> [!embed] [[Deep 2]]\n> two" in one_level and "> ![[Deep 3]]" in one_level


def test_details_give_an_embed_at_most_half_the_room(vault: Path, tmp_path: Path):
    text = _text(_rag(vault, tmp_path))
    shown, cut = text.details("Big", 400)
    # The embed is cut to 200 characters (and says so); then the note fits whole.
    assert not cut and len(shown) <= 400
    assert shown.startswith("Big note.\n\n> [!embed] [[Long]]") and shown.rstrip().endswith(CUT)
    assert 4 <= shown.count("Paragraph") < 10


def test_query_and_focus_show_embedded_text_and_count_it(vault: Path, tmp_path: Path):
    rag = _rag(vault, tmp_path)
    result = rag.query("Host whole note section block", budget=4000, seed=1)
    data = result.to_json()
    host = next(n for n in data["entryNotes"] if n["uri"] == "Host")
    assert "> [!embed] [[Guide#^tip]]\n> A tip worth embedding." in host["details"]
    assert data["tokens"]["used"] <= 4000
    focus = rag.focus("Host", budget=2000, seed=1).to_json()
    assert "> Install the app, then open it." in focus["focusNote"]["details"]
    related = {n["uri"]: n for n in rag.focus("Big", budget=2000, seed=1).to_json()["relatedNotes"]}
    assert "Long" in related  # the related note itself is cut, not its embeds
    default = DetailsSettings()
    assert default.inline_embeds and default.embed_max_depth == 2


def test_dendron_label_first_embeds_show_the_note_after_the_pipe(tmp_path: Path):
    """Dendron writes ``![[label|note#anchor]]``; the index resolves ``note`` (rule 8 of
    indexer/resolve.py), and the embed shows it. Obsidian's reading still comes first."""
    root = tmp_path / "vault"
    write(root, "dendron.guide.md", GUIDE)
    write(root, "Guide.md", "The Obsidian-named guide.\n")
    write(
        root,
        "host.md",
        "Whole:\n![[Setup notes|dendron.guide]]\n\n"
        "Section:\n![[setup|dendron://site/dendron.guide#Setup]]\n\n"
        "Obsidian first:\n![[Guide|dendron.guide]]\n\n"
        "Nowhere:\n![[Nothing|no.such.note]]\n",
    )
    full = _text(_rag(root, tmp_path)).full("host")
    assert "Whole:\n> [!embed] [[dendron.guide]]\n> Guide intro paragraph." in full
    section = full.split("Section:\n")[1].split("\n\nObsidian first")[0]
    assert section.startswith("> [!embed] [[dendron.guide#Setup]]\n> ## Setup")
    assert "Obsidian first:\n> [!embed] [[Guide]]\n> The Obsidian-named guide." in full
    assert "Nowhere:\n![[Nothing|no.such.note]]" in full


SAMPLE = """Intro line before any heading.

## Header 1

Header 1 content.

### Header 1.1

Header 1.1 content ^1f1egthix10t

## Header 2

Header 2 content.
"""


@pytest.mark.parametrize(
    ("subpath", "first", "last"),
    [
        ("#header-1,1:#*", "Header 1 content.", "Header 1 content."),  # no heading line
        ("#header-1:#*", "## Header 1", "Header 1 content."),
        ("#header-1,1", "Header 1 content.", "Header 1.1 content ^1f1egthix10t"),
        ("#header-1:#header-2", "## Header 1", "Header 1.1 content ^1f1egthix10t"),
        ("#header-1:#^1f1egthix10t", "## Header 1", "Header 1.1 content"),  # mark dropped
        ("#header-2:#^end", "## Header 2", "Header 2 content."),
        ("#^begin", "Intro line before any heading.", "Intro line before any heading."),
    ],
)
def test_dendron_reference_ranges(subpath: str, first: str, last: str) -> None:
    text = dendron_range(SAMPLE, subpath)
    assert text is not None
    lines = [line for line in text.split("\n") if line.strip()]
    assert (lines[0], lines[-1]) == (first, last)


@pytest.mark.parametrize("subpath", ["#nowhere,1:#*", "#header-1:#nowhere", "#a#b", "#^id"])
def test_not_a_dendron_range_or_nothing_there(subpath: str) -> None:
    assert dendron_range(SAMPLE, subpath) is None


def test_dendron_references_are_inlined(tmp_path: Path):
    root = tmp_path / "vault"
    write(root, "sample.md", SAMPLE)
    write(
        root,
        "host.md",
        "Summary:\n![[sample#header-1,1:#*]]\n\nIts heading: ![[sample#Header 2]]\n",
    )
    full = _text(_rag(root, tmp_path)).full("host")
    assert "Summary:\n> [!embed] [[sample#header-1,1:#*]]\n> Header 1 content.\n" in full + "\n"
    assert "Header 1.1" not in full.split("Its heading")[0]
    assert "> [!embed] [[sample#Header 2]]\n> ## Header 2" in full  # Obsidian's reading first
