"""``vault-graphrag query``, ``search`` and ``eval`` through CliRunner."""

from __future__ import annotations

import hashlib
import json

import pytest
from click.testing import CliRunner

import graphrag.api
from graphrag.cli import cli, served
from graphrag.serve import server_file
from tests.support.fakes import HashEmbedder
from tests.support.files import write
from tests.support.query_vault import DIM

FILES = {
    "Dairy/Brine.md": "---\ntags: [cheese]\n---\n# Brine\n\nSalt brine for cheese wheels. [[Press]]\n",
    "Dairy/Press.md": "---\ntags: [cheese]\n---\n# Press\n\nPressing cheese wheels before the brine.\n",
    "Huts/Roof.md": "# Roof\n\nThe roof of the hut.\n",
}


@pytest.fixture
def vault(tmp_path, monkeypatch):
    """A small vault; the CLI's model is the hashing embedder."""
    monkeypatch.setattr(graphrag.api, "make_embedder", lambda settings: HashEmbedder(DIM))
    root = tmp_path / "vault"
    for rel, text in FILES.items():
        write(root, rel, text)
    return root


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_query_prints_json_by_default(vault):
    code, out, _ = run("query", "salt brine cheese", "--vault", str(vault), "--seed", "1")
    assert code == 0
    data = json.loads(out)
    assert data["query"] == "salt brine cheese"
    assert data["entryNotes"][0]["uri"] == "Dairy/Brine"
    assert data["tokens"]["used"] <= data["tokens"]["budget"] == 4000


def test_query_prompt_budget_filters_and_explain(vault):
    code, out, _ = run(
        "query", "salt brine cheese", "--vault", str(vault), "--prompt", "--budget", "600"
    )
    assert code == 0 and out.startswith('CONTEXT:\n[1] Document: "Brine"')
    code, out, _ = run("query", "pressing wheels roof", "--vault", str(vault), "--folder", "Huts")
    data = json.loads(out)
    assert [n["uri"] for n in data["entryNotes"] + data["relatedNotes"]] == ["Huts/Roof"]
    code, out, _ = run("query", "brine", "--vault", str(vault), "--tag", "cheese", "--explain")
    data = json.loads(out)
    assert "explain" in data["entryNotes"][0] and "skipped" in data


def test_query_says_when_nothing_is_relevant_and_rejects_empty_questions(vault):
    code, out, err = run("query", "zeppelin hangar", "--vault", str(vault))
    assert code == 0
    assert json.loads(out)["entryNotes"] == []
    assert "no note is relevant" in err
    code, _, err = run("query", "  ", "--vault", str(vault))
    assert code == 1 and "empty" in err and "Traceback" not in err


@pytest.mark.parametrize("mode", ["semantic", "lexical", "hybrid", "hierarchical"])
def test_search_modes(vault, mode):
    code, out, _ = run("search", "salt brine", "--vault", str(vault), "--mode", mode, "-k", "2")
    assert code == 0
    assert "Brine (Dairy/Brine)" in out.splitlines()[1 if mode == "hierarchical" else 0]
    code, out, _ = run(
        "search", "salt brine", "--vault", str(vault), "--mode", mode, "--json", "--tag", "cheese"
    )
    data = json.loads(out)
    assert data["mode"] == mode and {r["uri"] for r in data["results"]} <= {
        "Dairy/Brine",
        "Dairy/Press",
    }


def test_search_graph_mode(vault):
    code, out, _ = run("search", "salt brine", "--vault", str(vault), "--mode", "graph", "-k", "1")
    assert code == 0
    assert out.splitlines()[:2] == ["focus:", "  Brine (Dairy/Brine)"]
    assert "  Press (Dairy/Press)" in out
    code, out, _ = run("search", "salt", "--vault", str(vault), "--mode", "graph", "--json")
    assert set(json.loads(out)) == {"query", "focus", "parents", "children"}


@pytest.mark.parametrize("hops", ["-1", "4", "100"])
def test_search_hops_outside_the_servers_range_is_a_usage_error(vault, hops):
    # The HTTP API takes hops 0..3 (MAX_HOPS); the CLI the same, not any count.
    code, _, err = run("search", "salt", "--vault", str(vault), "--mode", "graph", "--hops", hops)
    assert code == 2
    assert f"Invalid value for '--hops': {hops} is not in the range 0<=x<=3." in err
    code, out, _ = run("search", "salt", "--vault", str(vault), "--mode", "graph", "--hops", "3")
    assert code == 0, out


