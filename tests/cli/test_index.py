"""The ``index``, ``doctor`` and ``status`` commands through click's CliRunner."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import graphrag.api
from graphrag.cli import cli
from indexer import load_index, parse_vault
from tests.support.fakes import HashEmbedder
from tests.support.files import write


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> list[HashEmbedder]:
    """The CLI's embedder becomes a HashEmbedder; the list collects every one made."""
    made: list[HashEmbedder] = []

    def factory(settings: object) -> HashEmbedder:
        made.append(HashEmbedder())
        return made[-1]

    monkeypatch.setattr(graphrag.api, "make_embedder", factory)
    return made


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_index_prints_the_summary(sample_vault: Path, tmp_path: Path, fake_model: list) -> None:
    index_dir = tmp_path / "idx"
    code, out, err = run("index", str(sample_vault), "--index-dir", str(index_dir))
    assert code == 0, out + err
    built, _, _ = parse_vault(sample_vault)
    assert re.match(r"indexed in \d+\.\d\d s\n", out)
    assert "notes 37 (added 37, changed 0, removed 0, unchanged 0)" in out
    assert "folders 10 (4 without a folder note)" in out
    assert (
        f"links resolved {built.resolved_count}, unresolved 2 (re-resolved for 37 notes); "
        "attachments 2; tags 29"
    ) in out
    assert "chunks 77 (embedded 77, reused 0)" in out
    assert "warnings 1 (run `vault-graphrag doctor` for details)" in out
    assert "warning: Meetings/2024-09-15 Board Meeting.md: invalid YAML front matter" in err
    assert len(fake_model[0].texts) == 77
    assert load_index(index_dir).manifest["counts"]["notes"] == 37

    code, out, _ = run("index", str(sample_vault), "--index-dir", str(index_dir))
    assert code == 0
    assert out.startswith("index up to date in ")
    assert "chunks 77 (embedded 0, reused 77)" in out
    assert fake_model[-1].texts == []


def test_index_quiet_hides_warnings(sample_vault: Path, tmp_path: Path, fake_model: list) -> None:
    code, out, err = run("index", str(sample_vault), "--index-dir", str(tmp_path / "i"), "--quiet")
    assert code == 0 and "warning:" not in err and "notes 37" in out


def test_index_json(sample_vault: Path, tmp_path: Path, fake_model: list) -> None:
    index_dir = tmp_path / "idx"
    code, out, _ = run("index", str(sample_vault), "--index-dir", str(index_dir), "--json")
    assert code == 0
    data = json.loads(out)
    assert (data["notes"], data["chunks"], data["chunks_embedded"], data["links_unresolved"]) == (
        37,
        77,
        77,
        2,
    )
    assert data["up_to_date"] is False and isinstance(data["seconds"], float)
    assert any("Board Meeting" in w for w in data["warnings"])

    write(sample_vault, "Home.md", (sample_vault / "Home.md").read_text() + "\nOne more line.\n")
    code, out, _ = run(
        "index", str(sample_vault), "--index-dir", str(index_dir), "--json", "--full"
    )
    data = json.loads(out)
    assert data["full_reason"] == "--full" and data["chunks_embedded"] == 77
    assert data["changed"] == 37


def test_index_full_reason_is_printed(sample_vault: Path, tmp_path: Path, fake_model: list) -> None:
    index_dir = tmp_path / "idx"
    run("index", str(sample_vault), "--index-dir", str(index_dir))
    code, out, _ = run("index", str(sample_vault), "--index-dir", str(index_dir), "--full")
    assert code == 0 and "  full re-index: --full" in out


