"""``[llm]`` settings: which language model answers, with what options and prompts.

The model itself is looked up in ``graphrag.answer.models``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class LLMSettings:
    model: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    system_prompt_file: str = ""
    summary_system_prompt_file: str = ""
    summary_task: str = ""
    focus_list_limit: int = 20
    history_turns: int = 6
