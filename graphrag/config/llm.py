"""Which language model answers, with what options (``[llm]`` in configs/default.toml).

Models come from Simon Willison's ``llm`` library, so every provider its plugins
support works (llm-ollama and llm-gpt4all for local models, OpenAI, Anthropic...).
Keys live where ``llm`` keeps them (``llm keys set``; ``LLM_USER_PATH``).

Nothing is sent anywhere unless the user named a model: in ``[llm] model`` or with
``-m``. ``llm``'s own default model is never used, because that would quietly send
notes to whichever provider it points at (OpenAI, out of the box).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphrag.errors import ConfigError, VaultRAGError

if TYPE_CHECKING:
    import llm

HOW_TO_CONFIGURE = (
    "Name one with -m MODEL, or set it once in your settings file: [llm] model = \"MODEL\" "
    "(or the environment: VAULTRAG_LLM__MODEL=MODEL). `llm models` lists the models llm "
    "knows; `llm install llm-ollama` (or llm-gpt4all) adds local models that keep your "
    "notes on this machine. --prompt-only prints the prompt without sending it."
)


@dataclass(frozen=True)
class LLMSettings:
    model: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    system_prompt_file: str = ""
    summary_system_prompt_file: str = ""
    summary_task: str = ""
    focus_list_limit: int = 20

    def system_prompt(self, kind: str) -> str | None:
        """The user's system prompt for ``ask`` or ``summary`` prompts, if configured."""
        name = self.system_prompt_file if kind == "ask" else self.summary_system_prompt_file
        return read_prompt_file(name) if name else None


class LLMError(VaultRAGError):
    """The language model could not be used or failed; nothing was answered."""


class ModelNotConfiguredError(LLMError):
    def __init__(self) -> None:
        super().__init__(f"no language model is configured, so nothing was sent. {HOW_TO_CONFIGURE}")


class UnknownModelError(LLMError):
    """``llm`` has no model by this name; ``suggestions`` are close model ids or aliases."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        self.name = name
        self.suggestions = suggestions
        close = f" (closest: {', '.join(suggestions)})" if suggestions else ""
        super().__init__(
            f"llm knows no model named {name!r}{close}, so nothing was sent. {HOW_TO_CONFIGURE}"
        )


class ModelCallError(LLMError):
    """The model refused the prompt or its options, or the provider failed."""

    def __init__(self, model: str, message: str) -> None:
        self.model = model
        super().__init__(f"model {model}: {message}")


def read_prompt_file(name: str | Path) -> str:
    path = Path(name).expanduser()
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the system prompt file ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: the system prompt file is not UTF-8 text") from exc


def model_name(settings: LLMSettings, name: str | None = None) -> str | None:
    """The model to use: the explicit ``name``, else ``[llm] model``; None if neither."""
    chosen = (name or "").strip() or settings.model.strip()
    return chosen or None


def get_model(name: str | None) -> llm.Model:
    """The ``llm`` model called ``name`` (an id or an alias); never ``llm``'s default."""
    if not name:
        raise ModelNotConfiguredError()
    try:
        import llm
    except ImportError as exc:  # a runtime dependency, but say what to do if it is missing
        raise LLMError("the `llm` package is not installed: pip install llm") from exc
    try:
        return llm.get_model(name)
    except llm.UnknownModelError as exc:
        known = sorted(llm.get_model_aliases())
        raise UnknownModelError(name, difflib.get_close_matches(name, known, n=5)) from exc


def model_options(
    model: llm.Model, settings: LLMSettings, flags: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``[llm] options`` then ``flags``, checked against the model's Options.

    ``[llm] options`` belong to ``[llm] model``: for another model (``-m``) those it
    does not know are left out, while an unknown option given as a flag is an error.
    """
    known = set(getattr(model.Options, "model_fields", {}))
    merged = dict(settings.options)
    if not _is_configured(model, settings):
        merged = {k: v for k, v in merged.items() if k in known}
    merged.update(flags or {})
    unknown = sorted(set(merged) - known)
    if unknown:
        listed = ", ".join(sorted(known)) if known else "none"
        raise ModelCallError(
            model.model_id, f"unknown option {unknown[0]!r} (this model's options: {listed})"
        )
    try:
        model.Options(**merged)
    except Exception as exc:  # pydantic's ValidationError; its text names the option
        raise ModelCallError(model.model_id, f"invalid options: {exc}") from exc
    return merged


def _is_configured(model: llm.Model, settings: LLMSettings) -> bool:
    name = settings.model.strip()
    if not name or name == model.model_id:
        return bool(name)
    try:
        return get_model(name).model_id == model.model_id  # an alias of the same model
    except LLMError:
        return False
