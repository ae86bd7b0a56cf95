"""Data flows one way: indexer/ never imports graphrag/, graphrag/ never parses Markdown,
and graphrag's parts import only the parts before them (docs/architecture.md, "Layers").

Every import counts: module level, inside functions and under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

from tests.support.files import ROOT

INDEXER_FILES = sorted((ROOT / "indexer").rglob("*.py"))
GRAPHRAG_FILES = sorted((ROOT / "graphrag").rglob("*.py"))

# graphrag's parts in order: a part may import only parts of a lower rank. Parts of
# equal rank (focus and search; batch and eval) are independent of each other.
RANK = {
    "errors": 0,
    "config": 1,
    "results": 2,
    "snapshot": 3,
    "budget": 4,
    "details": 5,
    "focus": 6,
    "search": 6,
    "query": 7,
    "answer": 8,
    "api": 9,
    "batch": 10,
    "eval": 10,
    "serve": 11,
    "cli": 12,
}
# The package's own front door: ``graphrag/__init__.py`` re-exports the public names,
# ``__main__`` runs the CLI. They may import anything and nothing may import them.
SURFACE = {"__init__", "__main__"}


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
        elif isinstance(node, ast.Call) and getattr(
            node.func, "attr", getattr(node.func, "id", "")
        ) in ("import_module", "__import__"):
            names.update(
                a.value
                for a in node.args
                if isinstance(a, ast.Constant) and isinstance(a.value, str)
            )
    return names


def part_of(module: str) -> str | None:
    """``graphrag.query.mode`` -> ``query``; None outside graphrag or for the package itself."""
    parts = module.split(".")
    return parts[1] if parts[0] == "graphrag" and len(parts) > 1 else None


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def module_graph(files: Iterable[Path], root: Path = ROOT) -> dict[str, set[str]]:
    """Module -> the modules of ``files`` it imports by name."""
    paths = {module_name(p, root): p for p in files}
    graph: dict[str, set[str]] = {m: set() for m in paths}
    for name, path in paths.items():
        for imported in imported_modules(path, root):
            target = imported
            while target and target not in paths:
                target = target.rpartition(".")[0]
            if target and target != name:
                graph[name].add(target)
    return graph


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def upward_imports(path: Path, root: Path = ROOT) -> list[str]:
    """The graphrag modules ``path`` imports from its own rank or above (other parts)."""
    mine = part_of(module_name(path, root))
    if mine is None or mine in SURFACE:
        return []
    bad = []
    for imported in sorted(imported_modules(path, root)):
        if imported != "graphrag" and not imported.startswith("graphrag."):
            continue
        theirs = part_of(imported)
        if theirs == mine:
            continue
        # ``import graphrag`` or a name from its __init__: the surface, above every part.
        if theirs not in RANK or RANK[theirs] >= RANK[mine]:
            bad.append(imported)
    return bad


def test_the_packages_exist() -> None:
    assert len(INDEXER_FILES) >= 10 and len(GRAPHRAG_FILES) >= 5


def test_every_part_of_graphrag_has_a_rank() -> None:
    parts = {p.relative_to(ROOT / "graphrag").parts[0].removesuffix(".py") for p in GRAPHRAG_FILES}
    assert sorted(parts - set(RANK) - SURFACE) == [], "add new parts to RANK (and the docs)"


@pytest.mark.parametrize(
    "path", GRAPHRAG_FILES, ids=lambda p: str(p.relative_to(ROOT / "graphrag"))
)
def test_graphrag_imports_point_down_the_layers(path: Path) -> None:
    bad = upward_imports(path)
    mine = part_of(module_name(path))
    assert bad == [], (
        f"{path.relative_to(ROOT)} ({mine}, rank {RANK.get(mine or '')}) imports {bad}"
    )


@pytest.mark.parametrize("package", ["indexer", "graphrag"])
def test_no_import_cycles(package: str) -> None:
    files = INDEXER_FILES if package == "indexer" else GRAPHRAG_FILES
    assert cycles(module_graph(files)) == []


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


def test_the_checker_finds_upward_imports_in_functions_and_type_checking(tmp_path: Path) -> None:
    def probe(rel: str, text: str) -> Path:
        path = tmp_path / "graphrag" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    hidden = probe(
        "snapshot/corpus.py",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from graphrag.api import VaultRAG\n"
        "def f():\n    from ..query import mode\n",
    )
    assert upward_imports(hidden, tmp_path) == [
        "graphrag.api",
        "graphrag.api.VaultRAG",
        "graphrag.query",
        "graphrag.query.mode",
    ]
    sideways = probe("focus/mode.py", "from graphrag.search.searches import Scope\n")
    assert upward_imports(sideways, tmp_path) == [
        "graphrag.search.searches",
        "graphrag.search.searches.Scope",
    ]
    down = probe(
        "query/mode.py", "from graphrag.focus.traverse import traverse\nfrom . import expand\n"
    )
    assert upward_imports(down, tmp_path) == []
    surface = probe("cli/main.py", "import graphrag\nfrom graphrag import VaultRAG\n")
    assert upward_imports(surface, tmp_path) == ["graphrag", "graphrag.VaultRAG"]


def test_the_cycle_finder_finds_cycles_through_any_number_of_modules() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set(), "c": {"b"}}) == []
    assert sorted(cycles({"a": {"b"}, "b": {"a"}, "c": {"d"}, "d": {"c"}})) == [
        ["a", "b"],
        ["c", "d"],
    ]
