"""A long note's passage is chosen without making its whole text when its body alone
shows it is longer than the room (``passages._surely_longer``): the same passages."""

from __future__ import annotations

import random
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from graphrag.details import passages
from graphrag.details.text import NoteText
from indexer.shown import whole_text
from tests.support.query_vault import make_rag

WORDS = ["brine", "salt", "cellar", "wheel", "rind", "cave", "press", "curd", "whey", "milk"]


def _body(rng: random.Random, parts: int, blank: str) -> str:
    out = []
    for k in range(parts):
        out.append(f"## Part {k}\n\n" + " ".join(rng.choice(WORDS) for _ in range(40)))
        out.append(blank * rng.randint(0, 6))
    return "\n\n".join(out)


def test_the_passage_is_the_one_made_from_the_whole_text(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rng = random.Random(5)
    files = {
        "Long.md": "# Long\n\n" + _body(rng, 8, ""),
        "Airy.md": "# Airy\n\n" + _body(rng, 3, "\n \t\n"),  # mostly blank lines
        "Embeds.md": "# Embeds\n\n![[Long#Part 1]]\n\n" + _body(rng, 4, ""),
        "Short.md": "# Short\n\nA few words of brine.\n",
    }
    rag = make_rag(tmp_path, files, index={"chunk_tokens": 60})
    index, corpus = rag.snapshot.index, rag.snapshot.corpus
    built: list[str] = []
    full = NoteText.full

    def spy(self: NoteText, uri: str, max_chars: int | None = None) -> str:
        built.append(uri)
        return full(self, uri, max_chars)

    cases = [
        (uri, limit, seed)
        for uri in files
        for uri in [uri[:-3]]
        for limit in (120, 400, 700, 1500, 4000)
        for seed in range(3)
    ]

    def run() -> list[tuple[passages.Passage, bool]]:
        text = NoteText(index)
        out = []
        for uri, limit, seed in cases:
            scores = np.random.default_rng(seed).random(int(corpus.chunk_start[-1]))
            built.clear()
            got = passages.query_passage(index, corpus, uri, scores.astype(np.float32), limit, text)
            out.append((got, uri in built))
        return out

    monkeypatch.setattr(NoteText, "full", spy)
    fast = run()
    monkeypatch.setattr(passages, "_surely_longer", lambda *a: False)
    slow = run()
    assert [p for p, _ in fast] == [p for p, _ in slow]  # the passages from the whole text
    made = {
        (uri, limit) for (uri, limit, _s), (_p, whole) in zip(cases, fast, strict=True) if whole
    }
    assert ("Long", 400) not in made  # a long note that embeds nothing: no whole text
    assert ("Airy", 700) in made  # folding its blank lines might bring it under the room
    assert ("Embeds", 400) in made  # its embeds are inlined: longer than its body
    assert all(whole for _p, whole in slow)


def test_a_body_surely_longer_is_longer_once_its_blank_runs_are_folded() -> None:
    rng = random.Random(11)
    pieces = ["word", " ", "\t", "\n", "\n\n", " \n \t\n", "\r\n", "é"]
    settled = 0
    for _ in range(3000):
        body = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 80)))
        limit = rng.randint(0, 160)
        note_text = SimpleNamespace(
            room_key=lambda uri, room: None,
            rows=SimpleNamespace(body=lambda uri, b=body: b),
            memo=lambda key, build: build(),
        )
        corpus = SimpleNamespace(body_chars=np.array([len(body)]))
        if passages._surely_longer(note_text, corpus, 0, "n", 0, limit):  # type: ignore[arg-type]
            settled += 1
            assert len(whole_text(body)) > limit
    assert settled > 300
