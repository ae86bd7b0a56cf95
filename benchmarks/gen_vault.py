"""Generate a realistic synthetic Obsidian vault for indexing benchmarks.

Usage::

    python benchmarks/gen_vault.py OUT_DIR --notes 10000 [--seed 0] [--force]

The vault is a pure function of ``--notes`` and ``--seed``: the same arguments give the same
file tree, the same bytes and the same modification times on every run and machine.

What it contains, roughly in the proportions of real personal vaults:

* a folder tree up to four levels deep with skewed branching (a few folders hold hundreds or
  thousands of notes, most hold a handful), plus ``Journal/<year>/`` daily notes;
* folder notes on ~30% of folders, in all three conventions (``F/F.md``, ``F/index.md``,
  ``F.md`` beside ``F/``);
* titles built from a built-in word list, unique per folder, ~1% deliberately duplicated in
  another folder, ~0.5% non-ASCII;
* YAML front matter on ~60% of notes (``created``, ``tags``, ``aliases``, ``up``, ``related``,
  ``order`` and a few plain properties);
* bodies with a log-normal length (median ~1.5 KB, tail to 60 KB), ``##``/``###`` headings,
  inline and nested tags, lists, tasks, callouts, a few fenced code blocks whose ``[[...]]``
  must not be read as links, and a few hub (MOC) notes listing hundreds of links;
* ~10 outbound links per note whose targets follow a Zipf law (a few notes collect thousands
  of backlinks): ``[[note]]``, ``[[note|alias]]``, ``[[note#heading]]``, ``![[note]]``,
  ``[text](Folder/Note%20Name.md)``, links by path for duplicated names, and broken links.

``--force`` allows generating into a non-empty directory: files with the same names are
overwritten, nothing is deleted. Nothing is ever written outside OUT_DIR.
"""

from __future__ import annotations

import argparse
import datetime as dt
import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

_WORDS_TEXT = """
ability access account action activity address advice age agent air amount analysis
animal answer apple area argument army art article aspect attention audience author
balance bank base basis battle beach bed benefit bird birth blood board boat body book
border bottle box brain branch bread bridge brother budget building business camera
campaign capital card care career case cell chain chair chance change chapter character
chart chicken child choice church circle city class climate clock cloud coast code
coffee collection college colour column comment community company computer concept
condition conference contract control cost country course court cover craft culture
cup customer cycle data date deal debate decision degree design desk detail device
diet difference dinner direction discovery disease distance doctor document dog door
draft dream drive economy edge editor education effect effort energy engine entry
environment error event evidence exam example exercise experience expert factor farm
feature feedback field figure film fire fish flight floor flower focus food forest form
fortune frame friend fruit function future game garden gate glass goal government grade
grass ground group growth guest guide habit hair hall handle harbor health heart heat
history hobby holiday home horse hospital hotel house idea image impact income index
industry insight interest internet interview island issue item journal journey judge
key kitchen knowledge lake land language law layer leader lesson letter level library
light limit line list literature location machine magazine map market material meal
measure media meeting memory message metal method middle mind minute mirror model
moment money month morning mountain movie museum music nature network news night noise
number object ocean office oil opinion option orange order oven owner page painting
paper parent park party passage path pattern payment people period person phone photo
piano picture piece place plan plant player poem poetry point policy pool population
power practice presence press price problem process product profile program project
property proposal protocol quality question radio range rate reader reality reason
recipe record region relation report research resource response result review river
road rock role room route rule safety salt sample scale scene school science screen
sea season secret sector security seed sense series service session shape share shelf
ship shop signal silver simple sister site skill sky society software soil solution
song sound source space speech spirit sport spring square staff stage standard star
state station step stone store story strategy stream street structure student study
style subject success sugar summer sun support surface system table task tea teacher
team technology temple tension term test text theory thought ticket time tool topic
tower town track trade tradition traffic train transport travel tree trip truth union
unit university user valley value version video view village vision voice volume
walk wall water wave weather week weight wind window winter wood word work world writer
year youth zone
"""
WORDS: tuple[str, ...] = tuple(_WORDS_TEXT.split())

_NON_ASCII_TEXT = """
café straße naïve zürich façade ångström köln résumé jalapeño brûlée smörgåsbord piñata
dvořák øresund łódź mañana þórr москва 東京 数据 ελλάδα cañón señora göteborg 🌱 📚
"""
NON_ASCII_WORDS: tuple[str, ...] = tuple(_NON_ASCII_TEXT.split())

