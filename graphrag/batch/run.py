"""Batch jobs: many contexts, prompts and (with a model) answers into one JSON Lines file.

Input, one JSON object a line: ``{"id": ..., "query": "..."}`` (query mode) or
``{"id": ..., "note": "..."}`` (focus or summarise mode; focus lines may add a
``"question"`` about the note). Or no input file: every note under ``folder`` /
with ``tag``, the id being the note's uri.

Output, one JSON object a line, in the order items finish: ``id``, ``line``
(the input line, if any), ``mode``, ``query`` or ``note``, ``context`` (the
result JSON), ``prompt`` (``{system, prompt}``), ``sources`` (uris), with a
model ``model``, ``answer`` or ``summary`` and ``usage``, then ``seconds``
(``retrieval``, ``model``) and ``error`` (``null``, or what went wrong).

Guarantees:

* **resumable**: ids already in the output are skipped, so running the same
  command again continues an interrupted run; a truncated last line (a killed
  process) is dropped first, by rewriting the file atomically;
* **whole lines only**: one thread writes, a line at a time, flushed; Ctrl-C
  stops scheduling and lets in-flight items finish (a second Ctrl-C abandons
  them), and never interrupts a write;
* **a failing item is recorded with its error** and the batch goes on; a
  malformed input line is recorded with its line number (``id`` null);
* **parallel retrieval**: ``workers`` processes (retrieval is pure Python, so
  threads would share one core under the GIL); model calls run on
  ``model_workers`` threads in this process.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import queue
import signal
import sys
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from graphrag.answer.models import generate, model_options, resolve, system_prompt
from graphrag.answer.prompts import (
    Context,
    Prompt,
    ask_prompt,
    focus_context,
    query_context,
    summary_prompt,
)
from graphrag.batch.files import (
    MODES,
    Item,
    load_done,
    note_items,
    parse_line,
    read_items,
    read_records,
    record_key,
)
from graphrag.errors import BatchError, VaultRAGError

if TYPE_CHECKING:
    import llm

    from graphrag.api import VaultRAG

__all__ = [
    "MODES",
    "BatchStats",
    "Item",
    "Line",
    "Record",
    "load_done",
    "note_items",
    "parse_line",
    "read_items",
    "read_records",
    "record_key",
    "retrieve",
    "run_batch",
]

Progress = Callable[[dict[str, Any]], None]


# -- one item, in a worker -------------------------------------------------------------
_WORKER_RAG: VaultRAG | None = None


def _init_worker(rag: VaultRAG | None, spec: tuple[Any, ...] | None) -> None:
    """Process-pool initialiser: Ctrl-C is the parent's to handle; own SQLite connection."""
    global _WORKER_RAG
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if rag is not None:  # forked: the graph came along, the connection must not
        rag.reload()
        _WORKER_RAG = rag
    elif spec is not None:  # spawned: open the index afresh
        from graphrag.api import VaultRAG

        vault, index_dir, settings, embedder = spec
        _WORKER_RAG = VaultRAG(vault, index_dir, settings, embedder)


