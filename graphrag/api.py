"""``VaultRAG``: the public facade. The CLI and the server only call this."""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from graphrag.config import Settings, load_settings
from graphrag.errors import AmbiguousNoteError, InvalidRequestError, NoteNotFoundError, VaultError
from graphrag.search.modes import SEARCH_MODES
from graphrag.snapshot.graph import VaultGraph
from graphrag.snapshot.snapshot import Snapshot
from indexer.store import MANIFEST, default_index_dir, read_manifest

# Everything else is imported where it is used: each command loads only what it
# needs (focus: no FAISS, numpy, model or llm; docs/architecture.md, start-up).
if TYPE_CHECKING:
    import numpy as np

    from graphrag.answer.ask import Answer, Prepared
    from graphrag.answer.history import Turn
    from graphrag.query.request import QueryRequest
    from graphrag.results.focus import GraphRAGResult
    from graphrag.results.lookup import Neighbour, NoteRecord
    from graphrag.results.query import QueryResult
    from graphrag.results.search import GraphSearchResult, SearchResult
    from graphrag.search.searches import Scope
    from graphrag.snapshot.corpus import Corpus
    from graphrag.snapshot.filters import Filters
    from graphrag.snapshot.names import NameIndex
    from indexer.build import IndexStats
    from indexer.config import EmbeddingSettings
    from indexer.doctor import DoctorReport
    from indexer.embed import Embedder
    from indexer.load import IndexSnapshot
    from indexer.tokens import Tokenizer


def vault_relative(path: str, vault: Path) -> str | None:
    """``path`` (absolute, or from the working folder) as a path inside ``vault`` once
    symlinks are resolved, "/"-separated; None outside it or for a path that cannot be
    one (NUL). With ``os.path``, not ``Path.resolve``: pathlib interns every part of a
    path it parses, and a server resolving each ``/focus`` name that way filled CPython's
    interned-string table with names used once (benchmarks/RESULTS.md, "Server memory
    over an hour, session 7")."""
    try:
        real = os.path.realpath(path)
    except (ValueError, OSError):  # NUL; realpath itself does not raise on a loop
        return None
    root = os.fspath(vault)
    if real == root:
        return "."
    prefix = root if root.endswith(os.sep) else root + os.sep
    if not real.startswith(prefix):
        return None
    return real[len(prefix) :].replace(os.sep, "/")