_FOLDER_TEXT = """
Projects Areas Resources Archive Inbox Notes Meetings People Books Ideas Research Reference
Drafts Work Personal Reading Recipes Travel Health Finance Learning Writing Code Design Clients
Courses Papers Talks Templates Assets Old Misc Someday Review Sources Concepts Topics Snippets
Outlines Home
"""
FOLDER_WORDS: tuple[str, ...] = tuple(_FOLDER_TEXT.split())

SMALL_WORDS = ("and", "of", "for", "on", "in", "with", "to", "vs")
CALLOUTS = ("note", "tip", "info", "warning", "example", "quote", "todo", "abstract")
CODE_LANGS = ("python", "bash", "js", "sql", "text", "yaml", "")
STATUSES = ("draft", "active", "done", "someday", "evergreen")
NOTE_TYPES = ("idea", "reference", "project", "person", "book", "meeting", "concept")

EPOCH = dt.date(2020, 1, 1)
SPAN_DAYS = (dt.date(2025, 1, 1) - EPOCH).days  # five calendar years
MAX_DEPTH = 4
MAX_BODY = 60_000
CONVENTIONS = ("inside", "index", "beside")  # F/F.md, F/index.md, F.md next to F/


@dataclass(slots=True)
class Folder:
    path: str  # vault-relative, "" for the vault root
    name: str
    depth: int
    parent: int
    children: list[int] = field(default_factory=list)
    taken: set[str] = field(default_factory=set)  # casefolded names of files and subfolders
    members: list[int] = field(default_factory=list)  # notes that belong to this folder
    folder_note: int = -1
    convention: str = ""
    journal: bool = False


@dataclass(slots=True)
class Note:
    title: str
    folder: int  # the folder the note belongs to (for a beside-folder note: that folder)
    path: str = ""
    kind: str = "note"  # note | folder | hub | daily
    size: int = 0
    created: int = 0  # days since EPOCH
    headings: list[str] = field(default_factory=list)
    aliases: list[str] = field(default_factory=list)
    ref: str = ""  # what goes inside [[...]] to reach this note
    dup: bool = False
    front_matter: bool = False
    order: int | None = None


@dataclass(slots=True)
class Stats:
    notes: int
    folders: int
    folder_notes: dict[str, int]
    links: int
    bytes: int
    seconds: float

    def summary(self, out_dir: str) -> str:
        conv = ", ".join(f"{k} {v}" for k, v in sorted(self.folder_notes.items()))
        return (
            f"{self.notes} notes, {self.folders} folders (folder notes: {conv}), "
            f"{self.links} links ({self.links / max(1, self.notes):.1f}/note), "
            f"{self.bytes} bytes ({self.bytes / 1e6:.1f} MB), {self.seconds:.1f} s -> {out_dir}"
        )


def _cap(word: str) -> str:
    return word[:1].upper() + word[1:]


def _zipf_cum(rng: random.Random, n: int, s: float) -> list[float]:
    """Cumulative Zipf weights over a random permutation of ``range(n)``."""
    ranks = list(range(1, n + 1))
    rng.shuffle(ranks)
    cum, total = [], 0.0
    for r in ranks:
        total += r**-s
        cum.append(total)
    return cum


