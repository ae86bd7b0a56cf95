"""kill -9 at every step of an update, then the next run of any kind.

After each kill the previous index (or, once the manifest is replaced, the new one) is
current and whole, and whatever the killed run left behind (its temp generation, a
renamed generation the manifest never named, its temp manifest) is removed by the next
run: an update, an update that finds nothing to do, or ``status`` (issue 13, item 7).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from indexer import build_index, load_index
from indexer.store import MANIFEST, remove_leftovers, tidy_index
from tests.support.fakes import HashEmbedder
from tests.support.files import ROOT
from tests.support.kill import kill_when_flagged

# Where the child stops, in the order an update reaches them. "replace-1" renames the
# temp generation into place; "replace-2" replaces manifest.json (the commit itself).
STAGES = [
    "embedding",
    "before-commit",
    "before-replace-1",
    "after-replace-1",
    "before-replace-2",
    "after-replace-2",
]
COMMITTED = {"after-replace-2"}  # the manifest names the new generation from here on

CHILD = textwrap.dedent(
    """
    import os, sys, time
    from pathlib import Path
    sys.path.insert(0, {root!r})
    import indexer.store as store
    from indexer import build_index
    from tests.support.fakes import HashEmbedder

    flag, stage = Path({flag!r}), {stage!r}

    def pause(point):
        if point == stage:
            flag.write_text(point)
            time.sleep(600)

    class Slow(HashEmbedder):
        def embed(self, texts, progress=None):
            pause("embedding")
            return super().embed(texts, progress)

    class Os:
        replaced = 0
        def __getattr__(self, name):
            return getattr(os, name)
        def replace(self, src, dst):
            Os.replaced += 1
            pause(f"before-replace-{{Os.replaced}}")
            os.replace(src, dst)
            pause(f"after-replace-{{Os.replaced}}")

    store.os = Os()
    real_commit = store.GenerationWriter.commit
    def commit(self, manifest):
        pause("before-commit")
        return real_commit(self, manifest)
    store.GenerationWriter.commit = commit

    build_index({vault!r}, {index_dir!r}, embedder=Slow(), full={full!r})
    """
)


def index(vault: Path, index_dir: Path, **kwargs: object):
    return build_index(vault, index_dir, embedder=HashEmbedder(), **kwargs)  # type: ignore[arg-type]


def kill_at(stage: str, vault: Path, index_dir: Path, tmp_path: Path, full: bool) -> None:
    flag = tmp_path / "flag"
    script = tmp_path / "child.py"
    script.write_text(
        CHILD.format(
            root=str(ROOT),
            flag=str(flag),
            stage=stage,
            vault=str(vault),
            index_dir=str(index_dir),
            full=full,
        )
    )
    kill_when_flagged(script, flag)


def big_edit(vault: Path) -> None:
    for path in vault.rglob("*.md"):
        path.write_text(
            path.read_text(encoding="utf-8") + "\n\nAppended in a big edit.\n", encoding="utf-8"
        )


def leftovers(index_dir: Path) -> list[str]:
    current = json.loads((index_dir / MANIFEST).read_text())["generation"]
    return sorted(
        p.name
        for p in index_dir.iterdir()
        if p.name.startswith(".gen-")
        or p.name.endswith(".tmp")
        or (p.name.startswith("gen-") and p.name > current)
    )


def assert_whole(index_dir: Path, generation: str, appended: bool) -> None:
    snap = load_index(index_dir)
    try:
        assert snap.manifest["generation"] == generation
        assert ("Appended in a big edit." in snap.body("Places/Käsekeller")) is appended
        vec_ids = {r[0] for r in snap.db.execute("SELECT vec_id FROM chunks")}
        assert set(snap.vectors.ids().tolist()) == vec_ids  # every chunk has its vector
    finally:
        snap.close()


@pytest.mark.parametrize("stage", STAGES)
def test_kill_during_an_update_then_update(sample_vault: Path, tmp_path: Path, stage: str) -> None:
    index_dir = tmp_path / "idx"
    index(sample_vault, index_dir)
    big_edit(sample_vault)
    kill_at(stage, sample_vault, index_dir, tmp_path, full=False)

    committed = stage in COMMITTED
    assert_whole(index_dir, "gen-000002" if committed else "gen-000001", appended=committed)
    if not committed:
        assert leftovers(index_dir)  # the killed run left something behind ...

    stats = index(sample_vault, index_dir)  # ... and the next update removes it
    assert stats.up_to_date is committed
    if not committed:
        assert stats.changed == 37
        assert stats.leftovers_removed and all(
            line.startswith(str(index_dir)) and line.endswith("; removed")
            for line in stats.leftovers_removed
        )
    assert sorted(p.name for p in index_dir.iterdir()) == [
        ".lock",
        "gen-000001",
        "gen-000002",
        MANIFEST,
    ]
    assert_whole(index_dir, "gen-000002", appended=True)


@pytest.mark.parametrize("next_run", ["up-to-date index", "status"])
@pytest.mark.parametrize("stage", STAGES[1:])
def test_kill_during_a_rebuild_then_any_run_cleans_up(
    sample_vault: Path, tmp_path: Path, stage: str, next_run: str
) -> None:
    index_dir = tmp_path / "idx"
    index(sample_vault, index_dir)
    kill_at(stage, sample_vault, index_dir, tmp_path, full=True)  # the vault is unchanged
    committed = stage in COMMITTED
    had_leftovers = bool(leftovers(index_dir))
    assert had_leftovers is not committed

    if next_run == "status":
        removed = tidy_index(index_dir)
    else:
        stats = index(sample_vault, index_dir)
        assert stats.up_to_date
        removed = stats.leftovers_removed
    assert bool(removed) is had_leftovers
    assert leftovers(index_dir) == []
    gens = ["gen-000001", "gen-000002"] if committed else ["gen-000001"]
    assert sorted(p.name for p in index_dir.iterdir()) == [".lock", *gens, MANIFEST]
    assert_whole(index_dir, gens[-1], appended=False)


def test_without_the_lock_only_dead_processes_leftovers_go(tmp_path: Path) -> None:
    index_dir = tmp_path / "idx"
    index_dir.mkdir()
    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    for pid in (gone.pid, os.getpid()):
        (index_dir / f".gen-000004.tmp-{pid}").mkdir()
        (index_dir / f".{MANIFEST}.{pid}.tmp").write_text("{}")
    (index_dir / "gen-000009").mkdir()  # newer than no manifest at all: not judged unlocked

    removed = remove_leftovers(index_dir, locked=False)
    why = f"left by an interrupted run (process {gone.pid}); removed"
    assert sorted(removed) == sorted(
        [
            f"{index_dir / f'.gen-000004.tmp-{gone.pid}'}: {why}",
            f"{index_dir / f'.{MANIFEST}.{gone.pid}.tmp'}: {why}",
        ]
    )
    assert sorted(p.name for p in index_dir.iterdir()) == sorted(
        [f".gen-000004.tmp-{os.getpid()}", f".{MANIFEST}.{os.getpid()}.tmp", "gen-000009"]
    )
