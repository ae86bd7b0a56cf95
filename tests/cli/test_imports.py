"""Each command imports only what it needs: checked in a fresh process, as run from the shell."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fakes import HASH_BACKEND
from tests.support.files import ROOT

ENV = {**os.environ, "PYTHONPATH": str(ROOT), "VAULTRAG_EMBEDDING__BACKEND": HASH_BACKEND}
RUNNER = (
    "import sys; from graphrag.cli import cli\n"
    "try:\n    cli(sys.argv[1:], prog_name='vault-graphrag')\n"
    "except SystemExit as exc:\n    assert not exc.code, exc.code\n"
    "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
)
# What no command that only reads an index needs: the model's torch stack, the LLM
# library, the server's framework, the index builder's graph library, an HTTP client.
NEVER = {
    "torch", "sentence_transformers", "transformers", "sklearn", "llm",
    "fastapi", "uvicorn", "starlette", "networkx", "http.client",
}  # fmt: skip
# bm25s (and scipy) tokenize notes when a generation's BM25 index is first built, once.
BUILDING = {"bm25s", "scipy"}


def loaded(*args: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", RUNNER, *args], cwd=ROOT, env=ENV, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-2000:]
    return set(out.stderr.strip().splitlines()[-1].split())


@pytest.fixture(scope="module")
def index_dir(sample_index: Path) -> Path:
    return sample_index


def test_focus_loads_no_vectors_model_llm_or_server(index_dir: Path) -> None:
    where = ("--vault", str(ROOT / "sample_vault"), "--index-dir", str(index_dir), "--no-server")
    modules = loaded("focus", "Shepherd's Hut", *where)
    assert "graphrag.focus.mode" in modules  # it did run focus mode
    # tiktoken's encoder takes longer to build than a command's counting (indexer/bpe.py)
    assert not modules & (NEVER | BUILDING | {"faiss", "onnxruntime", "tiktoken"})
    # The freshness check needs the chunker's version, not the chunker; --no-server
    # reads no server file.
    assert not modules & {"indexer.chunk", "graphrag.serve.server_file"}
    # Its focus note embeds a ^block of Glossary: the blocks of that note were kept the
    # first time (indexer/block_cache.py), so the parser is not imported again.
    assert "markdown_it" not in loaded("focus", "Shepherd's Hut", *where)


def test_lexical_search_loads_no_model(index_dir: Path) -> None:
    where = ("--vault", str(ROOT / "sample_vault"), "--index-dir", str(index_dir), "--no-server")
    loaded("search", "warm", "--mode", "lexical", *where)  # the BM25 index is built and saved
    modules = loaded("search", "brine", "--mode", "lexical", *where)
    assert "graphrag.snapshot.lexical" in modules
    # importlib.metadata (~25 ms) only to read two versions: lexical._version reads them
    assert not modules & (NEVER | BUILDING | {"onnxruntime", "importlib.metadata"})
    # Snippets show a chunk's section text: no embed inlining, block cache or chunker.
    assert not modules & {"graphrag.details.text", "indexer.block_cache", "indexer.chunk"}


def test_query_loads_no_llm_server_or_builder(index_dir: Path) -> None:
    where = ("--vault", str(ROOT / "sample_vault"), "--index-dir", str(index_dir), "--no-server")
    loaded("search", "warm", "--mode", "lexical", *where)  # the BM25 index is built and saved
    modules = loaded("query", "Who runs the aging cellar?", *where)
    assert "graphrag.query.mode" in modules
    assert not modules & (NEVER | BUILDING)
    assert "tomllib" not in modules  # no settings file given: nothing to parse
    assert not modules & {"indexer.chunk", "graphrag.serve.server_file"}


def test_a_server_is_looked_for_without_no_server(index_dir: Path) -> None:
    # The other side of --no-server importing no server module: by default the command
    # does read the index folder's server file (there is none here: answered in-process).
    where = ("--vault", str(ROOT / "sample_vault"), "--index-dir", str(index_dir))
    assert "graphrag.serve.server_file" in loaded("focus", "Shepherd's Hut", *where)


def test_details_names_are_imported_from_their_modules_on_first_use() -> None:
    code = (
        "import sys, graphrag.details as d\n"
        "from graphrag.details.passages import section_text\n"
        "assert 'graphrag.details.text' not in sys.modules, 'passages imported NoteText'\n"
        "import importlib\n"
        "for name in d.__all__:\n"
        "    home = importlib.import_module('graphrag.details.' + d._HOME.get(name, 'excerpt'))\n"
        "    assert getattr(d, name) is getattr(home, name), name\n"
        "from graphrag.details import cost, passages\n"  # submodules still import
        "assert passages.section_text is section_text\n"
        "try:\n    d.nothing\nexcept AttributeError:\n    pass\nelse:\n    raise SystemExit(1)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True)
    assert out.returncode == 0, out.stderr.decode()[-2000:]


def test_the_onnx_backend_imports_no_exporter_or_thread_pool() -> None:
    # Both are for the first load of a model and for bulk embedding, not a question.
    code = "import sys, indexer.onnx_embed; print(' '.join(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=ENV, capture_output=True)
    assert out.returncode == 0, out.stderr[-2000:]
    modules = set(out.stdout.decode().split())
    assert "indexer.onnx_embed" in modules
    assert not modules & {"indexer.onnx_export", "concurrent.futures", "tempfile"}


@pytest.mark.parametrize(
    "command",
    [
        ("query", "Who runs the aging cellar?"),
        ("search", "aging cellar", "--mode", "semantic"),
        ("search", "aging cellar", "--mode", "hybrid"),
        ("ask", "Who runs the aging cellar?", "--prompt-only"),
    ],
)
def test_a_question_on_a_small_index_imports_no_faiss(index_dir: Path, command) -> None:
    # The vectors file is read with numpy and scored with numpy below
    # chunk_vectors.FAISS_ROWS rows: FAISS's import costs more than both.
    where = ("--vault", str(ROOT / "sample_vault"), "--index-dir", str(index_dir), "--no-server")
    modules = loaded(*command, *where)
    assert "graphrag.snapshot.corpus" in modules  # it did score the chunk vectors
    assert "faiss" not in modules


def test_status_reads_no_graph(index_dir: Path) -> None:
    modules = loaded("status", str(ROOT / "sample_vault"), "--index-dir", str(index_dir))
    assert not modules & (NEVER | BUILDING | {"faiss", "indexer.tokens", "graphrag.focus.mode"})
