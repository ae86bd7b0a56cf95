"""What a client may send: the request bodies of the HTTP API, and their limits.

Unknown keys are refused (``extra="forbid"``), so a typo is a 422 naming the field;
sizes are bounded so one request cannot ask for unbounded work. See
docs/architecture.md ("Serving").
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field

from graphrag.search.modes import SearchMode

MAX_NOTE_CHARS = 1024
MAX_TEXT_CHARS = 4096
MAX_BUDGET = 200_000
MAX_TOP_K = 500


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FocusBody(Body):
    note: str = Field(min_length=1, max_length=MAX_NOTE_CHARS, description="uri, title or alias")
    budget: int | None = Field(None, ge=0, le=MAX_BUDGET, description="tokens for related notes")
    seed: int | None = Field(None, description="makes the result reproducible")
    explain: bool = Field(False, description="add scores, discovery paths and skipped notes")
    exclude: list[str] = Field(default_factory=list, max_length=1000, description="uris to skip")
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


class QueryBody(Body):
    question: str = Field(
        min_length=1, max_length=MAX_TEXT_CHARS, description="free text; #tags select"
    )
    budget: int | None = Field(
        None, ge=0, le=MAX_BUDGET, description="tokens for all notes returned"
    )
    seed: int | None = Field(None, description="makes the result reproducible")
    explain: bool = Field(False, description="add score parts, paths and the notes left out")
    filters: FiltersBody | None = None
    format: Literal["json", "prompt"] = Field("json", description='"prompt": {"prompt": text}')


class GraphSearchBody(Body):
    query: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    top_k: int | None = Field(None, ge=1, le=MAX_TOP_K, description="vector anchors")
    hops: int = Field(1, ge=0, le=3, description="steps from each anchor")
    filters: FiltersBody | None = None


class SearchBody(Body):
    query: str = Field(min_length=1, max_length=MAX_TEXT_CHARS)
    mode: SearchMode = Field("hybrid", description="as `vault-graphrag search --mode`")
    top_k: int | None = Field(None, ge=1, le=MAX_TOP_K, description="how many notes (default 10)")
    hops: int = Field(1, ge=0, le=3, description="graph mode: steps from the anchors")
    filters: FiltersBody | None = None


class IndexBody(Body):
    full: bool = Field(False, description="re-parse and re-embed everything")
    wait: bool = Field(False, description="wait for a running update instead of a 409")


def filter_args(body: FiltersBody | None) -> dict[str, Any] | None:
    """``Filters.parse`` keywords (its ``prop`` is the body's ``property``)."""
    if body is None:
        return None
    data = body.model_dump(exclude_defaults=True)
    if "property" in data:
        data["prop"] = data.pop("property")
    return data
