"""Bad input and bad luck: the run goes on, names the file, and never harms the vault or index."""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
from pathlib import Path

import pytest

import indexer.build
import indexer.read_notes
from indexer import build_index, load_index
from indexer.store import MANIFEST
from indexer.tokens import get_tokenizer
from tests.support.fakes import HashEmbedder
from tests.support.files import write


def index(vault: Path, index_dir: Path, **kwargs: object):
    return build_index(
        vault, index_dir, embedder=kwargs.pop("embedder", None) or HashEmbedder(), **kwargs
    )  # type: ignore[arg-type]


def test_non_utf8_file_is_indexed_with_a_warning(sample_vault: Path, tmp_path: Path) -> None:
    write(
        sample_vault,
        "Old/Latin1 Note.md",
        b"# Caf\xe9 Pradella\n\nPrices in the caf\xe9 [[Home]]\n",
    )
    stats = index(sample_vault, tmp_path / "idx")
    assert (
        "Old/Latin1 Note.md: not valid UTF-8 (byte 5); decoded with replacement" in stats.warnings
    )
    snap = load_index(tmp_path / "idx")
    assert "Caf\ufffd Pradella" in snap.body("Old/Latin1 Note")
    assert snap.graph.has_edge("Old/Latin1 Note", "Home")
    assert snap.chunks_of("Old/Latin1 Note")


@pytest.mark.skipif(
    sys.platform != "linux", reason="needs a file system that takes any bytes as a name"
)
def test_names_that_are_not_utf8_are_skipped_with_a_warning(
    sample_vault: Path, tmp_path: Path
) -> None:
    root = os.fsencode(sample_vault)
    with open(os.path.join(root, b"caf\xe9.md"), "wb") as fh:
        fh.write(b"A note whose name is Latin-1. [[Home]]\n")
    os.mkdir(os.path.join(root, b"Ordner \xfc"))
    with open(os.path.join(root, b"Ordner \xfc", b"inside.md"), "wb") as fh:
        fh.write(b"In a folder whose name is Latin-1.\n")
    stats = index(sample_vault, tmp_path / "idx")
    assert "caf\\xe9.md: name is not valid UTF-8; skipped (rename it to index it)" in stats.warnings
    assert (
        "Ordner \\xfc: name is not valid UTF-8; skipped (rename it to index it)" in stats.warnings
    )
    assert stats.notes == 37  # the sample vault, whole, and nothing else
    assert load_index(tmp_path / "idx").note_row("Home") is not None


def test_binary_garbage_named_md_does_not_stop_the_run(sample_vault: Path, tmp_path: Path) -> None:
    write(sample_vault, "junk.md", bytes(range(256)) * 40)
    stats = index(sample_vault, tmp_path / "idx")
    assert any(w.startswith("junk.md: ") for w in stats.warnings)
    assert stats.notes == 38


