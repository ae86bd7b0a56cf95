"""Query mode's result and its JSON shape.

Query mode reuses focus mode's shapes: an entry note is a ``FocusNote`` (its
lists capped, since several entries share one budget) and a related note is a
``RelatedNote`` whose ``relationToFocusNote`` is relative to ``focusUri``, the
entry it was reached from (a note found by the question's own match,
``MatchesQuestion``, is its own focus and has no ``focusUri``). ``copies`` names notes holding the
same text, left out of the context. Scores and paths appear only with ``explain``.

Every key is paid for out of the budget, so keys that say nothing are left out
and the others say what they must in few tokens (docs/architecture.md, "Query
mode"): an entry's empty lists and tags and its relation (an entry is always
``Self``); a related note's empty ``sharedTags``, the far end of the link it was
reached by when that is its entry (``focusUri``), its ``focusUri`` when that is
the result's first entry note (the default: a relation without one is to the
first entry), and a search hit's ``focusUri`` (itself); on both, a ``title``
that is the uri's file name (``Buy wisely`` for ``Clippings/Buy wisely``), a
``parentUriAndTitle`` its uri already spells (``References`` for
``References/Out of Control``), the title of an entry's list item, a related
note's link's far end (``subjectUriAndTitle``, ``objectUriAndTitle``) or a copy
that is its uri's file name, ``detailsTruncated`` when the details show the
cut mark ``…`` (at their end or on a line of its own), and a ``createdAt`` its details already
show (a ``created:`` or ``date:`` property line of the same day); a
``createdAt`` shown is the day (``2024-05-01``), not the second.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphrag.results.notes import FocusNote, RelatedNote, SkippedNote, UriAndTitle, rounded

# The mark where text was left out (``budget.ELLIPSIS``; results rank below budget).
CUT = "…"

# A focus note's lists: an entry note leaves out the empty ones.
LIST_KEYS = frozenset(
    {
        "contextualPath",
        "children",
        "priorSiblings",
        "youngerSiblings",
        "inboundReferences",
        "outboundLinks",
    }
)


# The far ends of a related note's link, named as ``{uri, title}``: keys of query mode
# alone. ``parentUriAndTitle`` keeps its shape: every note pays it, the baselines' too
# (``eval/baselines.py`` renders their notes as search hits).
NAMED_KEYS = frozenset({"subjectUriAndTitle", "objectUriAndTitle"})


def _said_elsewhere(out: dict[str, Any]) -> None:
    """Drop the keys of a note's JSON that its uri and details already say, and show
    ``createdAt`` as its day: in query mode every key costs budget."""
    uri = out.get("uri", "")
    folder, _, name = uri.rpartition("/")
    if out.get("title") == name:
        del out["title"]  # the file name: the uri spells it
    parent = out.get("parentUriAndTitle")
    if parent and parent["uri"] == folder and parent["title"] == folder.rpartition("/")[2]:
        del out["parentUriAndTitle"]
    for key in LIST_KEYS & out.keys():
        # An entry's lists are packed last (``query/pack.py``): a shorter name fits more
        # names in what the notes left, and changes no note.
        out[key] = [_by_uri(v) for v in out[key]]
    for key in NAMED_KEYS & out.keys():
        out[key] = _by_uri(out[key])  # named as a list item is
    details = out.get("details", "")
    if out.get("detailsTruncated") and _shows_cut(details):
        del out["detailsTruncated"]  # the cut mark says so, where the text was cut
    created = out.get("createdAt")
    if created:
        day = created[:10]  # the time of day of a file's date is noise to a reader
        lines = details.splitlines()
        if any(line in (f"created: {day}", f"date: {day}") for line in lines):
            del out["createdAt"]
        else:
            out["createdAt"] = day


def _by_uri(named: dict[str, Any]) -> dict[str, Any]:
    """A ``{uri, title, ...}`` without a title that is its uri's file name."""
    if named.get("title") == named.get("uri", "").rpartition("/")[2]:
        return {k: v for k, v in named.items() if k != "title"}
    return named


def _copies_json(copies: tuple[UriAndTitle, ...]) -> list[dict[str, Any]]:
    """The notes holding a shown note's text, each named as a list item is."""
    return [_by_uri(c.to_json()) for c in copies]


def _shows_cut(details: str) -> bool:
    """The details end with the cut mark or hold it on a line of its own (the gap
    between passages, ``details.passages.GAP``)."""
    return details.endswith(CUT) or CUT in (line.strip() for line in details.splitlines())


