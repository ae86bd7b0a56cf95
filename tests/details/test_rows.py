"""Notes' stored rows read ahead in batches (``details.rows``): the same rows as read one
note at a time, and packing reads the notes it weighs that way."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from graphrag.details.rows import NoteRows
from graphrag.query import notes
from tests.query.test_pack_bound import QUESTION, _hub
from tests.support.query_vault import answers_by_budget, make_rag

VAULT = {
    "Cellar.md": "---\nrating: 4\nshelf: [a, b]\n---\n# Cellar\n\nThe cellar keeps cheese.\n",
    "Board.md": "# Board\n\n![[Cellar]]\n\nAnd ![[Missing note]] and ![[Cellar#Cellar]].\n",
    "Empty.md": "",
    "Long.md": "# Long\n\n" + "\n\n".join(f"## Part {k}\n\n" + "word " * 120 for k in range(6)),
    "Plain.md": "Plain text without a heading.\n",
}


def test_rows_read_ahead_are_the_rows_read_alone(tmp_path: Path) -> None:
    rag = make_rag(tmp_path, VAULT)
    index = rag.snapshot.index
    uris = sorted(n.uri for n in rag.graph.notes()) + ["No such note"]
    alone = NoteRows(index)
    ahead = NoteRows(index)
    assert ahead.read_ahead(uris) == len(uris)
    assert ahead.read_ahead(uris) == 0  # read once
    for uri in uris:
        assert ahead.body(uri) == alone.body(uri) == index.body(uri)
        assert ahead.chunks_of(uri) == alone.chunks_of(uri) == index.chunks_of(uri)
        assert ahead.embeds_of(uri) == alone.embeds_of(uri) == index.embeds_of(uri)
        assert ahead.whole_tokens(uri) == alone.whole_tokens(uri) == index.whole_tokens(uri)
        assert ahead.properties(uri) == alone.properties(uri)
    assert ahead.properties("Cellar") == {"rating": 4, "shelf": ["a", "b"]}
    assert ahead.embeds_of("Board") and ahead.chunks_of("Long")


def test_packing_reads_the_notes_it_weighs_in_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the read-ahead: the same answers, and most notes' rows come from a batch (not
    five queries a note); without it, every note is read alone."""
    reads: Counter[str] = Counter()
    index_body = NoteRows.body

    def body(self: NoteRows, uri: str) -> str:
        reads["ahead" if self._read(uri) is not None else "alone"] += 1
        return index_body(self, uri)

    monkeypatch.setattr(NoteRows, "body", body)

    def answers(files_dir: Path) -> list[tuple[str, str]]:
        rag = make_rag(files_dir, _hub())  # late candidates long and short, copies among them
        return answers_by_budget(rag, QUESTION, range(400, 2401, 100))

    with_batches = answers(tmp_path / "a")
    batched = reads.copy()
    reads.clear()
    monkeypatch.setattr(notes.DetailSource, "read_ahead", lambda self, uris: 0)
    assert answers(tmp_path / "b") == with_batches
    assert reads["ahead"] == 0 and reads["alone"] > 20
    assert batched["ahead"] > 20 and batched["alone"] < batched["ahead"] / 4
