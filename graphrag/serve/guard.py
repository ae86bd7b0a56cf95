"""What stands between the network and the endpoints: Host, Origin, token, body size.

A server on 127.0.0.1 is still reachable by every web page the user visits
(the browser makes the request). So:

* ``Host`` must be a loopback name or a configured host: a DNS-rebinding page
  (``evil.example`` resolved to 127.0.0.1) arrives with its own name and is refused.
* ``Origin``, when present, must be a configured origin: a page may not even
  trigger a side effect (``POST /index``) without a preflight, since a "simple"
  cross-site POST skips the preflight and CORS only hides the response. The
  server's own origin (``http://`` + the allowed ``Host``) is also accepted: that
  is our own ``/docs`` page trying an endpoint, and the Host check has already
  refused a rebinding name.
* With a token set, every endpoint needs ``Authorization: Bearer``, compared in
  constant time, but ``/health`` and the web page's files (``/`` and ``/static/...``:
  a browser cannot send the header when it loads a page; the files hold nothing of
  the vault, and the page sends the token with each API call).
* Request bodies larger than ``max_body_bytes`` are refused before they are read whole:
  by a ``Content-Length`` over it, and in any case by the bytes actually received.

Errors use the server's JSON shape ``{"error": code, "detail": message}``.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Iterable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphrag.serve.bind import LOOPBACK_NAMES, is_loopback

PUBLIC_PATHS = frozenset({"/health", "/"})
PUBLIC_PREFIXES = ("/static/",)


def host_name(host_header: str) -> str:
    """``[::1]:8765`` -> ``::1``; ``Localhost:80`` -> ``localhost``."""
    value = host_header.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    if value.count(":") == 1:
        return value.rsplit(":", 1)[0]
    return value


async def send_error(
    send: Send, status: int, code: str, detail: str, headers: Iterable[tuple[bytes, bytes]] = ()
) -> None:
    body = json.dumps({"error": code, "detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope["headers"]:
        if key == name:
            return value.decode("latin-1")
    return None


def _same_origin(scope: Scope, origin: str, host: str | None) -> bool:
    return (
        host is not None
        and origin.lower() == f"{scope.get('scheme', 'http')}://{host.strip().lower()}"
    )


class HostOriginGuard:
    """Outermost: refuse foreign ``Host`` (DNS rebinding) and foreign ``Origin`` headers."""

    def __init__(
        self, app: ASGIApp, allowed_hosts: Iterable[str], allowed_origins: Iterable[str]
    ) -> None:
        self.app = app
        self.hosts = {h.strip().strip("[]").lower() for h in allowed_hosts if h.strip()}
        self.hosts |= {h.strip("[]") for h in LOOPBACK_NAMES}
        self.origins = frozenset(allowed_origins)

    def host_allowed(self, host: str | None) -> bool:
        if not host:
            return False
        name = host_name(host)
        return name in self.hosts or is_loopback(name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        host = _header(scope, b"host")
        if not self.host_allowed(host):
            await send_error(
                send,
                403,
                "host_not_allowed",
                f"Host {host!r} is not a loopback name or a configured host "
                "(server.allowed_hosts); refused as a possible DNS-rebinding attack",
            )
            return
        origin = _header(scope, b"origin")
        if (
            origin is not None
            and origin not in self.origins
            and not _same_origin(scope, origin, host)
        ):
            await send_error(
                send,
                403,
                "origin_not_allowed",
                f"Origin {origin!r} is not in server.cors_origins",
            )
            return
        await self.app(scope, receive, send)


class TokenAndBodyGuard:
    """Inside CORS (so its errors carry CORS headers): bearer token and body size."""

    def __init__(self, app: ASGIApp, token: str, max_body_bytes: int) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.max_body = max_body_bytes

    def authorised(self, scope: Scope) -> tuple[bool, str]:
        path = scope["path"]
        if self.token is None or path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES):
            return True, ""
        value = _header(scope, b"authorization")
        if value is None:
            return False, "this server needs a token: send Authorization: Bearer TOKEN"
        scheme, _, given = value.partition(" ")
        if scheme.lower() != "bearer":
            return False, "use Authorization: Bearer TOKEN"
        if not hmac.compare_digest(given.strip().encode(), self.token):
            return False, "wrong token"
        return True, ""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        ok, why = self.authorised(scope)
        if not ok:
            await send_error(send, 401, "unauthorized", why, [(b"www-authenticate", b"Bearer")])
            return
        length = _header(scope, b"content-length")
        if length is not None:
            try:
                declared = int(length)
            except ValueError:
                await send_error(send, 400, "bad_request", "invalid Content-Length")
                return
            if declared > self.max_body:
                await send_error(send, 413, "body_too_large", self._too_big())
                return
        # Count the bytes actually received, whatever the headers say: with both
        # Content-Length and Transfer-Encoding: chunked the server reads the chunks, and a
        # small Content-Length once let a 200 MB body through. Read up to the limit, then
        # replay what was read to the app.
        body, more = b"", scope["method"] not in ("GET", "HEAD", "OPTIONS") or length is not None
        while more:
            message = await receive()
            if message["type"] != "http.request":
                break
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.max_body:
                await send_error(send, 413, "body_too_large", self._too_big())
                return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    def _too_big(self) -> str:
        return f"request body larger than {self.max_body} bytes (server.max_body_bytes)"
