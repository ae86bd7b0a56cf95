"""details.anchors: the section a link's subpath names, as Obsidian and Dendron write it."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag.details.anchors import dendron_ref, same_heading, section_chunks
from graphrag.details.embeds import dendron_range, heading_section
from indexer.load import ChunkRow
from tests.support.query_vault import make_rag

# Each section long enough to be a chunk of its own (chunk_tokens 60 below).
PAD = " ".join(f"pad{i}" for i in range(12))
NOTE = f"""# Topic

Intro {PAD}

## Summary

The summary section. {PAD}

## Local Vault

The local vault section. {PAD}

## local-vault

A heading written as a slug, in an Obsidian vault. {PAD}

## What's New?

The news section. {PAD}

## Blocks

The marked paragraph. ^abc123

{PAD}
"""


@pytest.fixture(scope="module")
def chunks(tmp_path_factory: pytest.TempPathFactory) -> list:
    tmp: Path = tmp_path_factory.mktemp("anchors")
    rag = make_rag(tmp, {"topic.md": NOTE}, index={"chunk_tokens": 60})
    return rag.snapshot.index.chunks_of("topic")


def _sections(chunks: list, subpath: str) -> list[str]:
    """The first line of each chunk ``subpath`` focuses."""
    return [chunks[j].text.strip().split("\n")[0] for j in section_chunks(chunks, subpath)]


@pytest.mark.parametrize(
    ("subpath", "heading"),
    [
        ("#Summary", "## Summary"),  # Obsidian
        ("#summary", "## Summary"),
        ("#What's New?", "## What's New?"),  # Obsidian, punctuation as written
        ("#Topic#Local Vault", "## Local Vault"),  # Obsidian's heading path: the last part
        ("#whats-new", "## What's New?"),  # Dendron's slug
        ("#summary,1:#*", "## Summary"),  # Dendron's range: its start
        ("#summary:#local-vault", "## Summary"),
    ],
)
def test_a_subpath_focuses_its_section(chunks: list, subpath: str, heading: str) -> None:
    assert _sections(chunks, subpath) == [heading]


def test_a_heading_written_as_the_link_is_matched_before_any_slug(chunks: list) -> None:
    # Obsidian's literal reading first: "#local-vault" is the heading written so, not
    # "Local Vault", whose slug it also is.
    assert _sections(chunks, "#local-vault") == ["## local-vault"]
    # With no heading written so, the slug names "Local Vault".
    only_slug = [c for c in chunks if "## local-vault" not in c.text]
    assert [
        only_slug[j].text.strip().split("\n")[0] for j in section_chunks(only_slug, "#local-vault")
    ] == ["## Local Vault"]


@pytest.mark.parametrize("subpath", ["#^abc123", "#^abc123:#*", "#^ABC123,1:#*"])
def test_a_block_with_or_without_a_range_focuses_the_chunk_holding_it(
    chunks: list, subpath: str
) -> None:
    assert _sections(chunks, subpath) == ["## Blocks"]


@pytest.mark.parametrize("subpath", ["#Nowhere", "#nowhere,1:#*", "#^zzz:#*", "#^begin", "#"])
def test_nothing_named_focuses_nothing(chunks: list, subpath: str) -> None:
    assert section_chunks(chunks, subpath) == []


def test_dendron_refs_and_headings() -> None:
    ref = dendron_ref("#header-1,1:#*")
    assert ref is not None and (ref.start, ref.skip, ref.end) == ("header-1", 1, "*")
    assert dendron_ref("#a#b") is None
    assert same_heading("lookup-note--create-note", "Lookup Note / Create Note")
    assert same_heading("Move vault: to a folder", "Move vault to a folder")
    assert not same_heading("local-vault", "Local Vaults")


def test_embeds_read_a_slug_with_its_punctuation_dropped() -> None:
    # Dendron drops the apostrophe (``whats-new``); reading it as a space did not match.
    body = "## What's New?\n\nThe news.\n\n## Other\n\nElse.\n"
    assert dendron_range(body, "#whats-new,1:#*") == "\nThe news.\n"
    assert heading_section(body, ["whats-new"]) == "## What's New?\n\nThe news.\n"
    assert heading_section(body, ["What's New?"]) == "## What's New?\n\nThe news.\n"


def test_headings_inside_a_chunk_count_and_code_does_not() -> None:
    # Short sections merge into one chunk: a heading written inside it names it too.
    # A "# comment" in a code block is no heading, nor is "#tag" at a line's start.
    merged = "## Install\n\nSteps.\n\n### Local Vault ###\n\nMore.\n"
    code = "## Script\n\n```sh\n# local vault\necho hi\n```\n\n#local-vault is a tag\n"
    chunks = [
        ChunkRow(0, "n", 0, "Note > Install", merged, 20, 0),
        ChunkRow(1, "n", 1, "Note > Script", code, 20, 1),
    ]
    assert section_chunks(chunks, "#Local Vault") == [0]
    assert section_chunks(chunks, "#local-vault") == [0]
    assert section_chunks(chunks, "#install") == [0]
    assert section_chunks(chunks, "#echo-hi") == []
