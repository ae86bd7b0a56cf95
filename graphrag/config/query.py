"""Query-mode and search constants (``[query]`` in configs/default.toml).

Defaults follow the "True Graph RAG Retrieval Strategy" (docs/architecture.md, "Query mode" and
"Sources") except where a measured fact says otherwise:

* ``min_similarity`` is 0.3, not the strategy's 0.5. all-MiniLM-L6-v2 gives
  question -> answering-note cosines of 0.42-0.73 on sample_vault, while the
  median note scores 0.13-0.27 for the same questions and off-topic questions
  top out at 0.12-0.18. 0.5 would drop many notes a reader would call relevant;
  0.3 sits above the vault's background level.
* ``entry_min_similarity`` (0.25) is the floor under which a vector match alone
  does not make an entry: it is what lets an off-topic question say "nothing
  relevant" instead of inventing entries.
* ``max_hops`` is the strategy's ``max_hops`` (2) and means what focus mode's
  ``max_depth`` means: BFS wavefronts from the entries, each entry at depth 0.
  The per-depth caps and the global candidate cap come from ``[focus]``.
* ``close_depth`` is 2, the traversal's own horizon (``max_hops``): docs/architecture.md
  ("Query mode", step 3) keeps a weakly similar note "unless structurally close", and
  the strategy collects "all nodes within k steps from entry points", weighting them by
  distance. A note two hops out is exactly what a multi-hop question needs and
  is, by construction, unlike the question; the rerank already ranks it below
  nearer and more similar notes, so the budget decides, not a cosine floor.
  ``min_similarity`` still applies to notes found by tag expansion (not a
  traversal hop) and would apply beyond ``close_depth`` if ``max_hops`` grew.
* ``title_max_notes`` is 1: a name the question writes makes an entry because
  the user said which note they mean; a title six notes share does not.
* ``max_documents`` is unset by default: then 15 (``DEFAULT_DOCUMENTS``, the
  ``documents`` property) bound the notes query mode chooses (entries, best hits,
  related notes, search hits) and size a related note's equal share at small
  budgets, and ``hybrid_search``'s ranking fills what the budget has left past them
  (``query/pack.py``): at 4,000 tokens short notes reached 15 with the budget
  unspent. Set, it is a hard cap on every note of the result, the fill's too; eval's
  baselines follow the same rule.
* ``show_properties``: scalar front-matter properties open a note's details
  (counted in the budget); vaults like kepano's keep most facts there.
"""

from __future__ import annotations

from dataclasses import dataclass

# The notes query mode chooses when ``max_documents`` is unset (see the module).
DEFAULT_DOCUMENTS = 15


@dataclass(frozen=True)
class QuerySettings:
    # -- entry notes ---------------------------------------------------------------------
    vector_entry_count: int = 3
    tag_entry_enabled: bool = True
    title_entry_enabled: bool = True
    lexical_enabled: bool = True
    stemmer_language: str = "english"
    entry_weight_vector: float = 0.7
    entry_weight_tags: float = 0.3
    entry_weight_title: float = 0.3
    entry_weight_lexical: float = 0.3
    max_entries: int = 6
    entry_min_similarity: float = 0.25
    lexical_min_coverage: float = 0.5
    title_min_chars: int = 4
    title_max_notes: int = 1
    # -- traversal -----------------------------------------------------------------------
    max_hops: int = 2
    max_documents: int | None = None
    tag_expansion_enabled: bool = True
    tag_expansion_per_entry: int = 3
    tag_expansion_max_tag_size: int = 500
    path_expansion_enabled: bool = True
    path_max_length: int = 3
    path_max_degree: int = 100
    shares_tag_weight: float = 5.0
    on_path_weight: float = 10.0
    # -- rerank --------------------------------------------------------------------------
    min_similarity: float = 0.3
    close_depth: int = 2
    hybrid_enabled: bool = True
    graph_weight: float = 0.6
    vector_weight: float = 0.4
    recency_bonus: float = 0.1
    recency_days: float = 365.0
    # -- output --------------------------------------------------------------------------
    default_budget: int = 4000
    entry_truncate_length: int = 1000
    entry_budget_share: float = 0.5
    entry_list_limit: int = 10
    show_properties: bool = True
    max_connections: int = 30
    connection_budget_share: float = 0.05
    # -- searches ------------------------------------------------------------------------
    default_top_k: int = 10
    rrf_k: int = 60
    rrf_depth: int = 50
    hybrid_graph_seeds: int = 5
    graph_max_neighbors: int = 50
    hub_count: int = 3
    hub_max_fraction: float = 0.2
    hub_min_notes: int = 2
    hub_min_links: int = 30

    @property
    def documents(self) -> int:
        """The notes query mode chooses, and the count a related note's equal share of
        the budget is reckoned over: ``max_documents``, or ``DEFAULT_DOCUMENTS``."""
        return DEFAULT_DOCUMENTS if self.max_documents is None else self.max_documents

    @property
    def hard_cap(self) -> bool:
        """Whether ``max_documents`` was set: then the fill stops at it too."""
        return self.max_documents is not None
