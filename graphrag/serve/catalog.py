"""What a client offers as scopes and choices: ``GET /tags``, ``GET /folders``, ``GET /models``.

Tags and folders come from the served snapshot's graph (computed once per snapshot),
models from ``llm``. See docs/architecture.md ("Serving").
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.responses import JSONResponse

from graphrag.api import VaultRAG
from graphrag.snapshot.graph import VaultGraph


def tag_tree(graph: VaultGraph) -> list[dict[str, Any]]:
    """Nested tags as a tree, siblings by name, each with the number of notes carrying it
    or one of its sub-tags (``project/festival`` sits under ``project`` even when no note
    carries ``#project`` itself)."""
    members: dict[str, set[str]] = {}
    for tag, uris in graph.tag_members.items():
        parts = tag.split("/")
        for depth in range(1, len(parts) + 1):
            members.setdefault("/".join(parts[:depth]), set()).update(uris)
    children: dict[str, list[str]] = {}
    for tag in sorted(members):
        children.setdefault(tag.rpartition("/")[0], []).append(tag)

    def node(tag: str) -> dict[str, Any]:
        return {
            "tag": tag,
            "name": tag.rpartition("/")[2],
            "count": len(members[tag]),
            "children": [node(t) for t in children.get(tag, ())],
        }

    return [node(t) for t in children.get("", ())]


def folder_list(graph: VaultGraph) -> list[dict[str, Any]]:
    """Every folder holding notes, sorted by path, with how many notes the ``folder``
    filter keeps for it: those under it at any depth, and its folder note ``F.md``
    beside ``F/``."""
    counts: dict[str, int] = {}
    uris = [note.uri for note in graph.notes()]
    for uri in uris:
        parts = uri.split("/")[:-1]
        for depth in range(1, len(parts) + 1):
            path = "/".join(parts[:depth])
            counts[path] = counts.get(path, 0) + 1
    for uri in uris:
        if uri in counts:  # F.md beside F/
            counts[uri] += 1
    return [{"path": path, "notes": counts[path]} for path in sorted(counts)]


def model_list(configured: str | None) -> dict[str, Any]:
    """The models ``llm`` knows on this machine, and the configured one (its model id;
    as written when ``llm`` does not know it, so a client can show what is wrong)."""
    import llm

    from graphrag.answer.models import get_model
    from graphrag.errors import LLMError

    models = [
        {"id": m.model.model_id, "name": str(m.model), "aliases": sorted(m.aliases)}
        for m in llm.get_models_with_aliases()
        if m.model is not None
    ]
    default = None
    if configured:
        try:
            default = get_model(configured).model_id
        except LLMError:
            default = configured
    return {"models": models, "default": default}


class PerSnapshot:
    """The last value computed from a graph, until the served graph changes."""

    def __init__(self, build: Callable[[VaultGraph], Any]) -> None:
        self.build = build
        self.lock = threading.Lock()
        self.graph: VaultGraph | None = None
        self.value: Any = None

    def get(self, graph: VaultGraph) -> Any:
        with self.lock:
            if self.graph is not graph:
                self.value, self.graph = self.build(graph), graph
            return self.value


def add_catalog_routes(app: FastAPI, rag: VaultRAG) -> None:
    tags, folders = PerSnapshot(tag_tree), PerSnapshot(folder_list)

    @app.get("/tags", tags=["notes"])
    def get_tags() -> JSONResponse:
        """Tags as a tree (nested tags under their parents), each with its note count
        (notes carrying it or a sub-tag): for a tag picker."""
        return JSONResponse({"tags": tags.get(rag.graph)})

    @app.get("/folders", tags=["notes"])
    def get_folders() -> JSONResponse:
        """Folders holding notes, sorted by path, with the notes under each: for a scope picker."""
        return JSONResponse({"folders": folders.get(rag.graph)})

    @app.get("/models", tags=["answers"])
    def get_models() -> JSONResponse:
        """The language models `llm` knows here (`llm models`) and the configured default
        (`[llm] model`; null: none, and /ask needs a model in its body)."""
        from graphrag.answer.models import model_name

        return JSONResponse(model_list(model_name(rag.settings.llm)))
