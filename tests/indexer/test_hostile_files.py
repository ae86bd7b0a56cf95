"""Files no note should be: FIFOs, devices, huge notes, deep folders, templates, odd front matter.

Each is skipped, cut or cleaned with a warning naming the file, and the run completes
(issue 13 items 3, 5, 10; issue 14's templates folder).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import indexer.build
from indexer import build_index, load_index
from indexer.config import IndexConfig, IndexSettings
from indexer.doctor import diagnose
from tests.support.fakes import HashEmbedder
from tests.support.files import SHARED_VAULTS, write

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="FIFOs and /dev/zero are POSIX")


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: a blocking open() or read() is interrupted by the alarm."""

    def expire(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def index(vault: Path, index_dir: Path, **settings: object) -> indexer.build.IndexStats:
    config = IndexConfig(index=IndexSettings(**settings))  # type: ignore[arg-type]
    with deadline(60):
        return build_index(vault, index_dir, config=config, embedder=HashEmbedder())


# -- item 3: only regular files are read, each up to a size limit --------------------------------
@posix_only
def test_a_fifo_named_md_is_skipped_not_waited_on(sample_vault: Path, tmp_path: Path) -> None:
    os.mkfifo(sample_vault / "pipe.md")
    os.mkfifo(sample_vault / "Places" / "stream.png")
    stats = index(sample_vault, tmp_path / "idx")
    assert "pipe.md: a FIFO, not a regular file; skipped" in stats.warnings
    assert "Places/stream.png: a FIFO, not a regular file; skipped" in stats.warnings
    assert stats.notes == 37  # the sample vault, whole, and nothing else
    assert "pipe" not in load_index(tmp_path / "idx").graph


@posix_only
def test_a_symlink_to_dev_zero_is_skipped(sample_vault: Path, tmp_path: Path) -> None:
    os.symlink("/dev/zero", sample_vault / "zero.md")
    stats = index(sample_vault, tmp_path / "idx")
    assert "zero.md: a character device, not a regular file; skipped" in stats.warnings
    assert stats.notes == 37


@posix_only
def test_a_note_that_becomes_a_fifo_after_the_scan_is_not_waited_on(
    sample_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_scan = indexer.build.scan_vault
    victim = sample_vault / "Glossary.md"

    def scan_then_swap(*args: object, **kwargs: object):
        result = real_scan(*args, **kwargs)  # type: ignore[arg-type]
        victim.unlink()
        os.mkfifo(victim)
        return result

    monkeypatch.setattr(indexer.build, "scan_vault", scan_then_swap)
    stats = index(sample_vault, tmp_path / "idx")
    assert "Glossary.md: cannot read (a FIFO, not a regular file); skipped" in stats.warnings
    assert stats.notes == 36


def test_a_note_over_the_size_limit_is_cut_with_a_warning(
    sample_vault: Path, tmp_path: Path
) -> None:
    limit = max(p.stat().st_size for p in sample_vault.rglob("*.md")) + 100
    lines = [f"Line {i} of the log. [[Home]]\n" for i in range(limit // 10)]
    big = "".join(lines).encode()
    write(sample_vault, "Logs/Huge Log.md", big)
    stats = index(sample_vault, tmp_path / "idx", max_note_bytes=limit)
    kept = big[: big.rfind(b"\n", 0, limit) + 1]
    cut = [w for w in stats.warnings if "max_note_bytes" in w]
    assert cut == [
        f"Logs/Huge Log.md: {len(big):,} bytes, over index.max_note_bytes ({limit:,}); "
        f"only the first {len(kept):,} bytes are indexed"
    ]
    snap = load_index(tmp_path / "idx")
    assert snap.body("Logs/Huge Log") == kept.decode()  # cut at a line end, never mid-line
    assert snap.graph.has_edge("Logs/Huge Log", "Home")
    snap.close()
    # The cut note is not read again (and no new generation made) until it changes.
    again = index(sample_vault, tmp_path / "idx", max_note_bytes=limit)
    assert again.up_to_date


def test_notes_under_the_default_limit_are_whole(sample_vault: Path, tmp_path: Path) -> None:
    assert IndexSettings().max_note_bytes == 8 * 1024 * 1024
    stats = index(sample_vault, tmp_path / "idx")
    assert not any("max_note_bytes" in w for w in stats.warnings)


# -- item 5: deep folders ---------------------------------------------------------------------
@pytest.fixture
def deep_vault(tmp_path: Path) -> Iterator[Path]:
    """990 nested folders, made one by one and removed by find(1): pathlib's
    mkdir(parents=True) and shutil.rmtree (pytest's cleanup too) recurse once per level."""
    vault = tmp_path / "vault"
    folders = [vault.joinpath(*(["d"] * n)) for n in range(1, 991)]
    vault.mkdir()
    for folder in folders:
        folder.mkdir()
    (folders[-1] / "Bottom.md").write_text("At the bottom. [[Top]]\n")
    write(vault, "Top.md", "At the top. [[Bottom]]\n")
    write(vault, "d/d.md", "The first folder's note.\n")
    yield vault
    subprocess.run(["find", str(folders[1]), "-depth", "-delete"], check=True)


def test_a_thousand_nested_folders_are_walked(deep_vault: Path, tmp_path: Path) -> None:
    stats = index(deep_vault, tmp_path / "idx")
    assert (stats.notes, stats.warnings) == (3, [])
    snap = load_index(tmp_path / "idx")
    bottom = "/".join(["d"] * 990) + "/Bottom"
    assert snap.graph.has_edge("Top", bottom) and snap.graph.has_edge(bottom, "Top")
    snap.close()


# -- item 10: input that used to be dropped without a word ----------------------------------------
SILENT = {
    "List Front Matter.md": "---\n- a\n- b\n---\nBody of a note whose front matter is a list.\n",
    "Odd Tags.md": "---\ntags: [1, null, {x: y}, kept]\n---\nBody.\n",
    "Nul.md": "Text with a NUL\x00 in it. [[Home]]\n",
    "Ghost Links.md": "A link to [z](%00.md), to [y](%20.md) and to [[.md]]; and [[Home]].\n",
}


def test_silent_inputs_get_warnings_naming_the_file(sample_vault: Path, tmp_path: Path) -> None:
    for rel, text in SILENT.items():
        write(sample_vault, rel, text)
    stats = index(sample_vault, tmp_path / "idx")
    expected = [
        "List Front Matter.md: front matter is a YAML list, not key: value properties; ignored",
        'Odd Tags.md: tags: ignored null, {"x": "y"}, \'1\' (a tag is text with a letter in it)',
        "Nul.md: 1 NUL byte(s) removed",
        "Ghost Links.md: line 1: link to '\\x00.md' ignored (its target has a control character)",
        "Ghost Links.md: line 1: link to '.md' ignored (its target names no note)",
    ]
    for warning in expected:
        assert warning in stats.warnings
    assert sum("Ghost Links.md: line 1: link to '.md'" in w for w in stats.warnings) == 2
    snap = load_index(tmp_path / "idx")
    assert snap.body("Nul") == "Text with a NUL in it. [[Home]]\n"
    assert snap.note_row("Odd Tags") is not None
    ghosts = [u for u, d in snap.graph.nodes(data=True) if d.get("kind") == "ghost"]
    assert all(u.strip() and u.isprintable() for u in ghosts), ghosts
    assert [t for _, t in snap.graph.out_edges("Ghost Links")] == ["Home"]
    snap.close()
    report = diagnose(sample_vault)
    assert all(link["target"].isprintable() for link in report.unresolved_links)
    assert {
        "path": "List Front Matter.md",
        "reason": "front matter is a YAML list, not key: value properties; ignored",
    } in report.invalid_front_matter


# -- issue 14: the templates folder ------------------------------------------------------------
TEMPLATE = "---\ncreated: {{date}}\ntags: [trip]\n---\n# {{title}}\n\nWhere: [[Kyoto]]\n"


@pytest.mark.parametrize(
    ("settings_file", "content"),
    [
        (".obsidian/templates.json", '{"folder": "Templates"}'),
        (".obsidian/plugins/templater-obsidian/data.json", '{"templates_folder": "/Templates/"}'),
    ],
)
def test_the_templates_folder_is_excluded_and_said(
    sample_vault: Path, tmp_path: Path, settings_file: str, content: str
) -> None:
    write(sample_vault, settings_file, content)
    write(sample_vault, "Templates/Trip Template.md", TEMPLATE)
    write(sample_vault, "Templates/Daily.md", "{{date}}\n")
    write(
        sample_vault, "Notes/Templates/Kept.md", "Not the templates folder: only the top one is.\n"
    )
    stats = index(sample_vault, tmp_path / "idx")
    assert stats.templates_excluded == ["Templates"]
    # The sample vault less its Templates/Meeting Template, plus Notes/Templates/Kept.
    assert stats.notes == 37
    snap = load_index(tmp_path / "idx")
    assert "Notes/Templates/Kept" in snap.graph
    assert not [u for u in snap.graph if u.startswith("Templates/")]
    assert not any("{{" in w for w in stats.warnings)
    snap.close()
    # Turned off, the templates are notes like any other.
    off = index(sample_vault, tmp_path / "idx2", exclude_templates=False)
    assert off.templates_excluded == [] and off.notes == 40


def test_a_templates_setting_naming_the_vault_root_excludes_nothing(
    sample_vault: Path, tmp_path: Path
) -> None:
    write(sample_vault, ".obsidian/templates.json", '{"folder": "/"}')
    stats = index(sample_vault, tmp_path / "idx")
    assert (stats.templates_excluded, stats.notes) == ([], 37)


@pytest.mark.slow
@pytest.mark.skipif(
    not (SHARED_VAULTS / "kepano-obsidian").is_dir(), reason="shared vaults missing"
)
def test_kepanos_templates_are_not_indexed(tmp_path: Path) -> None:
    vault = SHARED_VAULTS / "kepano-obsidian"
    stats = index(vault, tmp_path / "idx")
    assert stats.templates_excluded == ["Templates"]
    assert not any(w.startswith("Templates/") for w in stats.warnings)
    snap = load_index(tmp_path / "idx")
    assert not [
        u
        for u in snap.graph
        if u.startswith("Templates/") and snap.graph.nodes[u].get("kind") == "note"
    ]
