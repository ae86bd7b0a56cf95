"""Language models for tests, registered with ``llm`` like a plugin's; no network.

``llm-echo`` (a dev dependency) answers with the exact prompt and system prompt
it received, as JSON. These add what it cannot show: a model that streams in
several pieces and watches whether each arrived before the next was produced,
one that records calls, one whose provider fails, and slow ones (sync, and with an
async form) that record whether they were stopped early (a cancelled answer).
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import llm
import pytest

import graphrag.api
from graphrag import VaultRAG
from tests.support.fakes import HashEmbedder
from tests.support.files import ROOT

PLUGIN_NAME = "vault-graphrag-test-models"


class Calls:
    """Every prompt a test model received, from any thread."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.items: list[dict[str, Any]] = []

    def add(self, model: str, prompt: Any) -> None:
        with self.lock:
            self.items.append({"model": model, "prompt": prompt.prompt, "system": prompt.system})

    def __len__(self) -> int:
        return len(self.items)


CALLS = Calls()
# Called between the pieces "test-stream" yields; tests set it to look at what
# the consumer has done with the pieces so far.
BETWEEN_CHUNKS: list[Callable[[int], None]] = []
STREAM_PIECES = ("The spring ", "feeds the trough ", "([[Places/Huts/Spring Box]]).")


class StreamModel(llm.Model):
    model_id = "test-stream"
    can_stream = True

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[str]:
        CALLS.add(self.model_id, prompt)
        for i, piece in enumerate(STREAM_PIECES):
            if i:
                for hook in BETWEEN_CHUNKS:
                    hook(i)
            yield piece


class SpyModel(llm.Model):
    """Answers with the first line of the prompt; on "FAIL" in a question, the provider fails."""

    model_id = "test-spy"
    can_stream = True

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[str]:
        CALLS.add(self.model_id, prompt)
        if "FAIL" in prompt.prompt.rsplit("\n\n", 1)[-1]:
            raise RuntimeError("provider down")
        yield "answer to: " + prompt.prompt.rstrip("\n").rsplit("\n", 1)[-1]


class FailingModel(llm.Model):
    model_id = "test-fail"
    can_stream = True

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[str]:
        CALLS.add(self.model_id, prompt)
        yield "partial "
        raise RuntimeError("connection reset by provider")


class SlowState:
    """What "test-slow" did: pieces produced, and whether its stream was closed early."""

    def __init__(self) -> None:
        self.produced = 0
        self.closed = threading.Event()  # the generator was closed before its end
        self.finished = threading.Event()  # it yielded every piece
        self.produced_at_close = -1  # pieces made when it was closed
        self.read_prompt = False  # the async model got past reading its prompt

    def reset(self) -> None:
        self.__init__()  # type: ignore[misc]


SLOW = SlowState()
SLOW_PIECES = 200
SLOW_STEP_S = 0.02


class SlowModel(llm.Model):
    """Streams ``SLOW_PIECES`` pieces, one every ``SLOW_STEP_S`` seconds (4 s in all), and
    records in ``SLOW`` whether its consumer closed it before the end."""

    model_id = "test-slow"
    can_stream = True

    def execute(self, prompt: Any, stream: bool, response: Any, conversation: Any) -> Iterator[str]:
        CALLS.add(self.model_id, prompt)
        try:
            for i in range(SLOW_PIECES):
                time.sleep(SLOW_STEP_S)
                SLOW.produced += 1
                yield f"piece {i} "
            SLOW.finished.set()
        except GeneratorExit:
            SLOW.produced_at_close = SLOW.produced
            SLOW.closed.set()
            raise


SLOW_FIRST_S = 1.5


class SlowAsyncModel(llm.AsyncModel):
    """The async form of "test-slow-async": it reads its prompt for ``SLOW_FIRST_S``
    seconds before its first piece (a local model on a long context), then streams like
    "test-slow"; records in ``SLOW`` whether its task was cancelled."""

    model_id = "test-slow-async"
    can_stream = True

    async def execute(
        self, prompt: Any, stream: bool, response: Any, conversation: Any
    ) -> AsyncIterator[str]:
        CALLS.add(self.model_id, prompt)
        try:
            await asyncio.sleep(SLOW_FIRST_S)
            SLOW.read_prompt = True
            for i in range(SLOW_PIECES):
                await asyncio.sleep(SLOW_STEP_S)
                SLOW.produced += 1
                yield f"piece {i} "
            SLOW.finished.set()
        except (asyncio.CancelledError, GeneratorExit):
            SLOW.produced_at_close = SLOW.produced
            SLOW.closed.set()
            raise


class SlowSyncTwin(SlowModel):
    """The sync form of "test-slow-async" (what the CLI would use)."""

    model_id = "test-slow-async"


class FailingAsyncModel(llm.AsyncModel):
    """The async form of "test-fail-async": one piece, then the provider fails."""

    model_id = "test-fail-async"
    can_stream = True

    async def execute(
        self, prompt: Any, stream: bool, response: Any, conversation: Any
    ) -> AsyncIterator[str]:
        CALLS.add(self.model_id, prompt)
        yield "partial "
        raise RuntimeError("connection reset by provider")


class FailingSyncTwin(FailingModel):
    model_id = "test-fail-async"


class _Plugin:
    @llm.hookimpl
    def register_models(self, register: Callable[..., None]) -> None:
        register(StreamModel())
        register(SpyModel())
        register(FailingModel())
        register(SlowModel())
        register(SlowSyncTwin(), SlowAsyncModel())
        register(FailingSyncTwin(), FailingAsyncModel())


@pytest.fixture(autouse=True)
def llm_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """llm's own folder (keys, default model, aliases) is a fresh temp dir; test models on."""
    user = tmp_path_factory.mktemp("llm-user")
    monkeypatch.setenv("LLM_USER_PATH", str(user))
    for key in ("OPENAI_API_KEY", "LLM_OPENAI_SHOW_RESPONSES"):
        monkeypatch.delenv(key, raising=False)
    if not llm.plugins.pm.has_plugin(PLUGIN_NAME):
        llm.plugins.pm.register(_Plugin(), name=PLUGIN_NAME)
    CALLS.items.clear()
    BETWEEN_CHUNKS.clear()
    SLOW.reset()
    yield user
    BETWEEN_CHUNKS.clear()


def llm_user() -> Path:
    """llm's folder for this test (set by ``llm_env``)."""
    return Path(os.environ["LLM_USER_PATH"])


def echoed(text: str) -> dict[str, Any]:
    """What llm-echo received: its answer is that, as JSON."""
    data: dict[str, Any] = json.loads(text)
    return data


def open_sample(index_dir: Path) -> VaultRAG:
    """sample_vault indexed with the hash embedder into ``index_dir`` (the vault is read-only)."""
    return VaultRAG.open(ROOT / "sample_vault", index_dir=index_dir, embedder=HashEmbedder())


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """sample_vault indexed once per test module."""
    path = tmp_path_factory.mktemp("llm") / "idx"
    open_sample(path)
    return path


@pytest.fixture
def rag(index_dir: Path) -> VaultRAG:
    return VaultRAG.open(
        ROOT / "sample_vault", index_dir=index_dir, embedder=HashEmbedder(), update=False
    )


@pytest.fixture
def fake_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI's embedder is the hash embedder the index was built with."""
    monkeypatch.setattr(graphrag.api, "make_embedder", lambda settings: HashEmbedder())
