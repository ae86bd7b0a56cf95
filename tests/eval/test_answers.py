"""The answer words eval reports for every system (graphrag/eval/answers.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphrag.api import VaultRAG
from graphrag.errors import QASetError
from graphrag.eval.answers import answer_shares, shown_text, wanted
from graphrag.eval.questions import load_questions
from graphrag.eval.report import render_markdown
from graphrag.eval.run import run_eval
from tests.support.fakes import HashEmbedder
from tests.support.files import write


def test_the_question_s_own_words_are_not_asked_of_the_context():
    assert wanted("The hut has stone walls", "What walls does the hut have?") == {"stone"}
    # When the question gives every word, all of them are looked for.
    assert wanted("stone walls", "stone walls?") == {"stone", "walls"}
    assert wanted("a b", "q") == set()


def test_shares_in_the_context_and_in_the_gold_notes_alone():
    shown = [
        ("Huts/Hut", shown_text("Huts/Hut", "Hut", "Walls of granite, 60 cm thick.")),
        ("Other", shown_text("Other", "Other", "Roof of slate.")),
    ]
    whole, gold = answer_shares("granite walls and a slate roof", "hut?", shown, ["Huts/Hut"])
    # wanted: granite, walls, slate, roof -- all four shown, two in the gold note
    assert (whole, gold) == (1.0, 0.5)
    assert answer_shares("a", "q", shown, ["Huts/Hut"]) is None


@pytest.fixture
def fruit(tmp_path: Path) -> VaultRAG:
    vault = tmp_path / "fruit"
    write(vault, "Apples.md", "Apples grow in orchards and ripen in September.")
    write(vault, "Bananas.md", "Bananas grow in the tropics all year.")
    return VaultRAG.open(vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())


def test_eval_reports_answer_words_for_every_system(fruit: VaultRAG, tmp_path: Path):
    qa = tmp_path / "qa.jsonl"
    rows = [
        {
            "id": "1",
            "question": "When do apples ripen?",
            "gold": ["Apples"],
            "type": "single",
            "answer": "In September, in orchards.",
        },
        {"id": "2", "question": "Where do bananas grow?", "gold": ["Bananas"], "type": "single"},
    ]
    qa.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    report = run_eval(fruit, qa, budgets=[0, 1000], systems=["graphrag", "vector"])
    for system in ("graphrag", "vector"):
        # Only question 1 has an answer: the row's mean is its share alone.
        full = report.row(system, 1000)
        assert (full.answer_words, full.answer_words_gold) == (1.0, 1.0)
        empty = report.row(system, 0)  # nothing fits: nothing shown
        assert (empty.answer_words, empty.answer_words_gold) == (0.0, 0.0)
    data = report.to_json()
    row = next(r for r in data["rows"] if r["system"] == "vector" and r["budget"] == 1000)
    assert (row["answerWords"], row["answerWordsGold"]) == (1.0, 1.0)
    by_id = {(o["id"], o["system"], o["budget"]): o for o in data["outcomes"]}
    assert by_id[("1", "graphrag", 1000)]["answerWords"] == 1.0
    assert "answerWords" not in by_id[("2", "graphrag", 1000)]
    density = render_markdown(report).splitlines()
    assert any(line.endswith("| 100.0 | 100.0 |") for line in density)


def test_without_answers_the_columns_say_so(fruit: VaultRAG, tmp_path: Path):
    qa = tmp_path / "qa.jsonl"
    qa.write_text(
        json.dumps({"id": "1", "question": "apples?", "gold": ["Apples"], "type": "single"}),
        encoding="utf-8",
    )
    report = run_eval(fruit, qa, budgets=[1000], systems=["vector"])
    assert report.row("vector", 1000).answer_words is None
    assert "answerWords" not in report.to_json()["rows"][0]
    assert render_markdown(report).splitlines()[-1].endswith("| - | - |")


def test_an_answer_that_is_not_text_is_an_error_naming_the_line(tmp_path: Path):
    qa = tmp_path / "qa.jsonl"
    rows = [
        {"id": "1", "question": "q", "gold": ["A"], "type": "single", "answer": "fine"},
        {"id": "2", "question": "q", "gold": ["A"], "type": "single", "answer": 42},
    ]
    qa.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(QASetError, match="line 2.*'answer' must be a string"):
        load_questions(qa)