@dataclass(frozen=True, slots=True)
class EntryExplain:
    score: float
    vector: float
    lexical: float
    tags: float
    title: float

    def to_json(self) -> dict[str, Any]:
        return {
            "score": rounded(self.score),
            "parts": {
                "vector": rounded(self.vector),
                "lexical": rounded(self.lexical),
                "tags": rounded(self.tags),
                "title": rounded(self.title),
            },
        }


@dataclass(frozen=True, slots=True)
class EntryNote:
    """``matched_by`` names what made the note an entry: vector, lexical, tag, title."""

    note: FocusNote
    matched_by: tuple[str, ...]
    details_truncated: bool = False
    explain: EntryExplain | None = None
    copies: tuple[UriAndTitle, ...] = ()  # notes holding the same text, left out

    @property
    def uri(self) -> str:
        return self.note.uri

    @property
    def title(self) -> str:
        return self.note.title

    def to_json(self, with_explain: bool = True) -> dict[str, Any]:
        base = self.note.to_json()
        out: dict[str, Any] = {}
        for key, value in base.items():
            if (key in LIST_KEYS or key == "tags") and not value:
                continue  # an empty list says nothing and costs budget
            if key == "relationToFocusNote":
                continue  # always Self: being an entry says so
            out[key] = value
            if key == "details" and self.details_truncated:
                out["detailsTruncated"] = True
        _said_elsewhere(out)
        out["matchedBy"] = list(self.matched_by)
        if self.copies:
            out["copies"] = _copies_json(self.copies)
        if with_explain and self.explain is not None:
            out["explain"] = self.explain.to_json()
        return out


@dataclass(frozen=True, slots=True)
class QueryExplain:
    score: float
    relevance: float  # normalised graph relevance, 0..1
    similarity: float  # cosine of the note's best chunk with the query
    recency: float
    relevance_parts: dict[str, float]
    distance: int
    path: str

    def to_json(self) -> dict[str, Any]:
        return {
            "score": rounded(self.score),
            "parts": {
                "relevance": rounded(self.relevance),
                "similarity": rounded(self.similarity),
                "recency": rounded(self.recency),
            },
            "relevanceParts": {k: rounded(v) for k, v in self.relevance_parts.items()},
            "distance": self.distance,
            "path": self.path,
        }


@dataclass(frozen=True, slots=True)
class QueryNote:
    """A related note: ``path`` runs from the entry (``focus``) to this note."""

    note: RelatedNote
    focus: UriAndTitle
    shared_tags: tuple[str, ...]
    distance: int
    path: tuple[UriAndTitle, ...]
    explain: QueryExplain | None = None
    copies: tuple[UriAndTitle, ...] = ()  # notes holding the same text, left out
    # The focus is the result's first entry note: the default, so ``focusUri`` is left out.
    focus_is_first: bool = False

    @property
    def uri(self) -> str:
        return self.note.uri

    @property
    def title(self) -> str:
        return self.note.title

    def to_json(self, with_explain: bool = True) -> dict[str, Any]:
        out = self.note.to_json(with_explain=False)
        for end in ("subjectUriAndTitle", "objectUriAndTitle"):
            if out.get(end, {}).get("uri") == self.focus.uri:
                del out[end]  # the link's other end is the entry: focusUri says so
        # A search hit is its own focus (its relation says so); the first entry is the default.
        if self.focus.uri != self.uri and not self.focus_is_first:
            out["focusUri"] = self.focus.uri
        _said_elsewhere(out)
        if self.shared_tags:
            out["sharedTags"] = list(self.shared_tags)
        if self.copies:
            out["copies"] = _copies_json(self.copies)
        if with_explain and self.explain is not None:
            out["explain"] = self.explain.to_json()
        return out


@dataclass(frozen=True, slots=True)
class QueryResult:
    """``message`` says why there is nothing to show (empty entries); ``skipped`` is
    set only with ``explain``."""

    query: str
    entries: tuple[EntryNote, ...]
    related: tuple[QueryNote, ...]
    budget: int
    tokens_used: int
    connections: tuple[str, ...] = ()
    message: str | None = None
    filters: dict[str, Any] | None = None
    skipped: tuple[SkippedNote, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "query": self.query,
            "entryNotes": [e.to_json() for e in self.entries],
            "relatedNotes": [n.to_json() for n in self.related],
            "tokens": {"budget": self.budget, "used": self.tokens_used},
        }
        if self.message:
            out["message"] = self.message
        if self.filters:
            out["filters"] = self.filters
        if self.skipped is not None:
            out["skipped"] = [s.to_json() for s in self.skipped]
        return out
