"""What every command shares: the vault options, opening the vault, one-line errors.

Commands stay thin: parse options, call one ``VaultRAG`` method, print.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from graphrag.api import VaultRAG
from graphrag.cli.progress import progress_bar
from graphrag.config import Settings, load_settings
from graphrag.errors import VaultRAGError

F = TypeVar("F", bound=Callable[..., Any])

vault_argument = click.argument("vault", type=click.Path(exists=True, file_okay=False))
vault_option = click.option(
    "--vault",
    required=True,
    type=click.Path(exists=True, file_okay=False),
    help="The vault folder (or an index folder).",
)
index_dir_option = click.option(
    "--index-dir",
    type=click.Path(file_okay=False),
    help="Where the index lives (default: VAULT/.graphrag).",
)
config_option = click.option(
    "--config", type=click.Path(exists=True, dir_okay=False), help="A TOML settings file."
)
no_update_option = click.option(
    "--no-update",
    "no_update",
    is_flag=True,
    help="Answer from the index as it is, even if the vault changed since it was made (an "
    "index shared read-only); by default it is brought up to date first.",
)


def where(fn: F) -> F:
    """``--vault``, ``--index-dir`` and ``--config``, for commands that read an index."""
    return vault_option(index_dir_option(config_option(fn)))


def filter_options(fn: F) -> F:
    """``--folder``, ``--tag``, ``--property``, ``--created``, ``--modified``: which notes a
    question may be answered from (``query``, ``search``, ``ask``). The command gets them
    as one ``filters`` keyword: ``Filters.parse``'s keywords."""

    @wraps(fn)
    def collected(
        *args: Any,
        folder: tuple[str, ...],
        tag: tuple[str, ...],
        prop: tuple[str, ...],
        created: str | None,
        modified: str | None,
        **kwargs: Any,
    ) -> Any:
        filters = {
            "folder": folder,
            "tag": tag,
            "prop": prop,
            "created": created,
            "modified": modified,
        }
        return fn(*args, filters=filters, **kwargs)

    options = [
        click.option(
            "--folder", multiple=True, help="Only notes in this folder (repeatable: any)."
        ),
        click.option("--tag", multiple=True, help="Only notes with this tag (repeatable: all)."),
        click.option(
            "--property",
            "prop",
            multiple=True,
            metavar="KEY[=VALUE]",
            help="Only notes whose front matter has KEY (=VALUE) (repeatable: all).",
        ),
        click.option("--created", metavar="FROM..TO", help="Created in this date range."),
        click.option("--modified", metavar="FROM..TO", help="Modified in this date range."),
    ]
    command: Any = collected
    for option in reversed(options):
        command = option(command)
    return command


def errors(fn: F) -> F:
    """Our errors become one-line messages with a non-zero exit, never tracebacks."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except VaultRAGError as exc:
            raise click.ClickException(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def open_vault(
    vault: str,
    index_dir: str | None,
    config: str | None,
    update: bool = True,
    settings: Settings | None = None,
) -> VaultRAG:
    """The vault (or index folder) with the settings of ``config``; indexed first if
    ``update``, saying so on stderr (``progress_bar``)."""
    progress, close = progress_bar(quiet=False) if update else (None, lambda: None)
    try:
        return VaultRAG.open(
            vault,
            settings=settings or load_settings(config),
            index_dir=index_dir,
            update=update,
            progress=progress,
        )
    finally:
        close()
