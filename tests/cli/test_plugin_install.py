from __future__ import annotations

from importlib.resources import files
from pathlib import Path

from click.testing import CliRunner

from graphrag.cli import cli
from graphrag.cli.plugin import PLUGIN_FILES


def test_install_copies_the_built_plugin_and_says_how_to_enable_it(tmp_path: Path) -> None:
    vault = tmp_path / "Notes"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Home.md").write_text("# Home\n")
    result = CliRunner().invoke(cli, ["plugin", "install", str(vault)])
    assert result.exit_code == 0, result.output
    target = vault.resolve() / ".obsidian" / "plugins" / "vault-graphrag"
    bundled = files("graphrag.serve") / "plugin"
    for name in PLUGIN_FILES:
        assert (target / name).read_bytes() == (bundled / name).read_bytes()
        assert f"wrote {target / name}\n" in result.output
    assert sorted(p.name for p in target.iterdir()) == sorted(PLUGIN_FILES)
    assert 'enable "Vault GraphRAG"' in result.output
    assert f"vault-graphrag serve {vault.resolve()}" in result.output
    # Nothing else in the vault changed.
    assert sorted(p.relative_to(vault).as_posix() for p in vault.rglob("*") if p.is_file()) == [
        *(f".obsidian/plugins/vault-graphrag/{n}" for n in sorted(PLUGIN_FILES)),
        "Home.md",
    ]


def test_reinstall_updates_the_files_and_keeps_the_plugin_settings(tmp_path: Path) -> None:
    target = tmp_path / ".obsidian" / "plugins" / "vault-graphrag"
    target.mkdir(parents=True)
    (target / "main.js").write_text("old build")
    (target / "data.json").write_text('{"token": "secret"}')
    result = CliRunner().invoke(cli, ["plugin", "install", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert (target / "main.js").read_bytes() == (
        files("graphrag.serve") / "plugin" / "main.js"
    ).read_bytes()
    assert (target / "data.json").read_text() == '{"token": "secret"}'


def test_a_folder_that_is_not_an_obsidian_vault_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["plugin", "install", str(tmp_path)])
    assert result.exit_code == 1
    assert f"{tmp_path.resolve() / '.obsidian'} does not exist" in result.output
    assert list(tmp_path.iterdir()) == []
