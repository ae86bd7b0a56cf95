"""``batch``: JSONL in and out, resume, bad lines, Ctrl-C, workers, summaries."""

from __future__ import annotations

import json
import os
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from graphrag import VaultRAG
from graphrag.answer.prompts import QUERY_SYSTEM, SUMMARY_SYSTEM, focus_context, summary_prompt
from graphrag.batch.run import Item, load_done, note_items, read_items, run_batch
from graphrag.cli import cli
from graphrag.errors import BatchError
from graphrag.focus.render import render_prompt
from tests.support.fakes import HashEmbedder
from tests.support.llm_fakes import (
    CALLS,
    ROOT,
    echoed,
)

VAULT = ROOT / "sample_vault"
NOTES = [
    "Spring Box",
    "Shepherd's Hut",
    "Gamsjoch Hut",
    "Jakob Steiner",
    "Dairy/Cheese Making/Brine",
    "Goat Herd",
    "Pressing",
    "Renneting",
    "Upper Pasture",
    "Käsekeller",
]


def write_lines(path: Path, rows: list[Any]) -> Path:
    path.write_text(
        "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8"
    )
    return path


def records(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n"), "the output ends in a partial line"
    return [json.loads(line) for line in text.splitlines()]


def note_input(tmp_path: Path, n: int = len(NOTES)) -> Path:
    return write_lines(tmp_path / "in.jsonl", [{"id": i, "note": NOTES[i]} for i in range(n)])


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


# -- contexts and prompts --------------------------------------------------------------
def test_each_line_holds_id_context_prompt_and_timing(rag: VaultRAG, tmp_path: Path) -> None:
    items = read_items(
        write_lines(
            tmp_path / "in.jsonl",
            [
                {"id": "q1", "query": "Who built the lid of the spring box?"},
                {"id": 7, "note": "Spring Box"},
                {"id": "f", "note": "Pressing", "question": "How salty?"},
            ],
        )
    )
    out = tmp_path / "out.jsonl"
    stats = run_batch(rag, items, out, seed=3)
    assert (stats.done, stats.errors, stats.skipped) == (3, 0, 0)
    by_id = {r["id"]: r for r in records(out)}
    assert set(by_id) == {"q1", 7, "f"}

    q = by_id["q1"]
    assert q["mode"] == "query" and q["error"] is None and q["line"] == 1
    result = rag.query("Who built the lid of the spring box?", seed=3, output="prompt")
    assert q["context"] == json.loads(json.dumps(result.to_json()))
    assert q["prompt"]["system"] == QUERY_SYSTEM
    assert q["prompt"]["prompt"].endswith("\n\nQUESTION: Who built the lid of the spring box?\n")
    assert q["sources"] == [d.uri for d in (*result.entries, *result.related)]
    assert "answer" not in q and "model" not in q

    f = by_id[7]
    focus = rag.focus("Spring Box", seed=3)
    assert f["mode"] == "focus" and f["note"] == "Spring Box"
    assert f["context"] == json.loads(json.dumps(focus.to_json()))
    assert f["prompt"] == {"system": "", "prompt": render_prompt(focus)}
    assert f["sources"][0] == "Places/Huts/Spring Box"
    assert by_id["f"]["prompt"]["prompt"].endswith("\n\n# Question\n\nHow salty?\n")
    for r in by_id.values():
        assert r["seconds"]["retrieval"] >= 0


def test_answers_and_summaries_come_from_the_model(rag: VaultRAG, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    items = [
        Item("a", 1, "query", "Where does the water come from?"),
        Item("b", 2, "summarise", "Spring Box"),
    ]
    stats = run_batch(rag, items, out, model="echo", seed=4, model_workers=2)
    assert stats.model == "echo" and stats.errors == 0
    by_id = {r["id"]: r for r in records(out)}
    got = echoed(by_id["a"]["answer"])
    assert (got["system"], got["prompt"]) == (
        by_id["a"]["prompt"]["system"],
        by_id["a"]["prompt"]["prompt"],
    )
    summary = echoed(by_id["b"]["summary"])
    limit = rag.settings.llm.focus_list_limit
    expected = summary_prompt(focus_context(rag.focus("Spring Box", seed=4), limit))
    assert (summary["system"], summary["prompt"]) == (SUMMARY_SYSTEM, expected.prompt)
    assert "answer" not in by_id["b"] and by_id["b"]["model"] == "echo"
    assert by_id["a"]["usage"]["input"] > 0 and by_id["a"]["seconds"]["model"] >= 0


def test_focus_lines_need_a_question_for_a_model(rag: VaultRAG, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    stats = run_batch(rag, [Item(1, 1, "focus", "Pressing")], out, model="echo")
    (rec,) = records(out)
    assert stats.errors == 1 and 'needs a "question"' in rec["error"] and len(CALLS) == 0


# -- bad input -------------------------------------------------------------------------
def test_a_line_without_query_or_note_says_it_has_neither(tmp_path: Path) -> None:
    source = write_lines(tmp_path / "in.jsonl", [{"id": 1}, {"id": 2, "query": "x", "note": "y"}])
    neither, both = (item.error for item in read_items(source))
    assert (
        neither
        == 'line 1: give "query" (a question) or "note" (a note name); this line has neither'
    )
    assert both is not None and both.endswith("not both")


def test_malformed_lines_are_reported_by_line_number_and_the_rest_run(
    index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    source = write_lines(
        tmp_path / "in.jsonl",
        [
            {"id": 1, "note": "Spring Box"},
            "{not json",
            {"note": "Brine"},
            "",
            {"id": 4, "note": "No Such Note At All"},
            {"id": 5, "query": "x", "note": "y"},
            {"id": 1, "note": "Brine"},
            {"id": 6, "query": "Which goats?"},
        ],
    )
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        "batch",
        str(source),
        "--vault",
        str(VAULT),
        "--index-dir",
        str(index_dir),
        "--out",
        str(out),
        "--no-progress",
    )
    assert code == 0, err
    rows = records(out)
    errors = {r["line"]: r["error"] for r in rows if r["error"]}
    assert errors[2].startswith("line 2: not JSON")
    assert errors[3] == 'line 3: "id" must be a string or an integer, got None'
    assert "no note matches 'No Such Note At All'" in errors[5]
    assert errors[6].startswith('line 6: give either "query"')
    assert errors[7] == "line 7: duplicate id 1 (first on line 1)"
    ok = {r["id"] for r in rows if not r["error"]}
    assert ok == {1, 6}
    for line in (2, 3, 6, 7):
        assert f"error: line {line}: " in err
    assert "error: line 5: no note matches" in err
    assert "2 written" not in err and "7 written" in err and "5 with errors" in err


def test_a_failing_model_call_is_recorded_and_the_batch_goes_on(
    rag: VaultRAG, tmp_path: Path
) -> None:
    items = [Item(i, i, "query", q) for i, q in enumerate(["Spring?", "FAIL now", "Goats?"])]
    stats = run_batch(rag, items, tmp_path / "out.jsonl", model="test-spy")
    rows = {r["id"]: r for r in records(tmp_path / "out.jsonl")}
    assert stats.errors == 1 and rows[1]["error"] == "model test-spy: RuntimeError: provider down"
    assert rows[0]["answer"] == "answer to: QUESTION: Spring?" and rows[2]["error"] is None


def test_unknown_model_stops_before_anything_runs(
    index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    out = tmp_path / "out.jsonl"
    code, _, err = run(
        "batch",
        str(note_input(tmp_path)),
        "--vault",
        str(VAULT),
        "--index-dir",
        str(index_dir),
        "--out",
        str(out),
        "-m",
        "nope",
    )
    assert code != 0 and "llm knows no model named 'nope'" in err and not out.exists()


# -- resume ----------------------------------------------------------------------------
def test_resume_after_a_kill_mid_line_gives_each_id_once(rag: VaultRAG, tmp_path: Path) -> None:
    items = read_items(note_input(tmp_path))
    out = tmp_path / "out.jsonl"
    run_batch(rag, items[:4], out, seed=1)
    whole = out.read_bytes()
    out.write_bytes(whole + whole.splitlines(keepends=True)[0][:25])  # killed while writing
    stats = run_batch(rag, items, out, seed=1)
    assert stats.skipped == 4 and stats.done == len(NOTES) - 4
    ids = Counter(r["id"] for r in records(out))
    assert ids == Counter(range(len(NOTES)))
    assert out.read_bytes().startswith(whole)  # what was there is kept byte for byte


def test_ctrl_c_stops_cleanly_and_the_rerun_completes(rag: VaultRAG, tmp_path: Path) -> None:
    items = read_items(note_input(tmp_path))
    out = tmp_path / "out.jsonl"
    messages: list[str] = []

    def interrupt_at_three(counts: dict[str, Any]) -> None:
        if counts["done"] == 3:
            os.kill(os.getpid(), signal.SIGINT)

    # A process started in the background (CI, nohup) may begin with SIGINT ignored.
    before = signal.getsignal(signal.SIGINT)
    stats = run_batch(rag, items, out, progress=interrupt_at_three, notify=messages.append)
    assert stats.interrupted and 3 <= stats.done < len(NOTES)
    assert messages and messages[0].startswith("stopping")
    first = records(out)
    assert len(first) == stats.done
    assert signal.getsignal(signal.SIGINT) == before  # handler restored
    again = run_batch(rag, items, out)
    assert not again.interrupted and again.skipped == stats.done
    assert Counter(r["id"] for r in records(out)) == Counter(range(len(NOTES)))


def test_a_second_ctrl_c_abandons_but_leaves_whole_lines(rag: VaultRAG, tmp_path: Path) -> None:
    items = read_items(note_input(tmp_path))
    out = tmp_path / "out.jsonl"

    def interrupt_twice(counts: dict[str, Any]) -> None:
        if counts["done"] == 2:
            os.kill(os.getpid(), signal.SIGINT)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        run_batch(rag, items, out, progress=interrupt_twice, workers=2, executor="thread")
    assert len(records(out)) == 2
    run_batch(rag, items, out)
    assert Counter(r["id"] for r in records(out)) == Counter(range(len(NOTES)))


def test_cli_interrupted_exits_130_and_says_how_to_continue(
    index_dir: Path, tmp_path: Path, fake_model: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    import graphrag.cli.llm

    real = graphrag.cli.llm.run_batch

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        progress = kwargs["progress"]

        def hook(counts: dict[str, Any]) -> None:
            progress(counts)
            if counts["done"] == 1:
                os.kill(os.getpid(), signal.SIGINT)

        return real(*args, **{**kwargs, "progress": hook})

    monkeypatch.setattr(graphrag.cli.llm, "run_batch", interrupted)
    out = tmp_path / "out.jsonl"
    args = [
        "batch",
        str(note_input(tmp_path)),
        "--vault",
        str(VAULT),
        "--index-dir",
        str(index_dir),
        "--out",
        str(out),
        "--no-progress",
    ]
    code, _, err = run(*args)
    assert code == 130 and "interrupted" in err and "run again" in err
    monkeypatch.setattr(graphrag.cli.llm, "run_batch", real)
    code, _, err = run(*args)
    assert code == 0 and "already there" in err
    assert Counter(r["id"] for r in records(out)) == Counter(range(len(NOTES)))


def test_retry_errors_runs_failed_items_again(rag: VaultRAG, tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    items = [Item(1, 1, "query", "FAIL please"), Item(2, 2, "query", "Goats?")]
    run_batch(rag, items, out, model="test-spy")
    assert run_batch(rag, items, out, model="test-spy").skipped == 2  # errors count as done
    calls = len(CALLS)
    stats = run_batch(
        rag, [Item(1, 1, "query", "Spring?"), items[1]], out, model="test-spy", retry_errors=True
    )
    assert (stats.done, stats.skipped, len(CALLS) - calls) == (1, 1, 1)
    rows = records(out)
    assert [r["id"] for r in rows] == [2, 1] and rows[1]["error"] is None


def test_a_damaged_output_file_is_refused_not_overwritten(tmp_path: Path) -> None:
    out = write_lines(tmp_path / "out.jsonl", [{"id": 1}, "garbage", {"id": 2}])
    before = out.read_bytes()
    with pytest.raises(BatchError, match="line 2 is not a JSON object"):
        load_done(out)
    assert out.read_bytes() == before
    cut = write_lines(tmp_path / "cut.jsonl", [{"id": 1}, {"id": 2}])
    cut.write_bytes(cut.read_bytes() + b'{"id": 3, "cont')
    assert load_done(cut) == {"1", "2"} and cut.read_bytes() == b'{"id": 1}\n{"id": 2}\n'


# -- workers ---------------------------------------------------------------------------
@pytest.mark.parametrize("executor", ["process", "thread"])
def test_workers_give_the_same_records(rag: VaultRAG, tmp_path: Path, executor: str) -> None:
    items = read_items(note_input(tmp_path))
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    run_batch(rag, items, one, seed=5)
    stats = run_batch(rag, items, two, seed=5, workers=2, executor=executor)
    assert stats.executor.startswith(executor)

    def key(rows: list[dict[str, Any]]) -> dict[Any, tuple[str, str]]:
        return {r["id"]: (json.dumps(r["context"]), r["prompt"]["prompt"]) for r in rows}

    assert key(records(two)) == key(records(one)) and len(records(two)) == len(NOTES)


def test_spawned_workers_open_the_index_and_embed_queries_alike(
    rag: VaultRAG, tmp_path: Path
) -> None:
    """Where fork is unsafe (torch loaded) workers start afresh, with the caller's embedder."""
    items = [Item(i, i, "query", q) for i, q in enumerate(["spring water", "goat cheese brine"])]
    items += [Item(i + 2, i + 2, "focus", note) for i, note in enumerate(NOTES[:3])]
    one, two = tmp_path / "one.jsonl", tmp_path / "two.jsonl"
    run_batch(rag, items, one, seed=2)
    stats = run_batch(rag, items, two, seed=2, workers=2, executor="process-spawn")
    assert stats.executor == "process-spawn" and stats.errors == 0
    assert {r["id"]: r["context"] for r in records(two)} == {
        r["id"]: r["context"] for r in records(one)
    }


# -- picking notes ---------------------------------------------------------------------
def test_folder_and_tag_pick_notes(rag: VaultRAG) -> None:
    huts = [i.id for i in note_items(rag, folders=["Places/Huts/"])]
    assert huts and all(u.startswith("Places/Huts/") for u in huts) and huts == sorted(huts)
    assert "Places/Huts/Spring Box" in huts
    tagged = note_items(rag, tags=["#huts"])
    assert "People/Jakob Steiner" in [i.id for i in tagged]
    for item in tagged:
        assert any(t == "huts" or t.startswith("huts/") for t in rag.graph.info(item.id).tags)
    both = note_items(rag, folders=["People"], tags=["huts"])
    assert {i.id for i in both} == {i.id for i in tagged if i.id.startswith("People/")}


def test_cli_summarises_a_folder_with_a_model(
    index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    out = tmp_path / "sums.jsonl"
    code, _, err = run(
        "batch",
        "--folder",
        "Places/Huts",
        "--vault",
        str(VAULT),
        "--index-dir",
        str(index_dir),
        "--out",
        str(out),
        "-m",
        "echo",
        "--workers",
        "2",
        "--progress",
    )
    assert code == 0, err
    rows = records(out)
    assert rows and all(r["mode"] == "summarise" and r["error"] is None for r in rows)
    assert all(echoed(r["summary"])["system"] == SUMMARY_SYSTEM for r in rows)
    assert "item/s" in err or "s/item" in err  # tqdm's rate
    assert "with echo" in err


def test_cli_rejects_input_and_folder_together(index_dir: Path, tmp_path: Path) -> None:
    code, _, err = run(
        "batch",
        str(note_input(tmp_path)),
        "--folder",
        "x",
        "--vault",
        str(VAULT),
        "--out",
        str(tmp_path / "o.jsonl"),
    )
    assert code == 2 and "not both" in err


# -- the examples ----------------------------------------------------------------------
def load_example(name: str) -> Any:
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_summarise_folder_writes_one_markdown_file(
    index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    out = tmp_path / "huts.md"
    argv = [
        str(VAULT),
        "Places/Huts",
        "-m",
        "test-spy",
        "--out",
        str(out),
        "--index-dir",
        str(index_dir),
    ]
    load_example("summarise_folder").main(argv)
    text = out.read_text(encoding="utf-8")
    rag = VaultRAG.open(VAULT, index_dir=index_dir, embedder=HashEmbedder(), update=False)
    huts = [i.id for i in note_items(rag, folders=["Places/Huts"])]
    headings = [line[3:] for line in text.splitlines() if line.startswith("## ")]
    assert headings == [f"[[{uri}]]" for uri in huts]
    assert text.count("answer to: Summarise the focus note") == len(huts)
    calls = len(CALLS)
    load_example("summarise_folder").main(argv)  # resumed: nothing left to ask
    assert len(CALLS) == calls and out.read_text(encoding="utf-8") == text


def test_example_questions_to_csv(index_dir: Path, tmp_path: Path, fake_model: None) -> None:
    import csv

    questions = tmp_path / "q.txt"
    questions.write_text("Where does the hut's water come from?\n\nWho repairs the roof?\n")
    out = tmp_path / "answers.csv"
    load_example("questions_to_csv").main(
        [
            str(VAULT),
            str(questions),
            "-m",
            "test-stream",
            "--out",
            str(out),
            "--index-dir",
            str(index_dir),
        ]
    )
    with open(out, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [r["question"] for r in rows] == [
        "Where does the hut's water come from?",
        "Who repairs the roof?",
    ]
    for row in rows:
        assert row["answer"] == "The spring feeds the trough ([[Places/Huts/Spring Box]])."
        assert row["sources"].startswith("[[") and row["error"] == ""
        in_context = "[[Places/Huts/Spring Box]]" in row["sources"]
        assert row["cited"] == ("[[Places/Huts/Spring Box]]" if in_context else "")
    assert "[[Places/Huts/Spring Box]]" in rows[0]["sources"]


def test_nothing_to_do_and_unwritable_output_are_clear_errors(
    rag: VaultRAG, index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    code, _, err = run(
        "batch",
        "--folder",
        "No/Such/Folder",
        "--vault",
        str(VAULT),
        "--index-dir",
        str(index_dir),
        "--out",
        str(tmp_path / "o.jsonl"),
    )
    assert code == 1 and "nothing to do: no items in --folder/--tag" in err
    with pytest.raises(BatchError, match="cannot write the output file"):
        run_batch(rag, [Item(1, 1, "focus", "Pressing")], tmp_path / "missing" / "o.jsonl")


def test_input_may_start_with_a_byte_order_mark(tmp_path: Path) -> None:
    path = tmp_path / "in.jsonl"
    path.write_bytes(b'\xef\xbb\xbf{"id": 1, "note": "Pressing"}\n')
    assert read_items(path) == [Item(1, 1, "focus", "Pressing")]
