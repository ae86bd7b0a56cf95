"""Settings: configs/default.toml documents the defaults exactly; bad keys are errors."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest

from graphrag.config import Settings, load_settings
from indexer import ConfigError
from indexer.build import config_hash
from indexer.config import IndexConfig, IndexSettings
from tests.support.files import ROOT

DEFAULT_TOML = ROOT / "configs" / "default.toml"
SECTIONS = {f.name: f.default_factory() for f in dataclasses.fields(Settings)}  # type: ignore[misc]


def test_default_toml_is_exactly_the_defaults() -> None:
    assert load_settings(DEFAULT_TOML, env={}) == Settings()
    raw = tomllib.loads(DEFAULT_TOML.read_text(encoding="utf-8"))
    assert set(raw) == set(SECTIONS)
    for section, defaults in SECTIONS.items():
        # TOML has no null: a setting unset by default is written commented out.
        given = {f.name for f in dataclasses.fields(defaults) if f.default is not None}
        assert set(raw[section]) == given, section


def _documented_lines(text: str) -> dict[tuple[str, str], int]:
    """(section, key) -> line number of ``key = ...`` or of a ``[section.key]`` table header."""
    out: dict[tuple[str, str], int] = {}
    section = ""
    for number, line in enumerate(text.split("\n")):
        header = re.match(r"^\[([\w.]+)\]\s*$", line)
        if header:
            name = header.group(1)
            if "." in name:
                parent, key = name.split(".", 1)
                out[(parent, key)] = number
                section = name
            else:
                section = name
            continue
        assignment = re.match(r"^([A-Za-z_]\w*)\s*=", line)
        if assignment and "." not in section:
            out[(section, assignment.group(1))] = number
        unset = re.match(r"^# ([A-Za-z_]\w*) = ", line)  # a setting unset by default
        if unset and "." not in section:
            out.setdefault((section, unset.group(1)), number)
    return out


def test_every_setting_is_documented_with_a_comment_above_it() -> None:
    text = DEFAULT_TOML.read_text(encoding="utf-8")
    lines = text.split("\n")
    documented = _documented_lines(text)
    missing, uncommented = [], []
    for section, defaults in SECTIONS.items():
        for f in dataclasses.fields(defaults):
            number = documented.get((section, f.name))
            if number is None:
                missing.append(f"{section}.{f.name}")
            elif number == 0 or not lines[number - 1].lstrip().startswith("#"):
                uncommented.append(f"{section}.{f.name}")
    assert missing == [], "settings missing from configs/default.toml"
    assert uncommented == [], "settings without a comment line directly above them"


def _toml(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "settings.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[index]\nchunk_size = 100\n", "index.chunk_size"),
        ("[indexing]\nchunk_tokens = 100\n", "[indexing]"),
        ("[embedding]\nmodel_name = 'x'\n", "embedding.model_name"),
        ("[focus.relation_weights]\nBestFriend = 3.0\n", "focus.relation_weights.BestFriend"),
    ],
)
def test_unknown_keys_are_errors_naming_the_key(tmp_path: Path, text: str, named: str) -> None:
    with pytest.raises(ConfigError) as info:
        load_settings(_toml(tmp_path, text), env={})
    assert named in str(info.value)
    assert str(_toml(tmp_path, text)) in str(info.value)  # and the file it came from


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("[index]\nchunk_tokens = 'many'\n", "index.chunk_tokens"),
        ("[index]\nresolve_aliases = 'perhaps'\n", "index.resolve_aliases"),
        ("[index]\nexclude = 5\n", "index.exclude"),
        ("index = 3\n", "[index]"),
    ],
)
def test_bad_values_are_errors_naming_the_key(tmp_path: Path, text: str, named: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(named)):
        load_settings(_toml(tmp_path, text), env={})


def test_invalid_toml_and_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_settings(_toml(tmp_path, "[index\n"), env={})
    with pytest.raises(ConfigError, match="not found"):
        load_settings(tmp_path / "nope.toml", env={})


def test_a_file_overrides_only_what_it_names(tmp_path: Path) -> None:
    settings = load_settings(
        _toml(
            tmp_path,
            "[index]\nchunk_tokens = 128\nexclude = ['Templates/*']\n"
            "[focus.relation_weights]\nParent = 7.0\n",
        ),
        env={},
    )
    assert settings.index.chunk_tokens == 128
    assert settings.index.exclude == ("Templates/*",)
    assert settings.index.hierarchy_properties == IndexSettings().hierarchy_properties
    assert settings.focus.relation_weights["Parent"] == 7.0
    assert settings.focus.relation_weights["Child"] == Settings().focus.relation_weights["Child"]


def test_environment_overrides() -> None:
    settings = load_settings(
        env={
            "VAULTRAG_INDEX__CHUNK_TOKENS": "128",
            "VAULTRAG_INDEX__EXCLUDE": "Templates/*, Archive",
            "VAULTRAG_INDEX__RESOLVE_ALIASES": "false",
            "VAULTRAG_INDEX__HIERARCHY_PROPERTIES": '["up", "parent", "belongs_to"]',
            "VAULTRAG_EMBEDDING__DTYPE": "float32",
            "VAULTRAG_FOCUS__DEPTH_BONUS": "[1.0, 0.5, 0.25]",
            "OTHER_VARIABLE": "ignored",
        }
    )
    assert settings.index.chunk_tokens == 128
    assert settings.index.exclude == ("Templates/*", "Archive")
    assert settings.index.resolve_aliases is False
    assert settings.index.hierarchy_properties == ("up", "parent", "belongs_to")
    assert settings.embedding.dtype == "float32"
    assert settings.focus.depth_bonus == (1.0, 0.5, 0.25)


def test_environment_is_read_from_os_environ(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VAULTRAG_INDEX__WORKERS", "3")
    assert load_settings().index.workers == 3


def test_unknown_or_bad_environment_keys_are_errors() -> None:
    with pytest.raises(ConfigError, match=r"index\.chunk_size"):
        load_settings(env={"VAULTRAG_INDEX__CHUNK_SIZE": "1"})
    with pytest.raises(ConfigError, match=r"index\.chunk_tokens = 'lots' is not a valid int$"):
        load_settings(env={"VAULTRAG_INDEX__CHUNK_TOKENS": "lots"})
    with pytest.raises(ConfigError, match=r"resolve_aliases = 'maybe' is not a valid bool$"):
        load_settings(env={"VAULTRAG_INDEX__RESOLVE_ALIASES": "maybe"})


def test_precedence_file_then_environment_then_overrides(tmp_path: Path) -> None:
    path = _toml(tmp_path, "[index]\nchunk_tokens = 100\nworkers = 2\ntokenizer = 'cl100k_base'\n")
    settings = load_settings(
        path,
        env={"VAULTRAG_INDEX__CHUNK_TOKENS": "200", "VAULTRAG_INDEX__WORKERS": "4"},
        overrides={"index": {"chunk_tokens": 300}},
    )
    assert (settings.index.chunk_tokens, settings.index.workers) == (300, 4)


def test_index_config_carries_the_indexing_sections() -> None:
    settings = load_settings(
        env={"VAULTRAG_INDEX__CHUNK_TOKENS": "99", "VAULTRAG_EMBEDDING__BATCH_SIZE": "8"}
    )
    config = settings.index_config
    assert isinstance(config, IndexConfig)
    assert (config.index.chunk_tokens, config.embedding.batch_size) == (99, 8)


def test_config_hash_tracks_what_changes_the_index() -> None:
    base = config_hash(IndexConfig())
    assert config_hash(IndexConfig(index=IndexSettings(workers=7, index_dir="/x"))) == base
    assert config_hash(IndexConfig(index=IndexSettings(chunk_tokens=128))) != base
    assert config_hash(IndexConfig(index=IndexSettings(exclude=("Templates/*",)))) != base
