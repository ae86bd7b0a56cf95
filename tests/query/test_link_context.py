"""Which chunk of a note holds each of its links (``LinkStarts``, query mode's bridge)."""

from __future__ import annotations

import random

import pytest

from graphrag.query.score import LinkStarts


def reference(texts: list[str], written: str | None) -> list[int]:
    """The rule, spelled out: chunks with ``[[written`` or ``](written``, else any
    chunk with the text ``written`` (casefolded, trimmed)."""
    w = (written or "").casefold().strip()
    if not w:
        return []
    hits = [j for j, t in enumerate(texts) if "[[" + w in t or "](" + w in t]
    return hits or [j for j, t in enumerate(texts) if w in t]


PREFIXES = ["01 - community/", "01 - com", "02 - community expansions/plugins/", "", "a"]
NAMES = ["alpha", "alp", "beta", "beta gamma", "béta", "x", "plugins", "ünïcode name"]


def _name(rng: random.Random) -> str:
    return rng.choice(PREFIXES) + rng.choice(NAMES) + rng.choice(["", "", " 2", "/sub"])


def _chunk(rng: random.Random) -> str:
    parts = []
    for _ in range(rng.randint(0, 12)):
        name = _name(rng)
        parts.append(
            rng.choice(
                [
                    f"[[{name}]]",
                    f"[[{name}|shown]]",
                    f"[[{name}#heading]]",
                    f"[text]({name})",
                    f"plain mention of {name} here",
                    "[[",
                    "](",
                    "nothing",
                ]
            )
        )
    return " ".join(parts).casefold()


@pytest.mark.parametrize("seed", range(20))
def test_same_chunks_as_the_rule(seed: int) -> None:
    rng = random.Random(seed)
    texts = [_chunk(rng) for _ in range(rng.randint(1, 8))]
    asked = [_name(rng) for _ in range(30)] + ["", "  ", None, "ALPHA", " beta "]
    longest = max(len((w or "").casefold().strip()) for w in asked)
    starts = LinkStarts(texts, longest)
    for written in asked:
        assert starts.holding(written) == reference(texts, written), written


def test_a_name_longer_than_the_keys_still_answers() -> None:
    texts = ["see [[01 - community/people/someone long]] here", "[[01 - community/people]]"]
    starts = LinkStarts(texts, longest=4)
    for written in ("01 - community/people/someone long", "01 - community/people", "here"):
        assert starts.holding(written) == reference(texts, written)


def test_hub_with_thousands_of_links_sharing_a_prefix() -> None:
    """The shape that was quadratic (obsidian-hub's plugin list): every link starts
    with the same long folder path; each is still found in its own chunk."""
    names = [f"02 - community expansions/02.05 all/plugins/plugin {i:04d}" for i in range(3000)]
    texts = [" ".join(f"[[{n}|p]]" for n in names[k : k + 100]) for k in range(0, 3000, 100)]
    starts = LinkStarts(texts, max(len(n) for n in names))
    for i in (0, 1, 99, 100, 1234, 2999):
        assert starts.holding(names[i]) == [i // 100]
    assert starts.holding("02 - community expansions/02.05 all/plugins/plugin 12") == [12]
