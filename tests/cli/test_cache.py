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
from kiln._backend.cache import DiskCache

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
    # A writer skips eviction while another process holds the lock, so the folder may end a little over the
    # bound (by how much depends on scheduling); the first uncontended scan brings it back under.
    DiskCache(tmp_path, max_size=40_000).evict()
    total = sum(p.stat().st_size for p in tmp_path.glob(f"*{cache.SUFFIX}"))
    assert total <= 40_000


def test_small_executables_persist_across_processes(tmp_path):
    """PyNative's per-op executables reach the disk, and a second process finds them there."""
    script = "import numpy as np, kiln; from kiln import ops; print(ops.add(kiln.Tensor(np.ones(3, np.float32)), 1))"
    # A fixed source key: Kiln's sources may be edited between the two processes (a shared working tree)
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "xla"), "PYTHONPATH": str(REPO), cache.ENV_SOURCE_KEY: "t"}
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


def test_persistent_jit_matches_jit_and_falls_back(tmp_path, monkeypatch):
    import numpy as np

    from kiln._backend import jax

    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    fn = cache.persistent_jit(lambda a, b, c: a * b + (0 if c is None else c), "test-fma")
    assert isinstance(fn, cache.PersistentJit)
    x = jax.device_put(np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(np.asarray(fn(x, 2.0, None)), np.asarray(x) * 2)
    np.testing.assert_array_equal(np.asarray(fn(x, x, 1)), np.asarray(x) ** 2 + 1)
    cache.flush_writes()
    assert len(list(tmp_path.glob(f"kiln-*{cache.SUFFIX}"))) == 2  # one executable per signature
    # Inside a trace the arguments are tracers: the plain jax.jit path.
    np.testing.assert_array_equal(np.asarray(jax.jit(lambda y: fn(y, 3.0, None))(x)), np.asarray(x) * 3)
    # A damaged entry is compiled again.
    for p in tmp_path.glob(f"kiln-*{cache.SUFFIX}"):
        p.write_bytes(b"garbage")
    again = cache.persistent_jit(lambda a, b, c: a * b + (0 if c is None else c), "test-fma")
    np.testing.assert_array_equal(np.asarray(again(x, 2.0, None)), np.asarray(x) * 2)


def test_persistent_jit_loads_in_a_second_process(tmp_path):
    """The second process gets the executable from the folder: nothing is compiled or written again."""
    script = textwrap.dedent(
        """
        import os
        import numpy as np
        from kiln._backend import cache, jax, jnp
        fn = cache.persistent_jit(lambda a: jnp.tanh(a) * 2, "test-tanh2")
        if os.environ.get("NO_COMPILE"):
            fn._jitted = None  # a trace, lower or compile would fail now
        print(float(np.asarray(fn(jax.device_put(np.ones(5, np.float32))))[0]))
        """
    )
    env = {**os.environ, "KILN_CACHE_DIR": str(tmp_path / "xla"), "PYTHONPATH": str(REPO), cache.ENV_SOURCE_KEY: "t"}
    outs = []
    for second in (False, True):
        env["NO_COMPILE"] = "1" if second else ""
        done = subprocess.run([sys.executable, "-c", script], check=True, env=env, capture_output=True, text=True)
        outs.append(done.stdout.split()[-1])
        outs.append(sorted(p.name for p in (tmp_path / "xla").glob(f"kiln-*{cache.SUFFIX}")))
    assert float(outs[0]) == float(outs[2]) == pytest.approx(2 * 0.7615942)
    assert len(outs[1]) == 1 and outs[1] == outs[3]
