"""A question set: JSON Lines, one ``{"id", "question", "gold": [uris], "type"}``
object per line, with an optional reference ``answer`` (other fields are ignored;
see benchmarks/qa/README.md)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphrag.errors import QASetError


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    question: str
    gold: tuple[str, ...]
    type: str
    answer: str = ""  # a reference answer, for the answer words (``answers.py``)


def load_questions(path: str | os.PathLike[str]) -> list[Question]:
    """Read a JSONL question set; any malformed line is an error naming its number."""
    name = str(path)
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise QASetError(name, None, f"cannot read it ({exc})") from exc
    out: list[Question] = []
    seen: set[str] = set()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QASetError(name, n, f"not valid JSON ({exc.msg})") from exc
        question = _question(data, lambda reason, n=n: QASetError(name, n, reason))
        if question.id in seen:
            raise QASetError(name, n, f"duplicate id {question.id!r}")
        seen.add(question.id)
        out.append(question)
    if not out:
        raise QASetError(name, None, "no questions")
    return out


def _question(data: Any, error: Any) -> Question:
    if not isinstance(data, dict):
        raise error("expected a JSON object")
    for key in ("id", "question", "type"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise error(f"{key!r} must be a non-empty string")
    gold = data.get("gold")
    if not isinstance(gold, list) or not gold or not all(isinstance(g, str) and g for g in gold):
        raise error("'gold' must be a non-empty list of note uris")
    answer = data.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise error("'answer' must be a string")
    gold = tuple(dict.fromkeys(gold))
    return Question(data["id"], data["question"], gold, data["type"], answer or "")