def test_eval_runs_a_question_set(vault, tmp_path):
    qa = tmp_path / "qa.jsonl"
    qa.write_text(
        json.dumps(
            {"id": "q1", "question": "salt brine", "gold": ["Dairy/Brine"], "type": "single"}
        )
        + "\n",
        encoding="utf-8",
    )
    code, out, _ = run(
        "eval",
        str(qa),
        "--vault",
        str(vault),
        "--budget",
        "500",
        "--system",
        "graphrag",
        "--markdown",
    )
    assert code == 0
    assert "| 500 | graphrag | 100.0 |" in out


def test_eval_warns_about_gold_notes_the_index_does_not_have(vault, tmp_path):
    qa = tmp_path / "qa.jsonl"
    question = {"id": "q1", "question": "salt", "gold": ["Dairy/Brine", "Dairy/Brin"]}
    qa.write_text(json.dumps({**question, "type": "multi"}) + "\n", encoding="utf-8")
    for output in ("--markdown", "--json"):
        args = ("eval", str(qa), "--vault", str(vault), "--budget", "500", "--system", "graphrag")
        code, out, err = run(*args, output)
        assert code == 0
        assert err.endswith("warning: gold notes not in the index, counted as missed: Dairy/Brin\n")
    assert json.loads(out)["unknownGold"] == ["Dairy/Brin"]  # stdout stays JSON


def test_eval_budgets_as_a_comma_list_or_repeated(vault, tmp_path):
    qa = tmp_path / "qa.jsonl"
    qa.write_text(
        json.dumps(
            {"id": "q1", "question": "salt brine", "gold": ["Dairy/Brine"], "type": "single"}
        )
        + "\n",
        encoding="utf-8",
    )
    base = ("eval", str(qa), "--vault", str(vault), "--system", "graphrag", "--markdown")
    code, out, _ = run(*base, "--budget", "300,600", "--budget", "900")
    assert code == 0
    recall_table = out.split("\n\n")[0]  # the density table after it repeats the budgets
    rows = [
        line.split("|")[1].strip() for line in recall_table.splitlines() if "| graphrag |" in line
    ]
    assert rows == ["300", "600", "900"]
    code, _, err = run(*base, "--budget", "300,lots")
    assert code == 2 and "'lots' is not a whole number" in err
    code, _, err = run(*base, "--budget", "-5")
    assert code == 2 and "negative" in err


def test_eval_from_links_asks_the_vaults_own_links(sample_vault, monkeypatch):
    monkeypatch.setattr(graphrag.api, "make_embedder", lambda settings: HashEmbedder(DIM))
    args = ("eval", "--from-links", str(sample_vault), "--budget", "1000", "--json")
    code, out, _ = run(*args, "--links", "7")
    assert code == 0
    report = json.loads(out)
    assert report["qa"].startswith("from-links (7 links of")
    assert report["questions"] == {"link": 7}
    assert {"graphrag", "vector", "bm25"} <= set(report["systems"])
    ids = {o["id"] for o in report["outcomes"]}
    assert len(ids) == 7 and all(" -> " in i for i in ids)


def test_eval_needs_questions_or_from_links(vault, tmp_path):
    code, _, err = run("eval", "--budget", "500")
    assert code == 2 and "--from-links VAULT" in err
    qa = tmp_path / "qa.jsonl"
    qa.write_text("{}\n", encoding="utf-8")
    code, _, err = run("eval", str(qa), "--from-links", str(vault))
    assert code == 2 and "--from-links VAULT" in err
    code, _, err = run("eval", str(qa))
    assert code == 2 and "needs --vault" in err


def test_commands_have_help_with_examples():
    for name in ("query", "search", "eval"):
        code, out, _ = run(name, "--help")
        assert code == 0 and "vault-graphrag " + name in out


def test_eval_no_update_scores_the_index_as_it_is(vault, tmp_path):
    qa = tmp_path / "qa.jsonl"
    question = {"id": "q1", "question": "slate shingles", "gold": ["Huts/Roof"], "type": "single"}
    qa.write_text(json.dumps(question) + "\n", encoding="utf-8")
    index_dir = tmp_path / "index"
    base = ("eval", str(qa), "--vault", str(vault), "--index-dir", str(index_dir))
    base += ("--budget", "500", "--system", "graphrag", "--json")
    code, _, _ = run(*base)
    assert code == 0
    manifest = (index_dir / "manifest.json").read_text(encoding="utf-8")
    write(vault, "Huts/Roof.md", "# Roof\n\nThe roof of the hut, laid with slate shingles.\n")
    code, out, _ = run(*base, "--no-update")
    assert code == 0
    assert (index_dir / "manifest.json").read_text(encoding="utf-8") == manifest  # untouched
    assert json.loads(out)["outcomes"]
    code, _, _ = run(*base)  # without it, the edit is indexed first
    assert code == 0
    assert (index_dir / "manifest.json").read_text(encoding="utf-8") != manifest
    code, _, err = run(*base[:5], str(tmp_path / "nothing"), *base[6:], "--no-update")
    assert code != 0 and "run `vault-graphrag index VAULT` first" in err


