"""``ask``: the exact prompt sent, streaming, sources, and never sending without a model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from graphrag import VaultRAG
from graphrag.answer.prompts import (
    FOCUS_SYSTEM,
    QUERY_SYSTEM,
    SUMMARY_SYSTEM,
    Prompt,
    ask_prompt,
    focus_context,
    summary_prompt,
)
from graphrag.cli import cli
from graphrag.config import load_settings
from graphrag.errors import ModelCallError, ModelNotConfiguredError, UnknownModelError
from graphrag.query.render import render_prompt as render_query
from tests.support.fakes import HashEmbedder
from tests.support.llm_fakes import (
    BETWEEN_CHUNKS,
    CALLS,
    ROOT,
    STREAM_PIECES,
    echoed,
    llm_user,
)

QUESTION = "Where does the water for the shepherd's hut come from?"
VAULT = ROOT / "sample_vault"


def expected_prompt(rag: VaultRAG, question: str = QUESTION, budget: int | None = None) -> str:
    context = render_query(rag.query(question, budget=budget, seed=1, output="prompt"))
    return f"{context.rstrip()}\n\nQUESTION: {question}\n"


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def cli_args(index_dir: Path, *extra: str) -> list[str]:
    return [
        "ask",
        QUESTION,
        "--vault",
        str(VAULT),
        "--index-dir",
        str(index_dir),
        "--seed",
        "1",
        *extra,
    ]


# -- the prompt ------------------------------------------------------------------------
def test_echo_receives_system_then_context_then_question(rag: VaultRAG) -> None:
    answer = rag.ask(QUESTION, model="echo", seed=1)
    got = echoed(answer.text)
    assert got["system"] == QUERY_SYSTEM
    assert got["prompt"] == expected_prompt(rag)
    assert got["prompt"].startswith("CONTEXT:\n[1] Document: ")
    assert got["prompt"].endswith(f"\n\nQUESTION: {QUESTION}\n")
    assert got["stream"] is True
    assert answer.prompt == Prompt(QUERY_SYSTEM, got["prompt"])
    assert answer.model == "echo"


def test_system_prompt_explains_notes_relations_and_the_citation_rule() -> None:
    for system in (QUERY_SYSTEM, FOCUS_SYSTEM, SUMMARY_SYSTEM):
        assert "double square brackets" in system and "[[Projects/Alpha]]" in system
        assert "never make up facts" in system
    assert "Relation" in QUERY_SYSTEM and "[Connection]" in QUERY_SYSTEM and "URI" in QUERY_SYSTEM
    assert "# Focus note:" in FOCUS_SYSTEM and "## Title (uri)" in FOCUS_SYSTEM


def test_sources_and_context_are_those_of_the_prompt(rag: VaultRAG) -> None:
    answer = rag.ask(QUESTION, model="echo", seed=1, budget=1500)
    result = rag.query(QUESTION, budget=1500, seed=1, output="prompt")
    assert answer.context.to_json() == result.to_json()
    docs = [*result.entries, *result.related]
    assert [uri for uri, _ in answer.sources] == [d.uri for d in docs] and docs
    for n, (uri, _title) in enumerate(answer.sources, start=1):
        assert f"[{n}] Document: " in answer.prompt.prompt and f"URI: {uri}" in answer.prompt.prompt
    data = answer.to_json()
    assert data["context"]["query"] == QUESTION and data["prompt"]["prompt"] == answer.prompt.prompt


def test_budget_reaches_retrieval(rag: VaultRAG) -> None:
    small = rag.ask(QUESTION, model="echo", seed=1, budget=300)
    big = rag.ask(QUESTION, model="echo", seed=1, budget=4000)
    assert small.context.to_json()["tokens"]["budget"] == 300
    assert len(small.prompt.prompt) < len(big.prompt.prompt)
    assert echoed(small.text)["prompt"] == expected_prompt(rag, budget=300)


def test_focus_and_summary_prompts_follow_the_same_layout(rag: VaultRAG) -> None:
    context = focus_context(rag.focus("Spring Box", seed=2), rag.settings.llm.focus_list_limit)
    prompt = ask_prompt(context, "Who made the lid?")
    assert prompt.system == FOCUS_SYSTEM
    assert prompt.prompt == f"{context.text.rstrip()}\n\n# Question\n\nWho made the lid?\n"
    assert context.text.startswith("Notes from a personal knowledge vault.")
    summary = summary_prompt(context)
    assert summary.system == SUMMARY_SYSTEM
    head, task = summary.prompt.split("\n\n# Task\n\n")
    assert head == context.text.rstrip()
    assert task.startswith("Summarise the focus note Spring Box ([[Places/Huts/Spring Box]])")
    custom = summary_prompt(context, system="S", task="Three bullets on {title} at {uri}; {x}")
    assert custom.system == "S"
    assert custom.prompt.endswith("Three bullets on Spring Box at Places/Huts/Spring Box; {x}\n")


def test_summarise_sends_the_summary_prompt(rag: VaultRAG) -> None:
    answer = rag.summarise("Spring Box", model="echo", seed=2)
    got = echoed(answer.text)
    limit = rag.settings.llm.focus_list_limit
    expected = summary_prompt(focus_context(rag.focus("Spring Box", seed=2), limit))
    assert (got["system"], got["prompt"]) == (expected.system, expected.prompt)
    assert answer.sources[0] == ("Places/Huts/Spring Box", "Spring Box")


# -- streaming -------------------------------------------------------------------------
def test_each_piece_reaches_the_caller_before_the_next_is_produced(rag: VaultRAG) -> None:
    received: list[str] = []
    seen_when_producing: list[list[str]] = []
    BETWEEN_CHUNKS.append(lambda i: seen_when_producing.append(list(received)))
    answer = rag.ask(QUESTION, model="test-stream", seed=1, on_chunk=received.append)
    assert received == list(STREAM_PIECES)
    assert seen_when_producing == [list(STREAM_PIECES[:1]), list(STREAM_PIECES[:2])]
    assert answer.text == "".join(STREAM_PIECES)
    assert answer.cited == ("Places/Huts/Spring Box",)


def test_cli_streams_the_answer_then_lists_sources(index_dir: Path, fake_model: None) -> None:
    import sys

    printed: list[str] = []
    BETWEEN_CHUNKS.append(lambda i: printed.append(sys.stdout.buffer.getvalue().decode()))
    code, out, err = run(*cli_args(index_dir, "-m", "test-stream"))
    assert code == 0, err
    assert printed == ["".join(STREAM_PIECES[:1]), "".join(STREAM_PIECES[:2])]
    answer, sources = out.split("\n\nSources:\n")
    assert answer == "".join(STREAM_PIECES)
    rag = VaultRAG.open(VAULT, index_dir=index_dir, embedder=HashEmbedder(), update=False)
    result = rag.query(QUESTION, seed=1, output="prompt")
    uris = [d.uri for d in (*result.entries, *result.related)]
    cited, others = "Places/Huts/Spring Box", [u for u in uris if u != "Places/Huts/Spring Box"]
    assert sources.splitlines() == [f"- [[{cited}]]"] + [f"- [[{u}]] (not cited)" for u in others]


def test_cli_prompt_only_json_prints_the_prompt_and_its_notes(
    index_dir: Path, fake_model: None
) -> None:
    code, out, err = run(*cli_args(index_dir, "--prompt-only", "--json"))
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"question", "mode", "sources", "prompt", "context"}
    assert (data["question"], data["mode"]) == (QUESTION, "query")
    code, text, err = run(*cli_args(index_dir, "--prompt-only"))
    assert text == Prompt(data["prompt"]["system"], data["prompt"]["prompt"]).text()
    given = [n["uri"] for n in (*data["context"]["entryNotes"], *data["context"]["relatedNotes"])]
    assert [s["uri"] for s in data["sources"]] == given
    assert all(set(s) == {"uri", "title", "relation"} for s in data["sources"])
    assert len(CALLS) == 0


def test_cli_ask_takes_the_query_filters(index_dir: Path, fake_model: None) -> None:
    def given(*flags: str) -> list[str]:
        code, out, err = run(*cli_args(index_dir, "--prompt-only", "--json", *flags))
        assert code == 0, err
        return [s["uri"] for s in json.loads(out)["sources"]]

    dairy = given("--folder", "Dairy")
    assert dairy and dairy != given()
    entries = json.loads(
        run(*cli_args(index_dir, "--prompt-only", "--json", "--folder", "Dairy"))[1]
    )
    assert all(n["uri"].startswith("Dairy/") for n in entries["context"]["entryNotes"])
    assert entries["context"]["filters"] == {"folders": ["Dairy"]}
    tagged = json.loads(
        run(
            *cli_args(index_dir, "--prompt-only", "--json", "--tag", "hut", "--property", "created")
        )[1]
    )
    assert tagged["context"]["filters"] == {"tags": ["hut"], "properties": ["created"]}


def test_cli_nothing_found_says_so_and_calls_no_model(index_dir: Path, fake_model: None) -> None:
    code, out, err = run(*cli_args(index_dir, "-m", "test-spy", "--tag", "no-such-tag"))
    assert code == 0, err
    assert out.startswith("Nothing in the vault matches this question")
    assert "Sources:" not in out and len(CALLS) == 0


def test_cli_sends_exactly_what_prompt_only_prints(index_dir: Path, fake_model: None) -> None:
    code, shown, err = run(*cli_args(index_dir, "--prompt-only"))
    assert code == 0, err
    code, out, err = run(*cli_args(index_dir, "-m", "echo"))
    assert code == 0, err
    got = echoed(out.split("\n\nSources:\n")[0])
    assert shown == Prompt(got["system"], got["prompt"]).text()
    assert shown.startswith(f"SYSTEM:\n{QUERY_SYSTEM.rstrip()}\n\nPROMPT:\nCONTEXT:\n")


def test_cli_json_has_answer_sources_prompt_and_context(index_dir: Path, fake_model: None) -> None:
    code, out, err = run(*cli_args(index_dir, "-m", "test-stream", "--json"))
    assert code == 0, err
    data = json.loads(out)
    assert data["answer"] == "".join(STREAM_PIECES)
    assert data["cited"] == ["Places/Huts/Spring Box"]
    assert data["model"] == "test-stream"
    assert (data["question"], data["mode"], data["nothingFound"]) == (QUESTION, "query", False)
    # the cited note first, then the others given to the model in prompt order, marked
    given = [n["uri"] for n in (*data["context"]["entryNotes"], *data["context"]["relatedNotes"])]
    assert [s["uri"] for s in data["sources"]] == ["Places/Huts/Spring Box"] + [
        u for u in given if u != "Places/Huts/Spring Box"
    ]
    assert [s["cited"] for s in data["sources"]] == [True] + [False] * (len(given) - 1)
    first_entry = data["context"]["entryNotes"][0]
    entry = next(s for s in data["sources"] if s["uri"] == first_entry["uri"])
    assert entry["relation"] == "Entry note, matched by " + "+".join(first_entry["matchedBy"])
    assert set(data["seconds"]) == {"retrieval", "model"}
    assert data["prompt"]["prompt"].endswith(f"QUESTION: {QUESTION}\n")


# -- nothing is sent without a model ---------------------------------------------------
def test_prompt_only_sends_nothing_even_with_a_model_configured(
    index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[llm]\nmodel = "test-spy"\n')
    code, out, err = run(*cli_args(index_dir, "--config", str(config), "--prompt-only"))
    assert code == 0, err
    assert len(CALLS) == 0
    assert "PROMPT:\nCONTEXT:\n" in out and out.endswith(f"QUESTION: {QUESTION}\n")
    code, out, err = run(*cli_args(index_dir, "--config", str(config)))  # without: it is sent
    assert code == 0 and len(CALLS) == 1 and CALLS.items[0]["model"] == "test-spy"


def test_no_model_configured_says_how_and_sends_nothing(
    index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    (llm_user() / "default_model.txt").write_text("test-spy")  # llm's default is never used
    code, out, err = run(*cli_args(index_dir))
    assert code != 0
    for hint in (
        "no language model is configured",
        "-m MODEL",
        '[llm] model = "MODEL"',
        "llm models",
        "llm install llm-ollama",
        "nothing was sent",
    ):
        assert hint in err, hint
    assert len(CALLS) == 0
    # it fails before touching the vault: no index is built for an unconfigured ask
    fresh = tmp_path / "fresh-index"
    code, _, _ = run("ask", "q", "--vault", str(VAULT), "--index-dir", str(fresh))
    assert code != 0 and not fresh.exists()


def test_no_model_in_python_raises(rag: VaultRAG) -> None:
    (llm_user() / "default_model.txt").write_text("echo")
    with pytest.raises(ModelNotConfiguredError, match="-m MODEL"):
        rag.ask(QUESTION)
    assert rag.ask(QUESTION, dry_run=True).text == ""  # a dry run needs no model


def test_unknown_model_is_named_with_close_matches(
    rag: VaultRAG, index_dir: Path, fake_model: None
) -> None:
    with pytest.raises(UnknownModelError) as info:
        rag.ask(QUESTION, model="ecko")
    assert info.value.suggestions[0] == "echo"
    assert "llm knows no model named 'ecko'" in str(info.value)
    code, out, err = run(*cli_args(index_dir, "-m", "no-such-model"))
    assert code != 0 and "llm knows no model named 'no-such-model'" in err
    assert "llm models" in err and len(CALLS) == 0


def test_config_model_and_options_are_used_and_flags_override(
    index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[llm]\nmodel = "echo"\noptions = { example_bool = false }\n')
    code, out, err = run(*cli_args(index_dir, "--config", str(config)))
    assert code == 0, err
    assert echoed(out.split("\n\nSources:")[0])["options"] == {"example_bool": False}
    code, out, err = run(*cli_args(index_dir, "--config", str(config), "-o", "example_bool", "1"))
    assert echoed(out.split("\n\nSources:")[0])["options"] == {"example_bool": True}
    code, out, err = run(*cli_args(index_dir, "--config", str(config), "-m", "test-stream"))
    assert code == 0 and out.startswith("".join(STREAM_PIECES))


def test_unknown_option_is_an_error_listing_the_models_options(rag: VaultRAG) -> None:
    with pytest.raises(ModelCallError, match="unknown option 'temprature'.*example_bool"):
        rag.ask(QUESTION, model="echo", options={"temprature": 0.2})
    assert len(CALLS) == 0


def test_env_configures_the_model(rag: VaultRAG) -> None:
    settings = load_settings(
        env={"VAULTRAG_LLM__MODEL": "echo", "VAULTRAG_LLM__OPTIONS": '{"example_bool": true}'}
    )
    configured = VaultRAG(rag.vault, rag.index_dir, settings, HashEmbedder())
    got = echoed(configured.ask(QUESTION, seed=1).text)
    assert got["options"] == {"example_bool": True} and got["system"] == QUERY_SYSTEM


def test_system_file_replaces_the_system_prompt(
    index_dir: Path, tmp_path: Path, fake_model: None
) -> None:
    system = tmp_path / "system.md"
    system.write_text("Answer in German. Cite as [[uri]].\n", encoding="utf-8")
    code, out, err = run(*cli_args(index_dir, "-m", "echo", "--system", str(system)))
    assert code == 0, err
    got = echoed(out.split("\n\nSources:")[0])
    assert got["system"] == "Answer in German. Cite as [[uri]]."
    assert got["prompt"].endswith(f"QUESTION: {QUESTION}\n")
    config = tmp_path / "c.toml"
    config.write_text(f'[llm]\nmodel = "echo"\nsystem_prompt_file = "{system}"\n')
    code, out, err = run(*cli_args(index_dir, "--config", str(config)))
    assert echoed(out.split("\n\nSources:")[0])["system"] == "Answer in German. Cite as [[uri]]."


@pytest.mark.parametrize("text", ["", "  \n\t\n"])
@pytest.mark.parametrize("command", ["ask", "batch", "config"])
def test_an_empty_system_file_is_an_error_naming_it(
    index_dir: Path, tmp_path: Path, fake_model: None, text: str, command: str
) -> None:
    system = tmp_path / "system.md"
    system.write_text(text, encoding="utf-8")
    if command == "ask":
        args = cli_args(index_dir, "-m", "echo", "--system", str(system))
    elif command == "batch":
        questions = tmp_path / "in.jsonl"
        questions.write_text(json.dumps({"id": "a", "query": QUESTION}) + "\n", encoding="utf-8")
        where = ["--vault", str(VAULT), "--index-dir", str(index_dir)]
        out = ["--out", str(tmp_path / "out.jsonl")]
        args = ["batch", str(questions), *where, *out, "-m", "echo", "--system", str(system)]
    else:
        config = tmp_path / "c.toml"
        config.write_text(f'[llm]\nmodel = "echo"\nsystem_prompt_file = "{system}"\n')
        args = cli_args(index_dir, "--config", str(config))
    code, out, err = run(*args)
    assert code != 0 and f"{system}: the system prompt file is empty" in err
    assert len(CALLS) == 0


def test_provider_failure_is_one_line_not_a_traceback(index_dir: Path, fake_model: None) -> None:
    code, out, err = run(*cli_args(index_dir, "-m", "test-fail"))
    assert code == 1
    assert "model test-fail: RuntimeError: connection reset by provider" in err
    assert "Traceback" not in err


def test_a_missing_api_key_says_how_to_set_it(
    rag: VaultRAG, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LLM_ECHO_NEEDS_KEY_KEY", raising=False)
    with pytest.raises(ModelCallError, match="llm keys set echo-needs-key"):
        rag.ask(QUESTION, model="echo-needs-key")
    monkeypatch.setenv("LLM_ECHO_NEEDS_KEY_KEY", "k")
    assert echoed(rag.ask(QUESTION, model="echo-needs-key").text)["key"] == "k"


def test_focus_prompts_keep_the_nearest_siblings_only(tmp_path: Path) -> None:
    from tests.support.files import write

    vault = tmp_path / "vault"
    for i in range(1, 31):
        write(
            vault,
            f"Plugins/Plugin {i:02d}.md",
            f"# Plugin {i}\n\nLinks to [[Plugin {i + 1:02d}]].\n",
        )
    rag = VaultRAG.open(vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    whole = rag.focus("Plugin 15", seed=1).focus_note
    assert len(whole.prior_siblings) == 14 and len(whole.younger_siblings) == 15
    context = focus_context(rag.focus("Plugin 15", seed=1), 3)
    focus = context.result.focus_note
    assert [u.title for u in focus.prior_siblings] == ["Plugin 12", "Plugin 13", "Plugin 14"]
    assert [u.title for u in focus.younger_siblings] == ["Plugin 16", "Plugin 17", "Plugin 18"]
    assert "Plugin 11 (" not in context.text.split("\n\n")[1]  # the focus block's lists
    assert context.to_json()["focusNote"]["priorSiblings"][0]["title"] == "Plugin 12"
    default = focus_context(rag.focus("Plugin 15", seed=1), rag.settings.llm.focus_list_limit)
    assert default.result.focus_note.prior_siblings == whole.prior_siblings
    settings = load_settings(env={"VAULTRAG_LLM__FOCUS_LIST_LIMIT": "0"})
    unlimited = VaultRAG(rag.vault, rag.index_dir, settings, HashEmbedder())
    limit = unlimited.settings.llm.focus_list_limit
    assert focus_context(unlimited.focus("Plugin 15", seed=1), limit).result.focus_note == whole
