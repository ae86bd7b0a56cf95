"""The HTTP API's errors: one JSON shape, one table, and an OpenAPI document that says so.

Every error a client can get is ``{"error": code, "detail": message}`` plus data
(``field``, ``suggestions``, ``candidates``): from our exceptions (``ERRORS``), from
request validation (the ``field`` is the name the client sent: ``filters.prop``,
``question``; malformed JSON is ``body``), from the guards (``guard.send_error``) and
from anything unexpected (500 ``internal_error``, details only in the log).

``document_errors`` rewrites the generated OpenAPI document to match: FastAPI's own
422 shape (``HTTPValidationError``) is replaced by ``Error``, and each operation lists
the statuses it can answer (400/413 for bodies, 401 with a token, 403 for Host/Origin,
404 for a note that is not there, 409 for a busy index or no model, 422, 503 for no
usable index, 500), so a generated client can trust it. See docs/architecture.md
("Serving").
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException

from graphrag.errors import (
    AmbiguousNoteError,
    ConfigError,
    IndexBusyError,
    IndexMissingError,
    IndexStaleError,
    InvalidRequestError,
    NoteNotFoundError,
    VaultError,
    VaultRAGError,
)

log = logging.getLogger(__name__)

# Our exceptions -> (HTTP status, error code). First match in this order wins.
ERRORS: tuple[tuple[type[VaultRAGError], int, str], ...] = (
    (NoteNotFoundError, 404, "note_not_found"),
    (AmbiguousNoteError, 422, "ambiguous_note"),
    (InvalidRequestError, 422, "invalid_request"),
    (IndexBusyError, 409, "index_busy"),
    (IndexMissingError, 503, "index_missing"),
    (IndexStaleError, 503, "index_stale"),
    (ConfigError, 500, "config_error"),
    (VaultError, 500, "vault_error"),
    (VaultRAGError, 500, "error"),
)

HTTP_CODES = {404: "not_found", 405: "method_not_allowed", 400: "bad_request"}


class ErrorBody(BaseModel):
    """Every error response."""

    model_config = ConfigDict(extra="allow", title="Error")

    error: str = Field(description="a stable code: note_not_found, invalid_request, ...")
    detail: str = Field(description="what went wrong, for people")
    field: str | None = Field(None, description="invalid_request, ambiguous_note: the field")
    suggestions: list[str] | None = Field(None, description="note_not_found: close uris")
    candidates: list[str] | None = Field(None, description="ambiguous_note: the notes matched")


STATUS_TEXT = {
    400: "bad_request: an invalid Content-Length",
    401: "unauthorized: the token is missing or wrong (only when the server has one)",
    403: "host_not_allowed, origin_not_allowed: a foreign Host or Origin header",
    404: "note_not_found: no such note; suggestions lists close uris",
    409: "index_busy: another update runs",
    413: "body_too_large: the body is over server.max_body_bytes",
    422: "invalid_request (field names what the client sent) or ambiguous_note (candidates)",
    500: "internal_error, config_error: a problem on the server (see its log)",
    503: "index_missing, index_stale: no usable index",
}


def error_json(exc: VaultRAGError) -> JSONResponse:
    status, code = next((s, c) for cls, s, c in ERRORS if isinstance(exc, cls))
    body: dict[str, Any] = {"error": code, "detail": str(exc)}
    if isinstance(exc, NoteNotFoundError):
        body["suggestions"] = exc.suggestions
    elif isinstance(exc, AmbiguousNoteError):
        body.update(field="note", candidates=exc.candidates)
    elif isinstance(exc, InvalidRequestError):
        body["field"] = exc.field
    return JSONResponse(body, status_code=status)


_GONE = object()  # below a key the client did not send: nothing left to compare with


def _as_sent(loc: list[Any], sent: Any, missing: bool) -> list[Any]:
    """The parts of ``loc`` that are keys and indexes of what the client sent (``missing``:
    the last part is a key the client left out).

    Pydantic adds the tag of each member of a union it tried (``str``,
    ``constrained-str``, ``list[constrained-str]``) to the location; the client wrote
    ``filters.tag``, not ``filters.tag.constrained-str``."""
    out: list[Any] = []
    here = sent
    for i, part in enumerate(loc):
        if isinstance(here, list) and not isinstance(part, int):
            continue
        if here is not _GONE and not isinstance(here, (dict, list)):
            continue
        if isinstance(here, dict) and part not in here and not (missing and i == len(loc) - 1):
            continue
        out.append(part)
        try:
            here = here[part]  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            here = _GONE
    return out


def invalid_json(errors: list[Any], content_type: str, sent: Any = _GONE) -> JSONResponse:
    """A 422 naming the first problem's field as the client wrote it (``sent``: the
    parsed body, when the problem is in it)."""
    first: dict[str, Any] = errors[0] if errors else {}
    loc = list(first.get("loc", ()))
    if loc and loc[0] in ("body", "query", "path"):  # where it came from, not a field name
        loc = loc[1:]
    if isinstance(sent, dict):
        loc = _as_sent(loc, sent, first.get("type") == "missing")
    loc = [str(p) for p in loc]
    message = str(first.get("msg", "invalid request")).removeprefix("Value error, ")
    if first.get("type") == "json_invalid":
        # loc holds the byte offset, which is no field of the client's.
        at = first.get("loc", ("body", "?"))[-1]
        reason = (first.get("ctx") or {}).get("error", "not JSON")
        field, message = "body", f"invalid JSON at byte {at} ({reason})"
    else:
        field = ".".join(loc) or "body"
        if field == "body" and "json" not in content_type:
            message = "send a JSON object with Content-Type: application/json"
    return JSONResponse(
        {"error": "invalid_request", "detail": f"{field}: {message}", "field": field},
        status_code=422,
    )


# What FastAPI's JSON parsing raises besides a syntax error; it answers them with a bare
# 400 "There was an error parsing the body", which names no field.
UNREADABLE_BODY = (UnicodeDecodeError, RecursionError)


def unreadable_body(cause: BaseException) -> JSONResponse:
    """A body that is no JSON text is malformed JSON too: 422 naming ``body``."""
    if isinstance(cause, UnicodeDecodeError):
        message = f"not UTF-8 (byte {cause.start}); send JSON as UTF-8"
    else:
        message = "JSON nested too deeply"
    return JSONResponse(
        {"error": "invalid_request", "detail": f"body: {message}", "field": "body"},
        status_code=422,
    )


def install_errors(app: FastAPI) -> None:
    """Every failure of a request becomes the error shape; nothing reaches the client raw."""

    @app.exception_handler(VaultRAGError)
    async def vault_error(_request: Request, exc: VaultRAGError) -> JSONResponse:
        return error_json(exc)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return invalid_json(
            list(exc.errors()), request.headers.get("content-type", ""), getattr(exc, "body", None)
        )

    @app.exception_handler(ValidationError)
    async def invalid_inside(request: Request, exc: ValidationError) -> JSONResponse:
        # A model built in an endpoint from path or query values (never the server's fault).
        return invalid_json(list(exc.errors()), "application/json")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        if exc.status_code == 400 and isinstance(exc.__cause__, UNREADABLE_BODY):
            return unreadable_body(exc.__cause__)
        code = HTTP_CODES.get(exc.status_code, "http_error")
        return JSONResponse(
            {"error": code, "detail": str(exc.detail)},
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
        )

    @app.exception_handler(Exception)
    async def crashed(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error", exc_info=exc)
        return JSONResponse(
            {"error": "internal_error", "detail": f"{type(exc).__name__} (see the server log)"},
            status_code=500,
        )


ERROR_REF = {"$ref": "#/components/schemas/Error"}
FASTAPI_422 = ("HTTPValidationError", "ValidationError")


def _statuses(path: str, method: str, operation: dict[str, Any]) -> set[int]:
    """What one operation can answer besides its success (see the module docstring)."""
    if path == "/health":
        return {403}
    statuses = {401, 403, 500, 503}
    if method in ("post", "put", "patch"):
        statuses |= {400, 413, 422}
    if operation.get("parameters"):
        statuses.add(422)
    if "{uri" in path or path in ("/focus", "/ask"):  # a note named by the client
        statuses |= {404, 422}
    if path in ("/index", "/ask"):
        statuses.add(409)
    return statuses


def _with_errors(schema: dict[str, Any]) -> dict[str, Any]:
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    for name in FASTAPI_422:
        components.pop(name, None)
    components["Error"] = ErrorBody.model_json_schema(ref_template="#/components/schemas/{model}")
    for path, operations in schema.get("paths", {}).items():
        for method, operation in operations.items():
            responses = operation.setdefault("responses", {})
            for status in sorted(_statuses(path, method, operation)):
                responses.setdefault(str(status), {"description": STATUS_TEXT[status]})
            for status, response in responses.items():
                if status[:1] in ("4", "5"):
                    response["content"] = {"application/json": {"schema": ERROR_REF}}
                    response.setdefault("description", STATUS_TEXT.get(int(status), "error"))
    return schema


def document_errors(app: FastAPI) -> None:
    """Make ``/openapi.json`` describe the error responses the server really sends."""
    generate: Callable[[], dict[str, Any]] = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = _with_errors(generate())
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
