"""Entry notes for a question: where the graph traversal starts.

Every note gets a blended score (docs/architecture.md, "Query mode", step 1):

    w_vector * cosine of its best chunk  +  w_lexical * BM25 / best BM25
    + w_tags * share of the query's #tags it has  +  w_title * (title/alias named)

The best ``vector_entry_count`` notes by that score become entries, and so do
notes the question names: by a ``#tag`` (a nested tag matches its descendants)
or by a title or alias written in the question, in any case, or misspelled
(``fuzzy_matches``). Those join even
when their vectors are weak, because the user said which notes they mean; a
title or alias more than ``title_max_notes`` notes bear says no such thing,
and only adds to their blended score. Nor does a name the vault writes in most
of its notes (``common_names``: "GitHub" and "Links" on a hub where every
plugin page links its repository): there it is a word of the vault, not a note
the user picked.

A note qualifies at all only on some evidence: a cosine of at least
``entry_min_similarity``, a lexical match of at least ``lexical_min_coverage``
of the question's terms, a tag or a title. With none, the answer is that
nothing is relevant, not the least irrelevant notes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from graphrag.config.query import QuerySettings
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.filters import tag_mask
from graphrag.snapshot.graph import VaultGraph
from graphrag.snapshot.lexical import LexicalIndex, LexicalScores
from graphrag.snapshot.stopwords import is_stopword

# A #tag in a question, as in a note: not all digits, not inside a word.
QUERY_TAG_RE = re.compile(r"(?:^|(?<=[\s(]))#([\w/\-]*[^\W\d_][\w/\-]*)", re.U)
WORD_RE = re.compile(r"[\w']+", re.U)
MAX_TITLE_WORDS = 8
# A misspelled name: compared stemmed, at least this long, within this many edits
# (one more for names longer than FUZZY_LONG characters).
FUZZY_MIN_CHARS = 5
FUZZY_EDITS = 1
FUZZY_LONG = 9
# A question of at most this many words that are not stop words is keywords, and a
# lower-case word in it may name a note ("aliases and tags").
KEYWORD_QUESTION_WORDS = 4
# A name whose words are in the text of more than this share of the notes that do
# not bear it is a word of the vault, not a name (``common_names``).
COMMON_NAME_SHARE = 0.5
# How a question marks a phrase as a name whatever the vault: a link, or quotes.
WRITTEN_AS_NAME = (("[[", ""), ('"', '"'), ("\u201c", "\u201d"))


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    text: str  # as asked
    search_text: str  # for embedding and BM25: '#' dropped from tags, words kept
    tags: tuple[str, ...]  # lowercased, without '#'


@dataclass(frozen=True, slots=True)
class Entry:
    uri: str
    index: int  # in the corpus
    score: float
    vector: float
    lexical: float
    tags: float
    title: float
    matched_by: tuple[str, ...]


def parse_query(text: str) -> ParsedQuery:
    tags = tuple(dict.fromkeys(m.group(1).strip("/").lower() for m in QUERY_TAG_RE.finditer(text)))
    search = QUERY_TAG_RE.sub(lambda m: m.group(1).replace("/", " ").replace("-", " "), text)
    return ParsedQuery(text, " ".join(search.split()), tags)


def name_words(text: str) -> list[str]:
    """The words titles, aliases and the text naming them are compared by."""
    return WORD_RE.findall(text.replace("\u2019", "'"))


def _phrase(text: str) -> str:
    return " ".join(w.casefold() for w in name_words(text))


def title_table(corpus: Corpus, graph: VaultGraph) -> dict[str, list[int]]:
    """normalised title or alias -> notes bearing it."""

    def build() -> dict[str, list[int]]:
        table: dict[str, list[int]] = {}
        for i, uri in enumerate(corpus.uris):
            info = graph.info(uri)
            for name in dict.fromkeys((info.title, *info.aliases)):
                key = _phrase(name)
                if key:
                    table.setdefault(key, []).append(i)
        return table

    return corpus.derived("titles", build)


def title_matches(
    query: ParsedQuery,
    corpus: Corpus,
    graph: VaultGraph,
    min_chars: int,
    vocabulary: Vocabulary | None = None,
) -> dict[int, str]:
    """Notes whose title or alias the question names -> the name as written.

    A name must be a whole run of words of the question, in any case ("aliases and
    tags" names the notes Aliases and Tags). A single word is a name only when
    written as one (capitalised), when the question is the name, or when the
    question is a few words typed as keywords (at most ``KEYWORD_QUESTION_WORDS``
    that are not stop words): in a sentence, "vault", "note" or "title" are words
    even where notes bear those titles. A word every question is made of
    (``QUESTION_STOPWORDS``: "how", "what"...) names no note on its own. With
    ``vocabulary`` (the vault's own words), a run holding a word the vault never
    uses, a typo, also names a note whose name it misspells (``fuzzy_matches``)."""
    table = title_table(corpus, graph)
    words = name_words(query.search_text)
    folded = [w.casefold() for w in words]
    lone = _lone_word_names(words)
    found: dict[int, str] = {}
    for n in range(min(MAX_TITLE_WORDS, len(words)), 0, -1):
        for start in range(len(words) - n + 1):
            key = " ".join(folded[start : start + n])
            if len(key) < min_chars or key not in table:
                continue
            if n == 1 and not lone(start):
                continue
            for i in table[key]:
                found.setdefault(i, " ".join(words[start : start + n]))
    if vocabulary is not None:
        for i, name in fuzzy_matches(words, corpus, graph, vocabulary, lone).items():
            found.setdefault(i, name)
    return found


def _lone_word_names(words: list[str]) -> Callable[[int], bool]:
    """Whether the word at a position may name a note on its own (``title_matches``)."""
    keywords = sum(not is_stopword(w) for w in words) <= KEYWORD_QUESTION_WORDS

    def lone(at: int) -> bool:
        word = words[at]
        if is_stopword(word):
            return False
        return keywords or len(words) == 1 or word[:1].isupper()

    return lone


class Vocabulary:
    """The vault's words as the BM25 index stems them: which words a question uses
    that no note does (likely typos), and the stems names are compared by."""

    def __init__(self, corpus: Corpus, language: str) -> None:
        from graphrag.snapshot.lexical import lexical_index

        self.index = lexical_index(corpus, language)
        self.stem = self.index.stem

    def knows(self, word: str) -> bool:
        index = self.index
        t = index.vocab.ids.get(self.stem(word.casefold()))
        return t is not None and t < index.terms and index.indptr[t + 1] > index.indptr[t]


def fuzzy_matches(
    words: list[str],
    corpus: Corpus,
    graph: VaultGraph,
    vocabulary: Vocabulary,
    lone: Callable[[int], bool] | None = None,
) -> dict[int, str]:
    """Notes whose title or alias a run of the question's words misspells -> the run.

    Only a run holding a word no note uses is looked at (a typo is not a word of the
    vault; a real word that merely resembles a title is no misspelling of it), and
    a single word only where it may name a note alone (``lone``: a capitalised word,
    or a question of a few keywords), never a stop word. Runs and names are compared
    word by word stemmed
    ("calout" and "Callouts" are "calout" and "callout"), with the same first letter
    and at most ``FUZZY_EDITS`` edits (insert, delete, substitute, swap two neighbours)
    for names up to ``FUZZY_LONG`` characters, one more beyond."""
    table = _fuzzy_table(corpus, graph, vocabulary)
    unknown = [len(w) >= FUZZY_MIN_CHARS and not vocabulary.knows(w) for w in words]
    if not any(unknown):
        return {}
    stems = [vocabulary.stem(w.casefold()) for w in words]
    found: dict[int, str] = {}
    for n in range(min(MAX_TITLE_WORDS, len(words)), 0, -1):
        for start in range(len(words) - n + 1):
            if not any(unknown[start : start + n]):
                continue
            if n == 1 and (is_stopword(words[start]) or (lone is not None and not lone(start))):
                continue
            key = " ".join(stems[start : start + n])
            edits = FUZZY_EDITS + (len(key) > FUZZY_LONG)
            names = table.get(key[:1])
            if names is None:
                continue
            for _, _, notes in names.near(key, edits):
                for i in notes:
                    found.setdefault(i, " ".join(words[start : start + n]))
    return found


# A name in the fuzzy table: (position in the title table, stemmed name, notes bearing it).
FuzzyName = tuple[int, str, list[int]]
LETTER_BINS = 32  # characters counted by their code modulo this (``LetterCounts``)


def _letter_counts(text: str) -> np.ndarray:
    codes = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32) % LETTER_BINS
    return np.bincount(codes, minlength=LETTER_BINS).astype(np.int32)


class FuzzyNames:
    """The names (stemmed titles and aliases) that begin with one letter, by length,
    with their characters counted: ``near`` compares a key by edit distance only with
    the names its edits could reach. Each edit changes the counts by at most one
    character each way (a swap not at all), so a name whose counts differ from the
    key's by more than ``limit`` either way is surely too far: at 10k notes that
    leaves a few of a letter's ~400 names for ``within_edits``."""

    def __init__(self, names: list[FuzzyName]) -> None:
        self.names = sorted(names, key=lambda named: (len(named[1]), named[0]))
        self.lengths = np.array([len(named[1]) for named in self.names], dtype=np.int64)
        counts = [_letter_counts(named[1]) for named in self.names]
        self.counts = np.array(counts, dtype=np.int32).reshape(-1, LETTER_BINS)

    def near(self, key: str, limit: int) -> list[FuzzyName]:
        """The names within ``limit`` edits of ``key``, in the title table's order."""
        lo = int(np.searchsorted(self.lengths, len(key) - limit, side="left"))
        hi = int(np.searchsorted(self.lengths, len(key) + limit, side="right"))
        if lo >= hi:
            return []
        diff = self.counts[lo:hi] - _letter_counts(key)
        more = np.maximum(diff, 0).sum(axis=1)
        fewer = np.maximum(-diff, 0).sum(axis=1)
        maybe = np.flatnonzero((more <= limit) & (fewer <= limit)) + lo
        near = [self.names[j] for j in maybe if within_edits(key, self.names[j][1], limit)]
        return sorted(near, key=lambda named: named[0])


def warm_titles(corpus: Corpus, graph: VaultGraph, language: str | None) -> None:
    """Build the title tables every question reads (and, with the BM25 index's
    ``language``, the stemmed names misspellings are compared with) now, at the
    snapshot's warm-up, not in the first question: built then, they also stay out of
    the frozen heap and every full collection walks them (~25,000 objects on
    obsidian-hub)."""
    title_table(corpus, graph)
    if language is not None:
        _fuzzy_table(corpus, graph, Vocabulary(corpus, language))


def _fuzzy_table(
    corpus: Corpus, graph: VaultGraph, vocabulary: Vocabulary
) -> dict[str, FuzzyNames]:
    """First letter -> the stemmed titles and aliases beginning with it, for names of
    at least ``FUZZY_MIN_CHARS`` characters."""

    def build() -> dict[str, FuzzyNames]:
        out: dict[str, list[FuzzyName]] = {}
        for at, (key, notes) in enumerate(title_table(corpus, graph).items()):
            if len(key) >= FUZZY_MIN_CHARS:
                stemmed = " ".join(vocabulary.stem(w) for w in key.split())
                out.setdefault(stemmed[:1], []).append((at, stemmed, notes))
        return {letter: FuzzyNames(names) for letter, names in out.items()}

    return corpus.derived("titles-fuzzy-names", build)


def within_edits(a: str, b: str, limit: int) -> bool:
    """Whether the optimal string alignment distance of ``a`` and ``b`` (insert, delete,
    substitute, swap two neighbours; no part edited twice) is at most ``limit``: the
    distance's recurrence read from the front, branching only where the strings differ
    and only while edits are left, so a name that is surely too far costs a few
    character comparisons instead of a table of them."""
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    if i:
        a, b = a[i:], b[i:]
    if not a or not b:
        return len(a) + len(b) <= limit
    if limit <= 0 or abs(len(a) - len(b)) > limit:
        return False
    left = limit - 1
    return (
        within_edits(a[1:], b[1:], left)  # substitute
        or within_edits(a[1:], b, left)  # delete
        or within_edits(a, b[1:], left)  # insert
        or (a[0] == b[1:2] and a[1:2] == b[0] and within_edits(a[2:], b[2:], left))  # swap
    )


def common_names(
    query: ParsedQuery, titles: dict[int, str], vocabulary: Vocabulary, size: int
) -> set[str]:
    """The names of ``titles`` (note -> the name as the question writes it; casefolded
    here) that are words of the vault rather than names: the text of more than
    ``COMMON_NAME_SHARE`` of the notes that do not bear one holds all of its terms
    (stemmed, stop words out, as BM25 reads them). Past half of the notes a term's
    Robertson-Sparck Jones weight is negative: a note using the word is likelier not
    to be about it, so the question writing it says nothing about which note it means.
    A name is still a name when it is the whole question, or written as a link
    (``[[GitHub]]``) or in quotes; a misspelled one (``fuzzy_matches``) always is:
    its words are not the vault's."""
    named: dict[str, list[int]] = {}
    for i, name in titles.items():
        named.setdefault(name.casefold(), []).append(i)
    asked = query.text.casefold()
    whole = _phrase(query.search_text)
    out: set[str] = set()
    for name, bearers in named.items():
        if name == whole or any(f"{a}{name}{b}" in asked for a, b in WRITTEN_AS_NAME):
            continue
        if name_share(vocabulary.index, name, bearers, size) > COMMON_NAME_SHARE:
            out.add(name)
    return out


def name_share(index: LexicalIndex, name: str, bearers: Sequence[int], size: int) -> float:
    """The share of the ``size`` notes, ``bearers`` left out, whose text holds every term
    of ``name``: an upper bound on how many write the name itself, from the postings
    alone."""
    terms = index.tokens(name)
    if not terms:
        return 0.0
    held: np.ndarray | None = None
    for term in terms:
        t = index.vocab.ids.get(term)
        if t is None or t >= index.terms:
            return 0.0
        docs = index.docs[index.indptr[t] : index.indptr[t + 1]]
        held = docs if held is None else np.intersect1d(held, docs, assume_unique=True)
    others = size - len(bearers)
    if held is None or others <= 0:
        return 0.0
    return len(np.setdiff1d(held, np.asarray(bearers, dtype=held.dtype))) / others


def tag_scores(query: ParsedQuery, corpus: Corpus, graph: VaultGraph) -> np.ndarray:
    """Share of the question's tags each note has (nested tags count for their ancestors)."""
    out = np.zeros(len(corpus), dtype=np.float32)
    if not query.tags:
        return out
    for tag in query.tags:
        out += tag_mask(tag, corpus, graph)
    return out / len(query.tags)


def text_evidence(
    sims: np.ndarray, lexical: LexicalScores | None, settings: QuerySettings
) -> tuple[np.ndarray, np.ndarray]:
    """``(by_vector, by_lexical)``: the notes whose text is evidence for the question,
    a cosine of at least ``entry_min_similarity``, or at least ``lexical_min_coverage``
    of the question's terms. Query mode shows no note found by search without it."""
    by_vector = sims >= settings.entry_min_similarity
    by_lexical = (
        (lexical.coverage() >= settings.lexical_min_coverage) & (lexical.scores > 0)
        if lexical is not None
        else np.zeros_like(by_vector)
    )
    return by_vector, by_lexical


def select_entries(
    query: ParsedQuery,
    sims: np.ndarray,
    lexical: LexicalScores | None,
    corpus: Corpus,
    graph: VaultGraph,
    settings: QuerySettings,
    allowed: np.ndarray | None = None,
) -> list[Entry]:
    """The entry notes, best first. ``sims``: each note's best-chunk cosine;
    ``allowed``: the filter mask (None = every note)."""
    s = settings
    vec = np.clip(sims, 0.0, None)
    lex = lexical.normalised() if lexical is not None else np.zeros_like(vec)
    tags = tag_scores(query, corpus, graph) if s.tag_entry_enabled else np.zeros_like(vec)
    vocabulary = (
        Vocabulary(corpus, s.stemmer_language)
        if s.title_entry_enabled and lexical is not None
        else None
    )
    titles = (
        title_matches(query, corpus, graph, s.title_min_chars, vocabulary)
        if s.title_entry_enabled
        else {}
    )
    if titles and vocabulary is not None:
        common = common_names(query, titles, vocabulary, len(corpus))
        titles = {i: name for i, name in titles.items() if name.casefold() not in common}
    title = np.zeros_like(vec)
    if titles:
        title[list(titles)] = 1.0
    blend = (
        s.entry_weight_vector * vec
        + s.entry_weight_lexical * lex
        + s.entry_weight_tags * tags
        + s.entry_weight_title * title
    )
    by_vector, by_lexical = text_evidence(sims, lexical, s)
    qualified = by_vector | by_lexical | (tags > 0) | (title > 0)
    if allowed is not None:
        qualified &= allowed
    candidates = np.flatnonzero(qualified)
    if len(candidates) == 0:
        return []
    # A name several notes bear (six notes titled "Markdown") does not say which one
    # is meant: it adds to their blended score but makes none of them an entry.
    named: dict[str, list[int]] = {}
    for i, name in titles.items():
        named.setdefault(name.casefold(), []).append(i)
    unique = {i for ii in named.values() if len(ii) <= s.title_max_notes for i in ii}
    is_unique = np.zeros(len(vec), dtype=bool)
    if unique:
        is_unique[list(unique)] = True
    # Each list best first, ties by uri (corpus order) so a result never depends on the
    # platform; only as many as can be chosen (a later list skips at most what the
    # earlier ones took), so nothing sorts all of a 100k-note vault's candidates.
    named_title = _best(
        candidates[(title[candidates] > 0) & is_unique[candidates]], blend, s.max_entries
    )
    top = _best(candidates, blend, s.vector_entry_count)
    named_tag = _best(
        candidates[tags[candidates] > 0], blend, s.max_entries + len(named_title) + len(top)
    )
    chosen: list[int] = []
    for i in (*named_title, *top, *named_tag):
        if i not in chosen and len(chosen) < s.max_entries:
            chosen.append(i)
    chosen.sort(key=lambda i: (-blend[i], i))

    def reasons(i: int) -> tuple[str, ...]:
        out = []
        if by_vector[i]:
            out.append("vector")
        if by_lexical[i]:
            out.append("lexical")
        if tags[i] > 0:
            out.append("tag")
        if title[i] > 0:
            out.append("title")
        return tuple(out)

    return [
        Entry(
            uri=corpus.uris[i],
            index=i,
            score=float(blend[i]),
            vector=float(vec[i]),
            lexical=float(lex[i]),
            tags=float(tags[i]),
            title=float(title[i]),
            matched_by=reasons(i),
        )
        for i in chosen
    ]


def _best(idx: np.ndarray, score: np.ndarray, k: int) -> list[int]:
    """The ``k`` of ``idx`` with the highest ``score``, best first, ties to the lower index."""
    if k <= 0 or len(idx) == 0:
        return []
    if len(idx) > k:
        kth = np.partition(score[idx], len(idx) - k)[len(idx) - k]
        idx = idx[score[idx] >= kth]  # every note tied with the k-th best stays
    return [int(i) for i in idx[np.lexsort((idx, -score[idx]))][:k]]
