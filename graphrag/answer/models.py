"""The language model: which one answers, with what options, from ``llm``.

Models come from Simon Willison's ``llm`` library, so every provider its plugins
support works (llm-ollama and llm-gpt4all for local models, OpenAI, Anthropic...).
Keys live where ``llm`` keeps them (``llm keys set``; ``LLM_USER_PATH``).

Nothing is sent anywhere unless the user named a model: in ``[llm] model`` or with
``-m``. ``llm``'s own default model is never used, because that would quietly send
notes to whichever provider it points at (OpenAI, out of the box).
"""

from __future__ import annotations

import difflib
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphrag.answer.prompts import Prompt
from graphrag.config.llm import LLMSettings
from graphrag.errors import (
    ConfigError,
    LLMError,
    ModelCallError,
    ModelNotConfiguredError,
    ModelOptionsError,
    UnknownModelError,
)

if TYPE_CHECKING:
    import llm


def system_prompt(settings: LLMSettings, kind: str) -> str | None:
    """The user's system prompt for ``ask`` or ``summary`` prompts, if configured."""
    name = settings.system_prompt_file if kind == "ask" else settings.summary_system_prompt_file
    return read_prompt_file(name) if name else None


def read_prompt_file(name: str | Path) -> str:
    """The text of a system prompt file (``--system``, ``system_prompt_file``)."""
    path = Path(name).expanduser()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the system prompt file ({exc.strerror})") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: the system prompt file is not UTF-8 text") from exc
    if not text.strip():
        # An empty file is a mistake (a path to the wrong file, a save that failed), and
        # no system prompt at all is never what the built-in one is replaced with.
        raise ConfigError(f"{path}: the system prompt file is empty")
    return text


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
        raise ModelOptionsError(
            model.model_id, f"unknown option {unknown[0]!r} (this model's options: {listed})"
        )
    try:
        model.Options(**merged)
    except Exception as exc:  # pydantic's ValidationError; its text names the option
        raise ModelOptionsError(model.model_id, f"invalid options: {exc}") from exc
    return merged


def _is_configured(model: llm.Model, settings: LLMSettings) -> bool:
    name = settings.model.strip()
    if not name or name == model.model_id:
        return bool(name)
    try:
        return get_model(name).model_id == model.model_id  # an alias of the same model
    except LLMError:
        return False


# -- the model -------------------------------------------------------------------------
def resolve(settings: LLMSettings, model: str | llm.Model | None) -> llm.Model:
    """``model`` as given (an ``llm`` model object or a name), else ``[llm] model``."""
    if model is not None and not isinstance(model, str):
        return model
    return get_model(model_name(settings, model))


def generate(
    model: llm.Model,
    prompt: Prompt,
    options: Mapping[str, Any] | None = None,
    on_chunk: Callable[[str], None] | None = None,
    cancel: threading.Event | None = None,
) -> tuple[str, dict[str, int]]:
    """Send ``prompt``; stream the text to ``on_chunk``; return it with token usage.

    Once ``cancel`` is set the model's stream is closed at its next piece (a plugin's
    generator closes its HTTP stream to the provider then) and the text so far is
    returned, without usage: asking ``llm`` for the usage of an unfinished response
    would run the rest of it.
    """
    opts = dict(options or {})
    chunks: list[str] = []
    if cancel is not None and cancel.is_set():
        return "", {}
    try:
        response = model.prompt(prompt.prompt, system=prompt.system, stream=True, **opts)
        pieces = iter(response)
        try:
            for chunk in pieces:
                chunks.append(chunk)
                if on_chunk is not None:
                    on_chunk(chunk)
                if cancel is not None and cancel.is_set():
                    return "".join(chunks), {}
        finally:
            close = getattr(pieces, "close", None)
            if close is not None:
                close()
    except ModelCallError:
        raise
    except Exception as exc:  # plugins raise their providers' own errors; report, don't crash
        raise ModelCallError(model.model_id, f"{type(exc).__name__}: {exc}") from exc
    return "".join(chunks), _usage(response)


def _usage(response: Any) -> dict[str, int]:
    try:
        usage = response.usage()
    except Exception:  # usage is a nicety; older plugins do not record it
        return {}
    return _usage_numbers(usage)


def _usage_numbers(usage: Any) -> dict[str, int]:
    out = {"input": getattr(usage, "input", None), "output": getattr(usage, "output", None)}
    return {k: int(v) for k, v in out.items() if v is not None}


def async_variant(model: llm.Model) -> llm.AsyncModel | None:
    """The async form of ``model`` when its plugin has one. An async model can be stopped
    at once (cancelling its task closes its connection), where a sync one is stopped at
    its next piece of text, which for a local model still reading a long prompt can be
    seconds away."""
    import llm

    try:
        return llm.get_async_model(model.model_id)
    except llm.UnknownModelError:
        return None


async def agenerate(
    model: llm.AsyncModel,
    prompt: Prompt,
    options: Mapping[str, Any] | None = None,
    on_chunk: Callable[[str], None] | None = None,
) -> tuple[str, dict[str, int]]:
    """``generate`` for an async model; cancelling the awaiting task stops the model."""
    opts = dict(options or {})
    chunks: list[str] = []
    try:
        response = model.prompt(prompt.prompt, system=prompt.system, stream=True, **opts)
        async for chunk in response:
            chunks.append(chunk)
            if on_chunk is not None:
                on_chunk(chunk)
    except ModelCallError:
        raise
    except Exception as exc:  # plugins raise their providers' own errors; report, don't crash
        raise ModelCallError(model.model_id, f"{type(exc).__name__}: {exc}") from exc
    try:
        usage = _usage_numbers(await response.usage())
    except Exception:  # as in _usage
        usage = {}
    return "".join(chunks), usage
