"""Settings: the one place configuration is read.

Order of precedence (later wins): the dataclass defaults (documented, key by
key, in ``configs/default.toml``) -> a user TOML file -> ``VAULTRAG_SECTION__KEY``
environment variables -> explicit overrides from the CLI or the caller.
Unknown sections or keys are errors that name the key and its value.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any, get_type_hints

from graphrag.config.settings import Settings
from graphrag.errors import ConfigError

ENV_PREFIX = "VAULTRAG_"
# A table whose keys are free, passed through as given (e.g. [llm] options).
OPEN_TABLE = "dict[str, typing.Any]"


SECTIONS = {f.name: f for f in fields(Settings)}


def load_settings(
    path: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Mapping[str, Any]] | None = None,
) -> Settings:
    """Resolve settings once; pass the result around explicitly."""
    settings = Settings()
    if path is not None:
        settings = apply(settings, _read_toml(Path(path)), source=str(path))
    settings = apply(settings, _from_env(os.environ if env is None else env), "environment")
    if overrides:
        settings = apply(settings, overrides, source="options")
    return settings


def apply(settings: Settings, data: Mapping[str, Any], source: str = "settings") -> Settings:
    changes: dict[str, Any] = {}
    for section, values in data.items():
        if section not in SECTIONS:
            raise ConfigError(
                f"{source}: unknown section [{section}] (known: {', '.join(sorted(SECTIONS))})"
            )
        if not isinstance(values, Mapping):
            raise ConfigError(f"{source}: [{section}] must be a table, got {values!r}")
        current = getattr(settings, section)
        changes[section] = _apply_section(current, section, values, source)
    return replace(settings, **changes)


def _apply_section(current: Any, section: str, values: Mapping[str, Any], source: str) -> Any:
    hints = get_type_hints(type(current))
    known = {f.name for f in fields(current)}
    updates: dict[str, Any] = {}
    for key, value in values.items():
        if key not in known:
            raise ConfigError(
                f"{source}: unknown setting {section}.{key} = {value!r} "
                f"(known: {', '.join(sorted(known))})"
            )
        coerced = _coerce(value, hints[key], f"{section}.{key}", source)
        previous = getattr(current, key)
        if isinstance(previous, dict) and str(hints[key]) != OPEN_TABLE:
            unknown = sorted(set(coerced) - set(previous))
            if unknown:
                raise ConfigError(
                    f"{source}: unknown key {section}.{key}.{unknown[0]} "
                    f"(known: {', '.join(sorted(previous))})"
                )
            coerced = {**previous, **coerced}  # a table overrides only the keys it names
        updates[key] = coerced
    return replace(current, **updates)


def _coerce(value: Any, hint: Any, name: str, source: str) -> Any:
    text = str(hint)
    try:
        if hint is bool or text == "bool":
            if isinstance(value, str):
                if value.lower() in ("1", "true", "yes", "on"):
                    return True
                if value.lower() in ("0", "false", "no", "off"):
                    return False
                raise ValueError(value)
            if isinstance(value, bool):
                return value
            raise ValueError(value)
        if hint is int or text in ("int", "int | None"):
            if isinstance(value, bool):
                raise ValueError(value)
            return int(value)
        if hint is float or text == "float":
            if isinstance(value, bool):
                raise ValueError(value)
            return float(value)
        if hint is str or text == "str":
            if not isinstance(value, (str, int, float)):
                raise ValueError(value)
            return str(value)
        if text.startswith("tuple"):
            if isinstance(value, str):
                value = json.loads(value) if value.strip().startswith("[") else value.split(",")
            if not isinstance(value, (list, tuple)):
                raise ValueError(value)
            inner = float if "float" in text else str
            return tuple(inner(v) if inner is float else str(v).strip() for v in value)
        if text == OPEN_TABLE:
            if isinstance(value, str):
                value = json.loads(value)
            if not isinstance(value, Mapping):
                raise ValueError(value)
            return {str(k): v for k, v in value.items()}
        if text.startswith("dict"):
            if isinstance(value, str):
                value = json.loads(value)
            if not isinstance(value, Mapping):
                raise ValueError(value)
            return {str(k): float(v) for k, v in value.items()}
    except (ValueError, TypeError) as exc:
        kind = hint.__name__ if isinstance(hint, type) else text  # int, not <class 'int'>
        raise ConfigError(f"{source}: {name} = {value!r} is not a valid {kind}") from exc
    return value


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # here: most runs read no file, and its import compiles a dozen patterns

    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError as exc:
        raise ConfigError(f"{path}: config file not found") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML ({exc})") from exc


def _from_env(env: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for key, value in env.items():
        if not key.startswith(ENV_PREFIX) or "__" not in key:
            continue
        section, _, name = key[len(ENV_PREFIX) :].lower().partition("__")
        out.setdefault(section, {})[name] = value
    return out
