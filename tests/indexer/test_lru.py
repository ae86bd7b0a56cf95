"""indexer.lru: the one bounded cache the indexer, the snapshot and the server share."""

from __future__ import annotations

import threading

from indexer.lru import SizedLRU


def test_the_least_recently_used_go_first_once_the_limit_is_passed() -> None:
    cache: SizedLRU[int] = SizedLRU(limit=10)
    cache.put("a", 1, 4)
    cache.put("b", 2, 4)
    assert cache.get("a") == 1  # now the most recently used
    cache.put("c", 3, 4)  # 12 held: "b", the least recently used, goes
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c")) == (1, 3)
    assert cache.used == 8 and len(cache) == 2


def test_a_value_larger_than_the_limit_is_not_kept_and_drops_nothing() -> None:
    cache: SizedLRU[str] = SizedLRU(limit=10)
    cache.put("a", "x", 6)
    cache.put("huge", "y", 11)
    assert cache.get("huge") is None
    assert cache.get("a") == "x" and cache.used == 6


def test_putting_a_key_again_replaces_its_value_and_its_size() -> None:
    cache: SizedLRU[str] = SizedLRU(limit=10)
    cache.put("a", "old", 6)
    cache.put("a", "new", 3)
    assert cache.get("a") == "new" and cache.used == 3 and len(cache) == 1


def test_threads_putting_at_once_keep_the_sizes_consistent() -> None:
    cache: SizedLRU[int] = SizedLRU(limit=500)

    def fill(offset: int) -> None:
        for i in range(2000):
            cache.put((offset, i % 300), i, 1 + i % 7)

    threads = [threading.Thread(target=fill, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    held = sum(size for _, size in cache._items.values())
    assert cache.used == held <= 500
