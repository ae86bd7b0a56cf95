"""eval --from-links: questions from the vault's own links, each link hidden while it is asked."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from graphrag.api import VaultRAG
from graphrag.config import load_settings
from graphrag.errors import InvalidRequestError
from graphrag.eval.from_links import (
    HIDDEN,
    HiddenLinkQuery,
    link_questions,
    question_text,
    run_from_links,
)
from graphrag.eval.run import run_eval
from graphrag.eval.systems import GraphRAGSystem, HybridSystem
from graphrag.query.score import link_context
from tests.support.fakes import HashEmbedder
from tests.support.files import write

PASSAGE = (
    "The orchard behind the mill grows sweet apples and pears every autumn; the harvest "
    "waits in [[Cellar|the cool store]] until spring, when the press runs again."
)


@pytest.fixture
def orchard(tmp_path: Path) -> VaultRAG:
    vault = tmp_path / "orchard"
    write(vault, "Orchard.md", PASSAGE + "\n")
    # Shares no word with the passage: only the link leads from one to the other.
    write(vault, "Cellar.md", "Stone vaults under the school hold wheels at eleven degrees.\n")
    # The hash embedder finds some likeness in any two texts: only a close match is an entry,
    # and only the best note is in the search ranking that fills what is left of a budget
    # (in a two-note vault every note is in it, found or not).
    settings = load_settings(overrides={"query": {"entry_min_similarity": 0.6, "rrf_depth": 1}})
    return VaultRAG.open(
        vault, index_dir=tmp_path / "idx", embedder=HashEmbedder(), settings=settings
    )


def test_a_question_is_the_passage_around_a_body_link_without_the_link(orchard: VaultRAG):
    vault = orchard.vault
    assert vault is not None
    write(vault, "Notes/Short.md", "See [[Cellar]].\n")  # too few words to ask with
    write(vault, "Notes/Embeds.md", "![[Cellar]]\n\nA long paragraph of words that embeds it.\n")
    write(vault, "Notes/Code.md", "```\nLinks in code are text: [[Cellar]] and words here\n```\n")
    write(
        vault,
        "Notes/Props.md",
        '---\nplace: "[[Cellar]]"\n---\nNo body link here at all, in many words.\n',
    )
    orchard.index()
    made = link_questions(orchard.snapshot.index, orchard.graph)
    # Only the orchard's link has a passage: a short line, an embed, code and a
    # property are not questions.
    assert [(m.source, m.target) for m in made] == [("Orchard", "Cellar")]
    (m,) = made
    q = m.question
    assert q.gold == ("Cellar",) and q.type == "link" and q.id == "Orchard -> Cellar"
    # The link is gone, display text included: the question must not name its answer.
    assert HIDDEN in q.question
    assert "cellar" not in q.question.casefold() and "cool store" not in q.question
    assert "[[" not in q.question
    assert q.question.startswith("The orchard behind the mill grows sweet apples")
    assert m.hidden == (("Orchard", "Cellar"), ("Cellar", "Orchard"))


def test_the_hidden_link_is_gone_from_the_graph_and_from_passage_scores(orchard: VaultRAG):
    (m,) = link_questions(orchard.snapshot.index, orchard.graph)
    graph = orchard.graph
    view = graph.without_links(m.hidden)
    assert "Cellar" in graph.objects("Orchard") and "Orchard" in graph.backlinks("Cellar")
    assert "Cellar" not in view.objects("Orchard")
    assert "Cellar" not in {link.target for link in view.outlinks("Orchard")}
    assert "Orchard" not in view.backlinks("Cellar")
    assert "Cellar" not in view.neighbours("Orchard")
    # Other links stay.
    both_ways = graph.without_links([("Orchard", "Nowhere")])
    assert "Cellar" in both_ways.objects("Orchard")
    # The graph itself is untouched.
    assert "Cellar" in graph.objects("Orchard") and "Orchard" in graph.backlinks("Cellar")
    # Nor does the store bring it back as a passage-to-link similarity.
    corpus = orchard.snapshot.corpus
    scores = corpus.chunk_scores(orchard.embed_query(m.question.question))
    assert "Cellar" in link_context(corpus, ["Orchard"], scores)["Orchard"]
    assert "Cellar" not in link_context(corpus, ["Orchard"], scores, view)["Orchard"]


def test_query_mode_cannot_follow_the_hidden_link(orchard: VaultRAG):
    (m,) = link_questions(orchard.snapshot.index, orchard.graph)
    q = m.question
    # With the link in the graph, query mode finds the cellar through it...
    shown = GraphRAGSystem(orchard).run([q], [2000])[2000][0]
    assert "Orchard" in shown.uris and "Cellar" in shown.uris
    # ...hidden, nothing else leads there: the question shares no word with it.
    hidden = HiddenLinkQuery(orchard, {q.id: m.hidden}).run([q], [2000])[2000][0]
    assert "Orchard" in hidden.uris and "Cellar" not in hidden.uris
    report = run_eval(orchard, [q], [2000], [HiddenLinkQuery(orchard, {q.id: m.hidden})])
    assert report.row("graphrag", 2000).recall == 0.0


def test_the_hybrid_baseline_cannot_vote_through_the_hidden_link(tmp_path: Path):
    vault = tmp_path / "orchard"
    write(vault, "Orchard.md", PASSAGE + "\n")
    write(vault, "Cellar.md", "Stone vaults under the school hold wheels at eleven degrees.\n")
    # Notes more like the passage than the cellar fill the vector ranking's top 3, so
    # the cellar can only be reached through the orchard's link (a graph vote).
    write(vault, "Mill.md", "The mill behind the orchard grinds apples and pears in autumn.\n")
    write(vault, "Press.md", "The press runs every spring on the harvest of the orchard.\n")
    settings = load_settings(overrides={"query": {"rrf_depth": 3}})
    rag = VaultRAG.open(
        vault, index_dir=tmp_path / "idx", embedder=HashEmbedder(), settings=settings
    )
    (m,) = link_questions(rag.snapshot.index, rag.graph)
    q = m.question
    # With the link in the graph, the orchard (the best hit) votes for the cellar...
    seen = HybridSystem(rag).run([q], [4000])[4000][0]
    assert "Orchard" in seen.uris and "Cellar" in seen.uris
    # ...on the question's own view of the graph, nothing leads there.
    blind = HybridSystem(rag, hidden={q.id: m.hidden}).run([q], [4000])[4000][0]
    assert "Orchard" in blind.uris and "Cellar" not in blind.uris
    report = run_from_links(rag, budgets=(4000,))
    assert report.row("hybrid", 4000).recall == 0.0


def test_question_text_reads_like_typed_text() -> None:
    passage = (
        "> [!tip] Use **bold** and [[Notes/Other#Part|other words]] with ![[Pic.png]] or "
        "[text](Target%20Note.md) and [[Target Note]] too ^block-1"
    )
    text = question_text(passage, lambda written: written.removesuffix(".md") == "target note")
    assert text == f"Use bold and other words with or {HIDDEN} and {HIDDEN} too"


def test_dendron_label_first_links_are_hidden_and_read_as_their_label() -> None:
    """Dendron writes ``[[label|target]]``; the index resolved ``target`` (its written
    target), so that link is the hidden one, and another such link reads as its label."""
    passage = (
        "See [[Vault types|dendron://site/dendron.topic.vaults#local]] and "
        "[[the lookup|dendron.topic.lookup]], or [[Home|Glossary]] and [[Ghost|dendron.x]]."
    )
    written = {"dendron://site/dendron.topic.vaults", "dendron.topic.lookup", "home"}
    text = question_text(
        passage, lambda w: w == "dendron://site/dendron.topic.vaults", written.__contains__
    )
    # Obsidian's reading of a resolved label stays; a ghost reads as its display text.
    assert text == f"See {HIDDEN} and the lookup, or Glossary and dendron.x."
    lookup = question_text(passage, lambda w: w == "dendron.topic.lookup", written.__contains__)
    assert lookup == f"See Vault types and {HIDDEN}, or Glossary and dendron.x."


def test_from_links_on_sample_vault(sample_vault: Path, tmp_path: Path):
    rag = VaultRAG.open(sample_vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    every = link_questions(rag.snapshot.index, rag.graph)
    assert len(every) > 20
    per_source = Counter(m.source for m in every)
    assert max(per_source.values()) <= 2
    assert len({(m.source, m.target) for m in every}) == len(every)
    for m in every:
        assert rag.graph.info(m.target).kind == "note" and m.target != m.source
        assert "[[" not in m.question.question and len(m.question.question.split()) >= 8
    # The same seed draws the same questions; a limit keeps a spread of notes.
    again = link_questions(rag.snapshot.index, rag.graph)
    assert [m.question for m in again] == [m.question for m in every]
    ten = link_questions(rag.snapshot.index, rag.graph, limit=10, seed=1)
    assert len(ten) == 10 and len({m.source for m in ten}) == 10

    report = run_from_links(rag, budgets=(500, 2000), limit=12)
    assert report.systems == ("graphrag", "vector", "bm25", "hybrid")
    assert len(report.questions) == 12 and {q.type for q in report.questions} == {"link"}
    assert report.qa_path.startswith("from-links")
    for o in report.outcomes:
        assert o.tokens <= o.budget


def test_a_vault_without_usable_links_is_an_error(tmp_path: Path):
    vault = tmp_path / "v"
    write(vault, "A.md", "Just words, no links at all in this note whatsoever.")
    rag = VaultRAG.open(vault, index_dir=tmp_path / "idx", embedder=HashEmbedder())
    with pytest.raises(InvalidRequestError, match="no body link"):
        run_from_links(rag, budgets=(1000,))


@pytest.mark.slow
def test_with_the_real_model_no_answer_follows_its_hidden_link(real_embedder, tmp_path: Path):
    import shutil

    from graphrag.query.mode import run_query
    from graphrag.query.request import QueryRequest
    from graphrag.results.notes import Relation
    from tests.support.files import SAMPLE_VAULT

    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    rag = VaultRAG.open(vault, index_dir=tmp_path / "idx", embedder=real_embedder)
    snapshot = rag.snapshot
    made = link_questions(snapshot.index, snapshot.graph, limit=20)
    direct = {Relation.Object, Relation.InboundReference}
    for m in made:
        request = QueryRequest.parse(m.question.question, rag.settings, 2000, seed=0)
        result = run_query(
            request,
            index=snapshot.index,
            graph=snapshot.graph.without_links(m.hidden),
            corpus=snapshot.corpus,
            vector=rag.embed_query(request.search_text),
            tokenizer=rag.tokenizer,
        )
        for n in result.related:
            # The target may come back (by similarity, or another path), never over the link.
            if n.uri == m.target and n.focus.uri == m.source:
                assert n.note.relation not in direct, m.question.id
            if n.uri == m.source and n.focus.uri == m.target:
                assert n.note.relation not in direct, m.question.id
    report = run_from_links(rag, budgets=(2000,), limit=20)
    assert len(report.questions) == 20
    assert 0.0 < report.row("vector", 2000).recall <= 1.0
