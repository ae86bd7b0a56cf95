"""The capped BFS: per-depth caps, child and backlink selection, path labelling, stops."""

from __future__ import annotations

import random

import pytest

from graphrag.config.focus import FocusSettings
from graphrag.focus.selectors import RandomSelector, RankedSelector
from graphrag.focus.traverse import Traversal, traverse
from graphrag.results.notes import Relation
from tests.support.graph_builders import Vault

SEEDS = range(40)


def run(graph, sources=("F",), seed=0, **settings) -> Traversal:
    return traverse(graph, list(sources), FocusSettings(**settings), random.Random(seed))


def uris(result: Traversal, relation: Relation | None = None) -> list[str]:
    return [c.uri for c in result.candidates if relation is None or c.relation == relation]


def child_index(uri: str) -> int:
    return int(uri[-2:])


def test_child_cap_takes_a_contiguous_pair_at_depth_1():
    v = Vault().note("F")
    v.children("F", 5)
    g = v.build()
    blocks = set()
    for seed in SEEDS:
        kids = uris(run(g, seed=seed, max_depth=1), Relation.Child)
        assert len(kids) == 2
        first, second = sorted(child_index(k) for k in kids)
        assert second == first + 1
        blocks.add(first)
    assert len(blocks) > 1  # the block's start is random


def test_inbound_cap_takes_two_random_backlinks_at_depth_1():
    v = Vault().note("F")
    for i in range(7):
        v.note(f"R{i}", links=["F"])
    g = v.build()
    chosen = set()
    for seed in SEEDS:
        refs = uris(run(g, seed=seed, max_depth=1), Relation.InboundReference)
        assert len(refs) == 2
        chosen.add(tuple(sorted(refs)))
    assert len(chosen) > 3  # not always the same pair


@pytest.mark.parametrize(("depth", "expected"), [(1, 2), (2, 4), (3, 6)])
def test_focus_fan_out_grows_by_two_per_depth(depth, expected):
    v = Vault().note("F")
    v.children("F", 20)
    for i in range(20):
        v.note(f"R{i}", links=["F"])
    g = v.build()
    result = run(g, max_depth=depth)
    assert len(uris(result, Relation.Child)) == expected
    assert len(uris(result, Relation.InboundReference)) == expected


def test_caps_hold_at_a_huge_budget():
    v = Vault().note("F")
    v.children("F", 20)
    g = v.build()
    settings = FocusSettings(max_depth=3)
    result = traverse(g, ["F"], settings, random.Random(3), budget=10**9, estimate=lambda uri: 1)
    assert result.depth_reached == 3
    assert len(uris(result, Relation.Child)) == 6  # 2 + 2 + 2, not all 20


def test_depth_1_note_gets_two_then_four_children():
    v = Vault().note("F").note("F/C", parent="F")
    v.children("F/C", 10, prefix="G")
    g = v.build()
    assert len(uris(run(g, max_depth=2), Relation.GrandChild)) == 2
    assert len(uris(run(g, max_depth=3), Relation.GrandChild)) == 4


def test_siblings_nearest_the_focus_come_first():
    v = Vault().note("P")
    kids = v.children("P", 10)
    g = v.build()
    focus = kids[5]
    for seed in SEEDS:
        at_2 = {child_index(u) for u in uris(run(g, [focus], seed, max_depth=2)) if u != "P"}
        assert at_2 == {4, 6}
        at_3 = {child_index(u) for u in uris(run(g, [focus], seed, max_depth=3)) if u != "P"}
        assert at_3 == {3, 4, 6, 7}


def test_nearest_siblings_at_an_edge_extend_one_way():
    v = Vault().note("P")
    kids = v.children("P", 10)
    g = v.build()
    for seed in SEEDS:
        found = {child_index(u) for u in uris(run(g, [kids[0]], seed, max_depth=3)) if u != "P"}
        assert found == {1, 2, 3, 4}


def test_nearest_ties_are_broken_at_random():
    # One slot, two siblings at distance 1: either may win, depending on the seed.
    v = Vault().note("P")
    kids = v.children("P", 10)
    g = v.build()
    winners = set()
    for seed in SEEDS:
        result = run(g, [kids[5]], seed, max_depth=2, child_cap_multiplier=1)
        (sibling,) = [child_index(u) for u in uris(result) if u != "P"]
        winners.add(sibling)
    assert winners == {4, 6}


def test_known_note_never_uses_a_capped_slot():
    # F links to its own child C02: found at depth 1 as an object, it must not use
    # one of the two child slots, and it is labelled Child (higher priority).
    v = Vault().note("F", links=["F/C02"])
    v.children("F", 5)
    g = v.build()
    for seed in SEEDS:
        result = run(g, seed=seed, max_depth=1)
        kids = uris(result, Relation.Child)
        assert "F/C02" in kids
        assert len(kids) == 3
        assert Relation.Object not in {c.relation for c in result.candidates}


