"""``[server]`` settings: the HTTP server for the Obsidian plugin and its watcher.

The defaults are the safe ones: loopback only, no wildcard CORS, a small request
body limit. ``check_bind`` is the one rule that decides whether a bind address
is allowed, so the CLI and tests agree on it.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from graphrag.errors import ConfigError

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str = ""
    cors_origins: tuple[str, ...] = ("app://obsidian.md", "capacitor://localhost", "http://localhost")
    allowed_hosts: tuple[str, ...] = ()
    max_body_bytes: int = 65536
    watch: bool = True
    watch_debounce_ms: int = 300
    preload_model: bool = True


def is_loopback(host: str) -> bool:
    """True for ``localhost``, 127.0.0.0/8 and ::1 (the only addresses no other machine reaches)."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def check_bind(host: str, token: str) -> None:
    """Refuse a non-loopback bind without a token: anyone on the network could read the vault."""
    if not is_loopback(host) and not token:
        raise ConfigError(
            f"refusing to listen on {host}: any device on your network could read your vault. "
            "Give a token (--token-file FILE, or server.token) so only clients that know it "
            "are answered, or bind 127.0.0.1"
        )


def check_origins(origins: tuple[str, ...]) -> None:
    if any(o.strip() == "*" for o in origins):
        raise ConfigError(
            "server.cors_origins = '*' would let every web page you visit read your vault; "
            "list the origins instead (the Obsidian app is app://obsidian.md)"
        )
