"""Finding a note by name: the exact matches ``VaultRAG.resolve_note`` tries, and
close matches for a name that matched nothing (the 404's ``suggestions``).

Both used to scan every note per request: five matchers, then
``difflib.get_close_matches`` over every title and uri, 0.1-0.4 s at 10k notes,
paid by each request for a missing note. That is exactly what a plugin sends for
a note created a moment ago, before the index has it, while the update that
will add it competes for the same core. So a ``NameIndex`` is built once per
graph: dictionaries for the exact matchers, and a character-trigram index from
which difflib ranks only a shortlist, the names most like the query by trigrams
(Dice coefficient). On a vault with fewer names than the shortlist, every name is
ranked, as before.
"""

from __future__ import annotations

import difflib
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # imported where used: only a name that matched nothing needs numpy
    import numpy as np

from graphrag.snapshot.graph import VaultGraph

SHORTLIST = 400


def wikilink_target(inner: str) -> tuple[str, str]:
    """What a wikilink's inside names: ``Note#Heading|shown`` -> (``Note#Heading``,
    ``Note``). The ``|display`` part goes (also as ``\\|``, a link inside a table), then
    the ``#heading`` / ``#^block`` suffix."""
    target = inner.split("|", 1)[0].rstrip("\\").strip()
    return target, target.split("#", 1)[0].strip()


def link_targets(name: str) -> list[str]:
    """The names a wikilink may mean, nearest first: ``[[Note#Heading|shown]]`` ->
    ``Note#Heading``, ``Note``. The brackets (and ``!`` of an embed) and the
    ``|display`` part go first; then the ``#heading`` / ``#^block`` suffix, so
    ``[[C# notes]]`` still finds a note so named."""
    target = name.strip()
    if target.startswith("![["):
        target = target[1:]
    if target.startswith("[[") and target.endswith("]]"):
        target = target[2:-2]
    return [t for t in dict.fromkeys(wikilink_target(target)) if t]


def _grams(text: str) -> set[str]:
    padded = f"  {text} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


class NameIndex:
    """Every note by folded uri, title, alias and file name; and the trigram index."""

    def __init__(self, graph: VaultGraph) -> None:
        names: dict[str, str] = {}
        self.by_uri: dict[str, list[str]] = {}
        self.by_title: dict[str, list[str]] = {}
        self.by_alias: dict[str, list[str]] = {}
        self.by_basename: dict[str, list[str]] = {}
        for note in graph.notes():
            uri = note.uri.casefold()
            names.setdefault(note.title.casefold(), note.uri)
            names.setdefault(uri, note.uri)
            self.by_uri.setdefault(uri, []).append(note.uri)
            self.by_title.setdefault(note.title.casefold(), []).append(note.uri)
            for alias in {a.casefold() for a in note.aliases}:
                self.by_alias.setdefault(alias, []).append(note.uri)
            self.by_basename.setdefault(uri.rsplit("/", 1)[-1], []).append(note.uri)
        self.names = names
        self.keys = list(names)
        self._trigrams: tuple[dict[str, np.ndarray], np.ndarray] | None = None
        self._lock = threading.Lock()

    def trigrams(self) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """(trigram -> ids of the names holding it, each name's trigram count); built on
        first use, since only a name that matched nothing needs it (~0.1 s at 10k notes)."""
        import numpy as np

        with self._lock:
            if self._trigrams is None:
                postings: dict[str, list[int]] = {}
                sizes = np.zeros(len(self.keys), dtype=np.float32)
                for i, key in enumerate(self.keys):
                    grams = _grams(key)
                    sizes[i] = len(grams)
                    for gram in grams:
                        postings.setdefault(gram, []).append(i)
                arrays = {g: np.asarray(ids, dtype=np.int32) for g, ids in postings.items()}
                self._trigrams = (arrays, sizes)
            return self._trigrams

    def shortlist(self, query: str) -> list[str]:
        """The names most like ``query`` by trigrams (Dice: shared over both sizes, so long
        names are not favoured), all of those tied with the last one included."""
        import numpy as np

        if len(self.keys) <= SHORTLIST:
            return self.keys
        postings, sizes = self.trigrams()
        grams = _grams(query)
        hits = [postings[g] for g in grams if g in postings]
        if not hits:
            return []
        shared = np.bincount(np.concatenate(hits), minlength=len(self.keys))
        dice = 2 * shared / (len(grams) + sizes)
        cut = np.partition(dice, len(dice) - SHORTLIST)[len(dice) - SHORTLIST]
        return [self.keys[i] for i in np.flatnonzero((dice >= cut) & (shared > 0))]

    def matches(self, folded: str) -> list[str]:
        """Notes named ``folded`` (casefolded, no ``.md``), by the first rule that finds
        any: whole uri, title, alias, file name, then a uri ending in ``/folded``."""
        for table in (self.by_uri, self.by_title, self.by_alias, self.by_basename):
            hits = table.get(folded)
            if hits:
                return sorted(set(hits))
        # A uri ending in "/a/b" has file name "b": look only among those.
        last = folded.rsplit("/", 1)[-1]
        suffix = "/" + folded
        return sorted(u for u in self.by_basename.get(last, ()) if u.casefold().endswith(suffix))

    def close(self, query: str, n: int = 5, cutoff: float = 0.5) -> list[str]:
        """Up to ``n`` uris whose title or uri is closest to ``query``."""
        folded = query.casefold()
        out: list[str] = []
        for key in difflib.get_close_matches(
            folded, self.shortlist(folded), n=n * 2, cutoff=cutoff
        ):
            if self.names[key] not in out:
                out.append(self.names[key])
        return out[:n]