def _index_files(index_dir):
    """Every file of the index folder: its bytes' hash and its mtime."""
    return {
        p.relative_to(index_dir).as_posix(): (
            hashlib.sha256(p.read_bytes()).hexdigest(),
            p.stat().st_mtime_ns,
        )
        for p in sorted(index_dir.rglob("*"))
        if p.is_file()
    }


NO_UPDATE_ASKS = {
    "ask": ("ask", "roof of the hut", "--prompt-only", "--seed", "1"),
    "focus": ("focus", "Huts/Roof", "--seed", "1"),
    "query": ("query", "roof of the hut", "--seed", "1"),
    "search": ("search", "roof of the hut", "--mode", "lexical", "--json"),
}


@pytest.mark.parametrize("command", sorted(NO_UPDATE_ASKS))
def test_no_update_answers_from_the_index_as_it_is(vault, tmp_path, command):
    index_dir = tmp_path / "index"
    ask = (*NO_UPDATE_ASKS[command], "--vault", str(vault), "--index-dir", str(index_dir))
    code, before, _ = run(*ask)  # indexes the vault
    assert code == 0 and "Huts/Roof" in before and "slate" not in before
    files = _index_files(index_dir)
    write(vault, "Huts/Roof.md", "# Roof\n\nThe roof of the hut, laid with slate shingles.\n")
    code, out, _ = run(*ask, "--no-update")
    assert code == 0
    assert out == before  # the old text, from the old index
    assert _index_files(index_dir) == files  # nothing written
    code, out, _ = run(*ask)  # without it, the edit is indexed first
    assert code == 0 and "slate shingles" in out
    assert _index_files(index_dir) != files
    code, _, err = run(*ask[:-1], str(tmp_path / "nothing"), "--no-update")
    assert code != 0 and "run `vault-graphrag index VAULT` first" in err


@pytest.mark.parametrize("command", sorted(NO_UPDATE_ASKS))
def test_no_update_does_not_ask_a_server_to_index_first(vault, tmp_path, monkeypatch, command):
    index_dir = tmp_path / "index"
    ask = (*NO_UPDATE_ASKS[command], "--vault", str(vault), "--index-dir", str(index_dir))
    assert run(*ask, "--no-server")[0] == 0
    write(vault, "Huts/Roof.md", "# Roof\n\nThe roof of the hut, laid with slate shingles.\n")
    asked: list[str] = []

    def request(self, method, path, body=None, timeout=0.0):
        asked.append(path)
        raise served.Unavailable("no server in this test: the command answers itself")

    info = server_file.ServerInfo(1, "127.0.0.1", 1, None, str(index_dir), "")
    monkeypatch.setattr(server_file, "usable", lambda *_: info)
    monkeypatch.setattr(served.Served, "request", request)
    code, out, _ = run(*ask, "--no-update")
    assert code == 0 and "slate" not in out
    assert asked == ["/status"]  # is it serving the generation on disk? no "/index" first
    asked.clear()
    code, out, _ = run(*ask)
    assert code == 0 and "slate shingles" in out
    assert asked == ["/index"]  # asked to update first (and answered itself when it failed)


def test_batch_no_update_answers_from_the_index_as_it_is(vault, tmp_path):
    items = tmp_path / "items.jsonl"
    items.write_text('{"id": "roof", "note": "Huts/Roof"}\n', encoding="utf-8")
    index_dir = tmp_path / "index"
    where = ("--vault", str(vault), "--index-dir", str(index_dir), "--no-model")
    assert run("batch", str(items), *where, "--out", str(tmp_path / "a.jsonl"))[0] == 0
    files = _index_files(index_dir)
    write(vault, "Huts/Roof.md", "# Roof\n\nThe roof of the hut, laid with slate shingles.\n")
    out = tmp_path / "b.jsonl"
    assert run("batch", str(items), *where, "--out", str(out), "--no-update")[0] == 0
    assert "Huts/Roof" in out.read_text(encoding="utf-8")
    assert "slate" not in out.read_text(encoding="utf-8")
    assert _index_files(index_dir) == files  # nothing written
    out = tmp_path / "c.jsonl"
    assert run("batch", str(items), *where, "--out", str(out))[0] == 0
    assert "slate shingles" in out.read_text(encoding="utf-8")
