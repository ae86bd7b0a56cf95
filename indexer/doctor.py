"""Vault health: what a user may want to fix. Parses the vault; needs no index or model."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .config import IndexConfig
from .read_notes import parse_vault


@dataclass
class DoctorReport:
    notes: int = 0
    unresolved_links: list[dict] = field(default_factory=list)
    ambiguous_names: list[dict] = field(default_factory=list)
    invalid_front_matter: list[dict] = field(default_factory=list)
    orphans: list[str] = field(default_factory=list)
    other_warnings: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not (self.unresolved_links or self.invalid_front_matter)

    def to_json(self) -> dict:
        return asdict(self) | {"healthy": self.healthy}


def diagnose(vault: Path, config: IndexConfig | None = None) -> DoctorReport:
    built, notes, warnings = parse_vault(vault, config)
    report = DoctorReport(notes=len(notes))
    paths = {n.uri: n.path for n in notes}
    for link in built.unresolved:
        report.unresolved_links.append(
            {"source": paths[link.source], "line": link.line + 1, "target": link.written}
        )

    by_name: dict[str, list[str]] = defaultdict(list)
    for n in notes:
        by_name[n.uri.rsplit("/", 1)[-1].casefold()].append(n.uri)
    bare_links: dict[str, list[str]] = defaultdict(list)
    for link in built.links:
        if link.target_kind == "note" and "/" not in link.written:
            bare_links[link.written.casefold().removesuffix(".md")].append(paths[link.source])
    for name, uris in sorted(by_name.items()):
        if len(uris) > 1:
            report.ambiguous_names.append(
                {
                    "name": uris[0].rsplit("/", 1)[-1],
                    "notes": sorted(uris),
                    "linked_without_folder_from": sorted(set(bare_links.get(name, []))),
                }
            )

    for w in warnings:
        path, _, reason = w.partition(": ")
        if "front matter" in reason:
            report.invalid_front_matter.append({"path": path, "reason": reason})
        else:
            report.other_warnings.append(w)

    g = built.graph
    for n in notes:
        linked = any(
            d.get("type") not in ("parent", "tag") for _, _, d in g.out_edges(n.uri, data=True)
        ) or any(d.get("type") not in ("parent", "tag") for _, _, d in g.in_edges(n.uri, data=True))
        if not linked:
            report.orphans.append(n.uri)
    return report