class VaultRAG:
    """Retrieval over one vault's index.

    Open with ``VaultRAG.open(path)``: ``path`` is a vault (the index lives in
    ``VAULT/.graphrag`` unless ``index_dir`` says otherwise) or an index folder.
    """

    def __init__(
        self,
        vault: Path | None,
        index_dir: Path,
        settings: Settings,
        embedder: Embedder | None = None,
        tokenizer: Tokenizer | None = None,
    ) -> None:
        self.vault = vault
        self.index_dir = index_dir
        self.settings = settings
        self._embedder = embedder
        self._tokenizer = tokenizer
        self._snapshot: Snapshot | None = None
        self._swap = threading.Lock()
        self._query_vectors: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()

    # -- opening and indexing -----------------------------------------------------------
    @classmethod
    def open(
        cls,
        path: str | os.PathLike[str],
        config: str | os.PathLike[str] | None = None,
        index_dir: str | os.PathLike[str] | None = None,
        settings: Settings | None = None,
        embedder: Embedder | None = None,
        update: bool = True,
        progress: Callable[[str, int, int], None] | None = None,
    ) -> VaultRAG:
        """Open a vault or an index folder.

        Args:
            path: vault folder, or an index folder (one holding manifest.json).
            config: a TOML settings file (ignored when ``settings`` is given).
            index_dir: where the index lives, for a vault path.
            settings: resolved settings.
            embedder: an Embedder to use instead of the configured model.
            update: index the vault first if the index is missing or stale.
            progress: told ``(phase, done, total)`` while that indexing runs.
        """
        settings = settings or load_settings(config)
        vault, where = locate(path, index_dir, settings)
        rag = cls(vault, where, settings, embedder)
        if update and rag.vault is not None:
            rag.refresh(progress)
        return rag

    @property
    def embedder(self) -> Embedder:
        if self._embedder is None:
            self._embedder = make_embedder(self.settings.embedding)
        return self._embedder

    @property
    def tokenizer(self) -> Tokenizer:
        """The token counter, loaded on first use (tiktoken's table costs ~0.2 s)."""
        if self._tokenizer is None:
            from indexer.tokens import get_tokenizer

            self._tokenizer = get_tokenizer(self.settings.index.tokenizer)
        return self._tokenizer

    def refresh(self, progress: Callable[[str, int, int], None] | None = None) -> IndexStats | None:
        """Index the vault if it changed since the index was made; None if it had not.

        The check (``indexer.fresh``) compares file sizes and mtimes with the index
        without importing the indexer's parser, networkx or FAISS, so a command on an
        unchanged vault starts fast.
        """
        from indexer.fresh import index_is_current

        if self.vault is not None and index_is_current(
            self.vault, self.index_dir, self.settings.index_config, self.embedder
        ):
            return None
        return self.index(progress=progress)

    def index(self, full: bool = False, progress: Any = None) -> IndexStats:
        """Bring the index up to date with the vault (incrementally unless ``full``)."""
        if self.vault is None:
            raise VaultError(str(self.index_dir), "this index does not know its vault")
        from indexer.build import build_index

        stats = build_index(
            self.vault,
            self.index_dir,
            self.settings.index_config,
            self.embedder,
            full=full,
            progress=progress,
        )
        if not stats.up_to_date or self._snapshot is None:
            self.reload()
        return stats

    def reload(self) -> Snapshot:
        """Load the current generation; readers of the old one keep it until they finish."""
        from indexer.load import load_index

        index = load_index(self.index_dir)
        graph = VaultGraph.from_rows(*index.graph_rows(), text_source=index.body)
        snapshot = Snapshot(index, graph)
        with self._swap:
            self._snapshot = snapshot
        return snapshot

    @property
    def snapshot(self) -> Snapshot:
        snap = self._snapshot
        return snap if snap is not None else self.reload()

    @property
    def loaded_snapshot(self) -> Snapshot | None:
        """The snapshot being served, or None before the first load (never loads one)."""
        return self._snapshot

    @property
    def graph(self) -> VaultGraph:
        return self.snapshot.graph

    # -- lookups ------------------------------------------------------------------------
    def resolve_note(self, name: str, graph: VaultGraph | None = None) -> str:
        """A uri, path, title or alias -> the note's uri (errors list close matches).

        ``graph`` is the snapshot's graph a caller already holds, so one request
        resolves and answers against the same generation.
        """
        snapshot = self.snapshot
        graph = graph if graph is not None else snapshot.graph
        query = name.strip().replace("\\", "/")
        if not query:
            raise InvalidRequestError("note", "empty note name")
        uri = self._resolve_exactly(name, query, snapshot, graph)
        if uri is not None:
            return uri
        # A link pasted from Obsidian ("[[Note#Heading|shown]]") names its note. Only
        # after every exact match failed, so a note whose name holds '#' or '|' still wins.
        from graphrag.snapshot.names import link_targets

        for target in link_targets(name):
            target = target.replace("\\", "/")
            if target == query:
                continue
            uri = self._resolve_exactly(name, target, snapshot, graph)
            if uri is not None:
                return uri
            query = target  # the suggestions are for the note's name
        raise NoteNotFoundError(name, self.suggest(query, graph=graph))

    def _resolve_exactly(
        self, name: str, query: str, snapshot: Snapshot, graph: VaultGraph
    ) -> str | None:
        """``resolve_note``'s matches for ``query`` as written: the note's uri, None
        when nothing matches, AmbiguousNoteError when several names do."""
        candidates = [query, query.removesuffix(".md")]
        if self.vault is not None:
            # A file path to a note in the vault. Only "~/" means the home folder: "~Inbox"
            # is a note's name (Path.expanduser would look for a user called Inbox and raise).
            path = os.path.expanduser(query) if query == "~" or query.startswith("~/") else query
            rel = vault_relative(path, self.vault)
            if rel is not None:
                candidates.append(rel.removesuffix(".md"))
        for c in candidates:
            if c in graph.nodes and graph.nodes[c].kind == "note":
                return c
        hits = _name_index(snapshot, graph).matches(query.removesuffix(".md").casefold())
        if len(hits) == 1:
            return hits[0]
        if hits:
            raise AmbiguousNoteError(name, hits)
        return self._folder_note(candidates, graph)

    def _folder_note(self, names: list[str], graph: VaultGraph) -> str | None:
        """The folder note standing for the first of ``names`` that is a folder with one
        (``Places`` -> ``Places/index``), as a link to the folder resolves; else None."""
        from indexer.hierarchy import folder_representatives

        folders = [f for f in dict.fromkeys(n.strip("/") for n in names) if f]
        if not folders:
            return None
        index = self.settings.index
        notes = [n.uri for n in graph.notes()]  # once for every name: only misses get here
        chosen = folder_representatives(
            folders, notes, index.folder_note_names, index.folder_note_beside
        )
        for folder in folders:
            uri = chosen[folder]
            if uri in graph.nodes and graph.nodes[uri].kind == "note":
                return uri
        return None

    def suggest(self, query: str, n: int = 5, graph: VaultGraph | None = None) -> list[str]:
        """Up to ``n`` note uris whose title or uri is close to ``query``."""
        snapshot = self.snapshot
        return _name_index(snapshot, graph if graph is not None else snapshot.graph).close(query, n)

    # -- retrieval ----------------------------------------------------------------------
    def focus(
        self,
        note: str,
        budget: int | None = None,
        seed: int | None = None,
        explain: bool = False,
        exclude: list[str] | tuple[str, ...] = (),
        output: str = "json",
    ) -> GraphRAGResult:
        """Context around one note under a token budget (the focus note is not counted).

        Args:
            note: uri, path, title or alias.
            budget: tokens for related notes; default from settings.
            seed: makes the result reproducible; None varies between runs.
            explain: add scores, discovery paths and skipped candidates.
            exclude: uris the caller already has (paging).
            output: ``json`` or ``prompt``: the rendered form the budget is counted on.
        """
        from graphrag.focus.mode import focus as run_focus

        if budget is None:
            budget = self.settings.focus.default_budget
        if budget < 0:
            raise InvalidRequestError("budget", f"must be >= 0, got {budget}")
        from graphrag.details.text import note_text

        snapshot = self.snapshot  # once: an update mid-call must not mix two generations
        graph = snapshot.graph
        uri = self.resolve_note(note, graph)
        return run_focus(
            graph,
            uri,
            budget,
            self.settings.focus,
            self.tokenizer,
            seed=seed,
            explain=explain,
            exclude=tuple(exclude),
            output=output,
            note_text=note_text(snapshot, self.settings.details),
            similar=lambda uri, k: snapshot.similar.nearest(uri, k),
        )

    # -- query mode and searches (graphrag/query.py, search.py, hubs.py) ----------------
    def embed_query(self, text: str) -> np.ndarray:
        """The question's normalised vector, from the configured (lazily loaded) model.

        The last few questions are cached: an evaluation asks each one at several budgets.
        """
        import numpy as np

        key = (getattr(self.embedder, "name", ""), text)
        cache = self._query_vectors
        with self._swap:
            if key in cache:
                cache.move_to_end(key)
                return cache[key]
        from graphrag.snapshot.chunk_vectors import one_torch_thread

        with one_torch_thread():
            vec = np.asarray(self.embedder.embed([text]), dtype=np.float32).reshape(-1)
        with self._swap:
            cache[key] = vec
            while len(cache) > 64:
                cache.popitem(last=False)
        return vec

    def _search_scope(self, filters: Filters | Mapping[str, Any] | None = None) -> Scope:
        from graphrag.search.searches import Scope

        snapshot = self.snapshot  # once: an index update mid-call must not mix generations
        corpus = snapshot.corpus
        chosen = as_filters(filters)
        allowed = chosen.mask(corpus, snapshot.graph)
        return Scope(snapshot.index, snapshot.graph, corpus, self.settings.query, allowed)

    def _vector(self, index: IndexSnapshot, corpus: Corpus, text: str) -> np.ndarray:
        """``text``'s vector, refused when the model differs from the one the index used."""
        from graphrag.errors import IndexStaleError
        from indexer.vector_kind import vectors_differ

        changed = vectors_differ(index.manifest, self.embedder)
        if corpus.chunk_count and changed:
            # A question embedded differently from the chunks ranks them wrongly, silently.
            raise IndexStaleError(
                f"{self.index_dir}: {changed} since the index was made; "
                "run `vault-graphrag index VAULT` to re-embed it"
            )
        vec = self.embed_query(text)
        if corpus.chunk_count and vec.shape[0] != corpus.dim:
            model = index.manifest.get("model")
            raise IndexStaleError(
                f"{self.index_dir}: the index holds {corpus.dim}-dimension vectors "
                f"({model}), the query model gives {vec.shape[0]}; re-index with --full"
            )
        return vec

    def query(
        self,
        question: str,
        budget: int | None = None,
        *,
        seed: int | None = None,
        explain: bool = False,
        filters: Filters | Mapping[str, Any] | None = None,
        output: str = "json",
        now: float | None = None,
    ) -> QueryResult:
        """The notes that best answer ``question`` and how they relate, under a budget.

        A ``QueryRequest`` (``QueryRequest.parse``: the arguments are checked and the
        filters parsed, once, here) answered by ``run_query``.

        Args:
            question: free text; ``#tags`` in it select notes by tag.
            budget: tokens for everything returned, entry notes included.
            seed: makes the result reproducible; None varies between runs.
            explain: add score parts, paths and the notes left out.
            filters: a ``Filters`` or its ``Filters.parse`` keywords
                (``folder``, ``tag``, ``prop``, ``created``, ``modified``).
            output: ``json`` or ``prompt``: which rendered form the budget counts.
            now: epoch seconds used for recency (tests pass a fixed time).
        """
        from graphrag.query.request import QueryRequest

        request = QueryRequest.parse(
            question,
            self.settings,
            budget,
            seed=seed,
            explain=explain,
            filters=as_filters(filters),
            output=output,
            now=now,
        )
        return self.run_query(request)

    def run_query(self, request: QueryRequest) -> QueryResult:
        """Answer a ``QueryRequest`` on the current snapshot (docs/architecture.md,
        "The query request")."""
        from graphrag.query.mode import run_query

        snapshot = self.snapshot  # once: an index update mid-call must not mix generations
        corpus = snapshot.corpus
        return run_query(
            request,
            index=snapshot.index,
            graph=snapshot.graph,
            corpus=corpus,
            vector=self._vector(snapshot.index, corpus, request.search_text),
            tokenizer=self.tokenizer,
        )

    def semantic_search(
        self, query: str, top_k: int | None = None, filters: Any = None
    ) -> SearchResult:
        """Notes ranked by their best chunk's cosine similarity to ``query``."""
        from graphrag.search.searches import semantic_search

        scope = self._search_scope(filters)
        text = _question(query)
        return semantic_search(
            scope, text, self._vector(scope.index, scope.corpus, text), self._top_k(top_k)
        )

    def lexical_search(
        self, query: str, top_k: int | None = None, filters: Any = None
    ) -> SearchResult:
        """Notes ranked by BM25 over title, aliases and text (stemmed); no model needed."""
        from graphrag.search.searches import lexical_search

        return lexical_search(self._search_scope(filters), _question(query), self._top_k(top_k))

    def hybrid_search(
        self, query: str, top_k: int | None = None, filters: Any = None
    ) -> SearchResult:
        """Vector, lexical and graph rankings fused by reciprocal rank fusion."""
        from graphrag.search.searches import hybrid_search

        scope = self._search_scope(filters)
        text = _question(query)
        return hybrid_search(
            scope, text, self._vector(scope.index, scope.corpus, text), self._top_k(top_k)
        )

    def hierarchical_search(
        self, query: str, top_k: int | None = None, filters: Any = None
    ) -> SearchResult:
        """Find the relevant folders, tags and hub notes first, then search under them."""
        from graphrag.search.hubs import hierarchical_search

        scope = self._search_scope(filters)
        text = _question(query)
        return hierarchical_search(
            scope, text, self._vector(scope.index, scope.corpus, text), self._top_k(top_k)
        )

    def search(
        self,
        query: str,
        mode: str = "hybrid",
        top_k: int | None = None,
        filters: Any = None,
        hops: int = 1,
    ) -> SearchResult | GraphSearchResult:
        """Search in one of ``graphrag.search.modes.SEARCH_MODES`` (``hops``: graph mode only)."""
        if mode == "graph":
            return self.graph_search(query, top_k, hops=hops, filters=filters)
        ranked = {
            "semantic": self.semantic_search,
            "lexical": self.lexical_search,
            "hybrid": self.hybrid_search,
            "hierarchical": self.hierarchical_search,
        }
        if mode not in ranked:
            raise InvalidRequestError(
                "mode", f"{mode!r} is unknown; expected one of {SEARCH_MODES}"
            )
        return ranked[mode](query, top_k, filters=filters)

    def graph_search(
        self, query: str, top_k: int | None = None, hops: int = 1, filters: Any = None
    ) -> GraphSearchResult:
        """``top_k`` vector anchors and what ``hops`` steps reach: ``{focus, parents, children}``."""
        from graphrag.search.searches import graph_search

        if hops < 0:
            raise InvalidRequestError("hops", f"must be >= 0, got {hops}")
        scope = self._search_scope(filters)
        text = _question(query)
        return graph_search(
            scope, text, self._vector(scope.index, scope.corpus, text), self._top_k(top_k), hops
        )

    def get_note(self, note: str) -> NoteRecord:
        """One note (uri, path, title or alias): metadata, properties, neighbours, text."""
        from graphrag.search.lookup import note_record

        snapshot = self.snapshot
        return note_record(snapshot.index, snapshot.graph, self.resolve_note(note, snapshot.graph))

    def neighbors(self, note: str, direction: str = "both") -> list[Neighbour]:
        """A note's parent and link targets (``out``), children and backlinks (``in``), or both."""
        from graphrag.search.lookup import neighbour_list

        graph = self.graph
        return neighbour_list(graph, self.resolve_note(note, graph), direction)

    def _top_k(self, top_k: int | None) -> int:
        k = self.settings.query.default_top_k if top_k is None else top_k
        if k < 1:
            raise InvalidRequestError("top_k", f"must be >= 1, got {k}")
        return k

    # -- health -------------------------------------------------------------------------
    def status(self) -> dict[str, Any]:
        index = self.snapshot.index
        return {
            "vault": str(self.vault) if self.vault else None,
            "index_dir": str(self.index_dir),
            "generation": index.manifest.get("generation"),
            "model": index.manifest.get("model"),
            "updated": index.manifest.get("updated"),
            "counts": index.manifest.get("counts", {}),
        }

    def doctor(self) -> DoctorReport:
        if self.vault is None:
            raise VaultError(str(self.index_dir), "this index does not know its vault")
        from indexer.doctor import diagnose

        return diagnose(self.vault, self.settings.index_config)

    # -- answers with a language model (graphrag/answer.py) ----------------------------
    def ask(
        self,
        question: str,
        model: Any = None,
        budget: int | None = None,
        *,
        seed: int | None = None,
        system: str | None = None,
        options: Mapping[str, Any] | None = None,
        filters: Filters | Mapping[str, Any] | None = None,
        note: str | None = None,
        history: Sequence[Turn] = (),
        on_chunk: Callable[[str], None] | None = None,
        dry_run: bool = False,
    ) -> Answer:
        """Answer ``question`` from the vault with a language model.

        Builds the query-mode context (or, with ``note``, the focus-mode context of that
        note), sends one prompt (system prompt, context, earlier turns, question) and
        returns the answer with the sources, the notes it cites and the context used.
        Nothing is sent unless a model is named here or in ``[llm] model``, nor when
        retrieval finds nothing (the answer then says so).

        Args:
            question: free text.
            model: an ``llm`` model id or alias, or an ``llm`` model object;
                default ``[llm] model``. ``llm``'s own default model is never used.
            budget: tokens for the context; default ``[query] default_budget``
                (``[focus] default_budget`` with ``note``).
            seed: makes the retrieval reproducible.
            system: replaces the built-in system prompt.
            options: model options (``temperature``...), over ``[llm] options``.
            filters: a ``Filters`` or its ``Filters.parse`` keywords (query mode only).
            note: ask about this note (uri, path, title or alias): focus mode around it.
            history: earlier turns of the conversation, oldest first (``answer.history``).
            on_chunk: called with each piece of the answer as it streams in.
            dry_run: build the prompt, send nothing (the answer text is empty).
        """
        from graphrag.answer.ask import complete

        prepared = self.prepare_ask(
            question,
            model=model,
            budget=budget,
            seed=seed,
            system=system,
            options=options,
            filters=filters,
            note=note,
            history=history,
            dry_run=dry_run,
        )
        return complete(prepared, on_chunk)

    def prepare_ask(
        self,
        question: str,
        model: Any = None,
        budget: int | None = None,
        *,
        seed: int | None = None,
        system: str | None = None,
        options: Mapping[str, Any] | None = None,
        filters: Filters | Mapping[str, Any] | None = None,
        note: str | None = None,
        history: Sequence[Turn] = (),
        dry_run: bool = False,
    ) -> Prepared:
        """``ask`` up to the model call (the model, retrieval, the prompt); the HTTP
        server streams the rest with ``graphrag.answer.ask.complete``. Args as ``ask``."""
        from graphrag.answer.ask import prepare
        from graphrag.answer.history import retrieval_text

        question = _question(question)
        graph = self.graph
        if note is not None:
            if filters:
                raise InvalidRequestError(
                    "filters",
                    "filters choose notes for query mode; with note, the context "
                    "is that note's focus context",
                )

            def retrieve() -> QueryResult | GraphRAGResult:
                return self.focus(note, budget=budget, seed=seed)

        else:
            text = retrieval_text(question, history, lambda name: self._title_of(name, graph))

            def retrieve() -> QueryResult | GraphRAGResult:
                return self.query(text, budget=budget, seed=seed, filters=filters, output="prompt")

        return prepare(
            question,
            retrieve,
            self.settings.llm,
            model=model,
            system=system,
            options=options,
            history=history,
            aliases_of=lambda uri: _title_and_aliases(graph, uri),
            dry_run=dry_run,
        )

    def _title_of(self, name: str, graph: VaultGraph) -> str | None:
        """The title of the note a link target names (as ``resolve_note``), or None."""
        try:
            return graph.info(self.resolve_note(name, graph)).title
        except (NoteNotFoundError, AmbiguousNoteError, InvalidRequestError):
            return None

    def summarise(
        self,
        note: str,
        model: Any = None,
        budget: int | None = None,
        *,
        seed: int | None = None,
        system: str | None = None,
        options: Mapping[str, Any] | None = None,
        on_chunk: Callable[[str], None] | None = None,
    ) -> Answer:
        """Summarise ``note`` with a language model, from its focus-mode context.

        Args are those of ``ask``; ``budget`` defaults to ``[focus] default_budget``.
        """
        from graphrag.answer.ask import summarise

        return summarise(
            lambda: self.focus(note, budget=budget, seed=seed),
            self.settings.llm,
            model=model,
            system=system,
            options=options,
            on_chunk=on_chunk,
        )


