"""The XLA options of PyNative's kernels (kiln/_backend/cache.py `persistent_jit`): a kernel kept in memory only
(no name that means the same program in every process, or the on-disk cache off) compiles with the same options
as one kept on disk."""

import os

import jax
import numpy as np
import pytest

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
        # an XLA that no longer knows the flag (jaxlib 0.11) compiles with its defaults
        assert expected == ({"xla_cpu_use_fusion_emitters": False} if cache._cpu_options_accepted() else None)


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
    monkeypatch.setattr(cache._CPU_SUPPORT, "known", False)
    assert not (cache._compiler_options("cpu") or {}).keys() & cache._CPU_OPTIONS.keys()
    monkeypatch.setattr(cache._CPU_SUPPORT, "known", True)
    assert cache._compiler_options("cpu").keys() >= cache._CPU_OPTIONS.keys()


def _lowered_add_one():
    x = jax.device_put(np.arange(4, dtype=np.float32))
    return jax.jit(lambda a: a + 1).lower(x), x


def test_the_first_kernel_answers_whether_xla_knows_the_cpu_options(monkeypatch):
    """No probe compile: the first kernel tries the options, and its success says XLA knows them."""
    if jax.default_backend() != "cpu" or "xla_cpu_use_fusion_emitters" in os.environ.get("XLA_FLAGS", ""):
        pytest.skip("Kiln's CPU options apply to CPU compiles not overridden by XLA_FLAGS")
    if not cache._cpu_options_accepted():
        pytest.skip("this jaxlib does not know the flag: the next test covers that case")
    monkeypatch.setattr(cache._CPU_SUPPORT, "known", None)
    seen = []
    original = cache.compile_fresh
    monkeypatch.setattr(
        cache, "compile_fresh", lambda lowered, options: seen.append(options) or original(lowered, options)
    )
    lowered, x = _lowered_add_one()
    np.testing.assert_array_equal(np.asarray(cache._compile_with_options(lowered, "cpu")(x)), [1, 2, 3, 4])
    assert seen == [cache._CPU_OPTIONS]
    assert cache._CPU_SUPPORT.known is True


def test_an_xla_without_the_cpu_options_compiles_the_first_kernel_without_them(monkeypatch):
    if jax.default_backend() != "cpu":
        pytest.skip("Kiln's CPU options apply to CPU compiles")
    monkeypatch.delenv("XLA_FLAGS", raising=False)
    monkeypatch.setattr(cache, "_CPU_OPTIONS", {"xla_kiln_test_option_nobody_knows": False})
    monkeypatch.setattr(cache._CPU_SUPPORT, "known", None)
    lowered, x = _lowered_add_one()
    np.testing.assert_array_equal(np.asarray(cache._compile_with_options(lowered, "cpu", quick=True)(x)), [1, 2, 3, 4])
    assert cache._CPU_SUPPORT.known is False
    assert cache._compiler_options("cpu") is None


def test_a_kernel_failing_for_another_reason_still_raises(monkeypatch):
    if jax.default_backend() != "cpu":
        pytest.skip("Kiln's CPU options apply to CPU compiles")
    monkeypatch.setattr(cache._CPU_SUPPORT, "known", None)

    def broken(lowered, options):
        raise RuntimeError("INVALID_ARGUMENT: something else")

    monkeypatch.setattr(cache, "compile_fresh", broken)
    lowered, _ = _lowered_add_one()
    with pytest.raises(RuntimeError, match="something else"):
        cache._compile_with_options(lowered, "cpu")
    assert cache._CPU_SUPPORT.known is None


def test_a_kernel_with_options_runs_inside_a_traced_program(monkeypatch):
    """JAX takes compiler options on a top-level jit only: a kernel kept in memory is staged without them into a
    program being traced (jit, grad, export), for tracer and concrete arguments alike; at top level it still compiles
    with them (test_cache_off_compiles_with_kilns_options). kiln.export of a PyNative network with the disk cache off
    failed here."""
    monkeypatch.setattr(cache, "_store", None)
    fn = cache.persistent_jit(lambda a: a * 3 - 1, "test-nested")
    x = jax.device_put(np.arange(4, dtype=np.float32))
    np.testing.assert_array_equal(np.asarray(fn(x)), [-1, 2, 5, 8])
    const = np.ones(4, np.float32)
    traced = jax.jit(lambda a: fn(a) + fn(const))
    np.testing.assert_array_equal(np.asarray(traced(x)), [1, 4, 7, 10])
    np.testing.assert_array_equal(np.asarray(jax.grad(lambda a: fn(a).sum())(x)), [3, 3, 3, 3])
    exported = jax.export.export(traced)(jax.ShapeDtypeStruct((4,), np.float32))
    np.testing.assert_array_equal(np.asarray(exported.call(x)), [1, 4, 7, 10])