@dataclass
class Record:
    """One item's output, typed until it is written: ``to_json`` is its JSON Lines object."""

    head: dict[str, Any]  # id, line and, for a well-formed item, mode, query or note, question
    error: str | None = None
    context: Context | None = None
    prompt: Prompt | None = None
    seconds: dict[str, float] | None = None
    model: str | None = None
    text: str | None = None  # the answer, or the summary in summarise mode
    usage: dict[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = dict(self.head)
        if self.context is not None and self.prompt is not None:
            out["context"] = self.context.to_json()
            out["prompt"] = self.prompt.to_json()
            out["sources"] = [uri for uri, _ in self.context.sources]
        out["error"] = self.error
        if self.seconds is not None:
            out["seconds"] = self.seconds
        if self.model is not None:
            out["model"] = self.model
        if self.text is not None:
            out["summary" if self.head.get("mode") == "summarise" else "answer"] = self.text
        if self.usage:
            out["usage"] = self.usage
        return out


class Line(NamedTuple):
    """A finished record, serialised where it was made (a worker), ready to write."""

    text: str  # one JSON object, no newline
    error: str | None  # the error, saying where (line or id), if the item failed


def finished(record: Record) -> Line:
    error = _describe(record) if record.error else None
    return Line(json.dumps(record.to_json(), ensure_ascii=False), error)


def retrieve_step(rag: VaultRAG, item: Item, options: dict[str, Any]) -> Record | Line:
    """Retrieval; a record still waiting for the model, or the finished line."""
    record = retrieve(rag, item, **options)
    if options.get("with_model") and record.error is None:
        return record
    return finished(record)


def _retrieve_in_worker(item: Item, options: dict[str, Any]) -> Record | Line:
    assert _WORKER_RAG is not None
    return retrieve_step(_WORKER_RAG, item, options)


def retrieve(
    rag: VaultRAG,
    item: Item,
    budget: int | None = None,
    seed: int | None = None,
    system: str | None = None,
    task: str | None = None,
    with_model: bool = False,
) -> Record:
    """The record for ``item`` up to (not including) the model's answer."""
    start = time.perf_counter()
    record = Record(_head(item))
    try:
        if item.mode == "query":
            context = query_context(rag.query(item.text, budget=budget, seed=seed, output="prompt"))
            prompt = ask_prompt(context, item.text, system)
        else:
            result = rag.focus(item.text, budget=budget, seed=seed)
            context = focus_context(result, rag.settings.llm.focus_list_limit)
            if item.mode == "summarise":
                prompt = summary_prompt(context, system, task)
            elif item.question:
                prompt = ask_prompt(context, item.question, system)
            else:
                if with_model:
                    raise VaultRAGError(
                        'focus mode needs a "question" to send to a model '
                        "(--mode summarise asks for a summary)"
                    )
                prompt = Prompt("", context.text)  # the context alone: nothing to ask
        record.context, record.prompt = context, prompt
    except VaultRAGError as exc:
        record.error = str(exc)
    except Exception as exc:  # a bug or a bad note must not stop the other items
        record.error = f"{type(exc).__name__}: {exc}"
    record.seconds = {"retrieval": round(time.perf_counter() - start, 4)}
    return record


def _head(item: Item) -> dict[str, Any]:
    record: dict[str, Any] = {"id": item.id, "line": item.line, "mode": item.mode}
    record["query" if item.mode == "query" else "note"] = item.text
    if item.question is not None:
        record["question"] = item.question
    return record


def answer_step(model: llm.Model, record: Record, options: dict[str, Any]) -> Line:
    return finished(answer(model, record, options))


def answer(model: llm.Model, record: Record, options: dict[str, Any]) -> Record:
    """Add the model's answer (or summary) to a retrieved record."""
    assert record.prompt is not None and record.seconds is not None  # retrieved without error
    start = time.perf_counter()
    record.model = model.model_id
    try:
        record.text, record.usage = generate(model, record.prompt, options)
    except VaultRAGError as exc:
        record.error = str(exc)
    except Exception as exc:  # same rule as retrieval: record it, go on
        record.error = f"{type(exc).__name__}: {exc}"
    record.seconds["model"] = round(time.perf_counter() - start, 4)
    return record


# -- the run ---------------------------------------------------------------------------
@dataclass
class BatchStats:
    total: int = 0  # items in the input (malformed lines included)
    skipped: int = 0  # already in the output
    done: int = 0  # written by this run (errors included)
    errors: int = 0
    seconds: float = 0.0
    interrupted: bool = False
    model: str | None = None
    executor: str = "inline"
    error_lines: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.done / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "skipped": self.skipped,
            "done": self.done,
            "errors": self.errors,
            "seconds": round(self.seconds, 3),
            "perSecond": round(self.rate, 1),
            "interrupted": self.interrupted,
            "model": self.model,
            "executor": self.executor,
        }


class _Interrupt:
    """First Ctrl-C: stop scheduling. Second: abandon in-flight items, but never mid-write."""

    def __init__(self, notify: Callable[[str], None] | None) -> None:
        self.stop = threading.Event()
        self.abandon = False
        self.writing = False
        self.notify = notify
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> _Interrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)

    def _handle(self, signum: int, frame: Any) -> None:
        if not self.stop.is_set():
            self.stop.set()
            if self.notify:
                self.notify("stopping: finishing the items under way (Ctrl-C again to abandon)")
            return
        self.abandon = True
        if not self.writing:
            raise KeyboardInterrupt

    def check(self) -> None:
        if self.abandon:
            raise KeyboardInterrupt


def _executor(rag: VaultRAG, workers: int, kind: str) -> tuple[Executor, str]:
    if workers <= 1 or kind == "thread":
        return ThreadPoolExecutor(max(workers, 1), thread_name_prefix="retrieve"), "thread"
    # fork shares the loaded graph for free; but not once torch has started its thread
    # pools (a forked child can hang in them), and not where fork is unavailable.
    fork_ok = "fork" in multiprocessing.get_all_start_methods() and "torch" not in sys.modules
    if kind == "process-spawn" or not fork_ok:
        embedder = rag._embedder if _picklable(rag._embedder) else None
        spec = (rag.vault, rag.index_dir, rag.settings, embedder)
        ctx = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(workers, ctx, _init_worker, (None, spec)), "process-spawn"
    fork = multiprocessing.get_context("fork")
    return ProcessPoolExecutor(workers, fork, _init_worker, (rag, None)), "process-fork"


def _picklable(obj: Any) -> bool:
    if obj is None or type(obj).__name__ == "SentenceTransformerEmbedder":
        return False  # workers load the configured model themselves
    import pickle

    try:
        pickle.dumps(obj)
    except Exception:  # anything unpicklable: let the worker build its own
        return False
    return True


