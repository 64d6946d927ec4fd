"""DiskCache's usage record (kiln/_backend/cache.py): a process's first write does not scan a folder the record
says is under its bound; a stale or damaged record is not trusted; the bound holds across several writers and
eviction still frees the least recently used entries. Sizes are checked against the files on disk (os.stat)."""

import os
import time

import pytest

from kiln._backend import cache


def _on_disk(folder) -> int:
    return sum(p.stat().st_size for p in folder.glob(f"*{cache.SUFFIX}"))


def _usage(folder) -> tuple[int, float] | None:
    """The usage record, read as a process would (under the lock)."""
    flock = cache._Flock(folder / cache.LOCK_NAME, blocking=True)
    with flock:
        return cache._read_usage(flock.fd)


def _set_usage(folder, total: int, scanned: float) -> None:
    flock = cache._Flock(folder / cache.LOCK_NAME, blocking=True)
    with flock:
        assert cache._write_usage(flock.fd, total, scanned)


@pytest.fixture
def scans(monkeypatch):
    """How many full scans ran."""
    count = [0]
    real = cache._scan

    def counted(path):
        count[0] += 1
        return real(path)

    monkeypatch.setattr(cache, "_scan", counted)
    return count


def _fill(folder, n: int, size: int) -> None:
    now = time.time()
    for i in range(n):
        p = folder / f"old{i:04d}{cache.SUFFIX}"
        p.write_bytes(bytes(size))
        os.utime(p, (now - 1000 + i, now - 1000 + i))  # old0000 is the least recently used


def test_a_new_process_first_write_trusts_a_fresh_record(tmp_path, scans):
    _fill(tmp_path, 50, 1000)
    cache.DiskCache(tmp_path, 100_000).evict()  # a scan: writes the record
    assert scans[0] == 1
    later = cache.DiskCache(tmp_path, 100_000)  # another process, later: its first write
    later.put("new", bytes(700))
    assert scans[0] == 1  # no scan
    assert _usage(tmp_path)[0] == _on_disk(tmp_path) == 50_700  # the write was credited


@pytest.mark.parametrize("record", ["stale", "future", "damaged", "missing"])
def test_an_untrusted_record_means_a_scan(tmp_path, scans, record):
    _fill(tmp_path, 20, 1000)  # 20 kB, over the 15 kB bound
    stale_tmp = tmp_path / f"{cache.TMP_PREFIX}left"
    stale_tmp.write_bytes(b"x")
    old = time.time() - cache.STALE_TMP_SECONDS - 1
    os.utime(stale_tmp, (old, old))
    when = {"stale": time.time() - cache.USAGE_MAX_AGE - 5, "future": time.time() + 3600}.get(record, time.time())
    if record == "damaged":  # a torn write: a smaller total over the digits of a larger one
        _set_usage(tmp_path, 123456, time.time())
        text = (tmp_path / cache.LOCK_NAME).read_bytes()
        (tmp_path / cache.LOCK_NAME).write_bytes(text.replace(b"123456", b"000456"))
    elif record != "missing":
        _set_usage(tmp_path, 0, when)  # says empty: wrong
    cache.DiskCache(tmp_path, 15_000).put("new", bytes(1000))
    assert scans[0] == 1
    assert _on_disk(tmp_path) <= 15_000 * cache.LOW_WATER
    assert not (tmp_path / "old0000-cache").exists() and (tmp_path / "new-cache").exists()
    assert not stale_tmp.exists()  # a killed writer's temporary goes at the scan
    assert _usage(tmp_path)[0] == _on_disk(tmp_path)


def test_several_writers_keep_the_folder_under_its_bound(tmp_path):
    """Six writers (processes, each with its own store) interleave small writes, each well under the 5% of the
    bound after which a writer used to scan again: after every write the folder is within its bound."""
    bound = 60_000
    writers = [cache.DiskCache(tmp_path, bound) for _ in range(6)]
    for round_ in range(20):
        for w, store in enumerate(writers):
            store.put(f"w{w}-{round_}", bytes(1000))
            assert _on_disk(tmp_path) <= bound
    assert _usage(tmp_path)[0] == _on_disk(tmp_path)  # the record is exact without other writers


def test_eviction_still_happens_under_a_trusted_record(tmp_path, scans):
    _fill(tmp_path, 9, 1000)
    cache.DiskCache(tmp_path, 10_000).evict()
    store = cache.DiskCache(tmp_path, 10_000)
    store.put("a", bytes(1000))  # 10 kB: at the bound, no scan
    assert scans[0] == 1
    store.put("b", bytes(1000))  # 11 kB: over, scan and evict down to 9 kB
    assert scans[0] == 2
    left = {p.name.removesuffix(cache.SUFFIX) for p in tmp_path.glob(f"*{cache.SUFFIX}")}
    assert _on_disk(tmp_path) <= 9000
    assert {"a", "b"} <= left and "old0000" not in left and "old0001" not in left
    assert _usage(tmp_path)[0] == _on_disk(tmp_path)


def test_a_writer_that_finds_the_lock_taken_credits_later(tmp_path, scans):
    """While another process holds the lock, writes are counted and credited at the next write that gets it."""
    cache.DiskCache(tmp_path, 100_000).evict()
    store = cache.DiskCache(tmp_path, 100_000)
    with cache._Flock(tmp_path / cache.LOCK_NAME, blocking=True):
        store.put("a", bytes(1000))
        store.put("b", bytes(1000))
    store.put("c", bytes(1000))
    assert scans[0] == 1
    assert _usage(tmp_path)[0] == _on_disk(tmp_path) == 3000


def test_clear_drops_the_record(tmp_path):
    store = cache.DiskCache(tmp_path, 100_000)
    store.put("a", bytes(1000))
    assert _usage(tmp_path)[0] == 1000
    cache.clear(tmp_path)
    assert _usage(tmp_path) is None  # the next writer scans the emptied folder
