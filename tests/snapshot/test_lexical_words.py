"""Query-time tokenizing (``words``, ``token_lists``, ``count_terms``) is bm25s's, without bm25s.

The notes are tokenized by ``bm25s.tokenize`` when the index is built; questions and
snippets are tokenized by our copy of its rules, so these must agree word for word.
"""

from __future__ import annotations

import random
import subprocess
import sys

import bm25s
import pytest
import Stemmer
from bm25s.stopwords import STOPWORDS_EN as BM25S_STOPWORDS

from graphrag.snapshot.lexical import STOPWORDS_EN, LexicalIndex, Vocabulary, words
from tests.support.files import ROOT, SAMPLE_VAULT

SAMPLES = [
    "How do I embed a file?",
    "The Käsekeller is the cooperative's aging cellar; run by [[Mira Halvorsen]].",
    "ÉTÉ été ÇA ça — naïve café, 2024-09-15, x_y z9 a1 I'm it's",
    "don't stop: the, and, or; THE AND OR. Running runs ran runner",
    "tabs\tand\nnewlines\r\nand   spaces",
    "日本語のテキスト and ελληνικά λόγια and кириллица",
    "",
    "a",
    "#tag/nested [link](Some%20Path.md) `code_span` **bold**",
]


def _index() -> LexicalIndex:
    import numpy as np

    empty = np.zeros(1, dtype=np.int64)
    none = np.zeros(0, dtype=np.int32)
    return LexicalIndex("english", Vocabulary(), empty, none, none, none, [])


def _bm25s(texts: list[str]) -> list[list[str]]:
    out = bm25s.tokenize(
        texts,
        stopwords="en",
        stemmer=Stemmer.Stemmer("english"),
        return_ids=False,
        show_progress=False,
    )
    return [list(dict.fromkeys(t for t in ws if t)) for ws in out]


def _vault_texts() -> list[str]:
    return [p.read_text(encoding="utf-8") for p in sorted(SAMPLE_VAULT.rglob("*.md"))]


def test_stop_words_are_bm25s_english_list() -> None:
    assert frozenset(BM25S_STOPWORDS) == STOPWORDS_EN


@pytest.mark.parametrize("text", SAMPLES)
def test_token_lists_match_bm25s(text: str) -> None:
    assert _index().token_lists([text]) == _bm25s([text])


def test_token_lists_match_bm25s_on_every_sample_note() -> None:
    texts = _vault_texts()
    assert _index().token_lists(texts) == _bm25s(texts)


def test_count_terms_is_the_size_of_the_shared_terms() -> None:
    index = _index()
    texts = _vault_texts() + SAMPLES
    rng = random.Random(3)
    for _ in range(10):
        terms = set(rng.sample(sorted({t for ts in index.token_lists(texts) for t in ts}), 8))
        expected = [len(terms.intersection(ts)) for ts in index.token_lists(texts)]
        assert index.count_terms(texts, terms) == expected


def test_words_drops_stop_words_before_stemming() -> None:
    assert words("The running of THE bulls") == ["running", "bulls"]


def test_scoring_a_question_does_not_import_bm25s() -> None:
    """bm25s pulls in scipy (~0.2 s); a question needs only the tokenizer rules."""
    code = (
        "import sys; from graphrag.snapshot.lexical import LexicalIndex, Vocabulary; "
        "import numpy as np; z = np.zeros(0, dtype=np.int32); "
        "ix = LexicalIndex('english', Vocabulary(), np.zeros(1, dtype=np.int64), z, z, z, []); "
        "ix.score('how do I embed a file', 0); ix.count_terms(['a file'], {'file'}); "
        "print('bm25s' in sys.modules, 'scipy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["False", "False"]


@pytest.mark.parametrize("seed", range(5))
def test_random_unicode_text_tokenizes_as_bm25s(seed: int) -> None:
    rng = random.Random(seed)
    alphabet = "aZé_ 9\t\n-'.,ßİı日ΣΩ\u0301\u200b!#[]()"
    texts = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300))) for _ in range(40)]
    assert _index().token_lists(texts) == _bm25s(texts)
