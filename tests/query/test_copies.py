"""Copy detection (``copies.Copies.at``, through ``pack.Packing.copy_of``) answers as the rule spelled out does, on
passages and whole texts that overlap in every way (the fast path skips the
per-document comparisons when the union of what they look in cannot hold the passage)."""

from __future__ import annotations

import random
from types import SimpleNamespace

from graphrag.query.copies import COPY_SHARE, MIN_SHINGLES, shingles
from graphrag.query.pack import Packing


def reference_copy_of(docs, shown, body, doc) -> int | None:
    """The rule: the passage is 90% in the shown passages (the one holding most), or a
    document's whole text holds it and its whole text holds that document's passage."""
    mine = shingles(doc.note.details)
    if len(mine) < MIN_SHINGLES or not docs:
        return None
    need = COPY_SHARE * len(mine)
    overlap = [len(mine & s) for s in shown]
    if sum(overlap) >= need and len(mine & frozenset().union(*shown)) >= need:
        return max(range(len(overlap)), key=overlap.__getitem__)
    for at, other in enumerate(docs):
        if len(mine & body(other.uri)) < need:
            continue
        theirs = shown[at]
        if len(theirs) >= MIN_SHINGLES and len(theirs & body(doc.uri)) >= COPY_SHARE * len(theirs):
            return at
    return None


def _doc(uri: str, details: str) -> SimpleNamespace:
    return SimpleNamespace(uri=uri, title=uri, note=SimpleNamespace(details=details), copies=())


def test_copy_of_equals_the_rule_on_overlapping_texts():
    rng = random.Random(5)
    sentences = [
        " ".join(
            rng.choice(["cheese", "cellar", "wheel", "brine", "mould", "turn"]) for _ in range(9)
        )
        for _ in range(12)
    ]

    def text(n: int) -> str:
        return "\n".join(rng.choice(sentences) for _ in range(n))

    found = {True: 0, False: 0}  # copies found by the passages shown / by whole texts
    for _trial in range(200):
        bodies = {f"n{i}": text(rng.randint(1, 8)) for i in range(12)}
        # A passage is part of its note's text, or (a copied folder) another's.
        passages = {u: "\n".join(b.split("\n")[: rng.randint(1, 4)]) for u, b in bodies.items()}
        for u in rng.sample(sorted(bodies), 3):
            bodies[u] += "\n" + passages[rng.choice(sorted(passages))]
        for u, v in zip(*[iter(rng.sample(sorted(bodies), 4))] * 2, strict=True):
            bodies[u] = bodies[v]  # a duplicated note, showing another part of the text
            passages[u] = "\n".join(bodies[u].split("\n")[-rng.randint(1, 4) :])

        def body(uri: str, bodies: dict[str, str] = bodies) -> frozenset[int]:
            return shingles(bodies[uri])

        packing = Packing(10**9, lambda d, at: "", SimpleNamespace(count=len), 100, body)
        for uri in rng.sample(sorted(bodies), len(bodies)):
            doc = _doc(uri, passages[uri])
            expected = reference_copy_of(packing.docs, packing.copies.shown, body, doc)
            assert packing.copy_of(doc) == expected
            if expected is None:
                packing.add(doc)
            else:
                by_shown = reference_copy_of(
                    packing.docs, packing.copies.shown, lambda u: frozenset(), doc
                )
                found[by_shown is not None] += 1
    # Both ways of being a copy occurred: by the passages shown, and by whole texts.
    assert found[True] > 10 and found[False] > 10, found


def hashed_runs(monkeypatch) -> list[int]:
    """The lengths of the word lists the copy check hashes into runs, as it hashes them."""
    import graphrag.query.copies as copies

    hashed: list[int] = []
    real_runs_of = copies.runs_of

    def runs_of(words):
        hashed.append(len(words))
        return real_runs_of(words)

    monkeypatch.setattr(copies, "runs_of", runs_of)
    return hashed


