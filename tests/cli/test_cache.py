"""`kiln cache info|clear` and the on-disk executable cache behind it (kiln/_backend/cache.py)."""

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from kiln.__main__ import main
from kiln._backend import cache

REPO = Path(__file__).resolve().parents[2]


def _fill(folder: Path, n: int, size: int = 1000) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for i in range(n):
        (folder / f"jit_f-{i:04d}{cache.SUFFIX}").write_bytes(b"x" * size)


def test_info_shows_location_entries_and_size(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "xla"
    _fill(folder, 3, 2**19)
    monkeypatch.setenv("KILN_CACHE_DIR", str(folder))
    monkeypatch.setenv("KILN_CACHE_MAX_MB", "64")
    assert main(["cache", "info"]) == 0
    out = capsys.readouterr().out
    assert f"location: {folder}" in out
    assert "entries:  3 compiled executables" in out
    assert "size:     1.5 MiB of at most 64.0 MiB" in out


def test_clear_removes_everything(tmp_path, monkeypatch, capsys):
    folder = tmp_path / "xla"
    _fill(folder, 5)
    (folder / "sub").mkdir()
    (folder / "sub" / "autotune.txt").write_text("x")
    monkeypatch.setenv("KILN_CACHE_DIR", str(folder))
    assert main(["cache", "clear"]) == 0
    assert "Removed 5 compiled executables" in capsys.readouterr().out
    assert [p.name for p in folder.rglob("*")] in ([], [cache.LOCK_NAME])
    assert main(["cache", "info"]) == 0
    assert "entries:  0 compiled executables" in capsys.readouterr().out


def test_info_when_off(monkeypatch, capsys):
    monkeypatch.setenv("KILN_CACHE_DIR", "off")
    assert cache.cache_dir() is None
    assert main(["cache", "info"]) == 0
    assert "off" in capsys.readouterr().out


def test_defaults(monkeypatch):
    monkeypatch.delenv("KILN_CACHE_DIR", raising=False)
    monkeypatch.delenv("KILN_CACHE_MAX_MB", raising=False)
    assert cache.cache_dir() == Path.home() / ".cache" / "kiln" / "xla"
    assert cache.max_bytes() == 1024 * 2**20
    monkeypatch.setenv("KILN_CACHE_MAX_MB", "0.5")
    assert cache.max_bytes() == 2**19


def test_store_roundtrip_is_atomic(tmp_path):
    store = cache.DiskCache(tmp_path, max_size=2**20)
    assert store.get("k1") is None
    store.put("k1", b"abc")
    store.put("k1", b"other")  # an existing entry is kept
    assert store.get("k1") == b"abc"
    assert sorted(p.name for p in tmp_path.iterdir() if p.name != cache.LOCK_NAME) == [f"k1{cache.SUFFIX}"]
    with pytest.raises(ValueError):
        store.get("")


def test_eviction_is_least_recently_used(tmp_path):
    store = cache.DiskCache(tmp_path, max_size=10_000)
    now = time.time()
    for i in range(8):
        store.put(f"k{i}", bytes(1000))
        os.utime(tmp_path / f"k{i}{cache.SUFFIX}", (now - 100 + i, now - 100 + i))
    assert store.get("k0") is not None  # k0 is now the most recently used
    store.put("k8", bytes(1000))
    store.put("k9", bytes(1000))
    store.put("k10", bytes(1000))  # 11 kB > 10 kB: evict down to 9 kB
    left = {p.name.removesuffix(cache.SUFFIX) for p in tmp_path.glob(f"*{cache.SUFFIX}")}
    assert sum(p.stat().st_size for p in tmp_path.glob(f"*{cache.SUFFIX}")) <= 9000
    assert "k0" in left and "k10" in left
    assert "k1" not in left and "k2" not in left  # the least recently used went first
    store.put("huge", bytes(20_000))  # larger than the bound: not stored
    assert store.get("huge") is None


_WORKER = textwrap.dedent(
    """
    import os, sys
    from kiln._backend.cache import DiskCache
    store = DiskCache(sys.argv[1], max_size=40_000)
    seed = int(sys.argv[2])
    bad = 0
    for i in range(300):
        key = f"k{(i * 7 + seed) % 60}"
        value = key.encode() * 500
        got = store.get(key)
        if got is not None and got != value:
            bad += 1
        store.put(key, value)
    print("bad", bad)
    """
)


def test_concurrent_processes(tmp_path):
    """Four processes read, write and evict in one small folder: every read is whole, the bound holds."""
    env = {**os.environ, "KILN_CACHE_DIR": "off", "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(tmp_path), str(seed)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
        )
        for seed in range(4)
    ]
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        assert out.split() == ["bad", "0"]
    leftovers = [p for p in tmp_path.iterdir() if p.name.startswith(cache.TMP_PREFIX)]
    assert leftovers == []
    total = sum(p.stat().st_size for p in tmp_path.glob(f"*{cache.SUFFIX}"))
    assert total <= 40_000 + 4 * 4 * 500  # the bound, plus what other processes wrote since the last scan


def test_small_executables_persist_across_processes(tmp_path):
    """PyNative's per-op executables reach the disk, and a second process finds them there."""
    script = "import numpy as np, kiln; from kiln import ops; print(ops.add(kiln.Tensor(np.ones(3, np.float32)), 1))"
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "xla"), "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-c", script], check=True, env=env, capture_output=True)
    first = cache.info(tmp_path / "xla")
    assert first.entries >= 1
    subprocess.run([sys.executable, "-c", script], check=True, env=env, capture_output=True)
    assert cache.info(tmp_path / "xla").entries == first.entries  # all hits: nothing new written


def test_enable_is_idempotent():
    first = cache.enable()
    assert cache.enable() == first == cache.enabled_dir()


def test_unusable_folder_leaves_compiling_working(tmp_path):
    """A cache folder that cannot be created (here: under a file) turns the cache off, nothing else."""
    blocker = tmp_path / "file"
    blocker.write_text("x")
    script = (
        "import numpy as np, kiln; from kiln import ops; from kiln._backend import cache; "
        "print(cache.enabled_dir(), ops.add(kiln.Tensor(np.ones(2, np.float32)), 1))"
    )
    env = {**os.environ, "KILN_CACHE_DIR": str(blocker / "xla"), "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", script], check=True, env=env, capture_output=True, text=True).stdout
    assert out.split()[0] == "None" and "[2. 2.]" in out
