"""The XLA options of PyNative's kernels (kiln/_backend/cache.py `persistent_jit`): a kernel kept in memory only
(no name that means the same program in every process, or the on-disk cache off) compiles with the same options
as one kept on disk."""

import os

import jax
import numpy as np

from kiln._backend import cache


def test_kernel_without_a_key_compiles_with_kilns_options(monkeypatch):
    cache._cpu_options_accepted()  # XLA is asked once a process, before the spy goes in
    seen = []
    original = jax.jit

    def spy(fun, **kwargs):
        seen.append(kwargs.get("compiler_options"))
        return original(fun, **kwargs)

    monkeypatch.setattr(jax, "jit", spy)
    fn = cache.persistent_jit(lambda a, b: a * b + 1, None)
    assert not isinstance(fn, cache.PersistentJit)
    x = jax.device_put(np.arange(6, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(fn(x, x)), np.arange(6) ** 2 + 1)
    expected = cache._compiler_options("cpu") if jax.default_backend() == "cpu" else None
    assert seen == [expected]
    if jax.default_backend() == "cpu" and "xla_cpu_use_fusion_emitters" not in os.environ.get("XLA_FLAGS", ""):
        assert expected == {"xla_cpu_use_fusion_emitters": False}


def test_cache_off_compiles_with_kilns_options(monkeypatch):
    cache._cpu_options_accepted()  # XLA is asked once a process, before the spy goes in
    monkeypatch.setattr(cache, "_store", None)
    seen = []
    original = jax.jit
    monkeypatch.setattr(jax, "jit", lambda fun, **kw: seen.append(kw.get("compiler_options")) or original(fun, **kw))
    fn = cache.persistent_jit(lambda a: a - 1, "test-cache-off")
    assert not isinstance(fn, cache.PersistentJit)
    np.testing.assert_array_equal(np.asarray(fn(jax.device_put(np.ones(3, np.float32)))), [0, 0, 0])
    assert seen == [cache._compiler_options("cpu") if jax.default_backend() == "cpu" else None]


def test_cpu_options_are_left_out_where_xla_does_not_know_them(monkeypatch):
    """A newer jaxlib without the classic-emitter flag still compiles (with XLA's defaults), and this one asks."""
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    monkeypatch.setattr(cache, "_cpu_options_known", False)
    assert not (cache._compiler_options("cpu") or {}).keys() & cache._CPU_OPTIONS.keys()
    monkeypatch.setattr(cache, "_cpu_options_known", True)
    assert cache._compiler_options("cpu").keys() >= cache._CPU_OPTIONS.keys()