def test_huge_file_is_indexed_and_chunked(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    paragraph = "The goats climb to the upper pasture at dawn and the herder counts them. " * 6
    parts, size, i = [], 0, 0
    while size < 5_000_000:
        part = (f"## Day {i}\n\n" if i % 25 == 0 else "") + f"{paragraph} [[Herd]] #day{i % 5}\n\n"
        parts.append(part)
        size += len(part)
        i += 1
    write(vault, "Logbook.md", "".join(parts))
    write(vault, "Herd.md", "# Herd\n")

    class FastEmbedder(HashEmbedder):
        def embed(self, texts, progress=None):
            self.texts.extend(texts)
            return super().embed([t[:64] for t in texts], progress)

    embedder = FastEmbedder()
    stats = index(vault, tmp_path / "idx", embedder=embedder)
    assert stats.notes == 2 and stats.warnings == []
    snap = load_index(tmp_path / "idx")
    chunks = snap.chunks_of("Logbook")
    assert len(chunks) > 1000
    assert max(c.tokens for c in chunks) <= 256
    assert len(snap.body("Logbook")) == size
    assert snap.graph.has_edge("Logbook", "Herd") and "#day4" in snap.graph


def test_empty_file(sample_vault: Path, tmp_path: Path) -> None:
    write(sample_vault, "Blank.md", b"")
    stats = index(sample_vault, tmp_path / "idx")
    assert not any("Blank" in w for w in stats.warnings)
    snap = load_index(tmp_path / "idx")
    assert snap.graph.nodes["Blank"]["kind"] == "note"
    assert [c.text for c in snap.chunks_of("Blank")] == [""]


def test_symlink_loop_is_reported_and_the_run_completes(sample_vault: Path, tmp_path: Path) -> None:
    os.symlink(sample_vault / "People", sample_vault / "People" / "Again")
    os.symlink(sample_vault, sample_vault / "Places" / "Whole Vault")
    stats = index(sample_vault, tmp_path / "idx")
    assert "People/Again: folder already visited (symlink loop?); skipped" in stats.warnings
    assert "Places/Whole Vault: folder already visited (symlink loop?); skipped" in stats.warnings
    assert stats.notes == 37


def test_unreadable_file_is_skipped_with_a_warning(
    sample_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = sample_vault / "People/Jakob Steiner.md"
    if os.geteuid() != 0:
        target.chmod(0)
    else:  # root reads anything: simulate the permission error
        real = indexer.read_notes.read_note_bytes

        def read_note_bytes(
            file: str | os.PathLike[str], path: str, limit: int
        ) -> tuple[bytes, int, str | None]:
            if os.fspath(file) == os.fspath(target):  # the indexer passes str paths
                raise PermissionError(13, "Permission denied", str(file))
            return real(file, path, limit)

        monkeypatch.setattr(indexer.read_notes, "read_note_bytes", read_note_bytes)
    try:
        stats = index(sample_vault, tmp_path / "idx")
    finally:
        target.chmod(0o644)
    assert "People/Jakob Steiner.md: cannot read (Permission denied); skipped" in stats.warnings
    assert stats.notes == 36
    snap = load_index(tmp_path / "idx")
    assert snap.graph.nodes["Jakob Steiner"]["kind"] == "ghost"


def test_file_vanishing_mid_run(
    sample_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = sample_vault / "Glossary.md"
    real_scan = indexer.build.scan_vault

    def scan_then_delete(*args: object, **kwargs: object):
        result = real_scan(*args, **kwargs)  # type: ignore[arg-type]
        victim.unlink()
        return result

    monkeypatch.setattr(indexer.build, "scan_vault", scan_then_delete)
    stats = index(sample_vault, tmp_path / "idx")
    assert stats.warnings[0] == "Glossary.md: vanished during indexing; skipped"
    assert stats.notes == 36
    snap = load_index(tmp_path / "idx")
    assert snap.graph.nodes["Glossary"]["kind"] == "ghost"  # still linked from Home
    assert snap.chunks_of("Glossary") == []


@pytest.mark.parametrize("name", ["vault [1]", "my vault ünï 😀", "a [b] (c) {d} 'e' $f %20"])
def test_odd_vault_and_index_paths(sample_vault: Path, tmp_path: Path, name: str) -> None:
    vault = tmp_path / name / "notes [x]"
    vault.parent.mkdir()
    sample_vault.rename(vault)
    index_dir = tmp_path / name / "index ü [2]"
    stats = index(vault, index_dir)
    assert stats.notes == 37
    snap = load_index(index_dir)
    assert snap.manifest["vault"] == str(vault)
    assert len(snap.vectors) == stats.chunks
    assert index(vault, index_dir).up_to_date


def _fingerprint(root: Path) -> dict[str, tuple[str, int, int]]:
    out: dict[str, tuple[str, int, int]] = {}
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(folder) / name
            st = path.lstat()
            digest = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else "dir"
            out[str(path.relative_to(root))] = (digest, st.st_mtime_ns, st.st_mode)
    return out


def test_the_vault_is_never_written_to(sample_vault: Path, tmp_path: Path) -> None:
    before = _fingerprint(sample_vault)
    index_dir = tmp_path / "idx"
    index(sample_vault, index_dir)
    (sample_vault / "Home.md").touch()
    touched = _fingerprint(sample_vault)
    index(sample_vault, index_dir)
    index(sample_vault, index_dir, full=True)
    assert _fingerprint(sample_vault) == touched
    assert {k: v for k, v in touched.items() if k != "Home.md"} == {
        k: v for k, v in before.items() if k != "Home.md"
    }
    from indexer.doctor import diagnose

    diagnose(sample_vault)
    assert _fingerprint(sample_vault) == touched


@pytest.mark.parametrize("content", ["{not json", "", '{"no": "generation"}', "[1, 2]"])
def test_corrupt_manifest_leads_to_a_rebuild(
    sample_vault: Path, tmp_path: Path, content: str
) -> None:
    index_dir = tmp_path / "idx"
    index(sample_vault, index_dir)
    (index_dir / MANIFEST).write_text(content)
    embedder = HashEmbedder()
    stats = index(sample_vault, index_dir, embedder=embedder)
    assert any("previous index unreadable" in w and "rebuilding" in w for w in stats.warnings)
    assert len(embedder.texts) == stats.chunks == 77
    snap = load_index(index_dir)
    assert snap.manifest["counts"]["notes"] == 37
    assert sorted(p.name for p in index_dir.iterdir() if p.name.startswith("gen-")) == [
        "gen-000001"
    ]


@pytest.mark.parametrize("damage", ["generation deleted", "sqlite garbage"])
def test_damaged_generation_leads_to_a_rebuild(
    sample_vault: Path, tmp_path: Path, damage: str
) -> None:
    index_dir = tmp_path / "idx"
    index(sample_vault, index_dir)
    if damage == "generation deleted":
        shutil.rmtree(index_dir / "gen-000001")
    else:
        (index_dir / "gen-000001" / "index.sqlite").write_bytes(b"not a database" * 100)
    stats = index(sample_vault, index_dir)
    assert any("previous index unreadable" in w for w in stats.warnings)
    assert stats.chunks_embedded == 77
    assert load_index(index_dir).manifest["counts"]["notes"] == 37


# Killing the indexer at each step of an update: tests/indexer/test_kill.py.


def test_token_counts_never_need_the_network(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    def no_network(*args: object, **kwargs: object) -> None:
        raise OSError("network disabled in this test")

    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(socket.socket, "connect", no_network)
    get_tokenizer.cache_clear()
    try:
        assert get_tokenizer("cl100k_base").count("offline counting") == 2
    finally:
        get_tokenizer.cache_clear()
