"""The apiary: thirty similar tool notes, a long almanac and a short recipe, for tests of
where query mode's order ends and how the fill spends the last tokens
(tests/query/test_order_end.py, test_fill_room.py). Indexed with the hashing embedder
of ``query_vault``; packed by the baselines' ``Packer`` over the question's scores."""

from __future__ import annotations

from pathlib import Path

from graphrag.api import VaultRAG
from graphrag.eval.baselines import NoteBuilder
from graphrag.query.pack import Packer
from graphrag.query.render import doc_json
from tests.support.query_vault import make_rag

QUESTION = "when do beekeepers harvest honey from the hives"
TOOLS = [f"Bees/Tool {i:02d}" for i in range(30)]
LARGE = 4000  # a budget where a related note's room is truncate_length


def apiary(copy: bool = False) -> dict[str, str]:
    """The vault's files; ``copy``: the first tool's text in a second folder as well."""
    files = {
        f"{uri}.md": f"# {uri[5:]}\n\nBeekeepers harvest honey from the hives with "
        f"{uri[5:].lower()}. " + " ".join(f"t{i}w{j}" for j in range(60)) + "\n"
        for i, uri in enumerate(TOOLS)
    }
    # A long note: whole, it takes a related note's full room at a large budget.
    para = "The honey harvest waits until the comb is capped; " + " ".join(
        f"w{j}" for j in range(40)
    )
    files["Almanac.md"] = "# Almanac\n\n" + "\n\n".join(
        para.replace("w", f"m{k}w") for k in range(12)
    )
    files["Kitchen/Recipe.md"] = "# Recipe\n\nA cake sweetened with honey.\n"
    if copy:
        files["Shed/Tool 00.md"] = files["Bees/Tool 00.md"]
    return files


def apiary_packer(tmp_path: Path, copy: bool = False) -> tuple[Packer, VaultRAG]:
    """The apiary indexed in ``tmp_path``, and a packer scoring its notes by QUESTION."""
    rag = make_rag(tmp_path, apiary(copy))
    snap = rag.snapshot
    scores = rag.embed_query(QUESTION) @ snap.corpus.matrix.T
    return NoteBuilder(snap.index, snap.graph, snap.corpus, scores, rag.settings).packer, rag


def hit_cost(packer: Packer, rag: VaultRAG, uri: str, room: int | None = None) -> int:
    """Tokens of ``uri`` as a search hit in ``room`` (its related-note room at LARGE)."""
    limit = packer.related_limit(uri, LARGE) if room is None else room
    return rag.tokenizer.count(doc_json(packer.search_note(uri, limit)))
