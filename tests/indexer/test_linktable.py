"""An incremental update leaves the derived tables exactly as a full rebuild would.

``indexer.linktable`` re-resolves only the links an edit can have changed. Each
test here edits a vault step by step, updates one index incrementally, builds a
second one from scratch, and compares every derived table and count.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from indexer import build_index
from indexer.config import IndexSettings
from indexer.linktable import Namespace, changed_keys, may_change
from indexer.store import open_generation
from tests.support.fakes import HashEmbedder
from tests.support.files import write

COUNTS = (
    "notes",
    "folders",
    "virtual_folders",
    "attachments",
    "tags",
    "links_resolved",
    "links_unresolved",
)

VAULT = {
    "Home.md": "---\naliases: [Start]\ntags: [hub]\n---\n# Home\nSee [[Places]], [[Hut]] and [[zed]].\n",
    "Places/Hut.md": "---\nup: '[[Home]]'\n---\nThe hut. [[Places/Huts/Hut|deeper]] and ![[map.png]].\n",
    "Places/Huts/Hut.md": "Another hut, linking [[Zed]] and [the home](../../Home.md). #place/hut\n",
    "Places/Alp.md": "Alp. [[Start]] [[Dairy]] [[Ghost Note]] ![[missing.pdf]]\n",
    "Dairy/Dairy.md": "Folder note of Dairy. [[Brine]] [[#Top]]\n",
    "Dairy/Brine.md": "---\nparent: '[[Cellar]]'\n---\nBrine. [[ghost note]] [[../Home]]\n",
    "Dairy/Cellar.md": "Cellar. [[Brine]] [[Nowhere/Deep]] #cellar\n",
    "Archive/Old/Thing.md": "Old thing. [[Hut]] [[Places]] [[Archive]]\n",
    "map.png": b"\x89PNG fake",
}


def make_vault(root: Path) -> Path:
    vault = root / "vault"
    for rel, text in VAULT.items():
        write(vault, rel, text)
    return vault


def tables(index_dir: Path) -> dict[str, object]:
    _, _, db = open_generation(index_dir)
    try:
        return {
            "links": Counter(db.execute("SELECT * FROM links")),
            "nodes": db.execute("SELECT * FROM nodes").fetchall(),
            "tags": Counter(db.execute("SELECT * FROM tags")),
            "files": set(db.execute("SELECT path, kind, size FROM files")),
            "warnings": Counter(db.execute("SELECT * FROM warnings")),
        }
    finally:
        db.close()


def stamp(path: Path) -> None:
    """Move the mtime on, so the size+mtime shortcut cannot hide a same-length edit."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def check_same_as_full(vault: Path, incremental: Path, scratch: Path, step: str) -> None:
    stats = build_index(vault, incremental, embedder=HashEmbedder())
    full_dir = scratch / f"full-{step}"
    full = build_index(vault, full_dir, embedder=HashEmbedder())
    assert stats.full_reason == "", step
    assert tables(incremental) == tables(full_dir), step
    for key in COUNTS:
        assert getattr(stats, key) == getattr(full, key), (step, key)


def edit(vault: Path, rel: str, text: str) -> None:
    path = write(vault, rel, text)
    stamp(path)


