"""Dendron's wikilinks: ``[[label|target]]`` (label first) and ``dendron://vault/`` prefixes.

Obsidian's reading (``[[target|display]]``) always comes first; Dendron's is taken only
when Obsidian's points nowhere and Dendron's names a note (``indexer.resolve``, rule 8).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from indexer import build_index
from indexer.config import IndexConfig
from indexer.fresh import index_is_current
from indexer.graphbuild import build_graph
from indexer.linktable import link_may_change
from indexer.parse import parse_note
from indexer.resolve import Reading, Resolver, Target
from indexer.store import MANIFEST, open_generation
from indexer.version import RESOLVE_VERSION
from tests.indexer.test_linktable import check_same_as_full, edit
from tests.support.fakes import HashEmbedder
from tests.support.files import SHARED_VAULTS, write

NOTES = ["dendron.topic.vaults", "dendron.tutorial", "root", "Home", "Glossary", "notes/a.b"]


@pytest.fixture
def resolver() -> Resolver:
    return Resolver(NOTES, ["img/photo.png"], aliases={"Glossary": ["Terms"]})


def read(resolver: Resolver, inner: str, markdown: bool = False) -> Reading:
    """``[[inner]]`` in ``root``, split as the parser splits it (Obsidian's way)."""
    target, _, display = inner.partition("|")
    target, hash_, sub = target.partition("#")
    subpath = ("#" + sub.strip()) if hash_ else ""
    return resolver.resolve_link(target.strip(), subpath, display.strip(), "root", markdown)


def test_label_first_link_resolves_to_the_part_after_the_pipe(resolver: Resolver) -> None:
    assert read(resolver, "Vaults explained|dendron.topic.vaults") == Reading(
        Target("dendron.topic.vaults", "note"), "dendron.topic.vaults", "", "Vaults explained"
    )


def test_anchor_after_the_pipe_becomes_the_subpath(resolver: Resolver) -> None:
    assert read(resolver, "local vault|dendron.topic.vaults#local-vault") == Reading(
        Target("dendron.topic.vaults", "note"),
        "dendron.topic.vaults",
        "#local-vault",
        "local vault",
    )


def test_cross_vault_prefix_is_dropped_with_or_without_a_label(resolver: Resolver) -> None:
    labelled = read(
        resolver, "Create New Vault|dendron://dendron.dendron-site/dendron.topic.vaults#create-new"
    )
    assert labelled.target == Target("dendron.topic.vaults", "note")
    assert (labelled.subpath, labelled.display) == ("#create-new", "Create New Vault")
    # written as it stands in the note, so a query finds the passage holding it
    assert labelled.written == "dendron://dendron.dendron-site/dendron.topic.vaults"
    bare = read(resolver, "dendron://other-vault/notes/a.b#summary,1:#*")
    assert bare.target == Target("notes/a.b", "note")
    assert (bare.subpath, bare.display) == ("#summary,1:#*", "")


def test_prefix_is_matched_case_insensitively(resolver: Resolver) -> None:
    assert read(resolver, "x|Dendron://V/dendron.tutorial").target == Target(
        "dendron.tutorial", "note"
    )


def test_obsidian_reading_wins_when_it_resolves(resolver: Resolver) -> None:
    # Home and Glossary both exist: Obsidian links to Home, showing "Glossary".
    assert read(resolver, "Home|Glossary") == Reading(
        Target("Home", "note"), "Home", "", "Glossary"
    )
    # An alias, a self-link and a vault attachment are resolutions too.
    assert read(resolver, "Terms|Home").target == Target("Glossary", "note")
    assert read(resolver, "#Heading|Home").target == Target("root", "self")
    assert read(resolver, "photo.png|Home").target == Target("img/photo.png", "attachment")


def test_a_missing_attachment_is_read_dendrons_way(resolver: Resolver) -> None:
    assert read(resolver, "diagram.png|dendron.tutorial").target == Target(
        "dendron.tutorial", "note"
    )


def test_a_ghost_stays_a_ghost_named_by_obsidians_reading(resolver: Resolver) -> None:
    for inner in ("Nothing here|no.such.note", "label|#anchor-only", "label|dendron://v/"):
        found = read(resolver, inner)
        assert found.target == Target(inner.partition("|")[0], "ghost"), inner
        assert found.display == inner.partition("|")[2]
    assert read(resolver, "dendron://v/no.such").target.kind == "ghost"


def test_markdown_links_are_never_read_dendrons_way(resolver: Resolver) -> None:
    assert read(resolver, "missing.md|Home", markdown=True).target.kind == "ghost"


def test_a_passed_over_reading_does_not_spell_a_ghost(resolver: Resolver) -> None:
    """The Obsidian ghost a Dendron link turned down must not lend its spelling."""
    assert read(resolver, "Lost Note|dendron.tutorial").target.kind == "note"
    assert resolver.resolve("lost note", "root") == Target("lost note", "ghost")


DENDRON_NOTE = (
    "---\nid: abc\nupdated: 1\nup: '[[the parent|dendron.tutorial]]'\n---\n"
    "See [[Vaults|dendron.topic.vaults#local-vault]], "
    "![[dendron://site/dendron.topic.vaults#create,1:#*]] and [[Later|later.note]].\n"
)


def test_parsed_note_links_and_hierarchy_property() -> None:
    notes = [
        parse_note("dendron.topic.links.md", DENDRON_NOTE.encode()),
        parse_note("dendron.topic.vaults.md", b"Vaults."),
        parse_note("dendron.tutorial.md", b"Tutorial."),
    ]
    built = build_graph(notes)
    got = {(lk.kind, lk.target, lk.target_kind, lk.subpath, lk.display) for lk in built.links}
    assert got == {
        ("property", "dendron.tutorial", "note", "", "the parent"),
        ("wikilink", "dendron.topic.vaults", "note", "#local-vault", "Vaults"),
        ("embed", "dendron.topic.vaults", "note", "#create,1:#*", ""),
        ("wikilink", "Later", "ghost", "", "later.note"),
    }
    assert built.parents["dendron.topic.links"] == "dendron.tutorial"  # up: read Dendron's way
    assert built.graph.has_edge("dendron.topic.links", "dendron.topic.vaults")


OBSIDIAN_STYLE = "Obsidian [[Home|Glossary]] and [[Glossary|Home]].\n"


def dendron_vault(root: Path) -> Path:
    vault = root / "vault"
    write(vault, "root.md", "Root. [[Intro|dendron.tutorial]] [[Gone|gone.note#x]]\n")
    write(vault, "dendron.tutorial.md", "[[vaults|dendron://site/dendron.topic.vaults]]\n")
    write(vault, "dendron.topic.vaults.md", "[[Later Note|later.note]] [[later note]]\n")
    write(vault, "Home.md", OBSIDIAN_STYLE)
    write(vault, "Glossary.md", "Terms.\n")
    return vault


def links_of(index_dir: Path, source: str) -> set[tuple[str, str, str, str]]:
    _, _, db = open_generation(index_dir)
    with db:
        rows = db.execute(
            "SELECT target, target_kind, written, display FROM links WHERE source = ?", (source,)
        ).fetchall()
    db.close()
    return set(rows)


def test_incremental_updates_flip_readings_as_a_full_rebuild_does(tmp_path: Path) -> None:
    vault = dendron_vault(tmp_path)
    inc = tmp_path / "inc"
    build_index(vault, inc, embedder=HashEmbedder())
    # Both links make one ghost, spelled as the first writes it.
    assert links_of(inc, "dendron.topic.vaults") == {
        ("Later Note", "ghost", "Later Note", "later.note"),
        ("Later Note", "ghost", "later note", ""),
    }
    # Dendron's target appears: the first link goes there, and the ghost left is
    # spelled as the second link writes it.
    write(vault, "later.note.md", "Later.\n")
    check_same_as_full(vault, inc, tmp_path, "dendron target added")
    assert links_of(inc, "dendron.topic.vaults") == {
        ("later.note", "note", "later.note", "Later Note"),
        ("later note", "ghost", "later note", ""),
    }
    # A note named by the label appears: Obsidian's reading resolves, and wins.
    write(vault, "Later Note.md", "Named like the label.\n")
    check_same_as_full(vault, inc, tmp_path, "label note added")
    assert ("Later Note", "note", "Later Note", "later.note") in links_of(
        inc, "dendron.topic.vaults"
    )
    (vault / "Later Note.md").unlink()
    check_same_as_full(vault, inc, tmp_path, "label note removed")
    assert ("later.note", "note", "later.note", "Later Note") in links_of(
        inc, "dendron.topic.vaults"
    )
    # An alias naming the label is a resolution of Obsidian's reading too.
    edit(vault, "Glossary.md", "---\naliases: [Intro]\n---\nTerms.\n")
    check_same_as_full(vault, inc, tmp_path, "alias names the label")
    assert ("Glossary", "note", "Intro", "dendron.tutorial") in links_of(inc, "root")
    edit(vault, "Glossary.md", "Terms.\n")
    check_same_as_full(vault, inc, tmp_path, "alias removed")
    # Dendron's target goes: back to Obsidian's ghost.
    (vault / "later.note.md").unlink()
    check_same_as_full(vault, inc, tmp_path, "dendron target removed")
    assert ("Later Note", "ghost", "Later Note", "later.note") in links_of(
        inc, "dendron.topic.vaults"
    )
    (vault / "dendron.topic.vaults.md").rename(vault / "dendron.topic.vaults2.md")
    check_same_as_full(vault, inc, tmp_path, "cross-vault target renamed")
    assert links_of(inc, "dendron.tutorial") == {
        ("vaults", "ghost", "vaults", "dendron://site/dendron.topic.vaults")
    }
    # The Obsidian-style note never changed reading.
    assert links_of(inc, "Home") == {
        ("Home", "note", "Home", "Glossary"),
        ("Glossary", "note", "Glossary", "Home"),
    }


@pytest.mark.parametrize(
    ("written", "display", "expected"),
    [
        ("Label", "later.note", True),  # Obsidian reading stored: the other is after the pipe
        ("Label", "other.note#later.note", False),  # an anchor names no note
        ("x", "dendron://v/later.note#anchor", True),
        ("dendron://v/later.note", "", True),
        ("Later.Note", "", True),
        ("other", "unrelated", False),
    ],
)
def test_either_reading_of_a_stored_link_is_tested(
    written: str, display: str, expected: bool
) -> None:
    assert link_may_change(written, display, {"later.note"}, set()) is expected


def test_alias_change_reaches_a_prefixed_target() -> None:
    assert link_may_change("dendron://v/Terms", "Label", set(), {"terms"})


def test_an_index_resolved_by_older_rules_is_relinked_without_reembedding(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An existing index picks the new links up on its next update of an unchanged vault."""
    vault = dendron_vault(tmp_path)
    write(vault, "later.note.md", "Later.\n")
    index_dir = tmp_path / "idx"

    def obsidian_only(self: Resolver, target: str, subpath: str, display: str, *a: object):
        return Reading(self.resolve(target, *a), target, subpath, display)  # type: ignore[arg-type]

    with monkeypatch.context() as m:
        m.setattr(Resolver, "resolve_link", obsidian_only)
        build_index(vault, index_dir, embedder=HashEmbedder())
    manifest = json.loads((index_dir / MANIFEST).read_text())
    manifest.pop("resolve")  # as an index written before the version existed
    (index_dir / MANIFEST).write_text(json.dumps(manifest))
    assert {k for _, k, _, _ in links_of(index_dir, "root")} == {"ghost"}

    model = HashEmbedder().name
    assert not index_is_current(vault, index_dir, IndexConfig(), model)
    embedder = HashEmbedder()
    stats = build_index(vault, index_dir, embedder=embedder)
    assert not stats.up_to_date and stats.chunks_embedded == 0 and stats.full_reason == ""
    assert ("dendron.tutorial", "note", "dendron.tutorial", "Intro") in links_of(index_dir, "root")
    check_same_as_full(vault, index_dir, tmp_path, "after the rules changed")
    assert json.loads((index_dir / MANIFEST).read_text())["resolve"] == RESOLVE_VERSION
    assert index_is_current(vault, index_dir, IndexConfig(), model)
    assert build_index(vault, index_dir, embedder=HashEmbedder()).up_to_date


@pytest.mark.slow
def test_dendron_site_links_resolve() -> None:
    """The shared Dendron vault: label-first and cross-vault links reach their notes."""
    from indexer import parse_vault

    vault = SHARED_VAULTS / "dendron-site"
    if not vault.is_dir():
        pytest.skip(f"{vault} is not available")
    built, _, _ = parse_vault(vault)
    by_written = {
        (lk.source, lk.written, lk.subpath): (lk.target, lk.target_kind, lk.display)
        for lk in built.links
    }
    assert by_written[
        (
            "dendron.tutorial.vaults",
            "dendron://dendron.dendron-site/dendron.topic.vaults",
            "#create-new-vault",
        )
    ] == ("dendron.topic.vaults", "note", "Create New Vault")
    assert by_written[
        ("dendron.topic.workspace.sync-gotchas", "dendron.topic.vaults", "#local-vault")
    ] == ("dendron.topic.vaults", "note", "local vault")
    # Most links of the vault are written Dendron's way: most now resolve.
    resolved = sum(1 for lk in built.links if lk.target_kind != "ghost")
    assert resolved > 2 * len(built.unresolved)
