"""Data flows one way: indexer/ never imports graphrag/, graphrag/ never parses Markdown."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.files import ROOT

INDEXER_FILES = sorted((ROOT / "indexer").rglob("*.py"))
GRAPHRAG_FILES = sorted((ROOT / "graphrag").rglob("*.py"))


def imported_modules(path: Path, root: Path = ROOT) -> set[str]:
    """Absolute names of every module a file imports (relative imports resolved)."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
            "import_module", "__import__"
        ):
            names.update(a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str))
    return names


def test_the_packages_exist() -> None:
    assert len(INDEXER_FILES) >= 10 and len(GRAPHRAG_FILES) >= 5


@pytest.mark.parametrize("path", INDEXER_FILES, ids=lambda p: p.name)
def test_indexer_never_imports_graphrag(path: Path) -> None:
    bad = sorted(m for m in imported_modules(path) if m == "graphrag" or m.startswith("graphrag."))
    assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"


@pytest.mark.parametrize("path", GRAPHRAG_FILES, ids=lambda p: p.name)
def test_graphrag_never_parses_markdown(path: Path) -> None:
    parsers = ("markdown_it", "frontmatter", "indexer.parse", "indexer.scan", "indexer.chunk")
    bad = sorted(m for m in imported_modules(path) if m.startswith(parsers))
    assert bad == [], f"{path.relative_to(ROOT)} imports {bad}"


def test_the_checker_sees_every_import_form(tmp_path: Path) -> None:
    probe = tmp_path / "indexer" / "probe.py"
    probe.parent.mkdir()
    probe.write_text(
        "import graphrag\nfrom graphrag.api import VaultRAG\nfrom ..graphrag import x\n"
        "import importlib\nimportlib.import_module('graphrag.cli')\nfrom . import parse\n"
    )
    names = imported_modules(probe, tmp_path)
    assert {"graphrag", "graphrag.api", "graphrag.x", "graphrag.cli", "indexer.parse"} <= names
