"""``QueryRequest``: a query-mode request, checked and parsed once where it comes in."""

from __future__ import annotations

import dataclasses

import pytest

from graphrag import ConfigError, InvalidRequestError
from graphrag.config import load_settings
from graphrag.query.request import QueryRequest
from graphrag.snapshot.filters import Filters

SETTINGS = load_settings(env={}, overrides={"query": {"default_budget": 1234}})


def test_parse_settles_the_question_budget_and_settings() -> None:
    request = QueryRequest.parse("  Who runs the #Dairy/cellar?  ", SETTINGS, seed=7)
    assert request.question.text == "Who runs the #Dairy/cellar?"
    assert request.question.tags == ("dairy/cellar",)
    assert request.search_text == "Who runs the Dairy cellar?"
    assert request.budget == 1234  # [query] default_budget
    assert (request.query, request.focus, request.details) == (
        SETTINGS.query,
        SETTINGS.focus,
        SETTINGS.details,
    )
    assert request.seed == 7 and request.filters == Filters() and not request.filters.active
    assert QueryRequest.parse("q", SETTINGS, 0).budget == 0


def test_a_filters_object_is_kept_as_given_and_the_request_cannot_change() -> None:
    chosen = Filters.parse(folder="Dairy", tag="#cheese")
    request = QueryRequest.parse("q", SETTINGS, 500, filters=chosen)
    assert request.filters is chosen
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.budget = 1  # type: ignore[misc]
    assert dataclasses.replace(request, budget=1).filters is chosen


@pytest.mark.parametrize(
    ("question", "budget", "output", "error", "field"),
    [
        ("   ", None, "json", InvalidRequestError, "query"),
        ("q", -1, "json", InvalidRequestError, "budget"),
        ("q", None, "xml", ConfigError, None),
    ],
)
def test_bad_values_fail_before_any_work(
    question: str, budget: int | None, output: str, error: type[Exception], field: str | None
) -> None:
    with pytest.raises(error) as raised:
        QueryRequest.parse(question, SETTINGS, budget, output=output)
    if field is not None:
        assert getattr(raised.value, "field", None) == field
    else:
        assert "xml" in str(raised.value)