def test_shortest_path_over_any_pool_edge_wins():
    # X is a child of F that F's cap may skip at depth 1; a picked child links to it.
    # Whenever it turns up later, its parent F is in the pool, so it is a Child.
    v = Vault().note("F")
    v.note("F/A", parent="F", order=1, links=["F/X"])
    v.note("F/B", parent="F", order=2, links=["F/X"])
    v.note("F/X", parent="F", order=3)
    g = v.build()
    late = 0
    for seed in SEEDS:
        result = run(g, seed=seed, max_depth=2)
        x = next(c for c in result.candidates if c.uri == "F/X")
        assert x.relation == Relation.Child
        assert x.hops == ("child",)
        late += x.depth == 2
    assert late > 0  # the case was exercised


def test_equal_length_paths_use_relation_priority():
    # Mutual links: A is both an object and an inbound reference of F.
    v = Vault().note("F", links=["A"]).note("A", links=["F"])
    (a,) = run(v.build(), max_depth=1).candidates
    assert a.relation == Relation.Object


def test_uncapped_hops_expand_only_from_the_previous_depth():
    v = Vault().note("F", links=["O1"]).note("O1", links=["O2"]).note("O2", links=["O3"])
    v.note("O3", links=["O4"]).note("O4")
    depths = {c.uri: c.depth for c in run(v.build(), max_depth=3).candidates}
    assert depths == {"O1": 1, "O2": 2, "O3": 3}


def test_focus_is_never_a_candidate():
    v = Vault().note("F", links=["A"]).note("A", links=["F"], parent="F")
    v.note("F/B", parent="F", links=["F"])
    result = run(v.build())
    assert "F" not in uris(result)


def test_folders_are_traversed_ghosts_and_attachments_are_not():
    v = Vault().folder("Dir").note("Dir/F", parent="Dir", links=["Nowhere", "pic.png"])
    v.note("Dir/Sibling", parent="Dir")
    g = v.build()
    result = traverse(
        g,
        ["Dir/F"],
        FocusSettings(),
        random.Random(0),
        emittable=lambda uri: g.info(uri).kind == "note",
    )
    found = {c.uri: c.relation for c in result.candidates}
    assert found == {"Dir": Relation.Parent, "Dir/Sibling": Relation.YoungerSibling}


def test_global_candidate_cap_keeps_the_best_and_reports_the_rest():
    v = Vault().note("P").note("F", parent="P")
    v.children("F", 10)
    for i in range(10):
        v.note(f"R{i}", links=["F"])
    result = run(v.build(), max_total_candidates=3)
    assert len(result.candidates) == 3
    assert result.stop_reason == "cap"
    assert result.dropped
    kept = [c.relation for c in result.candidates]
    assert Relation.Parent in kept  # Parent outranks InboundReference when cutting
    assert Relation.InboundReference not in kept


def test_traversal_stops_early_when_the_pool_exceeds_the_budget():
    v = Vault().note("P").note("F", parent="P").note("P/S", parent="P")
    v.children("F", 6)
    g = v.build()
    settings = FocusSettings()
    small = traverse(g, ["F"], settings, random.Random(0), budget=100, estimate=lambda u: 100)
    assert (small.depth_reached, small.stop_reason) == (1, "budget")
    big = traverse(g, ["F"], settings, random.Random(0), budget=10_000, estimate=lambda u: 100)
    assert big.depth_reached == 3
    assert len(big.candidates) > len(small.candidates)


def test_multi_source_records_where_each_candidate_came_from():
    v = Vault().note("A", links=["X"]).note("B").note("B/Kid", parent="B").note("X")
    result = run(v.build(), sources=("A", "B"), max_depth=1)
    origins = {c.uri: c.origin for c in result.candidates}
    assert origins == {"X": "A", "B/Kid": "B"}


def test_free_notes_are_traversed_without_using_slots():
    v = Vault().note("F")
    kids = v.children("F", 6)
    g = v.build()
    free = {kids[2], kids[3]}
    saw_free = False
    for seed in SEEDS:
        result = traverse(
            g, ["F"], FocusSettings(max_depth=1), random.Random(seed), free=free.__contains__
        )
        found = set(uris(result, Relation.Child))
        assert len(found - free) == 2  # free notes never fill one of the two slots
        saw_free |= bool(found & free)
    assert saw_free


def test_ranked_selector_replaces_random_choice():
    v = Vault().note("F")
    kids = v.children("F", 10)
    for i in range(10):
        v.note(f"R{i}", links=["F"])
    g = v.build()
    favourite = {kids[7]: 2.0, kids[3]: 1.0, "R8": 2.0, "R1": 1.0}
    result = traverse(
        g,
        ["F"],
        FocusSettings(max_depth=1),
        random.Random(0),
        selector=RankedSelector(lambda uri: favourite.get(uri, 0.0)),
    )
    assert set(uris(result)) == {kids[7], kids[3], "R8", "R1"}


