"""``index_is_current`` answers as ``build_index`` would, without building anything."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

from indexer import build_index
from indexer.config import IndexConfig, IndexSettings
from indexer.fresh import index_is_current
from tests.support.fakes import HashEmbedder
from tests.support.files import ROOT, write

MODEL = HashEmbedder().name


def current(vault: Path, index_dir: Path, config: IndexConfig | None = None) -> bool:
    return index_is_current(vault, index_dir, config or IndexConfig(), MODEL)


def test_missing_index_is_not_current(tmp_path: Path) -> None:
    write(tmp_path / "v", "a.md", "# A\n")
    assert not current(tmp_path / "v", tmp_path / "index")


def test_model_or_settings_changed_is_not_current(sample_vault: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    build_index(sample_vault, index_dir, embedder=HashEmbedder())
    assert current(sample_vault, index_dir)
    assert not index_is_current(sample_vault, index_dir, IndexConfig(), "another/model")
    other = IndexConfig(index=IndexSettings(chunk_tokens=64))
    assert not current(sample_vault, index_dir, other)


def _mutate(vault: Path, rng: random.Random, step: int) -> str:
    notes = sorted(p for p in vault.rglob("*.md"))
    action = rng.choice(
        ["edit", "touch", "same-bytes", "add", "remove", "attach", "detach", "none"]
    )
    if action == "edit" and notes:
        path = rng.choice(notes)
        path.write_text(path.read_text(encoding="utf-8") + f"\nmore {step}\n", encoding="utf-8")
    elif action == "touch" and notes:
        path = rng.choice(notes)
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
    elif action == "same-bytes" and notes:
        path = rng.choice(notes)
        path.write_bytes(path.read_bytes())
        st = path.stat()
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 2_000_000_000))
    elif action == "add":
        write(vault, f"Added/Note {step}.md", f"# Note {step}\n[[Shepherd's Hut]]\n")
    elif action == "remove" and notes:
        rng.choice(notes).unlink()
    elif action == "attach":
        write(vault, f"Files/pic {step}.png", "not really a png")
    elif action == "detach":
        pics = sorted(vault.rglob("*.png"))
        if pics:
            rng.choice(pics).unlink()
    return action


@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_build_index_after_random_changes(
    sample_vault: Path, tmp_path: Path, seed: int
) -> None:
    """After any change (or none), current <=> build_index finds nothing to do; and
    after each build the index is current."""
    index_dir = tmp_path / "index"
    build_index(sample_vault, index_dir, embedder=HashEmbedder())
    rng = random.Random(seed)
    for step in range(12):
        action = _mutate(sample_vault, rng, step)
        said = current(sample_vault, index_dir)
        stats = build_index(sample_vault, index_dir, embedder=HashEmbedder())
        if said:
            assert stats.up_to_date, f"step {step} ({action}): current, but build_index changed it"
        else:
            assert not stats.up_to_date, f"step {step} ({action}): not current, yet up to date"
        assert current(sample_vault, index_dir), f"step {step} ({action}): stale after a build"


def test_index_inside_the_vault_is_not_part_of_it(sample_vault: Path) -> None:
    build_index(sample_vault, None, embedder=HashEmbedder())
    assert current(sample_vault, sample_vault / ".graphrag")
    write(sample_vault, "New.md", "# New\n")
    assert not current(sample_vault, sample_vault / ".graphrag")


def test_checking_imports_no_parser_graph_or_vectors(sample_vault: Path, tmp_path: Path) -> None:
    """The point of the module: a command on an unchanged vault stays light."""
    import subprocess

    index_dir = tmp_path / "index"
    build_index(sample_vault, index_dir, embedder=HashEmbedder())
    code = (
        "import sys; from pathlib import Path; from indexer.config import IndexConfig; "
        "from indexer.fresh import index_is_current; "
        f"assert index_is_current(Path({str(sample_vault)!r}), Path({str(index_dir)!r}), "
        f"IndexConfig(), {MODEL!r}); "
        "print(' '.join(m for m in ('numpy', 'networkx', 'faiss', 'markdown_it', 'yaml') "
        "if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == ""
