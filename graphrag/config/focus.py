"""Focus-mode constants (``[focus]`` in configs/default.toml).

Defaults are Doughnut's BFS requirements (docs/architecture.md, "Focus mode").
"""

from __future__ import annotations

from dataclasses import dataclass, field

CORE = 10.0
STRUCTURAL = 5.0
REMOTE = 2.0

DEFAULT_RELATION_WEIGHTS: dict[str, float] = {
    "Parent": CORE,
    "Child": CORE,
    "Object": CORE,
    "ObjectOfReifiedChild": CORE,
    "InboundReference": CORE,
    "SubjectOfInboundReference": CORE,
    "AncestorInContextualPath": STRUCTURAL,
    "AncestorInObjectContextualPath": STRUCTURAL,
    "PriorSibling": STRUCTURAL,
    "YoungerSibling": STRUCTURAL,
    "SiblingOfParent": STRUCTURAL,
    "SiblingOfParentOfObject": STRUCTURAL,
    "ChildOfSiblingOfParent": STRUCTURAL,
    "ChildOfSiblingOfParentOfObject": STRUCTURAL,
    "InboundReferenceContextualPath": STRUCTURAL,
    "SiblingOfSubjectOfInboundReference": STRUCTURAL,
    "InboundReferenceToObjectOfReifiedChild": STRUCTURAL,
    "GrandChild": REMOTE,
    "RemotelyRelated": REMOTE,
    # Above folder siblings: the same category, place or author says more than a folder.
    "SharesPropertyValue": 7.0,
    # Times the cosine similarity (0.5-0.8 for the nearest notes): a structural relation
    # at best, since the vault never stated it.
    "SimilarContent": STRUCTURAL,
}


@dataclass(frozen=True)
class FocusSettings:
    max_depth: int = 3
    max_total_candidates: int = 200
    child_cap_multiplier: int = 2
    inbound_cap_multiplier: int = 2
    object_cap_multiplier: int = 2
    w_relationship: float = 100.0
    w_depth: float = 20.0
    w_recency: float = 5.0
    recency_days: float = 365.0
    depth_bonus: tuple[float, ...] = (1.0, 0.7, 0.4)
    jitter_range: float = 0.5
    token_budget_safety_margin: float = 1.2
    truncate_length: int = 1000
    default_budget: int = 2000
    emit_virtual_notes: bool = False
    crowd_size: int = 30
    shared_property_limit: int = 6
    similar_notes: int = 5
    similar_min_similarity: float = 0.5
    relation_weights: dict[str, float] = field(
        default_factory=lambda: dict(DEFAULT_RELATION_WEIGHTS)
    )