EDITS: list[tuple[str, Callable[[Path], None]]] = [
    (
        "body only",
        lambda v: edit(v, "Places/Alp.md", "Alp, longer now. [[Start]] [[Dairy]] [[Ghost Note]]\n"),
    ),
    (
        "new link",
        lambda v: edit(
            v, "Dairy/Cellar.md", "Cellar. [[Brine]] [[Nowhere/Deep]] [[Alp]] #cellar\n"
        ),
    ),
    # Home sorts first: its new spelling of the ghost must win everywhere.
    (
        "ghost respelled",
        lambda v: edit(v, "Home.md", VAULT["Home.md"].replace("[[zed]]", "[[ZED]]")),
    ),
    ("ghost gains a note", lambda v: write(v, "Zed.md", "Zed exists now. [[Home]]\n")),
    ("ghost note removed", lambda v: (v / "Zed.md").unlink()),
    ("shorter namesake", lambda v: write(v, "Hut.md", "A top-level hut. #place\n")),
    ("namesake removed", lambda v: (v / "Hut.md").unlink()),
    (
        "alias changed",
        lambda v: edit(v, "Home.md", VAULT["Home.md"].replace("[Start]", "[Begin, Ghost Note]")),
    ),
    ("folder note added", lambda v: write(v, "Places/index.md", "Index of places. [[Alp]]\n")),
    ("virtual folder gone", lambda v: (v / "Archive/Old/Thing.md").rename(v / "Thing.md")),
    ("attachment added", lambda v: write(v, "files/missing.pdf", b"%PDF fake")),
    ("attachment removed", lambda v: (v / "map.png").unlink()),
    (
        "hierarchy cycle",
        lambda v: edit(v, "Dairy/Cellar.md", "---\nup: '[[Brine]]'\n---\nCellar. [[Brine]]\n"),
    ),
    (
        "hierarchy to nowhere",
        lambda v: edit(v, "Places/Alp.md", "---\nup: '[[Nowhere]]'\n---\nAlp.\n"),
    ),
    (
        "tags changed",
        lambda v: edit(v, "Places/Huts/Hut.md", "Another hut. [[Zed]] #place/hut #new-tag\n"),
    ),
    ("note renamed", lambda v: (v / "Dairy/Brine.md").rename(v / "Places/Brine.md")),
    ("note deleted", lambda v: (v / "Dairy/Cellar.md").unlink()),
]


