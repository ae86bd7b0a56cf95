"""End to end with the real model (all-MiniLM-L6-v2) and a real FAISS index on sample_vault.

Facts from tests/SAMPLE_VAULT.md section 5: a question about a fact in one note
finds that note as an entry; a two-note question finds the linked second note
among the related notes, reached from the first.
"""

from __future__ import annotations

import pytest

from graphrag.api import VaultRAG
from graphrag.config import load_settings

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rag(real_embedder, tmp_path_factory):
    import shutil

    from tests.support.files import SAMPLE_VAULT

    vault = tmp_path_factory.mktemp("real") / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    return VaultRAG.open(vault, settings=load_settings(env={}), embedder=real_embedder)


def entry_uris(result) -> list[str]:
    return [e.uri for e in result.entries]


def test_a_fact_in_one_note_makes_that_note_an_entry(rag):
    result = rag.query("How much rennet goes into 100 litres of milk?", budget=2000, seed=0)
    assert "Dairy/Cheese Making/Renneting" in entry_uris(result)
    assert rag.snapshot.index.vectors.index.ntotal > 0  # a real FAISS index underneath


def test_a_two_hop_question_brings_the_linked_note(rag):
    question = "In which year did the person who runs the aging cellar start at the cooperative?"
    result = rag.query(question, budget=2000, seed=0)
    assert entry_uris(result)[0] == "Places/Käsekeller"
    mira = {n.uri: n for n in result.related}["People/Mira Halvorsen"]
    assert mira.focus.uri == "Places/Käsekeller"
    assert mira.to_json()["relationToFocusNote"] == "Object"
    assert "2019" in mira.note.details  # the answer is in what the model will read


def test_a_property_link_is_followed_for_a_two_hop_question(rag):
    # The festival note's ``lead: "[[Lena Fux]]"`` is the only way from one to the other.
    question = "What does the head of the Alpabzug committee do for a living?"
    result = rag.query(question, budget=2000, seed=0)
    assert "Projects/Descent Festival" in entry_uris(result)
    lena = {n.uri: n for n in result.related}["People/Lena Fux"]
    assert lena.focus.uri == "Projects/Descent Festival" and lena.note.predicate == "lead"


def test_an_off_topic_question_finds_nothing(rag):
    result = rag.query("How do I configure a Kubernetes ingress controller?", seed=0)
    assert result.entries == () and result.message


def test_searches_with_the_real_model(rag):
    question = "What salt concentration does the brine bath have?"
    assert rag.semantic_search(question, top_k=3).hits[0].uri == "Dairy/Cheese Making/Recipes/Brine"
    assert "Dairy/Cheese Making/Recipes/Brine" in [
        h.uri for h in rag.hybrid_search(question, top_k=3).hits
    ]
    assert (
        rag.lexical_search("brine hydrometer", top_k=1).hits[0].uri
        == "Dairy/Cheese Making/Recipes/Brine"
    )


def test_the_linking_passage_counts_below_front_matter(rag):
    # The bivouac note has front matter; its passage "checked ... by the warden of the
    # [[Gamsjoch Hut]]" answers the question, the hut's own text does not (0.22).
    question = (
        "Who checks the Zirbenkopf Bivouac twice a year, and since when has he held the post?"
    )
    result = rag.query(question, budget=2000, seed=0, explain=True)
    assert entry_uris(result)[0] == "Places/Huts/Zirbenkopf Bivouac"
    hut = {n.uri: n for n in result.related}["Places/Huts/Gamsjoch Hut"]
    own = {h.uri: h.score for h in rag.semantic_search(question, top_k=40).hits}
    assert hut.explain.similarity > own["Places/Huts/Gamsjoch Hut"] + 0.15
