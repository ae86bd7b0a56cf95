"""Which chunk of a note holds each of its links (``LinkStarts``, query mode's bridge)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from graphrag.query.score import LIST_LINKS, LinkStarts, link_context
from tests.support.query_vault import make_rag


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


def reference_context(corpus, uri: str, scores, linked) -> dict[str, float]:
    """link_context for one note, the rule spelled out link by link: the best score of
    a chunk holding the link and links to at most LIST_LINKS notes, the note's best for
    a property link, else -1."""
    texts = [
        t.casefold()
        for (t,) in corpus.rows("SELECT text FROM chunks WHERE uri = ? ORDER BY seq", (uri,))
    ]
    links = corpus.rows(
        "SELECT target, kind, written, target_kind FROM links WHERE source = ? AND hierarchy = 0",
        (uri,),
    )
    listed: list[set[str]] = [set() for _ in texts]  # the notes each chunk links to
    for target, kind, written, target_kind in links:
        if kind != "property" and target_kind in ("note", "ghost", "folder"):
            for j in reference(texts, written):
                listed[j].add(target)
    found: dict[str, float] = {}
    for target, kind, written, _ in links:
        if linked is not None and target not in linked:
            continue
        if kind == "property":
            sim = float(scores.max())
        else:
            few = [j for j in reference(texts, written) if len(listed[j]) <= LIST_LINKS]
            sim = max((float(scores[j]) for j in few), default=-1.0)
        found[target] = max(found.get(target, -1.0), sim)
    return found


def test_link_context_from_kept_tables_equals_the_rule_for_every_note(sample_vault, tmp_path):
    # Every note of the sample vault, random chunk scores, three questions in a row (the
    # second and third read the tables the first built), with and without a hidden link.
    from graphrag.api import VaultRAG
    from tests.support.fakes import HashEmbedder

    rag = VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder(64))
    corpus, graph = rag.snapshot.corpus, rag.graph
    hidden = graph.without_links([("Projects/Cellar Expansion", "People/Mira Halvorsen")])
    rng = np.random.default_rng(3)
    for view in (graph, hidden, graph):
        scores = rng.uniform(-1, 1, corpus.chunk_count).astype(np.float32)
        got = link_context(corpus, corpus.uris, scores, view)
        for uri in corpus.uris:
            lo, hi = corpus.chunk_rows(corpus.index_of[uri])
            if hi == lo:
                assert uri not in got
                continue
            linked = {link.target for link in view.outlinks(uri)}
            assert got[uri] == reference_context(corpus, uri, scores[lo:hi], linked), uri
    assert sum(len(links) for links in got.values()) > 20  # the vault has links to check


def test_a_passage_listing_many_notes_lends_its_likeness_to_none(tmp_path) -> None:
    # A hub's index passage names every note it lists, none as the answer: a note it
    # lists is not a bridge and takes no likeness from it. Pictures are not notes.
    listed = " ".join(f"[[Room {i}]]" for i in range(LIST_LINKS + 1))
    few = " ".join(f"[[Shelf {i}]]" for i in range(LIST_LINKS))
    pictures = " ".join(f"![[shelf{i}.png]]" for i in range(4))
    pad = " ".join(f"pad{i}" for i in range(40))
    files = {
        "Cellar.md": f"## Who\n\nThe cellar is run by [[Mira]]. {pad}\n\n"
        f"## Rooms\n\nIts rooms: {listed} {pad}\n\n"
        f"## Shelves\n\nIts shelves: {few} {pictures} {pad}\n\n"
        f"## Both\n\nSee [[Room 0]] and [[Shelf 0]]. {pad}\n",
        "Mira.md": "# Mira\n\nMira.\n",
    }
    rag = make_rag(tmp_path, files, index={"chunk_tokens": 200})
    corpus = rag.snapshot.corpus
    lo, hi = corpus.chunk_rows(corpus.index_of["Cellar"])
    heads = [c.heading_path.split(" > ")[-1] for c in rag.snapshot.index.chunks_of("Cellar")]
    assert heads == ["Who", "Rooms", "Shelves", "Both"]  # a chunk each
    scores = np.zeros(corpus.chunk_count, dtype=np.float32)
    scores[lo:hi] = [0.2, 0.9, 0.8, 0.3]
    got = link_context(corpus, ["Cellar"], scores)["Cellar"]
    assert got["Mira"] == pytest.approx(0.2)
    assert got["Room 1"] == -1.0  # only in the list
    assert got["Room 0"] == pytest.approx(0.3)  # in the list and in a passage of two links
    assert got["Shelf 1"] == pytest.approx(0.8)  # five notes and four pictures: not a list