def test_hub_backlinks_are_sampled_not_scanned():
    v = Vault().note("F")
    for i in range(5000):
        v.note(f"R{i:04d}", links=["F"])
    g = v.build()
    calls = 0

    def eligible(i: int) -> bool:
        nonlocal calls
        calls += 1
        return True

    refs = g.backlinks("F")
    picks = RandomSelector(random.Random(1)).pick_inbound("F", refs, 2, eligible)
    assert len(set(picks)) == 2
    assert calls < 50
    assert picks == RandomSelector(random.Random(1)).pick_inbound("F", refs, 2, eligible)
    other = {
        tuple(RandomSelector(random.Random(s)).pick_inbound("F", refs, 2, eligible))
        for s in range(5)
    }
    assert len(other) > 1


_GRAPH_READS = (
    "parent",
    "children",
    "outlinks",
    "backlinks",
    "objects",
    "neighbours",
    "raw_neighbours",
    "degree",
    "position",
    "uri_and_title",
    "info",
    "details",
    "is_traversable",
    "contextual_path",
)


def _graph_reads_per_focus(notes: int) -> list[int]:
    """How many times one focus asks the graph anything, for 100 random notes.

    Speed lives in ``benchmarks/bench_focus.py``; what a test can hold without a
    clock is that the work is capped: hubs in the synthetic vault have thousands
    of backlinks, so an expansion that walks a hub's whole list shows up here.
    """
    from graphrag.focus.mode import focus
    from indexer.tokens import get_tokenizer
    from tests.support.graph_builders import NOW, synthetic

    g = synthetic(notes)
    count = [0]
    for name in _GRAPH_READS:
        method = getattr(g, name)

        def counted(*args, _method=method, **kwargs):
            count[0] += 1
            return _method(*args, **kwargs)

        setattr(g, name, counted)  # instance attributes shadow the methods, self.x() too
    text = g.text_source

    def counted_text(uri: str) -> str:
        count[0] += 1
        return text(uri)

    g.text_source = counted_text
    tok = get_tokenizer()
    uris = [n.uri for n in g.notes()]
    rng = random.Random(0)
    reads = []
    for seed in range(100):
        count[0] = 0
        focus(g, rng.choice(uris), 2000, FocusSettings(), tok, seed=seed, now=NOW)
        reads.append(count[0])
    return reads


@pytest.mark.slow
def test_focus_work_does_not_grow_with_the_vault():
    import statistics

    small, large = _graph_reads_per_focus(1_000), _graph_reads_per_focus(10_000)
    # ten times the notes, and hubs ten times as linked, but the same capped walk
    assert statistics.median(large) <= 1.25 * statistics.median(small)
    # every read is owed to a candidate: the cap bounds them, not the vault's size
    assert max(large) <= 10 * FocusSettings().max_total_candidates
    assert max(large) <= 1.25 * max(small)


def _moc_vault(links: int = 30) -> Vault:
    """F links to a map of content M, which links to ``links`` notes."""
    v = Vault().note("F", links=["M"])
    targets = [f"T{i:02d}" for i in range(links)]
    for t in targets:
        v.note(t)
    v.note("M", links=targets)
    return v


def test_a_map_of_content_contributes_capped_objects_per_depth():
    g = _moc_vault().build()
    for seed in SEEDS:
        at_2 = run(g, seed=seed, max_depth=2)
        at_3 = run(g, seed=seed, max_depth=3)
        from_m = [c for c in at_2.candidates if c.previous == "M" and c.hops[-1] == "object"]
        assert len(from_m) == 2  # cap(M, 2) = 2 * (2 - 1)
        from_m3 = [c for c in at_3.candidates if c.previous == "M" and c.hops[-1] == "object"]
        assert len(from_m3) == 4  # 2 * (3 - 1) in total by depth 3
    chosen = {c.uri for s in SEEDS for c in run(g, seed=s, max_depth=2).candidates}
    assert len(chosen & {f"T{i:02d}" for i in range(30)}) > 2  # picked at random


def test_the_focus_keeps_every_one_of_its_own_links():
    v = Vault().note("F", links=[f"T{i:02d}" for i in range(30)])
    for i in range(30):
        v.note(f"T{i:02d}")
    objects = uris(run(v.build(), max_depth=1), Relation.Object)
    assert sorted(objects) == [f"T{i:02d}" for i in range(30)]


def test_object_cap_multiplier_is_a_setting():
    g = _moc_vault().build()
    result = run(g, max_depth=2, object_cap_multiplier=5)
    assert len([c for c in result.candidates if c.previous == "M"]) == 5