class _Planner:
    """Decides everything except body text: tree, titles, sizes, headings, link popularity."""

    def __init__(self, rng: random.Random, n_notes: int) -> None:
        self.rng = rng
        self.n_notes = n_notes
        self.folders: list[Folder] = [Folder(path="", name="", depth=0, parent=-1)]
        self.notes: list[Note] = []
        self.titles: set[str] = set()  # casefolded, across the whole vault

    # -- folders ----------------------------------------------------------------------------
    def _add_folder(self, parent: int, name: str) -> int:
        p = self.folders[parent]
        path = f"{p.path}/{name}" if p.path else name
        idx = len(self.folders)
        f = Folder(path=path, name=name, depth=p.depth + 1, parent=parent)
        # A sibling note with the folder's name, or a note named like the folder (or index)
        # inside it, would silently become a folder note.
        f.taken.update((name.casefold(), "index"))
        p.taken.add(name.casefold())
        p.children.append(idx)
        self.folders.append(f)
        return idx

    def _folder_name(self, parent: int) -> str:
        rng, taken = self.rng, self.folders[parent].taken
        for attempt in range(200):
            r = rng.random()
            if r < 0.4:
                name = rng.choice(FOLDER_WORDS)
            elif r < 0.92 or attempt > 50:
                name = " ".join(_cap(w) for w in rng.sample(WORDS, rng.choice((1, 1, 2))))
            else:
                name = str(rng.randint(2015, 2024))
            if parent == 0 and rng.random() < 0.15:
                name = f"{rng.randint(0, 9)}{rng.randint(0, 9)} {name}"
            if name.casefold() not in taken:
                return name
        raise RuntimeError("could not find a free folder name")

    def plan_folders(self) -> None:
        rng = self.rng
        n_random = max(1, round(self.n_notes / 25))
        n_top = min(n_random, 5 + int(math.log2(n_random + 1)))
        # Preferential attachment: a folder's chance to get a child grows with its children,
        # shallower folders get more tickets so the tree is not all at depth 4.
        base_tickets = {1: 4, 2: 2, 3: 1}
        tickets: list[int] = []
        for i in range(n_random):
            parent = 0 if i < n_top else rng.choice(tickets)
            idx = self._add_folder(parent, self._folder_name(parent))
            depth = self.folders[idx].depth
            if depth < MAX_DEPTH:
                tickets.extend([idx] * base_tickets[depth])
            if parent:
                tickets.extend([parent] * base_tickets[self.folders[parent].depth])

    # -- titles -----------------------------------------------------------------------------
    def _candidate_title(self, n_words: int, kind: str) -> str:
        rng = self.rng
        words = rng.sample(WORDS, n_words)
        if rng.random() < 0.005:
            words[rng.randrange(n_words)] = rng.choice(NON_ASCII_WORDS)
        style = rng.random()
        if style < 0.7:
            words = [_cap(w) for w in words]
        elif style < 0.93:
            words[0] = _cap(words[0])
        if kind == "hub":
            return rng.choice(("{} MOC", "Map of {}", "{} Index", "{} Hub")).format(" ".join(words))
        r = rng.random()
        if n_words >= 2 and r < 0.08:
            i = rng.randrange(1, n_words)
            if r < 0.03:
                words[i - 1] += "'s"
            elif r < 0.05:
                words.insert(i, "&")
            elif r < 0.06:
                words[i] = "(" + words[i]
                words[-1] += ")"
            else:
                words.insert(i, rng.choice(("-", *SMALL_WORDS)))
        elif r < 0.1:
            words.append(str(rng.randint(1, 12)))
        return " ".join(words)

    def _title(self, folder: Folder, kind: str) -> str:
        rng = self.rng
        n_words = rng.choices((1, 2, 3, 4), weights=(8, 42, 35, 15))[0]
        for attempt in range(100):
            title = self._candidate_title(min(4, n_words + attempt // 10), kind)
            key = title.casefold()
            if key not in self.titles and key not in folder.taken:
                return title
        raise RuntimeError("could not find a free title")

    def _add_note(self, note: Note, physical: Folder) -> int:
        key = note.title.casefold()
        physical.taken.add(key)
        self.titles.add(key)
        note.path = f"{physical.path}/{note.title}.md" if physical.path else f"{note.title}.md"
        self.notes.append(note)
        self.folders[note.folder].members.append(len(self.notes) - 1)
        return len(self.notes) - 1

    # -- notes ------------------------------------------------------------------------------
    def plan_notes(self) -> None:
        rng, n = self.rng, self.n_notes
        n_random = len(self.folders) - 1

        n_daily = min(SPAN_DAYS, round(n * 0.04))
        days = sorted(rng.sample(range(SPAN_DAYS), n_daily))
        if days:
            journal = self._add_folder(0, self._free_top_name("Journal", "Daily"))
            self.folders[journal].journal = True
            by_year: dict[int, int] = {}
            for day in days:
                year = (EPOCH + dt.timedelta(days=day)).year
                if year not in by_year:
                    by_year[year] = self._add_folder(journal, str(year))
                    self.folders[by_year[year]].journal = True

        # Folder notes go first so their names are reserved before regular titles are drawn.
        candidates = list(range(1, len(self.folders)))
        n_fn = min(round(0.3 * len(candidates)), n // 4)
        chosen = sorted(rng.sample(candidates, n_fn))
        conventions = [CONVENTIONS[i % 3] for i in range(n_fn)]
        rng.shuffle(conventions)
        for fi, conv in zip(chosen, conventions, strict=True):
            f = self.folders[fi]
            title = "index" if conv == "index" else f.name
            physical = self.folders[f.parent] if conv == "beside" else f
            note = Note(title=title, folder=fi, kind="folder")
            idx = self._add_note(note, physical)
            f.folder_note, f.convention = idx, conv

        if days:
            for day in days:
                date = EPOCH + dt.timedelta(days=day)
                f = self.folders[by_year[date.year]]
                note = Note(title=date.isoformat(), folder=by_year[date.year], kind="daily")
                note.created = day
                self._add_note(note, f)

        # Regular notes: at least one per leaf folder, the rest by heavy-tailed folder weights.
        rest = n - len(self.notes)
        regular = [0, *range(1, n_random + 1)]
        counts = dict.fromkeys(regular, 0)
        for fi in regular[1:]:
            if rest > 0 and not self.folders[fi].children:
                counts[fi] += 1
                rest -= 1
        # Capped so that no single folder swallows a third of the vault.
        weights = [min(300.0, rng.paretovariate(0.9)) for _ in regular]
        for fi in rng.choices(regular, weights=weights, k=max(0, rest)):
            counts[fi] += 1
        n_regular = sum(counts.values())
        n_hubs = max(1, n // 2500) if n_regular >= 20 else 0
        hub_slots = set(rng.sample(range(n_regular), n_hubs))
        slot = 0
        for fi in regular:
            f = self.folders[fi]
            for _ in range(counts[fi]):
                kind = "hub" if slot in hub_slots else "note"
                slot += 1
                if kind == "note" and rng.random() < 0.01 and len(self.notes) > 50:
                    title = self._duplicate_title(f)
                    if title:
                        self._add_note(Note(title=title, folder=fi), f)
                        continue
                self._add_note(Note(title=self._title(f, kind), folder=fi, kind=kind), f)

        self._finish_notes()

    def _free_top_name(self, *names: str) -> str:
        taken = self.folders[0].taken
        for name in names:
            if name.casefold() not in taken:
                return name
        return self._folder_name(0)

    def _duplicate_title(self, folder: Folder) -> str | None:
        for _ in range(10):
            other = self.notes[self.rng.randrange(len(self.notes))]
            if other.kind == "note" and other.title.casefold() not in folder.taken:
                return other.title
        return None

    def _heading(self, seen: set[str]) -> str:
        rng = self.rng
        for _ in range(20):
            words = rng.sample(WORDS, rng.choice((1, 2, 2, 3, 4)))
            text = " ".join(_cap(w) for w in words) if rng.random() < 0.5 else " ".join(words)
            text = _cap(text)
            if text.casefold() not in seen:
                seen.add(text.casefold())
                return text
        return f"Part {len(seen) + 1}"

    def _finish_notes(self) -> None:
        rng = self.rng
        name_counts = Counter(nt.title.casefold() for nt in self.notes)
        sizes = {"note": (1500, 1.0), "hub": (1200, 0.5), "folder": (700, 0.8), "daily": (500, 0.8)}
        for nt in self.notes:
            median, sigma = sizes[nt.kind]
            nt.size = min(MAX_BODY, max(60, int(rng.lognormvariate(math.log(median), sigma))))
            if nt.kind != "daily":
                nt.created = rng.randrange(SPAN_DAYS)
            nt.dup = name_counts[nt.title.casefold()] > 1
            # Obsidian writes the full path when the bare name is ambiguous.
            nt.ref = nt.path[:-3] if nt.dup else nt.title
            nt.front_matter = rng.random() < 0.6
            if nt.kind in ("note", "hub"):
                seen: set[str] = set()
                n_head = min(40, int(nt.size / rng.uniform(500, 1500)))
                nt.headings = [self._heading(seen) for _ in range(n_head)]
            if nt.front_matter and rng.random() < 0.2:
                nt.aliases = self._aliases(nt.title)
        # Hand-ordered siblings (``order:``) in ~20% of the small and mid-sized folders.
        orderable = []
        for f in self.folders:
            members = [i for i in f.members if self.notes[i].kind == "note"]
            if not f.journal and 2 <= len(members) <= 60:
                orderable.append(members)
        for members in rng.sample(orderable, math.ceil(0.2 * len(orderable))):
            step = rng.choice((1, 1, 10))
            for pos, i in enumerate(members, 1):
                self.notes[i].order = pos * step
                self.notes[i].front_matter = True

    def _aliases(self, title: str) -> list[str]:
        rng = self.rng
        words = title.split()
        out = []
        if len(words) >= 2 and rng.random() < 0.5:
            out.append("".join(w[0] for w in words if w[0].isalnum()).upper())
        if rng.random() < 0.5 or not out:
            out.append(" ".join(rng.sample(WORDS, rng.choice((1, 2)))))
        if rng.random() < 0.2:
            out.append(title.lower())
        return [a for a in dict.fromkeys(out) if a and a != title]


class _Renderer:
    """Turns planned notes into Markdown text; counts the links it writes."""

    def __init__(self, rng: random.Random, planner: _Planner) -> None:
        self.rng = rng
        self.notes = planner.notes
        self.folders = planner.folders
        self.links = 0
        self.hubs = [i for i, nt in enumerate(self.notes) if nt.kind == "hub"]
        self.cum = _zipf_cum(rng, len(self.notes), 0.9)
        n_tags = 80
        tags = []
        for i, w in enumerate(rng.sample(WORDS, n_tags)):
            if i % 3 == 1:
                w = f"{w}/{rng.choice(WORDS)}"
            elif i % 11 == 2:
                w = f"{w}/{rng.choice(WORDS)}/{rng.choice(WORDS)}"
            tags.append(w)
        self.tags = tags
        self.tag_cum = _zipf_cum(rng, n_tags, 1.1)
        ghosts, lowered = [], planner.titles
        while len(ghosts) < max(5, len(self.notes) // 40):
            g = " ".join(_cap(w) for w in rng.sample(WORDS, rng.choice((2, 3))))
            if g.casefold() not in lowered:
                ghosts.append(g)
        self.ghosts = ghosts
        self.ghost_cum = _zipf_cum(rng, len(ghosts), 1.0)

    # -- links ------------------------------------------------------------------------------
    def _targets(self, src: int, k: int) -> list[int]:
        rng, members = self.rng, self.folders[self.notes[src].folder].members
        out = []
        for t in rng.choices(range(len(self.notes)), cum_weights=self.cum, k=k):
            if len(members) > 2 and rng.random() < 0.25:
                t = members[rng.randrange(len(members))]
            if t == src:
                t = (t + 1) % len(self.notes)
            out.append(t)
        return out

    def _ref(self, t: Note) -> str:
        r = self.rng.random()
        if t.dup and r < 0.1:
            return t.title  # an ambiguous bare name, as people type them
        if not t.dup and r < 0.005:
            return t.title.lower()
        return t.ref

    def _display(self, t: Note) -> str:
        rng = self.rng
        if t.aliases and rng.random() < 0.6:
            return rng.choice(t.aliases)
        if rng.random() < 0.5:
            return t.title.lower()
        return " ".join(rng.choices(WORDS, k=rng.randint(1, 3)))

    def link(self, target: int) -> tuple[str, bool]:
        """Markup for one link to ``target``; the flag says it belongs on its own line."""
        rng, t = self.rng, self.notes[target]
        self.links += 1
        r = rng.random()
        if r < 0.01:
            g = self.ghosts[rng.choices(range(len(self.ghosts)), cum_weights=self.ghost_cum)[0]]
            return f"[[{g}]]", False
        if r < 0.03:
            return f"[{self._display(t)}]({quote(t.path)})", False
        if r < 0.06:
            if t.headings and rng.random() < 0.2:
                return f"![[{self._ref(t)}#{rng.choice(t.headings)}]]", True
            return f"![[{self._ref(t)}]]", True
        if r < 0.16:
            return f"[[{self._ref(t)}|{self._display(t)}]]", False
        if r < 0.22 and t.headings:
            h = rng.choice(t.headings)
            if rng.random() < 0.2:
                return f"[[{self._ref(t)}#{h}|{h.lower()}]]", False
            return f"[[{self._ref(t)}#{h}]]", False
        return f"[[{self._ref(t)}]]", False

    def _tag(self) -> str:
        return self.tags[self.rng.choices(range(len(self.tags)), cum_weights=self.tag_cum)[0]]

    # -- text -------------------------------------------------------------------------------
    def _sentence(self, tokens: list[str] | None) -> str:
        rng = self.rng
        words = rng.choices(WORDS, k=rng.randint(4, 16))
        words[0] = _cap(words[0])
        if tokens:
            for tok in tokens:
                words.insert(rng.randint(1, len(words)), tok)
        r = rng.random()
        if r < 0.2:
            words[rng.randrange(len(words) - 1)] += ","
        return " ".join(words) + ("." if r < 0.9 else "?" if r < 0.96 else "!")

    def _code_block(self) -> str:
        rng = self.rng
        lang = rng.choice(CODE_LANGS)
        real = self.notes[rng.randrange(len(self.notes))].title
        lines = [
            f"# see [[not a link]] and #not-a-tag in {rng.choice(WORDS)}",
            f'{rng.choice(WORDS)} = "[[{real}]]"',
            f"{rng.choice(WORDS)}({rng.choice(WORDS)}, {rng.randint(0, 99)})",
        ]
        rng.shuffle(lines)
        return f"```{lang}\n" + "\n".join(lines) + "\n```"

    def body(self, idx: int, n_links: int) -> list[str]:
        rng, nt = self.rng, self.notes[idx]
        est = max(1, nt.size // 85)  # sentences the body will have, roughly
        slots: dict[int, list[str]] = {}
        embeds: list[tuple[int, str]] = []
        for t in self._targets(idx, n_links):
            text, alone = self.link(t)
            k = rng.randrange(est)
            if alone:
                embeds.append((k, text))
            else:
                slots.setdefault(k, []).append(text)
        if rng.random() < 0.3:
            for _ in range(rng.randint(1, 4)):
                slots.setdefault(rng.randrange(est), []).append("#" + self._tag())
        embeds.sort()
        code_at = rng.randrange(est) if rng.random() < 0.03 else -1

        out: list[str] = []
        if rng.random() < 0.2:
            out.append(f"# {nt.title}")
        if rng.random() < 0.05:
            out.append("Tags: " + " ".join("#" + self._tag() for _ in range(rng.randint(1, 3))))
        sections = len(nt.headings) + 1
        written, k, level = 0, 0, 2
        for s in range(sections):
            if s:
                level = 3 if level == 2 and rng.random() < 0.3 else 2
                out.append(f"{'#' * level} {nt.headings[s - 1]}")
            budget = nt.size * (s + 1) // sections
            first = True
            while first or written < budget:
                first = False
                r = rng.random()
                n_sent = rng.randint(1, 6)
                sents = [self._sentence(slots.pop(k + i, None)) for i in range(n_sent)]
                k += n_sent
                if r < 0.1:
                    block = "\n".join(f"- {x}" for x in sents)
                elif r < 0.13:
                    block = "\n".join(f"- [{rng.choice(' x')}] {x}" for x in sents)
                elif r < 0.15:
                    block = f"> [!{rng.choice(CALLOUTS)}]\n" + "\n".join(f"> {x}" for x in sents)
                else:
                    block = " ".join(sents)
                out.append(block)
                written += len(block)
                while embeds and embeds[0][0] < k:
                    out.append(embeds.pop(0)[1])
                if 0 <= code_at < k:
                    out.append(self._code_block())
                    code_at = -1
        leftovers = [tok for i in sorted(slots) for tok in slots[i]]
        leftovers += [text for _, text in embeds]
        if leftovers:
            out.append(rng.choice(("## See also", "## Related", "Related:")))
            out.append("\n".join(f"- {tok}" for tok in leftovers))
        if rng.random() < 0.01:
            out.append(f"Inline code is not a link: `[[{rng.choice(WORDS)}]]`.")
        return out

    def hub_body(self, idx: int) -> list[str]:
        rng, n = self.rng, len(self.notes)
        k = min(n - 1, rng.randint(150, 800))
        picked = dict.fromkeys(self._targets(idx, k))
        for t in rng.sample(range(n), k):
            if len(picked) >= k:
                break
            if t != idx:
                picked[t] = None
        out = [self._sentence(None) + " " + self._sentence(None)]
        per_group = rng.randint(15, 60)
        items: list[str] = []
        for i, t in enumerate(picked):
            if i % per_group == 0:
                if items:
                    out.append("\n".join(items))
                    items = []
                out.append(f"## {_cap(rng.choice(WORDS))} {rng.choice(WORDS)}")
            items.append(f"- {self.link(t)[0]}")
        out.append("\n".join(items))
        return out

    def folder_body(self, idx: int) -> list[str]:
        rng, nt = self.rng, self.notes[idx]
        f = self.folders[nt.folder]
        out = self.body(idx, int(rng.expovariate(1 / 3)))
        if rng.random() < 0.3:
            out.append(f'```dataview\nLIST FROM "{f.path}"\nSORT file.name ASC\n```')
            return out
        items = [f"- [[{self.notes[m].ref}]]" for m in f.members[:400] if m != idx]
        for c in f.children:
            sub = self.folders[c]
            if sub.folder_note >= 0:
                ref = self.notes[sub.folder_note].ref
                items.append(f"- [[{ref}|{sub.name}]]" if ref != sub.name else f"- [[{ref}]]")
        if items:
            self.links += len(items)
            out += ["## Contents", "\n".join(items)]
        return out

    def daily_body(self, idx: int) -> list[str]:
        rng, nt = self.rng, self.notes[idx]
        out = []
        prev = self.notes[idx - 1]
        if idx and prev.kind == "daily":
            out.append(f"<< [[{prev.ref}]] | {nt.title} >>")
            self.links += 1
        log = [
            f"- {self._sentence(None)} {self.link(t)[0]}"
            for t in self._targets(idx, rng.randint(1, 6))
        ]
        out += ["## Log", "\n".join(log)]
        if rng.random() < 0.6:
            tasks = [f"- [{rng.choice(' x')}] {self._sentence(None)}" for _ in range(3)]
            out += ["## Tasks", "\n".join(tasks)]
        return out

    # -- front matter -----------------------------------------------------------------------
    def _yaml_list(self, key: str, items: Sequence[str], quoted: bool = False) -> list[str]:
        rng = self.rng
        vals = [f'"{x}"' if quoted else x for x in items]
        r = rng.random()
        if len(vals) == 1 and r < 0.4:
            return [f"{key}: {vals[0]}"]
        if r < 0.55:
            return [f"{key}: [{', '.join(vals)}]"]
        return [f"{key}:", *(f"  - {v}" for v in vals)]

    def _up_target(self, nt: Note, idx: int) -> int:
        f = self.folders[nt.folder]
        if nt.kind == "folder":
            f = self.folders[f.parent] if f.parent >= 0 else f
        while True:
            if f.folder_note >= 0 and f.folder_note != idx:
                return f.folder_note
            if f.parent < 0:
                break
            f = self.folders[f.parent]
        hubs = [h for h in self.hubs if h != idx]
        return self.rng.choice(hubs) if hubs else -1

    def front_matter(self, idx: int) -> list[str]:
        rng, nt = self.rng, self.notes[idx]
        lines = ["---"]
        if rng.random() < 0.9:
            d = EPOCH + dt.timedelta(days=nt.created)
            r = rng.random()
            if r < 0.7:
                lines.append(f"created: {d.isoformat()}")
            else:
                sep = "T" if r < 0.9 else " "
                lines.append(
                    f"created: {d.isoformat()}{sep}{rng.randint(6, 23):02d}:"
                    f"{rng.randint(0, 59):02d}"
                )
        if rng.random() < 0.75:
            tags = list(dict.fromkeys(self._tag() for _ in range(rng.randint(1, 4))))
            if rng.random() < 0.1:
                lines.append(f"tags: {', '.join(tags)}")
            else:
                lines.extend(self._yaml_list("tags", tags))
        if nt.aliases:
            lines.extend(self._yaml_list("aliases", nt.aliases, quoted=True))
        if rng.random() < (0.4 if nt.kind == "folder" else 0.08):
            up = self._up_target(nt, idx)
            if up >= 0:
                lines.append(f'up: "[[{self.notes[up].ref}]]"')
                self.links += 1
        if rng.random() < 0.12:
            rel = [f"[[{self.notes[t].ref}]]" for t in self._targets(idx, rng.choice((1, 1, 2, 3)))]
            self.links += len(rel)
            lines.extend(self._yaml_list(rng.choice(("related", "source", "project")), rel, True))
        if nt.order is not None:
            lines.append(f"order: {nt.order}")
        if rng.random() < 0.3:
            lines.append(f"status: {rng.choice(STATUSES)}")
        if rng.random() < 0.15:
            lines.append(f"type: {rng.choice(NOTE_TYPES)}")
        if rng.random() < 0.05:
            lines.append(f"rating: {rng.randint(1, 5)}")
        if rng.random() < 0.05:
            lines.append(f"url: https://example.com/{rng.choice(WORDS)}/{rng.randint(1, 9999)}")
        lines.append("---")
        return lines

    def render(self, idx: int) -> str:
        rng, nt = self.rng, self.notes[idx]
        parts = self.front_matter(idx) if nt.front_matter else []
        if nt.kind == "hub":
            parts += self.hub_body(idx)
        elif nt.kind == "folder":
            parts += self.folder_body(idx)
        elif nt.kind == "daily":
            parts += self.daily_body(idx)
        else:
            n_links = 0 if rng.random() < 0.05 else int(nt.size * 0.0025 + rng.expovariate(1 / 4.5))
            parts += self.body(idx, n_links)
        return _join(parts, nt.front_matter)


def _join(parts: list[str], front_matter: bool) -> str:
    if not front_matter:
        return "\n\n".join(parts) + "\n"
    end = parts.index("---", 1) + 1
    return "\n".join(parts[:end]) + "\n" + "\n\n".join(parts[end:]) + "\n"


def _check_component(name: str) -> None:
    if not name or name in (".", "..") or "/" in name or "\\" in name or "\0" in name:
        raise ValueError(f"unsafe path component: {name!r}")


def _prepare_out_dir(out_dir: str, force: bool) -> str:
    if os.path.lexists(out_dir) and not os.path.isdir(out_dir):
        raise NotADirectoryError(f"{out_dir} exists and is not a directory")
    if os.path.isdir(out_dir):
        with os.scandir(out_dir) as it:
            if any(True for _ in it) and not force:
                raise FileExistsError(f"{out_dir} is not empty (use --force to write into it)")
    os.makedirs(out_dir, exist_ok=True)
    return os.path.realpath(out_dir)


def generate_vault(out_dir: str, notes: int, seed: int = 0, force: bool = False) -> Stats:
    """Write a synthetic vault of exactly ``notes`` Markdown files into ``out_dir``."""
    if notes < 1:
        raise ValueError("notes must be >= 1")
    start = time.perf_counter()
    root = _prepare_out_dir(out_dir, force)
    rng = random.Random(seed)
    planner = _Planner(rng, notes)
    planner.plan_folders()
    planner.plan_notes()
    renderer = _Renderer(rng, planner)

    for f in planner.folders[1:]:
        for part in f.path.split("/"):
            _check_component(part)
        path = os.path.join(root, f.path)
        os.makedirs(path, exist_ok=True)
        # A pre-existing symlink (possible with --force) must not lead us out of the vault.
        if os.path.commonpath([root, os.path.realpath(path)]) != root:
            raise RuntimeError(f"{path} resolves outside {root}")

    epoch_ts = dt.datetime.combine(EPOCH, dt.time(), tzinfo=dt.UTC).timestamp()
    end_ts = epoch_ts + SPAN_DAYS * 86400
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    total_bytes = 0
    for idx, nt in enumerate(planner.notes):
        _check_component(nt.path.rsplit("/", 1)[-1])
        data = renderer.render(idx).encode("utf-8")
        total_bytes += len(data)
        path = os.path.join(root, nt.path)
        fd = os.open(path, flags, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        created = epoch_ts + nt.created * 86400 + rng.randrange(86400)
        mtime = min(end_ts - 1, created + rng.expovariate(1 / (86400 * 60)))
        os.utime(path, (mtime, mtime), follow_symlinks=False)

    return Stats(
        notes=len(planner.notes),
        folders=len(planner.folders) - 1,
        folder_notes=dict(Counter(f.convention for f in planner.folders if f.convention)),
        links=renderer.links,
        bytes=total_bytes,
        seconds=time.perf_counter() - start,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point; returns the process exit code."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out_dir", metavar="OUT_DIR")
    ap.add_argument("--notes", type=int, default=10_000, help="number of notes (default 10000)")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--force", action="store_true", help="write into a non-empty OUT_DIR")
    args = ap.parse_args(argv)
    try:
        stats = generate_vault(args.out_dir, args.notes, seed=args.seed, force=args.force)
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"gen_vault: {exc}", file=sys.stderr)
        return 2
    print(stats.summary(args.out_dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
