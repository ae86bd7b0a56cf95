"""Which addresses and origins the server may use: the rules that keep a vault private.

``check_bind`` is the one rule that decides whether a bind address is allowed, so
the CLI and tests agree on it; ``check_origins`` refuses a wildcard CORS origin.
"""

from __future__ import annotations

import ipaddress

from graphrag.errors import ConfigError

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1", "[::1]"})


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
