from __future__ import annotations

import random
import threading

from indexer.count_cache import CountCache


def test_counts_are_given_back_by_key() -> None:
    cache = CountCache(1000)
    rng = random.Random(0)
    keys = list({rng.getrandbits(64) - 2**63 for _ in range(100)})
    for i, key in enumerate(keys):
        cache.put(key, i * 7)
    assert cache.slots == 1024 and len(cache) == 100
    assert [cache.get(key) for key in keys] == [i * 7 for i in range(len(keys))]
    assert cache.get(12345) is None


def test_a_key_put_again_keeps_one_slot_with_the_new_value() -> None:
    cache = CountCache(16)
    cache.put(5, 1)
    cache.put(5, 2)
    assert cache.get(5) == 2 and len(cache) == 1


def test_a_key_whose_slots_are_full_replaces_the_least_recently_used() -> None:
    cache = CountCache(16)  # a key's slots: key & 15 and (key >> 32) & 15, each ^ 1
    keys = [2 | 6 << 32 | n << 40 for n in range(5)]  # all in slots 2, 3, 6 and 7
    for n, key in enumerate(keys[:4]):
        cache.put(key, n)
    assert cache.get(keys[0]) == 0  # now used after keys[1]
    cache.put(keys[4], 4)
    assert [cache.get(key) for key in keys] == [0, None, 2, 3, 4]
    assert len(cache) == 4


def test_recently_used_counts_survive_a_stream_of_new_ones() -> None:
    cache = CountCache(256)
    rng = random.Random(1)
    hot = [rng.getrandbits(62) for _ in range(20)]
    for key in hot:
        cache.put(key, key % 1000)
    for _ in range(50):
        for key in [rng.getrandbits(62) for _ in range(10)]:  # seen once, never again
            cache.put(key, 0)
        assert all(cache.get(key) == key % 1000 for key in hot)
    assert len(cache) <= cache.slots


def test_its_size_is_fixed_when_made() -> None:
    cache = CountCache(4096)
    size = cache.nbytes
    for key in range(100_000):
        cache.put(key * 2_654_435_761, key)
    assert cache.nbytes == size == 4096 * 24


def test_threads_never_read_another_keys_count() -> None:
    cache = CountCache(64)  # small: threads keep replacing each other's slots
    wrong: list[int] = []

    def work(seed: int) -> None:
        rng = random.Random(seed)
        for _ in range(20_000):
            key = rng.randrange(1, 500) << 20 | rng.randrange(4)  # shared, colliding slots
            got = cache.get(key)
            if got is not None and got != key * 3:
                wrong.append(key)
            cache.put(key, key * 3)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
