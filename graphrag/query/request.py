"""One query-mode request, parsed and checked once where it comes in (docs/architecture.md,
"Query mode", "The query request").

A boundary (``VaultRAG.query``, the HTTP ``/query`` route, the MCP tool, batch, eval)
turns what a caller sent into a ``QueryRequest``; query mode reads it and parses
nothing: the question's ``#tags``, the filters and the default budget are settled here.
What the request is answered *on* (the snapshot's index, graph and corpus, the
question's vector, the tokenizer) is not part of it: ``run_query`` takes those
separately, so one request can be answered on any view of a generation (eval hides
links from the graph) and built before a model is loaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from graphrag.config import Settings
from graphrag.config.details import DetailsSettings
from graphrag.config.focus import FocusSettings
from graphrag.config.query import QuerySettings
from graphrag.errors import InvalidRequestError
from graphrag.query.entry import ParsedQuery, parse_query
from graphrag.query.render import renderer
from graphrag.snapshot.filters import Filters


@dataclass(frozen=True)
class QueryRequest:
    """A question to answer in query mode, with everything that shapes the answer."""

    question: ParsedQuery
    budget: int  # tokens for everything returned, entry notes included
    query: QuerySettings
    focus: FocusSettings  # the traversal's caps (query mode runs focus mode's BFS)
    details: DetailsSettings = field(default_factory=DetailsSettings)
    filters: Filters = field(default_factory=Filters)
    seed: int | None = None  # None: the random choices vary between runs
    explain: bool = False
    output: str = "json"  # json or prompt: the rendered form the budget counts
    now: float | None = None  # epoch seconds for recency; None: when it runs

    @classmethod
    def parse(
        cls,
        question: str,
        settings: Settings,
        budget: int | None = None,
        *,
        seed: int | None = None,
        explain: bool = False,
        filters: Filters | None = None,
        output: str = "json",
        now: float | None = None,
    ) -> QueryRequest:
        """A request from a caller's values, checked (a blank question, a negative budget
        or an unknown output format fails here, before any work)."""
        text = question.strip() if question else ""
        if not text:
            raise InvalidRequestError("query", "the question is empty: ask something")
        budget = settings.query.default_budget if budget is None else budget
        if budget < 0:
            raise InvalidRequestError("budget", f"must be >= 0, got {budget}")
        renderer(output)
        return cls(
            question=parse_query(text),
            budget=budget,
            query=settings.query,
            focus=settings.focus,
            details=settings.details,
            filters=filters if filters is not None else Filters(),
            seed=seed,
            explain=explain,
            output=output,
            now=now,
        )

    @property
    def search_text(self) -> str:
        """What is embedded and matched by words: the question with its ``#`` dropped."""
        return self.question.search_text or self.question.text
