"""Model Context Protocol server: vault context for assistants (Claude Desktop, IDEs).

``build_mcp_server(rag)`` exposes the facade as MCP tools with typed inputs;
``vault-graphrag mcp VAULT`` runs it over stdio. Like the HTTP server it is a
thin adapter: parse, call one ``VaultRAG`` method, return the CLI's ``--json``
shape. Our errors reach the assistant as tool errors whose text names the problem
and the closest notes.

Arguments are checked as the HTTP bodies are (``serve.bodies``): the same types and
limits (a blank or 1 MB question, ``budget: true`` are refused), strict types, and an
unknown argument is an error rather than silently dropped (the SDK ignores extras, so
each tool's argument model is replaced by a strict one).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Annotated, Any, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.tools import Tool
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from pydantic import ConfigDict, Field

from graphrag.api import VaultRAG
from graphrag.errors import VaultRAGError
from graphrag.search.modes import MAX_HOPS, SearchMode
from graphrag.serve.bodies import MAX_NOTE_CHARS, Budget, Note, Question, Seed, TopK, Uris
from indexer import __version__

F = TypeVar("F", bound=Callable[..., Any])

INSTRUCTIONS = (
    "Tools over the user's Obsidian vault (Markdown notes linked into a graph). "
    "Use `query` to answer a question from the notes, `search` to find notes, `focus` for the "
    "context around a note the user names, and `get_note` to read one note."
)

Names = Annotated[list[Annotated[str, Field(max_length=MAX_NOTE_CHARS)]], Field(max_length=100)]


def _tool_errors(fn: F) -> F:
    """Our errors become tool errors with their message; anything else stays a crash."""

    @wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except VaultRAGError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def strict_tool(fn: Callable[..., Any]) -> Tool:
    """A tool whose arguments are checked like an HTTP body: strict types, no unknown keys."""
    tool = Tool.from_function(fn)
    loose = tool.fn_metadata.arg_model
    config = ConfigDict(**{**loose.model_config, "extra": "forbid", "strict": True})
    strict: type[ArgModelBase] = type(
        loose.__name__, (loose,), {"model_config": config, "__module__": __name__}
    )
    tool.fn_metadata.arg_model = strict
    tool.parameters = strict.model_json_schema(by_alias=True)
    return tool


def build_mcp_server(rag: VaultRAG) -> MCPServer:
    """An MCP server whose tools answer from ``rag``."""

    @_tool_errors
    def focus(
        note: Annotated[Note, Field(description="The note: uri, title or alias.")],
        budget: Annotated[
            Budget,
            Field(description="Tokens for related notes (default 2000: [focus] default_budget)."),
        ] = None,
        seed: Annotated[
            Seed, Field(description="Fixes the random choices: same seed, same answer.")
        ] = None,
        exclude: Annotated[
            Uris, Field(description="uris already seen (to page through more).")
        ] = [],  # noqa: B006 - the SDK copies validated arguments
    ) -> dict[str, Any]:
        """The context around one note of the vault: the note itself (with its parent path,
        children, siblings, links and backlinks) and the most related notes, ranked by how
        they relate (parent, child, link, backlink, sibling, ...), within a token budget."""
        return rag.focus(note, budget=budget, seed=seed, exclude=exclude).to_json()

    @_tool_errors
    def query(
        question: Annotated[Question, Field(description="What to look up, in words.")],
        budget: Annotated[
            Budget,
            Field(
                description="Tokens for all notes returned (default 4000: [query] default_budget)."
            ),
        ] = None,
        seed: Annotated[
            Seed, Field(description="Fixes the random choices: same seed, same answer.")
        ] = None,
        folder: Annotated[Names, Field(description="Only notes in these folders.")] = [],  # noqa: B006
        tag: Annotated[Names, Field(description="Only notes with all these tags.")] = [],  # noqa: B006
    ) -> dict[str, Any]:
        """Answer a question from the vault: the notes that best match it (entry notes) and
        the notes related to them in the graph, with how they relate, within a token budget.
        A related note's `relationToFocusNote` is to the note its `focusUri` names, or to
        the first entry note when it names none (`MatchesQuestion`: found by its own text).
        `#tags` in the question select notes by tag."""
        filters = {"folder": folder, "tag": tag}
        return rag.query(question, budget, seed=seed, filters=filters).to_json()

    @_tool_errors
    def search(
        text: Annotated[Question, Field(description="Words or a phrase to find.")],
        mode: Annotated[
            SearchMode,
            Field(
                description="semantic: by meaning; lexical: by words; hybrid: both fused; "
                "hierarchical: relevant folders/tags/hubs first; graph: the best-matching "
                "notes and the notes `hops` links away from them."
            ),
        ] = "hybrid",
        top_k: Annotated[
            TopK, Field(le=100, description="How many notes (graph: how many to start from).")
        ] = None,
        hops: Annotated[
            int, Field(ge=0, le=MAX_HOPS, description="graph mode: steps from those notes.")
        ] = 1,
    ) -> dict[str, Any]:
        """Find notes by meaning and/or words: a ranked list with the best-matching passage
        (`{query, mode, results}`). Graph mode returns another shape,
        `{query, focus, parents, children}`: the best-matching notes (`focus`), and what
        `hops` steps from them reach up (`parents`: parent notes, link targets) and down
        (`children`: child notes, backlinks)."""
        return rag.search(text, mode, top_k, hops=hops).to_json()

    @_tool_errors
    def get_note(
        note: Annotated[Note, Field(description="The note: uri, title or alias.")],
    ) -> dict[str, Any]:
        """Read one note in full: its text, front matter, tags, parent, links and backlinks."""
        return rag.get_note(note).to_json()

    return MCPServer(
        "vault-graphrag",
        version=__version__,
        instructions=INSTRUCTIONS,
        log_level="WARNING",
        tools=[strict_tool(fn) for fn in (focus, query, search, get_note)],
    )
