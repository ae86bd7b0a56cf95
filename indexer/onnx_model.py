"""A loaded ONNX export of a sentence-transformers model: tokenizer + ONNX Runtime session.

The files of an export folder are written by ``indexer/onnx_export.py``; this module
reads them, and checks them first, so that a missing or damaged file is an error
naming it rather than a crash deep in ONNX Runtime or, worse, wrong vectors.
Importing it costs nothing: onnxruntime and tokenizers are imported when a model loads
(docs/architecture.md, embedding).

ONNX Runtime rewrites the graph each time it opens it (fusing its operations): about 40%
of opening a session here, which a question from the shell pays every time. The first
session on a machine saves the rewritten graph beside the export (``OPTIMIZED``, named
for the ONNX Runtime version, the CPU and the graph file), and later ones open that with
the rewriting turned off: the same vectors, bit for bit (checked on every chunk of
obsidian-help and the question sets; ``tests/indexer/test_onnx_embed.py``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .errors import ModelFileError

log = logging.getLogger(__name__)

EXPORT_FORMAT = 1
GRAPH = "model.onnx"
WEIGHTS = "model.onnx.data"
TOKENIZER = "tokenizer.json"
META = "export.json"
OUTPUT = "sentence_embedding"
# The tokenizer's outputs the graph may take, by the names transformers gives them.
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OPTIMIZED = "model.optimized-{key}.onnx"  # the rewritten graph (weights stay in WEIGHTS)


class OnnxModel:
    """One loaded export: the tokenizer and an ONNX Runtime session, float32 vectors out."""

    def __init__(self, folder: Path, meta: dict[str, Any], threads: int = 0, fix: str = "") -> None:
        """Raises ``ModelFileError`` naming the file that cannot be loaded, then ``fix``."""
        self.folder = folder
        self.inputs: list[str] = list(meta["inputs"])
        self.output: str = meta["output"]
        path = folder / TOKENIZER
        try:
            self.tokenizer, self.pad_id = self._tokenizer(path, int(meta["max_seq_length"]))
            path = folder / GRAPH
            self.session = self._session(path, threads)
        except Exception as exc:  # onnxruntime and tokenizers raise their own types
            raise ModelFileError(path, f"cannot be loaded ({exc}){fix}") from exc

    @staticmethod
    def _tokenizer(path: Path, max_length: int) -> tuple[Any, int]:
        from tokenizers import Tokenizer

        tokenizer = Tokenizer.from_file(str(path))
        # The file's own padding and truncation (a fixed 128 for MiniLM) are not what
        # sentence-transformers does: it pads to the longest text of the batch and cuts
        # at the model's max_seq_length.
        padding = tokenizer.padding or {}
        pad_id = int(padding.get("pad_id", 0))
        tokenizer.no_padding()
        tokenizer.enable_truncation(max_length)
        return tokenizer, pad_id

    @staticmethod
    def _session(path: Path, threads: int) -> Any:
        """A session on ``path``, through the saved rewritten graph when there is one."""
        import onnxruntime as ort

        saved = optimized_path(path, ort.__version__)
        extended = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
        if saved.is_file():
            try:
                return _open(saved, threads, ort.GraphOptimizationLevel.ORT_DISABLE_ALL)
            except Exception as exc:  # damaged, or not loadable here: rewrite it
                log.info("%s not usable (%s); optimising the graph again", saved, exc)
        # EXTENDED, not ALL: the layout rewrites ALL adds are for the CPU it ran on, and
        # this model has nothing they apply to (ALL and EXTENDED give the same vectors).
        tmp = saved.with_name(f".{saved.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            session = _open(path, threads, extended, save=tmp)
            os.replace(tmp, saved)
            return session
        except Exception as exc:  # a read-only cache folder: open without saving
            log.info("the optimised graph could not be saved in %s (%s)", saved.parent, exc)
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        return _open(path, threads, extended)

    def encode(self, texts: Sequence[str]) -> list[Any]:
        """Token encodings (``tokenizers.Encoding``), truncated, not padded."""
        return self.tokenizer.encode_batch(list(texts))

    def run_encoded(self, encodings: Sequence[Any]) -> np.ndarray:
        """Vectors for token encodings (padded here to the longest)."""
        width = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), width), self.pad_id, dtype=np.int64)
        mask = np.zeros((len(encodings), width), dtype=np.int64)
        types = np.zeros((len(encodings), width), dtype=np.int64)
        for row, e in enumerate(encodings):
            n = len(e.ids)
            ids[row, :n] = e.ids
            mask[row, :n] = 1
            types[row, :n] = e.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        (out,) = self.session.run([self.output], {name: feeds[name] for name in self.inputs})
        return np.asarray(out, dtype=np.float32)

    def run(self, texts: Sequence[str]) -> np.ndarray:
        return self.run_encoded(self.encode(texts))


def _open(path: Path, threads: int, level: Any, save: Path | None = None) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.graph_optimization_level = level
    if save is not None:
        options.optimized_model_filepath = str(save)
    # One thread per run: a question is a few milliseconds of work, and handing it
    # between threads on a busy machine costs more than it saves (torch measured 30x
    # slower with two threads under load). Bulk work runs batches side by side instead.
    options.intra_op_num_threads = threads or 1
    options.inter_op_num_threads = 1
    # No CPU memory arena: the arena keeps the peak of the largest batch it ever ran
    # (one batch of 64 long chunks held ~600 MB for good), which a long-running
    # server would carry forever; plain malloc hands it back (serve/memory.py trims).
    # A question embeds no slower without it (benchmarks/RESULTS.md, "Server memory").
    options.enable_cpu_mem_arena = False
    # No memory patterns: ONNX Runtime keeps one per input shape it has run, for good
    # (~5 KB each for MiniLM), so a server that re-embeds each edited chunk at its own
    # length grew by every new length for hours (benchmarks/RESULTS.md, "Server memory
    # over an hour, session 6"); neither a question nor a batch ran measurably slower.
    options.enable_mem_pattern = False
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def optimized_path(graph: Path, ort_version: str) -> Path:
    """Where the rewritten graph of ``graph`` is saved: beside it, named for what the
    rewriting depends on (ONNX Runtime's version, the CPU, the graph file itself)."""
    st = graph.stat()
    key = f"{ort_version}|{cpu_name()}|{st.st_size}|{st.st_mtime_ns}"
    return graph.with_name(OPTIMIZED.format(key=hashlib.sha256(key.encode()).hexdigest()[:16]))


def cpu_name() -> str:
    """The CPU's model name (Linux), else the empty string."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def open_export(folder: Path, threads: int = 0) -> OnnxModel | None:
    """The export in ``folder``, None when there is none yet.

    Raises:
        ModelFileError: the export is incomplete or damaged (the message names the file).
    """
    meta_path = folder / META
    if not folder.exists():
        return None
    again = f"delete {folder} and it is exported again on next use"
    fix = f"; {again}"
    if not meta_path.is_file():
        raise ModelFileError(meta_path, f"missing (the export in {folder} is incomplete){fix}")
    try:
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        sizes = {str(k): int(v) for k, v in meta["files"].items()}
        if meta.get("format") != EXPORT_FORMAT or set(sizes) != {GRAPH, WEIGHTS, TOKENIZER}:
            raise ValueError(f"not an export of format {EXPORT_FORMAT}")
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ModelFileError(meta_path, f"unreadable ({exc}){fix}") from exc
    for name, size in sizes.items():
        path = folder / name
        try:
            actual = path.stat().st_size
        except FileNotFoundError:
            raise ModelFileError(path, f"missing{fix}") from None
        if actual != size:
            raise ModelFileError(path, f"corrupt: {actual} bytes, {META} says {size}{fix}")
    return OnnxModel(folder, meta, threads, fix)
