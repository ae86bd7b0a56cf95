"""The hand-written QA sets stay checkable: each is known to ``check_gold.py`` with its
vault, and every gold note still exists in that vault.

A set ``check_gold.py`` does not know is never checked by its default run, and a gold
note renamed in a vault turns a question into one no system can answer; eval would
only report lower recall.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from tests.support.files import ROOT

QA = ROOT / "benchmarks" / "qa"


def _check_gold() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_gold", QA / "check_gold.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHECK_GOLD = _check_gold()


def test_every_set_in_the_folder_is_known_with_its_vault() -> None:
    on_disk = {path.name for path in QA.glob("*.jsonl")}
    assert on_disk == set(CHECK_GOLD.KNOWN_SETS)


@pytest.mark.parametrize("name", sorted(CHECK_GOLD.KNOWN_SETS))
def test_every_gold_note_exists_in_its_vault(name: str) -> None:
    vault = CHECK_GOLD.KNOWN_SETS[name]
    if not vault.is_dir():
        pytest.skip(f"vault not here: {vault}")
    assert CHECK_GOLD.check(QA / name, vault) == 0


def test_the_check_reports_a_missing_gold_note_and_a_duplicate_id(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / "Notes").mkdir(parents=True)
    (vault / "Notes" / "Here.md").write_text("text\n", encoding="utf-8")
    questions = [
        {"id": "q1", "question": "?", "gold": ["Notes/Here"], "type": "single", "answer": "a"},
        {"id": "q1", "question": "?", "gold": ["Notes/Gone"], "type": "single", "answer": "a"},
    ]
    qa = tmp_path / "set.jsonl"
    qa.write_text("".join(json.dumps(q) + "\n" for q in questions), encoding="utf-8")
    assert CHECK_GOLD.check(qa, vault) == 2
