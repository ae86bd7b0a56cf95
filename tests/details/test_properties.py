"""details.properties: front matter as YAML spells it, bookkeeping keys left out."""

from __future__ import annotations

from pathlib import Path

from graphrag.api import VaultRAG
from graphrag.config import load_settings
from graphrag.details import property_lines
from tests.support.fakes import HashEmbedder
from tests.support.files import write

FRONT = """---
title: Kyoto trip
aliases: [Kyoto]
tags: [travel]
publish: true
permalink: travel/kyoto
cssclasses: [wide]
id: 3f9a1c
updated: 1608060215432
draft: false
start: 2023-09-12
when: 2023-09-12T10:30:00
rating: 7
score: 7.50
loc: "[[Japan]]"
people: [Ann, "[[Bob]]"]
empty:
nested: {a: 1}
---
We went in September and saw the shrine.
"""


def test_yaml_spelling_and_the_bookkeeping_keys(tmp_path: Path):
    write(tmp_path / "v", "Trip.md", FRONT)
    rag = VaultRAG.open(tmp_path / "v", index_dir=tmp_path / "idx", embedder=HashEmbedder())
    props = rag.snapshot.index.note_row("Trip")["properties"]
    lines = property_lines(props, rag.settings.details.hidden_properties).split("\n")
    assert lines == [
        "draft: false",
        "start: 2023-09-12",
        "when: 2023-09-12T10:30:00",
        "rating: 7",
        "score: 7.5",
        "people: Ann",
    ]
    # Query mode's details open with them.
    entry = rag.query("shrine in September", budget=2000, seed=1).to_json()["entryNotes"][0]
    assert entry["details"].startswith("draft: false\nstart: 2023-09-12\n")
    assert "True" not in entry["details"] and "permalink" not in entry["details"]


def test_the_hidden_keys_are_a_setting(tmp_path: Path):
    write(tmp_path / "v", "Trip.md", FRONT)
    settings = load_settings(overrides={"details": {"hidden_properties": ["draft"]}})
    rag = VaultRAG.open(
        tmp_path / "v", index_dir=tmp_path / "idx", embedder=HashEmbedder(), settings=settings
    )
    entry = rag.query("shrine in September", budget=2000, seed=1).to_json()["entryNotes"][0]
    shown = entry["details"]
    assert "publish: true\npermalink: travel/kyoto\n" in shown and "id: 3f9a1c" in shown
    assert "draft" not in shown and "title:" not in shown and "tags:" not in shown


def test_booleans_nulls_and_special_floats() -> None:
    assert (
        property_lines({"a": True, "b": None, "c": float("inf"), "d": "  "}) == "a: true\nc: .inf"
    )
