"""The packer's floor (``Packer.left_out``, ``details/cost.py``): a note shown as its best
chunks costs at least the sum of the counts the index stored for them, less what
seams may merge. A note whose floor is more than is left is settled unbuilt; the
answer is the same as without the floor, copies included (a note that cannot fit is
still named on the note holding its text), and a note that just fits is never
left out."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.same_answers import weighing_floors
from graphrag import VaultRAG
from graphrag.details import NoteText, cost
from graphrag.details.cost import floors_hold
from graphrag.query import pack
from graphrag.query.render import json_text, render_prompt
from tests.support.fakes import HashEmbedder
from tests.support.query_vault import DIM, make_rag

# Every note writes "theme": the question links the hub to name it (``entry.common_names``).
QUESTION = "[[Themes]] colours and fonts"


def _card(i: int) -> str:
    # Three sections of ~600 characters: longer than the 1,000-character cut, so a
    # card is shown as its best chunks. Numbers, punctuation and quotes at the seams.
    def section(k: int) -> str:
        words = " ".join(f"trait{i}x{k}y{j}" for j in range(45))
        return f'## Part {k}\n\nA theme card about colours and fonts, "part {k}": {words}.\n'

    return f"# Card {i:02d}\n\n" + "\n".join(section(k) for k in range(3))


def _note(i: int) -> str:
    # Under the 1,000-character cut: shown whole, not as chunks. Some with properties
    # (shown before the text), quotes and blank runs (folded where shown).
    words = " ".join(f"tone{i}w{j}" for j in range(10 + 7 * (i % 9)))
    head = f"---\nmood: calm {i}\nrating: {i % 5}\n---\n" if i % 3 == 0 else ""
    return f'{head}# Note {i:02d}\n\nA short theme note on colours and fonts, "n{i}":\n\n\n\n{words}.\n'


def _hub() -> dict[str, str]:
    # A hub entry linking 30 cards and 30 short notes, and a folder that copies five
    # cards and four short notes (linked from the hub too): late candidates that cannot
    # fit, long and short, and copies among them.
    files = {f"Cards/Card {i:02d}.md": _card(i) for i in range(30)}
    files.update({f"Mirror/Copy {i:02d}.md": _card(i) for i in range(0, 30, 6)})
    files.update({f"Short/Note {i:02d}.md": _note(i) for i in range(30)})
    files.update({f"Mirror/Short {i:02d}.md": _note(i) for i in range(1, 30, 7)})
    links = " ".join(f"[[Card {i:02d}]] [[Note {i:02d}]]" for i in range(30))
    mirrors = " ".join(f"[[Copy {i:02d}]]" for i in range(0, 30, 6))
    mirrors += " ".join(f"[[Short {i:02d}]]" for i in range(1, 30, 7))
    files["Themes.md"] = f"# Themes\n\nEvery theme card: {links} {mirrors}\n"
    return files


def _without_counts(rag: VaultRAG, tmp_path: Path, keep: str = "") -> VaultRAG:
    """The same index as one written before the counts: its manifest does not name them
    (``keep="shown_tokens"``: the chunks' counts kept, as schema 2 wrote them)."""
    manifest_path = rag.snapshot.index.index_dir / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for key in {"shown_tokens", "whole_tokens"} - {keep}:
        manifest.pop(key)
    manifest_path.write_text(json.dumps(manifest))
    return _reopen(rag, rag.snapshot.index.index_dir)


def _reopen(rag: VaultRAG, index_dir: Path) -> VaultRAG:
    return VaultRAG.open(index_dir, settings=rag.settings, embedder=HashEmbedder(DIM), update=False)


def _answers(rag: VaultRAG, budgets: range) -> list[tuple[str, str, int]]:
    out = []
    for budget in budgets:
        for output in ("json", "prompt"):
            r = rag.query(QUESTION, budget=budget, seed=0, output=output)
            out.append((json_text(r), render_prompt(r), r.tokens_used))
    return out


def test_the_floor_leaves_the_answer_as_it_was_and_builds_fewer_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rag = make_rag(tmp_path, _hub())
    assert floors_hold(rag.snapshot.index, rag.tokenizer)
    budgets = range(400, 2401, 100)
    built: Counter[str] = Counter()
    real_query_note = pack.query_note
    real_name_copy = pack.Packing.name_copy
    real_left_out = pack.Packer.left_out

    def counted(*args: object, **kwargs: object) -> object:
        built["notes"] += 1
        return real_query_note(*args, **kwargs)  # type: ignore[arg-type]

    def left_out(self: pack.Packer, packing: pack.Packing, *args: object) -> bool:
        def name_copy(at: int, uri: str, title: str) -> bool:
            built["copies named unbuilt"] += 1
            return real_name_copy(packing, at, uri, title)

        packing.name_copy = name_copy  # type: ignore[method-assign]
        try:
            got = real_left_out(self, packing, *args)  # type: ignore[arg-type]
        finally:
            del packing.name_copy
        built["left out"] += got
        return got

    monkeypatch.setattr(pack, "query_note", counted)
    monkeypatch.setattr(pack.Packer, "left_out", left_out)
    floored = _answers(rag, budgets)
    with_floor = built.copy()

    built.clear()
    old = _without_counts(rag, tmp_path)
    assert not floors_hold(old.snapshot.index, old.tokenizer)
    unfloored = _answers(old, budgets)

    assert floored == unfloored
    assert with_floor["left out"] > 0 and built["left out"] == 0
    # Late candidates are not built. Query mode's own order ends at its first note left
    # out for room (``Packer.pack_related``), so few are left for the floor to settle:
    # 171 notes built against 186 without it (before that end, 274 against 609).
    assert with_floor["notes"] < built["notes"]
    assert with_floor["copies named unbuilt"] > 0  # the copy path of the floor was taken
    assert any('"copies"' in text for text, _, _ in floored)


def test_short_notes_shown_whole_and_the_uri_settle_notes_unbuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each part of the floor rules notes out on its own: notes under the cut, shown
    whole (the count the index keeps per note), notes whose details' floor fits what
    is left but not with their uri beside it, and notes whose property lines, counted,
    are more than the one token assumed without them. Same answers as without counts."""
    rag = make_rag(tmp_path, _hub())
    seen: Counter[str] = Counter()
    real_left_out = pack.Packer.left_out

    def left_out(self: pack.Packer, packing: pack.Packing, uri: str, *args: object) -> bool:
        left = packing.left
        got = real_left_out(self, packing, uri, *args)  # type: ignore[arg-type]
        passage = self.details._last[1]  # type: ignore[index]
        if got:
            seen["whole" if not passage.chunks else "chunks"] += 1
            details = cost.details_floor(self.details.text, uri, passage)
            seen["by the uri"] += details is not None and details <= left
            bare = cost.note_floor(self.details.text, uri, passage, packing.tokenizer)
            seen["by the property lines"] += bare is not None and bare <= left
        return got

    monkeypatch.setattr(pack.Packer, "left_out", left_out)
    floored = _answers(rag, range(400, 2401, 100))
    # A path is taken only where what is left falls in a window a few tokens wide, and
    # the budgets that meet one move with the order the notes are tried in: a finer
    # sweep meets each whatever that order is.
    for budget in range(300, 2401, 20):
        rag.query(QUESTION, budget=budget, seed=0)
    old = _without_counts(rag, tmp_path)
    assert _answers(old, range(400, 2401, 100)) == floored
    assert seen["whole"] > 0 and seen["chunks"] > 0 and seen["by the uri"] > 0
    assert seen["by the property lines"] > 0


@pytest.mark.parametrize("output", ["json", "prompt"])
def test_the_floor_is_never_more_than_a_note_costs(tmp_path: Path, output: str) -> None:
    """Every related note the packer weighs, shown as stored chunks: its floor against
    its rendered cost, as the packer counts it."""
    rag = make_rag(tmp_path, _hub())
    with weighing_floors() as weighed:  # every note weighed, none settled by the floor
        for budget in (600, 1500, 4000, 8000):
            rag.query(QUESTION, budget=budget, seed=0, output=output)
    floors = [(floor, cost) for floor, cost, _ in weighed]
    whole = [shown_whole for _, _, shown_whole in weighed]
    assert len(floors) > 10 and 0 < sum(whole) < len(whole)
    assert all(floor <= cost for floor, cost in floors)


@pytest.mark.parametrize("output", ["json", "prompt"])
def test_at_the_edge_a_note_that_just_fits_is_packed_and_the_answer_is_the_same(
    tmp_path: Path, output: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Budgets one token apart: somewhere a note's cost is exactly what is left (it is
    packed) and somewhere its floor is one token more (it is left out unbuilt); every
    answer is the same as without the floor."""
    rag = make_rag(tmp_path, _hub())
    old = _without_counts(rag, tmp_path)
    edges: Counter[str] = Counter()
    real_left_out, real_add = pack.Packer.left_out, pack.Packing.add

    def left_out(self: pack.Packer, packing: pack.Packing, uri: str, *args: object) -> bool:
        got = real_left_out(self, packing, uri, *args)  # type: ignore[arg-type]
        if got and self.details.floor(uri, self.details._last[1], packing.tokenizer) == (  # type: ignore[index]
            packing.left + 1
        ):
            edges["left out by one token"] += 1
        return got

    def add(self: pack.Packing, doc: pack.Doc, record: bool = True) -> bool:
        left = self.left
        got = real_add(self, doc, record)
        edges["packed with nothing left"] += got and self.costs[-1] == left
        return got

    monkeypatch.setattr(pack.Packer, "left_out", left_out)
    monkeypatch.setattr(pack.Packing, "add", add)
    for budget in range(500, 1300, 2):
        assert _answers_at(rag, budget, output) == _answers_at(old, budget, output)
    assert edges["packed with nothing left"] > 0
    assert edges["left out by one token"] > 0


def _answers_at(rag: VaultRAG, budget: int, output: str) -> tuple[str, str]:
    r = rag.query(QUESTION, budget=budget, seed=0, output=output)
    return json_text(r), render_prompt(r)


@pytest.mark.parametrize("schema", [1, 2])
def test_an_index_from_before_the_columns_answers_the_same(tmp_path: Path, schema: int) -> None:
    """Schema 1 (no counts) and 2 (chunks' counts, none per note), as the versions
    before wrote them: read as they are, with the floor they have."""
    import sqlite3

    rag = make_rag(tmp_path, _hub())
    index_dir = rag.snapshot.index.index_dir
    old_dir = tmp_path / "old-index"
    shutil.copytree(index_dir, old_dir)
    manifest = json.loads((old_dir / "manifest.json").read_text())
    db = sqlite3.connect(old_dir / manifest["generation"] / "index.sqlite")
    db.execute("ALTER TABLE notes DROP COLUMN shown_tokens")
    manifest.pop("whole_tokens")
    if schema == 1:
        db.execute("ALTER TABLE chunks DROP COLUMN shown_tokens")
        manifest.pop("shown_tokens")
    db.execute(f"PRAGMA user_version = {schema}")
    db.commit()
    db.close()
    (old_dir / "manifest.json").write_text(json.dumps(dict(manifest, schema=schema)))
    old = _reopen(rag, old_dir)
    assert floors_hold(old.snapshot.index, old.tokenizer) == (schema == 2)
    assert rag.snapshot.index.whole_tokens("Short/Note 01") is not None
    assert old.snapshot.index.whole_tokens("Short/Note 01") is None
    assert _answers(old, range(500, 2001, 300)) == _answers(rag, range(500, 2001, 300))


def test_a_uri_is_counted_in_the_fewer_of_its_two_forms_once_per_generation(
    tmp_path: Path,
) -> None:
    """As written (the prompt) and as a JSON string (escaped quotes): the smaller; one
    count when the two are the same text; kept for the next question."""
    rag = make_rag(tmp_path, _hub())
    text = NoteText(rag.snapshot.index)
    asked: list[str] = []

    class Counting:
        name = rag.tokenizer.name

        def count(self, s: str) -> int:
            asked.append(s)
            return rag.tokenizer.count(s)

    plain, quoted = "Cards/Card 01", 'Say "cheese" \\ now'
    assert cost.uri_tokens(text, plain, Counting()) == rag.tokenizer.count(plain)
    assert asked == [plain]
    got = cost.uri_tokens(text, quoted, Counting())
    escaped = json.dumps(quoted)[1:-1]
    assert got == min(rag.tokenizer.count(quoted), rag.tokenizer.count(escaped))
    assert asked == [plain, quoted, escaped]
    cost.uri_tokens(text, plain, Counting())
    assert len(asked) == 3  # kept


def test_a_note_its_stored_counts_settle_is_settled_without_counting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When the stored counts alone (its uri and property lines one token each) are more
    than is left, the floor stops there: the note's uri and property lines are never
    counted, and that floor is never more than the whole one."""
    rag = make_rag(tmp_path, _hub())
    counted: set[str] = set()
    real_uri_tokens, real_left_out = cost.uri_tokens, pack.Packer.left_out

    def uri_tokens(note_text: NoteText, uri: str, counter: object) -> int:
        counted.add(uri)
        return real_uri_tokens(note_text, uri, counter)  # type: ignore[arg-type]

    settled: Counter[str] = Counter()

    def left_out(self: pack.Packer, packing: pack.Packing, uri: str, *args: object) -> bool:
        left = packing.left
        got = real_left_out(self, packing, uri, *args)  # type: ignore[arg-type]
        if got:
            settled["uncounted"] += uri not in counted
            passage, count = self.details._last[1], packing.tokenizer  # type: ignore[index]
            stopped = self.details.floor(uri, passage, count, enough=left)
            whole = self.details.floor(uri, passage, count)
            assert stopped is not None and whole is not None and left < stopped <= whole
            settled["stopped early"] += stopped < whole
        return got

    monkeypatch.setattr(cost, "uri_tokens", uri_tokens)
    monkeypatch.setattr(pack.Packer, "left_out", left_out)
    _answers(rag, range(400, 2401, 100))
    assert settled["uncounted"] > 0 and settled["stopped early"] > 0
