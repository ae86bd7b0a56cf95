"""``vault-graphrag plugin install VAULT``: copy the bundled Obsidian plugin into a vault.

The plugin is built from ``obsidian-plugin/`` by ``make js`` into ``graphrag/serve/plugin/``
and ships with the Python package (package data), so a pip user needs no Node.js. This is
the one command that writes into a vault, and only into
``VAULT/.obsidian/plugins/vault-graphrag/`` (see docs/architecture.md on the read-only vault).
"""

from __future__ import annotations

import os
import tempfile
from importlib.resources import files
from pathlib import Path

import click

PLUGIN_ID = "vault-graphrag"
PLUGIN_FILES = ("main.js", "manifest.json", "styles.css")


def bundled_plugin() -> dict[str, bytes]:
    """The built plugin's files, by name; a ClickException if this installation lacks them."""
    folder = files("graphrag.serve") / "plugin"
    missing = [name for name in PLUGIN_FILES if not (folder / name).is_file()]
    if missing:
        raise click.ClickException(
            f"the Obsidian plugin is not built in this installation (missing {', '.join(missing)} "
            f"in {folder}): run `make js` in the source tree"
        )
    return {name: (folder / name).read_bytes() for name in PLUGIN_FILES}


def _write_atomic(path: Path, data: bytes) -> None:
    """Obsidian may be reading the folder: it sees the old file or the new one, never half."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def install_plugin(vault: Path) -> list[Path]:
    """Copy the plugin into ``vault``; returns the files written. Its settings (data.json) stay."""
    config = vault / ".obsidian"
    if not config.is_dir():
        raise click.ClickException(
            f"{config} does not exist: open {vault} as a vault in Obsidian once, then run this again"
        )
    target = config / "plugins" / PLUGIN_ID
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in bundled_plugin().items():
        _write_atomic(target / name, data)
        written.append(target / name)
    return written


@click.group()
def plugin() -> None:
    """The Obsidian plugin that ships with this package.

    \b
    vault-graphrag plugin install ~/Notes
    """


@plugin.command()
@click.argument("vault", type=click.Path(exists=True, file_okay=False, path_type=Path))
def install(vault: Path) -> None:
    """Copy the Obsidian plugin into VAULT/.obsidian/plugins/vault-graphrag/.

    \b
    vault-graphrag plugin install ~/Notes
    """
    vault = vault.resolve()
    for path in install_plugin(vault):
        click.echo(f"wrote {path}")
    click.echo(
        "\nTo enable it in Obsidian: Settings -> Community plugins -> turn on community plugins "
        '(if Restricted mode is on) -> reload the list -> enable "Vault GraphRAG".\n'
        f"Then start the server it talks to: vault-graphrag serve {vault}"
    )
