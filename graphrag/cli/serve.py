"""``vault-graphrag serve`` (HTTP for the Obsidian plugin) and ``vault-graphrag mcp`` (stdio).

Registered on the main group by ``graphrag.cli.main``. Like the rest of the CLI these
only parse options, open a ``VaultRAG`` and hand it to ``create_app`` or
``build_mcp_server``.
"""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import click

from graphrag.api import VaultRAG
from graphrag.cli.common import config_option, errors, index_dir_option, vault_argument
from graphrag.config import load_settings
from graphrag.serve.bind import check_bind


def _read_token(token: str | None, token_file: str | None) -> str | None:
    if token is not None and token_file is not None:
        raise click.UsageError("give --token or --token-file, not both")
    if token_file is not None:
        value = Path(token_file).read_text(encoding="utf-8").strip()
        if not value:
            raise click.BadParameter(f"{token_file} is empty", param_hint="--token-file")
        return value
    return token


@click.command()
@vault_argument
@index_dir_option
@config_option
@click.option(
    "--host",
    help="Address to listen on. Default 127.0.0.1: only programs on this computer can connect. "
    "Any other address (0.0.0.0 for a phone on your Wi-Fi) needs a token.",
)
@click.option("--port", type=click.IntRange(0, 65535), help="TCP port (default 8765).")
@click.option(
    "--watch/--no-watch",
    default=None,
    help="Re-index changed notes while serving (default: on).",
)
@click.option(
    "--token",
    help="Require Authorization: Bearer TOKEN on every endpoint but /health. "
    "Visible to other local users in the process list: prefer --token-file.",
)
@click.option(
    "--token-file",
    type=click.Path(exists=True, dir_okay=False),
    help="Read the token from this file.",
)
@click.option(
    "--allow-host",
    "allow_hosts",
    multiple=True,
    metavar="NAME",
    help="Also accept requests for this Host (the LAN name or address a phone uses); repeatable.",
)
@click.option(
    "--get",
    "get_path",
    metavar="PATH",
    help="Answer one GET request in-process, print the JSON and exit (no socket).",
)
@errors
def serve(
    vault: str,
    index_dir: str | None,
    config: str | None,
    host: str | None,
    port: int | None,
    watch: bool | None,
    token: str | None,
    token_file: str | None,
    allow_hosts: tuple[str, ...],
    get_path: str | None,
) -> None:
    """Serve VAULT over HTTP for the Obsidian plugin (JSON in and out; docs at /docs).

    It listens on 127.0.0.1 unless told otherwise, because anything that can reach
    the port can read your notes; binding elsewhere is refused without a token.
    Requests from web pages are refused unless their origin is configured
    (server.cors_origins), and so are requests naming a foreign Host.

    \b
    vault-graphrag serve ~/Notes
    vault-graphrag serve ~/Notes --host 0.0.0.0 --token-file ~/.config/vault-graphrag.token \\
        --allow-host 192.168.1.20
    vault-graphrag serve ~/Notes --get /status
    curl -s --json '{"note": "Project Alpha", "budget": 1500}' localhost:8765/focus
    """
    overrides: dict[str, Any] = {}
    for key, value in (("host", host), ("port", port), ("watch", watch)):
        if value is not None:
            overrides[key] = value
    if allow_hosts:
        overrides["allowed_hosts"] = allow_hosts
    secret = _read_token(token, token_file)
    if secret is not None:
        overrides["token"] = secret
    settings = load_settings(config, overrides={"server": overrides} if overrides else None)
    server = settings.server
    check_bind(server.host, server.token)  # before any work: fail fast with the reason

    rag = VaultRAG.open(vault, settings=settings, index_dir=index_dir)
    from graphrag.serve.app import create_app

    if get_path is not None:
        from fastapi.testclient import TestClient

        app = create_app(rag, replace(server, watch=False, preload_model=False))
        headers = {"Authorization": f"Bearer {server.token}"} if server.token else {}
        with TestClient(app, base_url="http://localhost") as client:
            response = client.get(get_path, headers=headers)
        click.echo(json.dumps(response.json(), indent=2, ensure_ascii=False))
        if response.status_code >= 400:
            sys.exit(1)
        return

    from graphrag.serve.announce import run_announced

    run_announced(create_app(rag, server), rag, settings)


@click.command()
@vault_argument
@index_dir_option
@config_option
@click.option("--watch/--no-watch", default=False, help="Re-index changed notes while running.")
@errors
def mcp(vault: str, index_dir: str | None, config: str | None, watch: bool) -> None:
    """Run a Model Context Protocol server over stdio (for Claude Desktop, IDEs).

    The index is brought up to date first. Tools: focus, get_note, query, search.

    \b
    vault-graphrag mcp ~/Notes
    Claude Desktop: {"mcpServers": {"vault": {"command": "vault-graphrag",
                     "args": ["mcp", "/path/to/Notes"]}}}
    """
    settings = load_settings(config)
    rag = VaultRAG.open(vault, settings=settings, index_dir=index_dir)
    from graphrag.serve.live import LiveIndex
    from graphrag.serve.mcp_server import build_mcp_server

    live = LiveIndex(rag, settings.server.watch_debounce_ms)
    if watch:
        live.start()
    try:
        build_mcp_server(rag).run("stdio")
    finally:
        live.stop()