def test_an_index_made_for_another_folder_is_named(
    sample_vault: Path, tmp_path: Path, fake_model: list
) -> None:
    index_dir = tmp_path / "idx"
    run("index", str(sample_vault), "--index-dir", str(index_dir))
    other = tmp_path / "other"
    write(other, "Only.md", "# Only\n\nThe one note here.\n")
    where = ("--index-dir", str(index_dir))
    code, out, _ = run("status", str(other), *where)
    assert code == 0 and f"made for  {sample_vault.resolve()} (another folder)" in out
    code, out, _ = run("index", str(other), *where)
    assert code == 0
    assert f"  the index was made for another folder, {sample_vault.resolve()}; now for" in out
    assert "notes 1 (added 1, changed 0, removed 37, unchanged 0)" in out
    code, out, _ = run("status", str(other), *where, "--json")
    assert "made_for" not in json.loads(out)
    code, out, _ = run("index", str(other), *where, "--json")
    assert json.loads(out)["other_vault"] == ""  # up to date, and its own now


def test_index_uses_the_config_file(sample_vault: Path, tmp_path: Path, fake_model: list) -> None:
    config = tmp_path / "settings.toml"
    config.write_text('[index]\nexclude = ["Templates/*", "People/*"]\nchunk_tokens = 64\n')
    code, out, _ = run(
        "index",
        str(sample_vault),
        "--index-dir",
        str(tmp_path / "i"),
        "--config",
        str(config),
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["notes"] == 37 - 1 - 7
    snap = load_index(tmp_path / "i")
    assert max(r[0] for r in snap.db.execute("SELECT tokens FROM chunks")) <= 64


def test_doctor_json_on_the_sample_vault(sample_vault: Path, fake_model: list) -> None:
    write(sample_vault, "Lonely.md", "# Lonely\n\nNobody links here and I link nowhere. #alone\n")
    code, out, _ = run("doctor", str(sample_vault), "--json")
    assert code == 0
    report = json.loads(out)
    assert report["notes"] == 38
    assert report["unresolved_links"] == [
        {
            "source": "Meetings/2023-06-02 Spring Assembly.md",
            "line": 29,
            "target": "Winter Pasture Plan",
        },
        {"source": "Projects/Cellar Expansion.md", "line": 32, "target": "Cheese Shop"},
    ]
    for item in report["unresolved_links"]:  # the line is where the link is in the file
        lines = (sample_vault / item["source"]).read_text().split("\n")
        assert f"[[{item['target']}]]" in lines[item["line"] - 1]
    brine = next(a for a in report["ambiguous_names"] if a["name"] == "Brine")
    assert brine["notes"] == ["Dairy/Cheese Making/Brine", "Dairy/Cheese Making/Recipes/Brine"]
    assert brine["linked_without_folder_from"] == ["Dairy/Cheese Making/Pressing.md"]
    (invalid,) = report["invalid_front_matter"]
    assert invalid["path"] == "Meetings/2024-09-15 Board Meeting.md"
    assert invalid["reason"].startswith("invalid YAML front matter")
    assert report["orphans"] == ["Lonely"]
    assert report["healthy"] is False
    assert fake_model == []  # doctor never needs the model


def test_doctor_text_output(sample_vault: Path) -> None:
    code, out, _ = run("doctor", str(sample_vault))
    assert code == 0
    assert "37 notes" in out
    assert "  Meetings/2023-06-02 Spring Assembly.md:29  [[Winter Pasture Plan]]" in out
    assert "invalid front matter: 1" in out and "orphans (no links in or out): 0" in out


def test_status_shows_generation_and_counts(
    sample_vault: Path, tmp_path: Path, fake_model: list
) -> None:
    index_dir = tmp_path / "idx"
    run("index", str(sample_vault), "--index-dir", str(index_dir))
    code, out, _ = run("status", str(sample_vault), "--index-dir", str(index_dir), "--json")
    assert code == 0
    data = json.loads(out)
    assert data["generation"] == "gen-000001" and data["model"] == "test/hash-embedder"
    assert data["counts"]["notes"] == 37 and data["index_dir"] == str(index_dir.resolve())
    assert data["vault_changed"] is False


def test_status_reads_as_text_and_says_when_the_vault_changed(
    sample_vault: Path, tmp_path: Path, fake_model: list
) -> None:
    index_dir = tmp_path / "idx"
    run("index", str(sample_vault), "--index-dir", str(index_dir))
    manifest = json.loads((index_dir / "manifest.json").read_text(encoding="utf-8"))
    local = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(manifest["updated"]))
    code, out, _ = run("status", str(sample_vault), "--index-dir", str(index_dir))
    assert code == 0
    assert f"updated   {local}" in out
    assert "notes     37 in " in out and "(gen-000001)" in out
    assert "vault     unchanged since" in out
    write(sample_vault, "Brand New.md", "# Brand new\n")
    code, out, _ = run("status", str(sample_vault), "--index-dir", str(index_dir))
    assert "vault     changed since" in out
    code, out, _ = run("status", str(sample_vault), "--index-dir", str(index_dir), "--json")
    assert json.loads(out)["vault_changed"] is True