def run_batch(
    rag: VaultRAG,
    items: Sequence[Item],
    out: str | os.PathLike[str],
    *,
    model: str | llm.Model | None = None,
    options: dict[str, Any] | None = None,
    budget: int | None = None,
    seed: int | None = None,
    system: str | None = None,
    workers: int = 1,
    model_workers: int = 1,
    retry_errors: bool = False,
    progress: Progress | None = None,
    notify: Callable[[str], None] | None = None,
    executor: str = "auto",
) -> BatchStats:
    """Run ``items`` into the JSON Lines file ``out``, skipping ids already there.

    Args:
        model: an ``llm`` model or its name; None builds contexts and prompts only
            (``[llm] model`` is not consulted here: the caller decides).
        workers: retrieval workers; above 1, processes (``executor="thread"`` for threads).
        model_workers: concurrent model calls (threads); 1 suits local models.
        retry_errors: drop failed records from ``out`` and run those items again.
        progress: called after each written line with the running counts.
        notify: one-line messages for the user (Ctrl-C handling).
    """
    out = Path(out)
    chosen = resolve(rag.settings.llm, model) if model is not None else None
    opts = model_options(chosen, rag.settings.llm, options) if chosen else {}
    kind = "summary" if any(i.mode == "summarise" for i in items) else "ask"
    system = system or system_prompt(rag.settings.llm, kind)
    task = rag.settings.llm.summary_task or None
    done_keys = load_done(out, retry_errors)
    todo = [i for i in items if i.key not in done_keys]
    stats = BatchStats(total=len(items), skipped=len(items) - len(todo))
    stats.model = chosen.model_id if chosen else None
    if progress is not None:
        progress({**stats.to_json(), "lastError": None})
    retrieval_options = dict(
        budget=budget, seed=seed, system=system, task=task, with_model=chosen is not None
    )
    start = time.perf_counter()
    try:
        fh = open(out, "a", encoding="utf-8")  # noqa: SIM115 - closed by the with below
    except OSError as exc:
        raise BatchError(f"{out}: cannot write the output file ({exc.strerror})") from exc
    rag.snapshot  # noqa: B018 - load the index once, before any worker forks or threads
    results: queue.Queue[tuple[Item, Any]] = queue.Queue()
    pool, stats.executor = _executor(rag, workers, executor)
    model_pool = ThreadPoolExecutor(max(model_workers, 1), thread_name_prefix="model")
    in_flight = 0
    queued = iter(todo)
    limit = max(workers, 1) * 4 + max(model_workers, 1)

    def submit_retrieval(item: Item) -> None:
        if item.error is not None:
            malformed = Record({"id": None, "line": item.line}, error=item.error)
            results.put((item, finished(malformed)))
            return
        if stats.executor == "thread":
            fut = pool.submit(retrieve_step, rag, item, retrieval_options)
        else:
            fut = pool.submit(_retrieve_in_worker, item, retrieval_options)
        fut.add_done_callback(lambda f: results.put((item, f)))

    def submit_model(item: Item, record: Record) -> None:
        assert chosen is not None
        fut = model_pool.submit(answer_step, chosen, record, opts)
        fut.add_done_callback(lambda f: results.put((item, f)))

    try:
        with _Interrupt(notify) as interrupt, fh:
            while True:
                while not interrupt.stop.is_set() and in_flight < limit:
                    item = next(queued, None)
                    if item is None:
                        break
                    in_flight += 1
                    submit_retrieval(item)
                if in_flight == 0:
                    break
                try:
                    item, payload = results.get(timeout=0.2)
                except queue.Empty:
                    interrupt.check()
                    continue
                outcome = _outcome(item, payload)
                if not isinstance(outcome, Line):  # retrieved; the model is next
                    submit_model(item, outcome)
                    continue
                in_flight -= 1
                interrupt.writing = True
                fh.write(outcome.text + "\n")
                fh.flush()
                interrupt.writing = False
                stats.done += 1
                if outcome.error:
                    stats.errors += 1
                    stats.error_lines.append(outcome.error)
                if progress is not None:
                    progress({**stats.to_json(), "lastError": outcome.error})
                interrupt.check()
            stats.interrupted = interrupt.stop.is_set() and stats.done + stats.skipped < stats.total
    except KeyboardInterrupt:
        stats.interrupted = True
        pool.shutdown(wait=False, cancel_futures=True)
        model_pool.shutdown(wait=False, cancel_futures=True)
        stats.seconds = time.perf_counter() - start
        raise
    pool.shutdown(wait=True)
    model_pool.shutdown(wait=True)
    stats.seconds = time.perf_counter() - start
    return stats


def _outcome(item: Item, payload: Line | Future[Any]) -> Record | Line:
    if isinstance(payload, Line):
        return payload
    try:
        result: Record | Line = payload.result()
        return result
    except Exception as exc:  # a worker died (BrokenProcessPool, pickling): record, go on
        return finished(Record(_head(item), error=f"{type(exc).__name__}: {exc}", seconds={}))


def _describe(record: Record) -> str:
    head = record.head
    where = f"line {head['line']}" if head.get("line") else f"id {head.get('id')!r}"
    error = str(record.error)
    return error if error.startswith("line ") else f"{where}: {error}"
