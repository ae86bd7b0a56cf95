"""HTTP API for the Obsidian plugin: ``create_app(rag)`` -> a FastAPI app.

Thin by design: each endpoint parses its input, calls one ``VaultRAG`` (or
``LiveIndex``) method and returns the same JSON as the CLI's ``--json``. Errors
become ``{"error": code, "detail": message}`` (``serve.errors``, which also makes the
OpenAPI document describe them).
Every answer comes from one index snapshot: ``VaultRAG`` takes it once per call
and an update swaps in the next one atomically, so a request never sees two
generations. Security (Host, Origin, token, body size) lives in ``server_guard``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from importlib.resources import files
from typing import Annotated, Literal

from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.middleware.cors import CORSMiddleware

from graphrag.api import VaultRAG
from graphrag.config.server import ServerSettings
from graphrag.errors import InvalidRequestError
from graphrag.search.modes import WITHOUT_MODEL
from graphrag.serve import memory
from graphrag.serve.ask_routes import add_ask_route
from graphrag.serve.bind import check_origins
from graphrag.serve.bodies import (
    MAX_BUDGET,
    MAX_NOTE_CHARS,
    FocusBody,
    GraphSearchBody,
    IndexBody,
    QueryBody,
    SearchBody,
    parsed_filters,
)
from graphrag.serve.catalog import add_catalog_routes
from graphrag.serve.errors import document_errors, install_errors
from graphrag.serve.focus_json import Answers, ListItems, bare_json, dumps, encode_focus
from graphrag.serve.guard import HostOriginGuard, TokenAndBodyGuard
from graphrag.serve.live import LiveIndex
from graphrag.serve.web import add_web_page, headers_only
from indexer import __version__

log = logging.getLogger(__name__)

# A note's uri in a path, checked like a body's "note": an empty or over-long one is a 422.
NoteUri = Annotated[
    str, Path(min_length=1, max_length=MAX_NOTE_CHARS, description="uri, title or alias")
]

# Swagger UI and ReDoc files (JS, CSS, favicon) are served from here, never from a CDN.
DOCS_STATIC = "/docs/static"

JSON = "application/json"
# Snapshot.derived keys of /focus's caches (graphrag/serve/focus_json.py).
ANSWERS, LIST_ITEMS = "serve:focus-answers", "serve:focus-list-items"


def create_app(
    rag: VaultRAG, settings: ServerSettings | None = None, live: LiveIndex | None = None
) -> FastAPI:
    """The HTTP app for one opened vault.

    Args:
        rag: the opened vault; every endpoint calls it.
        settings: server settings (default: ``rag.settings.server``). ``watch`` starts the
            file watcher with the app's lifespan; ``token``, ``cors_origins``,
            ``allowed_hosts`` and ``max_body_bytes`` configure the guards.
        live: the update coordinator (one is made if not given).
    """
    settings = settings or rag.settings.server
    check_origins(settings.cors_origins)
    live = live or LiveIndex(rag, settings.watch_debounce_ms)
    warm = Preload(rag, live, enabled=settings.preload_model)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        if settings.watch and rag.vault is not None:
            live.start()
        warm.start()
        try:
            yield
        finally:
            live.stop()

    app = FastAPI(
        title="vault-graphrag",
        version=__version__,
        description="Graph + vector retrieval over an Obsidian vault, for the Obsidian plugin. "
        'Errors are {"error": code, "detail": message}.',
        lifespan=lifespan,
        docs_url=None,  # FastAPI's own /docs and /redoc load from a CDN: _add_docs serves them
        redoc_url=None,
    )
    app.state.rag = rag
    app.state.live = live
    app.state.settings = settings
    install_errors(app)
    _add_routes(app, rag, live, warm)
    add_ask_route(app, rag, warm.wait_for_model)
    add_catalog_routes(app, rag)
    add_web_page(app)
    _add_docs(app)
    document_errors(app)

    # Added innermost first: the guard on Host/Origin is the outermost layer.
    app.add_middleware(
        TokenAndBodyGuard, token=settings.token, max_body_bytes=settings.max_body_bytes
    )
    app.add_middleware(
        CORSMiddleware,
        allow_origins=list(settings.cors_origins),
        allow_methods=["GET", "POST"],
        allow_headers=["Authorization", "Content-Type"],
        allow_credentials=False,
        max_age=600,
    )
    hosts = list(settings.allowed_hosts)
    if settings.host not in ("0.0.0.0", "::", ""):
        hosts.append(settings.host)
    app.add_middleware(HostOriginGuard, allowed_hosts=hosts, allowed_origins=settings.cors_origins)
    return app


class Preload:
    """Start-up warm-up in a background thread, so the first requests are as fast as later ones.

    First the vectors and the query model (requests that embed wait for ``model``, rather
    than loading a second copy concurrently), then every note's token count (focus mode).
    """

    def __init__(self, rag: VaultRAG, live: LiveIndex, enabled: bool) -> None:
        self.rag, self.live = rag, live
        self.model = threading.Event()
        self.done = threading.Event()
        if not enabled:
            self.model.set()
            self.done.set()

    def start(self) -> None:
        if not self.done.is_set():
            threading.Thread(target=self._run, name="vault-graphrag-preload", daemon=True).start()

    def wait_for_model(self, timeout: float = 300) -> None:
        self.model.wait(timeout)

    def _run(self) -> None:
        try:
            self.live.warm()
            load = getattr(self.rag.embedder, "load", None)
            if load is not None:
                load()
        except Exception:  # the first query reports it properly
            log.warning("preloading the vectors or the model failed", exc_info=True)
        finally:
            self.model.set()
        try:
            self.live.warm(counts=True)
            memory.freeze_heap()  # full collections no longer walk the warm snapshot
        except Exception:
            log.warning("preloading token counts failed", exc_info=True)
        finally:
            self.done.set()


# The docs pages may load from this server only: ReDoc's bundle shows its maker's logo from
# cdn.redoc.ly, which would leave the machine (and fail offline) without this. Inline script
# and styles: Swagger UI is started by an inline script, ReDoc styles itself inline; ReDoc's
# search runs in a blob: worker.
DOCS_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'none'; frame-ancestors 'none'",
}


def _add_docs(app: FastAPI) -> None:
    """``/docs`` (Swagger UI) and ``/redoc`` with every file served by this app.

    FastAPI's default pages load their JS and CSS from cdn.jsdelivr.net, so on a machine
    without network they stay blank. The files come from the ``fastapi-offline`` package
    (Swagger UI 5, which renders OpenAPI 3.1, ReDoc 2 and FastAPI's favicon); only its
    ``static`` folder is used, the app stays a plain ``FastAPI``.

    The token: these pages and ``/docs/static/*`` need it when one is set, as
    ``/openapi.json`` (which the pages load) always has: ``TokenAndBodyGuard`` leaves only
    ``/health`` open. A browser cannot send a bearer header when it loads a page, so with a
    token set the docs are read with ``curl -H 'Authorization: Bearer ...' /openapi.json``,
    or in the browser on a server without one (the loopback default). Opening just the
    static files would give nothing usable (the page could not load ``/openapi.json``), and
    a server with a token on the network keeps telling a scanner nothing at all.
    """
    assets = files("fastapi_offline") / "static"
    app.mount(DOCS_STATIC, StaticFiles(directory=str(assets)), name="docs-static")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/docs", include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        page = get_swagger_ui_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{DOCS_STATIC}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{DOCS_STATIC}/swagger-ui.css",
            swagger_favicon_url=f"{root}{DOCS_STATIC}/favicon.png",
            # No "valid" badge fetched from validator.swagger.io (it would send it our URL).
            swagger_ui_parameters={"validatorUrl": None},
        )
        page.headers.update(DOCS_HEADERS)
        return page

    @app.get("/redoc", include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "").rstrip("/")
        page = get_redoc_html(
            openapi_url=root + openapi_url,
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{DOCS_STATIC}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{DOCS_STATIC}/favicon.png",
            with_google_fonts=False,
        )
        page.headers.update(DOCS_HEADERS)
        return page


def _focus_json(rag: VaultRAG, body: FocusBody) -> Response:
    """The focus answer's bytes (``focus_json``): a seeded request asked before on this
    snapshot is answered from ``Answers``; the lists are joined from ``ListItems``."""
    snapshot = rag.snapshot
    key: tuple[object, ...] | None = None
    if body.seed is not None:  # reproducible: the same request, the same answer
        key = (body.note, body.budget, body.seed, body.explain, tuple(body.exclude))
        key += (body.format, body.sentences)
        hit = snapshot.derived(ANSWERS, Answers).get(key)
        if hit is not None:
            return Response(hit, media_type=JSON)
    result = rag.focus(
        body.note,
        budget=body.budget,
        seed=body.seed,
        explain=body.explain,
        exclude=body.exclude,
        output=body.format,
    )
    if body.format == "prompt":
        from graphrag.focus.render import render_prompt

        encoded = dumps({"prompt": render_prompt(result)})
    else:
        data = bare_json(result)
        if body.sentences:  # after packing: the sentences do not count against the budget
            from graphrag.focus.render import relation_sentence

            title = result.focus_note.title
            for row, note in zip(data["relatedNotes"], result.related_notes, strict=True):
                row["relationSentence"] = relation_sentence(note, title)
        encoded = encode_focus(result, snapshot.derived(LIST_ITEMS, ListItems), data)
    # Kept only if the answer came from ``snapshot``: swaps go one way, so when it is
    # still the served one, ``rag.focus`` took it.
    if key is not None and rag.loaded_snapshot is snapshot:
        snapshot.derived(ANSWERS, Answers).put(key, encoded, len(encoded))
    return Response(encoded, media_type=JSON)


def _only_known_parameters(request: Request) -> None:
    """A query parameter the endpoint does not take (``?budgt=300``) is a 422 naming it, as
    an unknown key of a body is, not an answer computed with the default it left."""
    route = request.scope.get("route")
    known = {p.alias for p in route.dependant.query_params} if route is not None else set()
    for key in request.query_params:
        if key not in known:
            raise InvalidRequestError(
                key, f"unknown parameter (this endpoint takes {', '.join(sorted(known))})"
            )


def _add_routes(app: FastAPI, rag: VaultRAG, live: LiveIndex, warm: Preload) -> None:
    @app.get("/health", tags=["server"])
    async def health() -> JSONResponse:
        """Liveness; the only endpoint that needs no token. Says nothing about the vault."""
        return JSONResponse({"status": "ok", "version": __version__})

    @app.head("/health", include_in_schema=False)
    async def health_head() -> Response:
        """``/health``'s status and headers without the body (uptime monitors, ``curl -I``)."""
        return headers_only(await health())

    @app.get("/status", tags=["server"])
    def status() -> JSONResponse:
        """Index generation, model, counts, last update, and whether the vault is watched."""
        return JSONResponse(
            dict(
                rag.status(),
                watching=live.watching,
                watcher=live.watcher_status(),
                updating=live.updating,
                updates=live.updates,
                last_update=live.last_update,
                progress=live.progress,
                preloaded=warm.done.is_set(),
            )
        )

    @app.post("/focus", tags=["retrieval"])
    def focus(body: FocusBody) -> Response:
        """The context around one note under a token budget (as `vault-graphrag focus --json`)."""
        return _focus_json(rag, body)

    @app.get(
        "/notes/{uri:path}/context",
        tags=["retrieval"],
        dependencies=[Depends(_only_known_parameters)],
    )
    def note_context(
        uri: NoteUri,
        budget: int | None = Query(None, ge=0, le=MAX_BUDGET),
        seed: int | None = None,
        explain: bool = False,
        sentences: bool = False,
    ) -> Response:
        """Focus mode for the note at ``uri`` (what the plugin shows beside the open note)."""
        body = FocusBody(note=uri, budget=budget, seed=seed, explain=explain, sentences=sentences)
        return _focus_json(rag, body)

    @app.post("/query", tags=["retrieval"])
    def query(body: QueryBody) -> JSONResponse:
        """The notes that best answer a question and how they relate (`vault-graphrag query --json`)."""
        from graphrag.query.request import QueryRequest

        request = QueryRequest.parse(
            body.question,
            rag.settings,
            body.budget,
            seed=body.seed,
            explain=body.explain,
            filters=parsed_filters(body.filters),
            output=body.format,
        )
        warm.wait_for_model()
        result = rag.run_query(request)
        if body.format == "prompt":
            from graphrag.query.render import render_prompt

            # ``message`` too: the CLI prints it to stderr, whichever form it asked for.
            extra = {"message": result.message} if result.message else {}
            return JSONResponse({"prompt": render_prompt(result), **extra})
        return JSONResponse(result.to_json())

    @app.post("/search", tags=["retrieval"])
    def search(body: SearchBody) -> JSONResponse:
        """Notes matching a text: by meaning, words, both fused, graph, or hubs first
        (`vault-graphrag search --mode MODE --json`)."""
        filters = parsed_filters(body.filters)
        if body.mode not in WITHOUT_MODEL:
            warm.wait_for_model()
        result = rag.search(body.query, body.mode, body.top_k, filters=filters, hops=body.hops)
        return JSONResponse(result.to_json())

    @app.post("/graph_search", tags=["retrieval"])
    def graph_search(body: GraphSearchBody) -> JSONResponse:
        """Vector anchors and what ``hops`` steps reach from them: ``{focus, parents, children}``."""
        warm.wait_for_model()
        result = rag.graph_search(
            body.query, body.top_k, hops=body.hops, filters=parsed_filters(body.filters)
        )
        return JSONResponse(result.to_json())

    @app.get(
        "/notes/{uri:path}/neighbors",
        tags=["notes"],
        dependencies=[Depends(_only_known_parameters)],
    )
    def note_neighbors(
        uri: NoteUri, direction: Literal["in", "out", "both"] = "both"
    ) -> JSONResponse:
        """Parent and links (``out``), children and backlinks (``in``), or ``both``."""
        return JSONResponse([n.to_json() for n in rag.neighbors(uri, direction)])

    @app.get("/notes/{uri:path}", tags=["notes"])
    def note(uri: NoteUri) -> JSONResponse:
        """One note from the index: metadata, properties, neighbours and its text."""
        return JSONResponse(rag.get_note(uri).to_json())

    @app.post("/index", tags=["server"])
    def index(body: IndexBody | None = None) -> JSONResponse:
        """Bring the index up to date (incremental; ``full`` re-embeds everything).

        One update runs at a time: while another runs (the watcher's or a request's)
        this answers 409 ``index_busy`` at once, or waits for it with ``"wait": true``.
        Queries keep being answered from the current snapshot meanwhile.
        """
        body = body or IndexBody()
        stats = live.update(full=body.full, wait=body.wait)
        return JSONResponse(stats.to_json())