def test_each_edit_matches_a_full_rebuild(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    incremental = tmp_path / "inc"
    build_index(vault, incremental, embedder=HashEmbedder())
    for name, apply in EDITS:
        apply(vault)
        check_same_as_full(vault, incremental, tmp_path, name)


def test_one_body_edit_resolves_one_note(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    index_dir = tmp_path / "inc"
    build_index(vault, index_dir, embedder=HashEmbedder())
    calls = []
    import indexer.linktable as linktable

    original = linktable.resolve_note_links

    def counting(note, *args):
        calls.append(note.uri)
        return original(note, *args)

    linktable.resolve_note_links = counting
    try:
        edit(vault, "Dairy/Brine.md", VAULT["Dairy/Brine.md"] + "More brine.\n")
        stats = build_index(vault, index_dir, embedder=HashEmbedder())
    finally:
        linktable.resolve_note_links = original
    # Brine links [[ghost note]]; Alp links [[Ghost Note]]: the ghost's spelling is
    # chosen among both, so both are resolved (twice: a probe, then for real).
    assert sorted(set(calls)) == ["Dairy/Brine", "Places/Alp"]
    assert stats.relinked == 2


def _random_edit(rng: random.Random, vault: Path, n: int) -> str:
    notes = sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*.md"))
    names = [Path(p).stem for p in notes] + ["Zed", "zed", "Nowhere", "map.png", "Places", "Start"]
    action = rng.choice(
        ["edit", "edit", "edit", "add", "delete", "rename", "alias", "folder note", "attachment"]
    )
    if action == "folder note":
        folder = rng.choice(["Places", "Dairy", "New", "Archive/Old"])
        note = vault / folder / rng.choice(["index.md", f"{folder.rsplit('/', 1)[-1]}.md"])
        if note.exists():
            note.unlink()
        else:
            write(
                vault,
                note.relative_to(vault).as_posix(),
                f"Folder note {n}. [[{rng.choice(names)}]]\n",
            )
        return action
    if action == "attachment":
        image = vault / rng.choice(["map.png", "files/map.png", "missing.pdf"])
        if image.exists():
            image.unlink()
        else:
            write(vault, image.relative_to(vault).as_posix(), b"fake")
        return action
    if action == "delete" and len(notes) > 3:
        (vault / rng.choice(notes)).unlink()
        return "delete"
    if action == "rename" and notes:
        src = vault / rng.choice(notes)
        dest = vault / rng.choice(["", "Places/", "Dairy/", "New/"]) / f"{src.stem}{n % 3 or ''}.md"
        if not dest.exists():
            dest.parent.mkdir(parents=True, exist_ok=True)
            src.rename(dest)
        return "rename"
    links = " ".join(f"[[{rng.choice(names)}]]" for _ in range(rng.randint(0, 4)))
    front = ""
    if action == "alias" or rng.random() < 0.2:
        front = f"---\naliases: [{rng.choice(names)}]\nup: '[[{rng.choice(names)}]]'\n---\n"
    text = f"{front}Step {n}. {links} #t{rng.randint(0, 3)}\n"
    target = rng.choice(notes) if action in ("edit", "alias") and notes else f"Places/New {n}.md"
    edit(vault, target, text)
    return action


@pytest.mark.parametrize("seed", range(8))
def test_random_edits_match_a_full_rebuild(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    vault = make_vault(tmp_path)
    incremental = tmp_path / "inc"
    build_index(vault, incremental, embedder=HashEmbedder())
    for n in range(12):
        action = _random_edit(rng, vault, n)
        check_same_as_full(vault, incremental, tmp_path, f"{n}-{action}")


def test_changed_keys_names_what_moved() -> None:
    old = Namespace({"A/Hut", "B/Barn"}, {"B/Barn": ["Stable"]}, {"img/map.png"})
    new = Namespace({"A/Hut", "B/Barn", "C/Hut", "A/index"}, {"B/Barn": ["Shed"]}, set())
    names, aliases = changed_keys(old, new, IndexSettings())
    # C/Hut and A/index are new; folder A now has a folder note; C is a new folder.
    assert names == {"hut", "index", "a", "c", "map.png"}
    assert aliases == {"stable", "shed"}


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("Hut", True),
        ("Places/HUT.md", True),
        ("./hut", True),
        ("Barn", False),
        ("Stable", True),
        ("img/map.png", True),
        ("../..", True),
        ("", False),
    ],
)
def test_may_change(written: str, expected: bool) -> None:
    assert may_change(written, {"hut", "map.png"}, {"stable"}) is expected


def test_namespace_reads_notes_aliases_and_attachments(tmp_path: Path) -> None:
    vault = make_vault(tmp_path)
    build_index(vault, tmp_path / "idx", embedder=HashEmbedder())
    _, _, db = open_generation(tmp_path / "idx")
    with db:
        ns = Namespace.read(db)
    assert "Places/Huts/Hut" in ns.uris and len(ns.uris) == 8
    assert ns.aliases == {"Home": ["Start"]}
    assert ns.attachments == {"map.png"}
    assert isinstance(db, sqlite3.Connection)


def test_an_upgrade_resolves_every_link_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Links stored by another version may follow other rules: all are resolved anew, once."""
    import indexer.linktable as linktable
    from indexer.store import MANIFEST

    vault = make_vault(tmp_path)
    index_dir = tmp_path / "inc"
    build_index(vault, index_dir, embedder=HashEmbedder())
    manifest = json.loads((index_dir / MANIFEST).read_text())
    (index_dir / MANIFEST).write_text(json.dumps(dict(manifest, tool_version="0.0.1")))
    resolved: list[str] = []
    original = linktable.resolve_note_links
    monkeypatch.setattr(
        linktable,
        "resolve_note_links",
        lambda note, *a: resolved.append(note.uri) or original(note, *a),
    )
    edit(vault, "Dairy/Brine.md", VAULT["Dairy/Brine.md"] + "More brine.\n")
    build_index(vault, index_dir, embedder=HashEmbedder())
    assert len(resolved) == 8  # every note, each resolved once
    check_same_as_full(vault, index_dir, tmp_path, "after upgrade")
    resolved.clear()
    edit(vault, "Dairy/Brine.md", VAULT["Dairy/Brine.md"] + "Even more brine.\n")
    build_index(vault, index_dir, embedder=HashEmbedder())
    assert "Home" not in resolved  # back to incremental
