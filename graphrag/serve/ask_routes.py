"""``POST /ask``: an answer from a language model over the retrieved notes.

Retrieval and the prompt are the CLI's (``VaultRAG.prepare_ask``), in a thread of the
answer's own; the endpoint waits for that step before answering, so every error before
the answer starts is an ordinary JSON error (no model 409, an unknown model or option
422, an unknown note 404). The model call is the CLI's too: the async form of the model
when its plugin has one, as a task on the event loop; else ``answer.ask.complete`` in
the same thread. Its pieces of text reach the response through a queue, so a slow model
holds no worker of the pool and each piece is written as soon as it exists.

* ``stream: true`` (default): Server-Sent Events, ``context``, then ``delta``s, then
  ``done``; a failure after the stream began is an ``error`` event, never a cut body.
* ``stream: false``: one JSON, the same as ``vault-graphrag ask --json``.

A client that goes away stops the model. Starlette stops the stream when the connection
closes (or when writing to it fails: a comment line goes out every ``HEARTBEAT_S``
seconds while the model is silent), and ``AnswerStream`` then stops the worker: an async
model's task is cancelled at once (its plugin's connection closes with it); a sync
model's stream is closed by ``answer.models.generate`` at its next piece. A JSON answer
polls for the disconnect instead. See docs/architecture.md ("Serving").
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse
from pydantic import Field
from starlette.types import Receive, Scope, Send

from graphrag.answer.ask import Answer, Prepared, complete, complete_async
from graphrag.answer.history import Turn
from graphrag.answer.models import async_variant
from graphrag.api import VaultRAG
from graphrag.errors import (
    LLMError,
    ModelCallError,
    ModelNotConfiguredError,
    ModelOptionsError,
    UnknownModelError,
)
from graphrag.serve.bodies import (
    MAX_BUDGET,
    MAX_NOTE_CHARS,
    MAX_TEXT_CHARS,
    Body,
    FiltersBody,
    Question,
    parsed_filters,
)

log = logging.getLogger(__name__)

HEARTBEAT_S = 10.0  # a comment line while the model is silent: finds a gone client
DISCONNECT_POLL_S = 0.25  # how often a JSON answer checks that its client is still there
MAX_ANSWER_CHARS = 32_768
MAX_TURNS = 50
MAX_SYSTEM_CHARS = 65_536
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}

Scalar = str | int | float | bool | None


class TurnBody(Body):
    question: str = Field(max_length=MAX_TEXT_CHARS, description="an earlier question")
    answer: str = Field(max_length=MAX_ANSWER_CHARS, description="the answer it got")


class AskBody(Body):
    question: Question = Field(description="free text")
    budget: int | None = Field(None, ge=0, le=MAX_BUDGET, description="tokens for the context")
    model: str | None = Field(
        None, min_length=1, max_length=200, description="an llm model id or alias (GET /models)"
    )
    options: dict[str, Scalar] = Field(
        default_factory=dict, max_length=50, description="model options, over [llm] options"
    )
    filters: FiltersBody | None = Field(None, description="which notes (query mode only)")
    note: str | None = Field(
        None,
        min_length=1,
        max_length=MAX_NOTE_CHARS,
        description="ask about this note (uri, path, title or alias): its focus context",
    )
    history: list[TurnBody] = Field(
        default_factory=list, max_length=MAX_TURNS, description="earlier turns, oldest first"
    )
    stream: bool = Field(True, description="Server-Sent Events; false: one JSON")
    seed: int | None = Field(None, description="makes the retrieval reproducible")
    system: str | None = Field(
        None, max_length=MAX_SYSTEM_CHARS, description="replaces the system prompt"
    )
    prompt_only: bool = Field(
        False, description="build the prompt and call no model (`ask --prompt-only`)"
    )


def sse(event: str, data: Any) -> bytes:
    """One Server-Sent Event. The JSON has no line breaks, so one ``data:`` line holds it."""
    return f"event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n".encode()


def error_event(exc: BaseException) -> dict[str, str]:
    if isinstance(exc, LLMError):
        return {"error": "model_error", "detail": str(exc)}
    log.error("an answer failed while streaming", exc_info=exc)
    return {"error": "internal_error", "detail": f"{type(exc).__name__} (see the server log)"}


class Worker:
    """One answer: ``prepare`` (the model, retrieval, the prompt) in a daemon thread, then
    the model call. ``ready()`` returns the prepared answer (or raises what ``prepare``
    raised: an ordinary JSON error); the text then arrives on ``queue``: ``("delta",
    text)``s, then ``("done", Answer)`` or ``("error", exception)``.

    The model call is the async form of the model when its plugin has one, run as a task
    on the event loop: ``stop()`` cancels it at once, which closes its connection. Else
    the thread goes straight on with ``complete`` (the first piece needs no second hop
    between threads), and ``stop()`` makes it close the model's stream at its next piece.
    """

    def __init__(self, prepare: Callable[[], Prepared]) -> None:
        self.cancel = threading.Event()
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.loop = asyncio.get_running_loop()
        self.task: asyncio.Task[None] | None = None
        self._prepared: asyncio.Future[tuple[Prepared, Any]] = self.loop.create_future()
        self._prepare = prepare
        threading.Thread(target=self._run, name="vault-graphrag-ask", daemon=True).start()

    async def ready(self) -> Prepared:
        try:
            prepared, quick = await self._prepared
        except BaseException:
            self.stop()
            raise
        if quick is not None:
            self.task = self.loop.create_task(self._run_async(prepared, quick))
        return prepared

    def stop(self) -> None:
        """The answer is over or nobody wants it any more: stop the model."""
        self.cancel.set()
        if self.task is not None:
            self.task.cancel()

    def _call(self, fn: Callable[..., Any], *args: Any) -> None:
        try:
            self.loop.call_soon_threadsafe(fn, *args)
        except RuntimeError:  # the loop is closed (shutdown): nobody is listening
            self.cancel.set()

    def _put(self, item: tuple[str, Any]) -> None:
        self._call(self.queue.put_nowait, item)

    def _settle(self, result: tuple[Prepared, Any] | None, error: BaseException | None) -> None:
        if self._prepared.done():  # the request was cancelled meanwhile
            return
        if result is None:
            self._prepared.set_exception(error or RuntimeError("nothing prepared"))
        else:
            self._prepared.set_result(result)

    def _run(self) -> None:
        try:
            prepared = self._prepare()
            quick = None
            if prepared.model is not None and not prepared.nothing_found:
                quick = async_variant(prepared.model)
        except Exception as exc:  # before any answer: the endpoint raises it
            self._call(self._settle, None, exc)
            return
        self._call(self._settle, (prepared, quick), None)
        if quick is not None:
            return  # the event loop runs the async model
        try:
            answer = complete(
                prepared, on_chunk=lambda text: self._put(("delta", text)), cancel=self.cancel
            )
        except Exception as exc:  # reported to the client, not lost in a thread
            self._put(("error", exc))
        else:
            self._put(("done", answer))

    async def _run_async(self, prepared: Prepared, model: Any) -> None:
        try:
            answer = await complete_async(
                prepared, model, on_chunk=lambda text: self.queue.put_nowait(("delta", text))
            )
        except Exception as exc:  # CancelledError is not caught: stop() wants it through
            self.queue.put_nowait(("error", exc))
        else:
            self.queue.put_nowait(("done", answer))


async def events(
    worker: Worker, prepared: Prepared, with_prompt: bool = False
) -> AsyncIterator[bytes]:
    """The stream: ``context``, ``delta``s, then ``done`` or ``error``. ``with_prompt``
    (``prompt_only``): ``done`` carries the prompt, as ``ask --json`` does, since it is
    what was asked for."""
    yield sse("context", prepared.context_json())
    while True:
        try:
            kind, value = await asyncio.wait_for(worker.queue.get(), HEARTBEAT_S)
        except TimeoutError:
            yield b": the model is thinking\n\n"
            continue
        if kind == "delta":
            yield sse("delta", {"text": value})
        elif kind == "done":
            done = value.done_json()
            if with_prompt:
                done["prompt"] = value.prompt.to_json()
            yield sse("done", done)
            return
        else:
            yield sse("error", error_event(value))
            return


class AnswerStream(StreamingResponse):
    """The event stream of one answer; however it ends (done, a client gone, a failed
    write, a server shutting down), the model call is cancelled."""

    def __init__(self, worker: Worker, prepared: Prepared, with_prompt: bool = False) -> None:
        super().__init__(
            events(worker, prepared, with_prompt),
            media_type="text/event-stream",
            headers=STREAM_HEADERS,
        )
        self.worker = worker

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self.worker.stop()


async def whole(worker: Worker, request: Request) -> Answer | None:
    """The answer in one piece; None if the client went away (the model is stopped)."""
    loop = asyncio.get_running_loop()
    checked = loop.time()
    try:
        while True:
            try:
                kind, value = await asyncio.wait_for(worker.queue.get(), DISCONNECT_POLL_S)
            except TimeoutError:
                kind, value = "", None
            if loop.time() - checked >= DISCONNECT_POLL_S:  # pieces may never pause
                if await request.is_disconnected():
                    return None
                checked = loop.time()
            if kind == "done":
                answer: Answer = value
                return answer
            if kind == "error":
                raise value
    finally:
        worker.stop()


def _install_llm_errors(app: FastAPI) -> None:
    """The model's errors before any text was sent, shaped like the server's others."""

    def handler(status: int, code: str, extra: Callable[[Any], dict[str, Any]]) -> Any:
        async def handle(_request: Request, exc: Exception) -> JSONResponse:
            body = {"error": code, "detail": str(exc), **extra(exc)}
            return JSONResponse(body, status_code=status)

        return handle

    def none(_exc: Any) -> dict[str, Any]:
        return {}

    app.add_exception_handler(ModelNotConfiguredError, handler(409, "model_not_configured", none))
    app.add_exception_handler(
        UnknownModelError,
        handler(422, "unknown_model", lambda e: {"field": "model", "suggestions": e.suggestions}),
    )
    app.add_exception_handler(
        ModelOptionsError, handler(422, "invalid_request", lambda e: {"field": "options"})
    )
    app.add_exception_handler(ModelCallError, handler(502, "model_error", none))
    app.add_exception_handler(LLMError, handler(500, "model_error", none))


ASK_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "description": "Server-Sent Events: context, delta (zero or more), then done or error. "
        "With stream: false, the JSON of `vault-graphrag ask --json`.",
        "content": {"text/event-stream": {}, "application/json": {}},
    },
    404: {"description": "note_not_found: no such note (with note)"},
    409: {"description": "model_not_configured: no model given and none configured"},
    422: {"description": "invalid_request, unknown_model or ambiguous_note; field names it"},
    502: {"description": "model_error: the provider failed (stream: false)"},
}


def add_ask_route(app: FastAPI, rag: VaultRAG, wait_for_model: Callable[[], None]) -> None:
    """``POST /ask`` and the model's error shapes; ``wait_for_model``: the start-up preload
    of the embedding model, which query mode needs."""
    _install_llm_errors(app)

    def prepare(body: AskBody) -> Prepared:
        if body.note is None:
            wait_for_model()
        return rag.prepare_ask(
            body.question,
            model=body.model,
            budget=body.budget,
            seed=body.seed,
            options=body.options,
            filters=parsed_filters(body.filters),
            note=body.note,
            history=[Turn(t.question, t.answer) for t in body.history],
            system=body.system,
            dry_run=body.prompt_only,
        )

    @app.post("/ask", tags=["answers"], response_class=StreamingResponse, responses=ASK_RESPONSES)
    async def ask(body: AskBody, request: Request) -> Response:
        """Answer a question from the notes with a language model, citing them as [[links]]
        (`vault-graphrag ask`); with `note`, about that note and the notes around it."""
        worker = Worker(lambda: prepare(body))
        prepared = await worker.ready()
        if body.stream:
            return AnswerStream(worker, prepared, with_prompt=body.prompt_only)
        answer = await whole(worker, request)
        if answer is None:  # nobody to answer
            return Response(status_code=499)
        return JSONResponse(answer.to_json())