def locate(
    path: str | os.PathLike[str], index_dir: str | os.PathLike[str] | None, settings: Settings
) -> tuple[Path | None, Path]:
    """(vault or None, index folder) for a path that is a vault or an index folder, as
    ``VaultRAG.open`` takes them; reads nothing but the manifest."""
    root = Path(path).expanduser()
    if not root.is_dir():
        raise VaultError(str(root), "not a folder")
    if (root / MANIFEST).is_file() and index_dir is None:
        manifest = read_manifest(root) or {}
        vault_path = manifest.get("vault")
        vault = Path(vault_path) if vault_path and Path(vault_path).is_dir() else None
        return vault, root.resolve()
    chosen = index_dir or settings.index.index_dir or default_index_dir(root)
    return root.resolve(), Path(chosen).expanduser().resolve()


def make_embedder(settings: EmbeddingSettings) -> Embedder:
    """``indexer.embed.make_embedder``, imported when first needed (tests replace this)."""
    from indexer.embed import make_embedder as make

    return make(settings)


def as_filters(filters: Filters | Mapping[str, Any] | None) -> Filters:
    """A ``Filters``, or one parsed from its keywords."""
    from graphrag.snapshot.filters import Filters

    return filters if isinstance(filters, Filters) else Filters.parse(**(filters or {}))


def _name_index(snapshot: Snapshot, graph: VaultGraph) -> NameIndex:
    """The name index of ``graph``: the snapshot's own, unless the caller holds an older
    graph (an update swapped the snapshot in between), whose index is built for it."""
    if graph is snapshot.graph:
        return snapshot.names
    from graphrag.snapshot.names import NameIndex

    return NameIndex(graph)


def _question(text: str) -> str:
    if not text or not text.strip():
        raise InvalidRequestError("query", "the question is empty: ask something")
    return text.strip()


def _title_and_aliases(graph: VaultGraph, uri: str) -> tuple[str, ...]:
    """A note's title and aliases (how an answer may name it in a link)."""
    info = graph.nodes.get(uri)
    return (info.title, *info.aliases) if info is not None else ()