@pytest.mark.parametrize("command", ["index", "doctor", "status"])
def test_missing_vault_is_an_error_without_traceback(tmp_path: Path, command: str) -> None:
    result = CliRunner().invoke(
        cli, [command, str(tmp_path / "no such vault")], catch_exceptions=False
    )
    assert result.exit_code != 0
    assert "does not exist" in result.output
    assert "Traceback" not in result.output


def test_a_file_as_vault_is_an_error(tmp_path: Path) -> None:
    note = write(tmp_path, "note.md", "# x")
    code, out, err = run("index", str(note))
    assert code != 0 and "is a file" in out + err and "Traceback" not in out + err


def test_status_without_an_index_says_what_to_do(sample_vault: Path, tmp_path: Path) -> None:
    code, out, err = run("status", str(sample_vault), "--index-dir", str(tmp_path / "none"))
    assert code == 1
    assert "run `vault-graphrag index VAULT` first" in err
    assert "Traceback" not in out + err


def test_unknown_config_key_is_a_one_line_error(sample_vault: Path, tmp_path: Path) -> None:
    config = tmp_path / "bad.toml"
    config.write_text("[index]\nchunk_size = 100\n")
    code, out, err = run("index", str(sample_vault), "--config", str(config))
    assert code == 1
    assert "index.chunk_size" in err and "Traceback" not in out + err


@pytest.mark.slow
def test_index_sample_vault_real_model(
    sample_vault: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, real_embedder
) -> None:
    monkeypatch.setattr(graphrag.api, "make_embedder", lambda settings: real_embedder)
    index_dir = tmp_path / "idx"
    code, out, _ = run("index", str(sample_vault), "--index-dir", str(index_dir), "--json")
    assert code == 0
    stats = json.loads(out)
    assert stats["chunks_embedded"] == stats["chunks"] == 77
    snap = load_index(index_dir)
    assert snap.manifest["model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert snap.manifest["dim"] == snap.vectors.dim == 384

    query = real_embedder.embed(["cheese aging cellar"])[0]
    assert np.linalg.norm(query) == pytest.approx(1.0, abs=1e-4)

    def best(uri: str) -> float:
        vecs = snap.vectors.get([c.vec_id for c in snap.chunks_of(uri)])
        return float((vecs @ query).max())

    assert best("Places/Käsekeller") > best("Dairy/Goat Herd") + 0.1
    assert best("Places/Käsekeller") > best("People/Tobias Rainer")
    scores, ids = snap.vectors.search(query, 5)
    top_notes = {row.uri for row in snap.chunks_for_vectors([int(i) for i in ids[:3]])}
    assert "Places/Käsekeller" in top_notes or "Projects/Cellar Expansion" in top_notes
    assert list(scores) == sorted(scores, reverse=True)


def test_bm25s_debug_logger_is_quiet_unless_verbose() -> None:
    import logging

    import bm25s  # noqa: F401 - importing it sets its logger to DEBUG

    logger = logging.getLogger("bm25s")
    logger.setLevel(logging.DEBUG)
    CliRunner().invoke(cli, ["status", "--help"], catch_exceptions=False)
    assert logger.level == logging.WARNING
    CliRunner().invoke(cli, ["-v", "status", "--help"], catch_exceptions=False)
    assert logger.level == logging.INFO
