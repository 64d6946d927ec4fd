"""PyNative's executables in memory (kiln/_backend/cache.py): bounded in number across every kernel together, freed
by XLA when dropped, and none keeps what JAX traced and lowered for its signature (that was 1.2 MB a small kernel,
several times the executable: a long process meeting ever new shapes grew without end)."""

import ctypes
import gc
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln import ops
from kiln._backend import cache
from kiln._pynative import dispatch


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A fresh on-disk cache (kernels compile here, not load), and each op run by its own kernel."""
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(dispatch, "LAZY", False)
    yield tmp_path
    cache.wait_optimized()  # what a background thread still stores goes into this folder, not the next test's
    cache.flush_writes()


def _live_executables() -> int:
    cache.flush_writes()  # the writer thread holds an executable until it is on disk
    gc.collect()
    return len(jax.devices()[0].client.live_executables())


def test_executables_of_all_kernels_are_bounded_together_and_released(store, monkeypatch):
    monkeypatch.setattr(cache, "MAX_EXECUTABLES", 6, raising=False)
    before = _live_executables()
    for n in range(1, 13):  # two kernels, twelve shapes each: 24 executables compiled
        a = np.linspace(-1, 1, n, dtype=np.float32)
        x = kiln.Tensor(a)
        np.testing.assert_allclose(ops.exp(x).asnumpy(), np.exp(a), rtol=1e-6)
        np.testing.assert_allclose(ops.tanh(x).asnumpy(), np.tanh(a), rtol=1e-6, atol=1e-7)
    # XLA's own count: the dropped executables are freed, not only forgotten
    assert _live_executables() - before <= 6
    assert cache.resident() <= 6
    # a dropped one comes back (from disk) with the same values
    a = np.array([0.5], np.float32)
    np.testing.assert_allclose(ops.exp(kiln.Tensor(a)).asnumpy(), np.exp(a), rtol=1e-6)


def test_a_dropped_kernel_releases_its_executables(store):
    fn = cache.persistent_jit(lambda a: jnp.sin(a) + 1, "test-resident-dropped")
    before = _live_executables()
    for n in range(1, 5):
        a = np.arange(n, dtype=np.float32)
        np.testing.assert_allclose(np.asarray(fn(jax.device_put(a))), np.sin(a) + 1, rtol=1e-6)
    assert _live_executables() - before == 4
    del fn
    assert _live_executables() == before


def _glibc_in_use() -> int:
    class MallInfo2(ctypes.Structure):
        _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks".split()]

    mallinfo2 = ctypes.CDLL(None).mallinfo2
    mallinfo2.restype = MallInfo2
    gc.collect()
    return mallinfo2().uordblks


@pytest.mark.skipif(
    not (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc"), reason="reads glibc's malloc statistics"
)
def test_a_kept_executable_does_not_keep_its_trace_and_lowering(store):
    """Each signature's executable is kept; JAX's jaxpr and MLIR module of it are not (they went with a jax.jit
    the PersistentJit kept alive for good)."""
    fn = cache.persistent_jit(lambda a: jnp.exp(a) * 2.0 + a, "test-resident-lowering")
    fn(jax.device_put(np.ones(1, np.float32)))  # first-use costs out of the way
    cache.flush_writes()
    n = 40
    before = _glibc_in_use()
    for i in range(2, n + 2):
        a = np.ones((i, 3), np.float32)
        np.testing.assert_allclose(np.asarray(fn(jax.device_put(a))), np.exp(a) * 2 + a, rtol=1e-6)
    cache.flush_writes()
    per_executable = (_glibc_in_use() - before) / n
    # measured: 0.18 MB each kept now, 1.4 MB when the trace and lowering were kept too
    assert per_executable < 0.6 * 2**20, per_executable / 2**20
