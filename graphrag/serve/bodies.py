"""What a client may send: the request bodies of the HTTP API, and their limits.

Unknown keys are refused (``extra="forbid"``), so a typo is a 422 naming the field;
types are strict (``"budget": true`` or ``"explain": 0`` is a 422, not 1 and false);
text that is only spaces counts as missing; filter values are checked here, so an
error names the field as sent (``filters.created``, ``filters.prop``); sizes are
bounded so one request cannot ask for unbounded work. The MCP server's tools take the
same types (``Note``, ``Question``, ``Budget``, ...), so both refuse the same input.
See docs/architecture.md ("Serving").
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AliasChoices, BaseModel, ConfigDict, Field, field_validator

from graphrag.errors import InvalidRequestError
from graphrag.search.modes import MAX_HOPS, SearchMode
from graphrag.snapshot.filters import Filters

MAX_NOTE_CHARS = 1024
MAX_TEXT_CHARS = 4096
MAX_BUDGET = 200_000
MAX_TOP_K = 500


def _not_blank(text: str) -> str:
    if not text.strip():
        raise ValueError("must not be blank")
    return text


# Shared with the MCP tools (one validation for both).
Note = Annotated[
    str,
    Field(min_length=1, max_length=MAX_NOTE_CHARS, description="uri, title or alias"),
    AfterValidator(_not_blank),
]
Question = Annotated[
    str, Field(min_length=1, max_length=MAX_TEXT_CHARS), AfterValidator(_not_blank)
]
Budget = Annotated[int | None, Field(ge=0, le=MAX_BUDGET, strict=True)]
Seed = Annotated[int | None, Field(strict=True, description="makes the result reproducible")]
TopK = Annotated[int | None, Field(ge=1, le=MAX_TOP_K, strict=True)]
Uris = Annotated[list[Annotated[str, Field(max_length=MAX_NOTE_CHARS)]], Field(max_length=1000)]


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class FocusBody(Body):
    note: Note
    budget: Budget = Field(None, description="tokens for related notes")
    seed: Seed = None
    explain: bool = Field(False, description="add scores, discovery paths and skipped notes")
    exclude: Uris = Field(default_factory=list, description="uris to skip")
    format: Literal["json", "prompt"] = Field("json", description='"prompt": {"prompt": text}')
    sentences: bool = Field(
        False, description="add each related note's relationSentence (how it relates, in words)"
    )


# A filter value: one string, or a list of them (as a CLI option given once or repeated).
FilterItem = Annotated[str, Field(max_length=MAX_NOTE_CHARS)]
OneOrMany = FilterItem | Annotated[list[FilterItem], Field(max_length=100)]


class FiltersBody(Body):
    """Metadata filters: every given one must hold (as the CLI's --folder/--tag/--property/...)."""

    folder: OneOrMany = Field(default_factory=list, description="folders, and below (any of them)")
    tag: OneOrMany = Field(
        default_factory=list, description="tags; nested ones count (all of them)"
    )
    property: OneOrMany = Field(
        default_factory=list,
        validation_alias=AliasChoices("property", "prop"),
        description='"key=value" or "key" (all of them); "prop" is accepted too',
    )
    created: str | None = Field(None, max_length=64, description="FROM..TO dates, or one day")
    modified: str | None = Field(None, max_length=64, description="FROM..TO dates, or one day")

    @field_validator("property", "created", "modified")
    @classmethod
    def _parses(cls, value: Any, info: Any) -> Any:
        """Checked as ``Filters.parse`` will read it, so the 422 names this field."""
        key = "prop" if info.field_name == "property" else info.field_name
        try:
            Filters.parse(**{key: value})
        except InvalidRequestError as exc:
            raise ValueError(str(exc).split(": ", 1)[-1]) from None
        return value


class QueryBody(Body):
    question: Question = Field(description="free text; #tags select")
    budget: Budget = Field(None, description="tokens for all notes returned")
    seed: Seed = None
    explain: bool = Field(False, description="add score parts, paths and the notes left out")
    filters: FiltersBody | None = None
    format: Literal["json", "prompt"] = Field("json", description='"prompt": {"prompt": text}')


class GraphSearchBody(Body):
    query: Question
    top_k: TopK = Field(None, description="vector anchors")
    hops: int = Field(1, ge=0, le=MAX_HOPS, description="steps from each anchor")
    filters: FiltersBody | None = None


class SearchBody(Body):
    query: Question
    mode: SearchMode = Field("hybrid", description="as `vault-graphrag search --mode`")
    top_k: TopK = Field(None, description="how many notes (default 10)")
    hops: int = Field(1, ge=0, le=MAX_HOPS, description="graph mode: steps from the anchors")
    filters: FiltersBody | None = None


class IndexBody(Body):
    full: bool = Field(False, description="re-parse and re-embed everything")
    wait: bool = Field(False, description="wait for a running update instead of a 409")


def parsed_filters(body: FiltersBody | None) -> Filters | None:
    """The body's filters, parsed once here (nothing after the route parses them again);
    None when none is given, as the CLI sends none."""
    if body is None:
        return None
    data = body.model_dump(exclude_defaults=True)
    if not data:
        return None
    if "property" in data:
        data["prop"] = data.pop("property")
    return Filters.parse(**data)
