"""A served vault's updates and requests do not use up CPython's interned-string table.

A name interned and freed again leaves a dead entry in the interpreter's table of
interned strings; pathlib (Python 3.11) interns every part of every path it parses, and
the server's updates and ``/focus`` by name did so with each folder walked, note read,
temp file and block-cache file: ~110 dead entries per 30 s of the soak, until the table
was rebuilt at twice the size (+1.8 MB resident at the soak's 17th minute;
benchmarks/RESULTS.md, "Server memory over an hour, session 7").
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from benchmarks.interned import interned_table
from graphrag import VaultRAG
from graphrag.api import vault_relative
from graphrag.config import load_settings
from graphrag.serve.live import LiveIndex
from tests.support.fakes import HashEmbedder

HUT = "Places/Huts/Shepherd's Hut"


def open_rag(vault: Path) -> VaultRAG:
    return VaultRAG.open(vault, settings=load_settings(env={}), embedder=HashEmbedder())


def test_a_note_by_path_is_resolved_without_interning(
    sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rag = open_rag(sample_vault)
    by_path, by_title = str(sample_vault / f"{HUT}.md"), "Shepherd's Hut"
    assert rag.resolve_note(by_path) == rag.resolve_note(by_title) == HUT
    seen: list[str] = []
    real = sys.intern
    monkeypatch.setattr(sys, "intern", lambda s: seen.append("".join(s)) or real(s))
    assert rag.resolve_note(by_path) == rag.resolve_note(by_title) == HUT
    assert seen == []


def test_vault_relative(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "A").mkdir(parents=True)
    (tmp_path / "link").symlink_to(vault / "A")
    assert vault_relative(str(vault / "A" / "n.md"), vault) == "A/n.md"
    assert vault_relative(str(tmp_path / "link" / "n.md"), vault) == "A/n.md"  # resolved
    assert vault_relative(str(vault), vault) == "."
    assert vault_relative(str(tmp_path / "vault2" / "n.md"), vault) is None  # a prefix only
    assert vault_relative(str(tmp_path / "n.md"), vault) is None
    assert vault_relative("a\0b", vault) is None


def dead_entries() -> tuple[int, int]:
    table = interned_table()
    return table["entries"] - table["used"], table["slots"]


@pytest.mark.skipif(not interned_table(), reason="the interned-string table cannot be read here")
def test_updates_and_focus_by_name_leave_no_dead_interned_names(sample_vault: Path) -> None:
    rag = open_rag(sample_vault)
    live = LiveIndex(rag)
    names = sorted(note.uri for note in rag.snapshot.graph.notes())
    files = [str(sample_vault / f"{name}.md") for name in names]  # made now, not measured

    def round_(i: int) -> None:
        with open(files[i * 7 % len(files)], "a", encoding="utf-8") as fh:
            fh.write(f"\nedit {i}\n")
        live.update()
        rag.focus(names[i % len(names)])
        assert rag.resolve_note(files[i % len(files)]) == names[i % len(names)]

    for i in range(3):  # first uses: imports, caches
        round_(i)
    updates = 10
    for _attempt in range(2):  # again if something else made the table resize meanwhile
        before, slots = dead_entries()
        for i in range(3, 3 + updates):
            round_(i)
        after, slots_after = dead_entries()
        if slots_after == slots:
            break
    assert slots_after == slots
    # One a generation at most (the name of the one loaded; the table holds tens of
    # thousands): before, ~29 an update on this vault (its folders, temp files, paths).
    assert after - before <= 2 * updates
