"""Follow-up questions, answers without a model call, and stopping a model mid-answer."""

from __future__ import annotations

import threading

from graphrag import VaultRAG
from graphrag.answer.history import Turn, history_block, retrieval_text
from graphrag.answer.models import generate, get_model
from graphrag.answer.prompts import Prompt
from graphrag.config import load_settings
from tests.support.fakes import HashEmbedder
from tests.support.llm_fakes import CALLS, SLOW, SLOW_PIECES, echoed

FIRST = Turn(
    "Where does the water for the shepherd's hut come from?",
    "From the spring box above the hut ([[Places/Huts/Spring Box|the box]]).",
)
FOLLOW_UP = "Who made it?"


def test_history_reaches_the_prompt_before_the_question(rag: VaultRAG) -> None:
    older = Turn("Which huts are there?", "Three ([[Places/Huts/index]]).")
    answer = rag.ask(FOLLOW_UP, model="echo", seed=1, history=[older, FIRST])
    prompt = echoed(answer.text)["prompt"]
    block = (
        "EARLIER IN THIS CONVERSATION:\n"
        f"Q: {older.question}\nA: {older.answer}\n\n"
        f"Q: {FIRST.question}\nA: {FIRST.answer}\n\n"
        f"QUESTION: {FOLLOW_UP}\n"
    )
    assert prompt.endswith(block)
    assert prompt.startswith("CONTEXT:\n")


def test_focus_prompts_carry_history_under_a_heading(rag: VaultRAG) -> None:
    answer = rag.ask(FOLLOW_UP, model="echo", seed=1, note="Spring Box", history=[FIRST])
    prompt = echoed(answer.text)["prompt"]
    assert prompt.endswith(
        f"# Earlier in this conversation\n\nQ: {FIRST.question}\nA: {FIRST.answer}\n\n"
        f"# Question\n\n{FOLLOW_UP}\n"
    )
    assert answer.context.kind == "focus" and answer.sources[0][0] == "Places/Huts/Spring Box"


def test_only_the_last_history_turns_are_sent(rag: VaultRAG) -> None:
    turns = [Turn(f"question {i}", f"answer {i}") for i in range(10)]
    prompt = rag.ask(FOLLOW_UP, model="echo", seed=1, history=turns).prompt.prompt
    kept = rag.settings.llm.history_turns
    assert kept == 6
    assert "Q: question 3\n" not in prompt and "Q: question 4\n" in prompt
    settings = load_settings(env={"VAULTRAG_LLM__HISTORY_TURNS": "0"})
    none = VaultRAG(rag.vault, rag.index_dir, settings, HashEmbedder())
    assert "EARLIER" not in none.ask(FOLLOW_UP, seed=1, history=turns, dry_run=True).prompt.prompt
    assert history_block([], "query") == ""


def test_retrieval_follows_the_previous_question_and_its_cited_notes(rag: VaultRAG) -> None:
    alone = rag.ask(FOLLOW_UP, seed=1, dry_run=True).context.result
    assert "Places/Huts/Spring Box" not in [e.uri for e in alone.entries]
    followed = rag.ask(FOLLOW_UP, seed=1, dry_run=True, history=[FIRST]).context.result
    entry = next(e for e in followed.entries if e.uri == "Places/Huts/Spring Box")
    assert "title" in entry.matched_by
    assert followed.query == f"{FOLLOW_UP}\n{FIRST.question}\nSpring Box"


def test_retrieval_text_names_at_most_five_cited_notes_once_each() -> None:
    answer = " ".join(f"[[N{i}]] [[N{i}|again]]" for i in range(8)) + " [[Nowhere]]"
    text = retrieval_text("Q?", [Turn("old?", answer)], lambda t: None if t == "Nowhere" else t)
    assert text == "Q?\nold?\nN0\nN1\nN2\nN3\nN4"
    assert retrieval_text("Q?", [], lambda t: t) == "Q?"


def test_nothing_found_is_answered_without_calling_the_model(rag: VaultRAG) -> None:
    pieces: list[str] = []
    answer = rag.ask(
        "Where does the water come from?",
        model="test-spy",
        filters={"tag": "no-such-tag"},
        on_chunk=pieces.append,
    )
    assert len(CALLS) == 0
    assert answer.nothing_found and answer.sources == () and answer.cited == ()
    assert answer.text.startswith("Nothing in the vault matches this question (no note is")
    assert "among the notes the filters keep" in answer.text and pieces == [answer.text]
    data = answer.to_json()
    assert data["nothingFound"] is True and data["sources"] == [] and data["model"] == ""


def test_cancel_stops_the_model_at_its_next_piece_and_closes_it() -> None:
    cancel = threading.Event()
    seen: list[str] = []

    def on_chunk(piece: str) -> None:
        seen.append(piece)
        if len(seen) == 3:
            cancel.set()

    text, usage = generate(
        get_model("test-slow"), Prompt("s", "p"), on_chunk=on_chunk, cancel=cancel
    )
    assert text == "piece 0 piece 1 piece 2 " and usage == {}
    assert SLOW.closed.is_set() and not SLOW.finished.is_set()
    assert SLOW.produced == 3 < SLOW_PIECES


def test_a_cancel_before_the_call_sends_nothing() -> None:
    cancel = threading.Event()
    cancel.set()
    assert generate(get_model("test-slow"), Prompt("s", "p"), cancel=cancel) == ("", {})
    assert len(CALLS) == 0