def test_a_new_passage_is_settled_from_its_first_runs_and_the_rule_holds_at_the_edge(
    monkeypatch,
):
    """A passage whose first runs are missing from the context is no copy without hashing
    the rest; one that is new only up to the share a copy may miss is still compared in
    full: the answer is the rule's for every length of new text in front of a copy."""
    hashed = hashed_runs(monkeypatch)
    shown = " ".join(f"shown{j}" for j in range(200))
    settled = compared = 0
    for new in range(0, 120, 3):

        def body(uri: str) -> frozenset[int]:  # the passage's own note holds nothing else
            return shingles(shown) if uri == "held" else frozenset()

        packing = Packing(10**9, lambda d, at: "", SimpleNamespace(count=len), 100, body)
        packing.add(_doc("held", shown))
        passage = " ".join([f"new{j}" for j in range(new)] + [f"shown{j}" for j in range(150)])
        doc = _doc("mine", passage)
        expected = reference_copy_of(packing.docs, packing.copies.shown, body, doc)
        hashed.clear()
        assert packing.copy_of(doc) == expected
        words = len(passage.split())
        if hashed and max(hashed) < words:
            settled += 1
            assert expected is None
        else:
            compared += 1
    assert settled > 5 and compared > 5


def test_words_are_the_word_pattern_s_in_ascii_and_in_any_text():
    """``words_of`` splits ASCII text without the regex; the words are the regex's
    (``\\w+``, casefolded, heading lines left out) in every text."""
    import re

    from graphrag.query.copies import words_of

    rng = random.Random(3)
    ascii_chars = [chr(i) for i in range(128)]
    other = [
        "é",
        "ß",
        "ſ",
        "K",
        "İ",
        "…",
        "ﬁ",
        "\u2028",
        "\x85",
        "\xa0",
        "日本",
        "٣",
        "🗂️",
        "\ud800",
    ]

    def reference(text: str) -> list[str]:
        kept = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
        return re.findall(r"\w+", kept.casefold())

    for trial in range(5000):
        pool = ascii_chars if trial % 2 else ascii_chars + other
        text = "".join(rng.choice(pool) for _ in range(rng.randint(0, 60)))
        assert words_of(text) == reference(text), repr(text)
    assert words_of("# Lich\nThe LICH_king's 2 wands\n  ## x\nend") == [
        "the",
        "lich_king",
        "s",
        "2",
        "wands",
        "end",
    ]


def test_no_character_casefolds_to_an_ascii_non_word_character():
    """``words_of`` cuts the text at its ASCII non-word bytes before casefolding the
    pieces that hold other characters: right only while no other character's casefold
    holds one (a new Unicode table could break it)."""
    import sys

    ascii_non_word = {chr(c) for c in range(128) if not (chr(c).isalnum() or chr(c) == "_")}
    found = [
        hex(c)
        for c in range(128, sys.maxunicode + 1)
        if not ascii_non_word.isdisjoint(chr(c).casefold())
    ]
    assert found == []


def test_whole_texts_shingles_are_kept_out_of_the_collector_s_sight():
    """``BodyShingles`` gives a note's whole-text shingles, first and later, and keeps
    them as arrays of hashes, in which a full collection has no object to visit."""
    import gc

    from graphrag.query.copies import BodyShingles

    texts = {"a": "one two three four five six seven eight nine ten eleven", "b": ""}
    read: list[str] = []

    def body(uri: str) -> str:
        read.append(uri)
        return texts[uri]

    kept = BodyShingles(body, size=1)
    for uri in ("a", "a", "b", "a"):
        assert kept(uri) == shingles(texts[uri])
    assert read == ["a", "b", "a"]  # kept once, the least recent dropped past the size
    for v in kept._cache.values():  # no object for each run
        assert not any(isinstance(r, int) for r in gc.get_referents(v))


def test_a_new_passage_with_a_templated_opening_is_settled_from_runs_further_on(monkeypatch):
    """Notes written from one template open alike: a passage whose first runs are all
    shown already but whose rest is new is settled from runs spread over the rest,
    without hashing them all; the rule's answer (no copy) either way."""
    hashed = hashed_runs(monkeypatch)
    opening = " ".join(f"badge{j}" for j in range(40))

    def body(uri: str) -> frozenset[int]:
        return shingles(opening) if uri == "held" else frozenset()

    packing = Packing(10**9, lambda d, at: "", SimpleNamespace(count=len), 100, body)
    packing.add(_doc("held", opening))
    words = f"{opening} " + " ".join(f"new{j}" for j in range(150))
    doc = _doc("mine", words)
    assert reference_copy_of(packing.docs, packing.copies.shown, body, doc) is None
    hashed.clear()
    assert packing.copy_of(doc) is None
    assert hashed and max(hashed) < len(words.split())  # never all its runs
