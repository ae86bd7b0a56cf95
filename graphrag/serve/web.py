"""The web page at ``/``: static files shipped in the package (``serve/static/``), no CDN.

``/`` is ``index.html``; ``/static/...`` the rest (the built ``app.js``, ``style.css``).
Like ``/health`` they need no token (``guard.PUBLIC_PREFIXES``): a browser cannot send a
bearer header when it loads a page, and the files hold nothing of the vault; the page
asks for the token and sends it with every API call. A Content-Security-Policy keeps the
page to its own scripts and to this server, since it renders note text as HTML.
See docs/architecture.md ("Serving").
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.types import Scope

STATIC = Path(str(files("graphrag.serve") / "static"))

# Scripts, styles, fetches and images from this server only; no framing by other pages.
PAGE_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


class PageFiles(StaticFiles):
    """StaticFiles with the page's headers, and ``.js`` always as JavaScript (some systems'
    mimetypes tables say ``text/plain``, which a module script refuses)."""

    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if path.endswith((".js", ".mjs")):
            response.headers["content-type"] = "text/javascript; charset=utf-8"
        response.headers.update(PAGE_HEADERS)
        return response


def headers_only(response: Response) -> Response:
    """The answer to a HEAD request: ``response``'s status and headers (its
    content-length too), no body. Uptime monitors and ``curl -I`` ask with HEAD."""
    return Response(status_code=response.status_code, headers=dict(response.headers))


def add_web_page(app: FastAPI, static: Path = STATIC) -> None:
    app.mount("/static", PageFiles(directory=str(static), check_dir=False), name="web-static")

    @app.get("/", include_in_schema=False)
    async def page() -> Response:
        index = static / "index.html"
        if not index.is_file():
            return JSONResponse(
                {"error": "not_found", "detail": "the web page is not built: npm run build"},
                status_code=404,
            )
        return FileResponse(index, media_type="text/html; charset=utf-8", headers=PAGE_HEADERS)

    @app.head("/", include_in_schema=False)
    async def page_head() -> Response:
        response = await page()
        # A FileResponse sends no body to a HEAD itself, and has no body to copy headers from.
        return response if isinstance(response, FileResponse) else headers_only(response)
