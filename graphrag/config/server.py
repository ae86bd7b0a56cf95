"""``[server]`` settings: the HTTP server for the Obsidian plugin and its watcher.

The defaults are the safe ones: loopback only, no wildcard CORS, a small request
body limit. The rules that refuse unsafe values are in ``graphrag.serve.bind``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ServerSettings:
    host: str = "127.0.0.1"
    port: int = 8765
    token: str = ""
    cors_origins: tuple[str, ...] = (
        "app://obsidian.md",
        "capacitor://localhost",
        "http://localhost",
    )
    allowed_hosts: tuple[str, ...] = ()
    max_body_bytes: int = 65536
    watch: bool = True
    watch_debounce_ms: int = 300
    preload_model: bool = True
