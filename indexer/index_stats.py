"""``IndexStats``: what one ``build_index`` run did, as its summary and the manifest's
counts give it."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field


@dataclass
class IndexStats:
    notes: int = 0
    folders: int = 0
    virtual_folders: int = 0
    attachments: int = 0
    links_resolved: int = 0
    links_unresolved: int = 0
    tags: int = 0
    chunks: int = 0
    chunks_embedded: int = 0
    chunks_reused: int = 0
    chunks_resumed: int = 0  # vectors a killed build had embedded (partial_vectors.py)
    added: int = 0
    changed: int = 0
    removed: int = 0
    unchanged: int = 0
    relinked: int = 0  # notes whose links were resolved in this run (linktable)
    up_to_date: bool = False
    full_reason: str = ""
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    templates_excluded: list[str] = field(default_factory=list)  # template folders skipped
    leftovers_removed: list[str] = field(default_factory=list)  # what killed runs left
    other_vault: str = ""  # the folder the index was made for, when not this vault

    def to_json(self) -> dict:
        return asdict(self)


def fill_counts_from_manifest(stats: IndexStats, manifest: dict) -> None:
    """What an index that is up to date holds, from its manifest: a run with nothing to
    do still reports the vault's counts."""
    for key in (
        "notes",
        "folders",
        "virtual_folders",
        "attachments",
        "links_resolved",
        "links_unresolved",
        "tags",
        "chunks",
    ):
        setattr(stats, key, int(manifest.get("counts", {}).get(key, 0)))
    stats.chunks_reused = stats.chunks
