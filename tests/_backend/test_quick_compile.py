"""Quick first compiles (kiln/_backend/cache.py): kernels whose results cannot depend on LLVM's optimisation
level compile at -O0 first and hand over to the optimised executable once they run again.

The claim that lets Kiln do this without changing a single bit of any result is checked here: every kind of
program the predicate accepts gives bit-identical outputs at -O0 and -O2, and the predicate rejects the kinds
that do not (a multiply that may become an FMA, a polynomial transcendental, a dot XLA emits as a loop).
"""

import pickle

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax

from kiln._backend import cache

RNG = np.random.default_rng(0)


def _r(*shape, dtype=np.float32):
    return jnp.asarray(RNG.standard_normal(shape).astype(dtype))


def _maxpool(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")


INVARIANT = {  # what PyNative's elementwise, pooling and layout kernels lower to
    "relu": (lambda x: jnp.maximum(x, 0), (_r(32, 6, 28, 28),)),
    "relu_grad": (lambda x, g: jnp.where(x > 0, g, 0), (_r(32, 16, 10, 10), _r(32, 16, 10, 10))),
    "maxpool": (_maxpool, (_r(32, 6, 28, 28),)),
    "maxpool_grad": (lambda x, g: jax.vjp(_maxpool, x)[1](g)[0], (_r(32, 6, 28, 28), _r(32, 6, 14, 14))),
    "reshape_transpose": (lambda x: x.reshape(32, -1).T, (_r(32, 16, 5, 5),)),
    "add_sub_neg": (lambda a, b: -(a + b) - a, (_r(37, 101), _r(37, 101))),
    "sums": (lambda a: (a.sum(), a.sum(0), a.max(1), a.min()), (_r(37, 1001),)),
    "concat_slice_pad": (lambda a: jnp.pad(jnp.concatenate([a, a[:, ::-1]], 1)[:, 3:], 2), (_r(9, 33),)),
    "clip_abs_select": (lambda a: jnp.where(jnp.abs(a) > 1, jnp.clip(a, -0.5, 0.5), a), (_r(64, 65),)),
    "cast_f16": (lambda a, b: a.astype(jnp.float16) + b.astype(jnp.float16), (_r(33, 17), _r(33, 17))),
    "gather": (lambda a, i: a[i], (_r(50, 7), jnp.asarray(RNG.integers(0, 50, 30)))),
}
VARIANT = {  # results may differ between -O0 and -O2: never compiled quick
    "fma": (lambda a, b: a * b + a, (_r(64, 517), _r(64, 517))),
    "tanh": (lambda a: jnp.tanh(a), (_r(64, 517),)),
    "exp": (lambda a: jnp.exp(a), (_r(8, 8),)),
    "divide": (lambda a, b: a / b, (_r(8, 8), _r(8, 8))),
    "matvec": (lambda a, b: a @ b, (_r(1, 400), _r(400, 120))),
    "conv": (lambda a, b: lax.conv(a, b, (1, 1), "VALID"), (_r(2, 3, 9, 9), _r(4, 3, 3, 3))),
}


def _outputs(fn, args, level):
    jax.clear_caches()
    # Kiln's CPU options where this XLA knows them (jaxlib 0.11 dropped `xla_cpu_use_fusion_emitters`), as Kiln compiles
    cpu = cache._CPU_OPTIONS if cache._cpu_options_accepted() else {}
    options = {**cpu, "xla_backend_optimization_level": level}
    compiled = jax.jit(fn).lower(*args).compile(options)
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(compiled(*args))]


@pytest.mark.parametrize("name", sorted(INVARIANT))
def test_accepted_programs_are_bit_identical_at_every_level(name):
    fn, args = INVARIANT[name]
    assert cache._tier_invariant(jax.jit(fn).lower(*args).as_text()), name
    quick, optimised = _outputs(fn, args, 0), _outputs(fn, args, 2)
    for a, b in zip(quick, optimised, strict=True):
        assert a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)


@pytest.mark.parametrize("name", sorted(VARIANT))
def test_programs_that_may_differ_are_rejected(name):
    fn, args = VARIANT[name]
    assert not cache._tier_invariant(jax.jit(fn).lower(*args).as_text())


def test_fma_does_differ_between_levels():
    """Why the predicate matters: the same program gives other bits at -O0 (no FMA contraction)."""
    fn, args = VARIANT["fma"]
    assert not np.array_equal(_outputs(fn, args, 0)[0], _outputs(fn, args, 2)[0])


def _entry(path):
    (entry,) = path.glob(f"kiln-*{cache.SUFFIX}")
    quick, _ = pickle.loads(entry.read_bytes())
    return quick


@pytest.fixture
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(cache, "_store", cache.DiskCache(tmp_path, 2**30))
    monkeypatch.setattr(cache, "_ours", True)
    monkeypatch.setattr(cache, "QUICK_FIRST_COMPILE", True)
    yield tmp_path
    cache.wait_optimized()
    cache.flush_writes()


def _wait_for_upgrades():
    cache.wait_optimized()


def test_quick_then_optimised_with_the_same_results(store):
    fn = cache.PersistentJit(lambda a, b: jnp.where(a > 0, b, -b), "test-quick")
    a, b = _r(16, 33), _r(16, 33)
    expected = np.where(np.asarray(a) > 0, np.asarray(b), -np.asarray(b))
    first = fn(a, b)
    (held,) = fn._mem.values()
    assert isinstance(held, cache._Quick)
    cache.flush_writes()
    assert _entry(store) is True  # stored as quick
    second = fn(a, b)  # the second call starts the optimised compile
    _wait_for_upgrades()
    third = fn(a, b)  # runs the optimised executable and puts it in the quick one's place
    (held,) = fn._mem.values()
    assert not isinstance(held, cache._Quick)
    for out in (first, second, third, fn(a, b)):
        np.testing.assert_array_equal(np.asarray(out), expected)
    cache.flush_writes()
    assert _entry(store) is False  # replaced by the optimised one


def test_loaded_quick_entry_is_optimised_too(store):
    make = lambda: cache.PersistentJit(lambda a: jnp.maximum(a, 0).sum(0), "test-quick-load")  # noqa: E731
    a = _r(8, 5)
    make()(a)
    cache.flush_writes()
    fn = make()  # another process: loads the quick entry
    out = [np.asarray(fn(a)) for _ in range(2)]
    (held,) = fn._mem.values()
    # what it lowers again from: abstract values, not the buffers (nor a lowered program: no quick executable keeps one)
    assert isinstance(held, cache._Quick) and all(isinstance(x, jax.ShapeDtypeStruct) for x in held.args)
    _wait_for_upgrades()
    out.append(np.asarray(fn(a)))
    assert held.better is not None
    for o in out:
        np.testing.assert_array_equal(o, np.maximum(np.asarray(a), 0).sum(0))
    cache.flush_writes()
    assert _entry(store) is False


def test_programs_that_may_differ_compile_optimised_at_once(store):
    fn = cache.PersistentJit(lambda a, b: a * b + a, "test-not-quick")
    fn(_r(4, 4), _r(4, 4))
    (held,) = fn._mem.values()
    assert not isinstance(held, cache._Quick)
    cache.flush_writes()
    assert _entry(store) is False


def test_switched_off(store, monkeypatch):
    monkeypatch.setattr(cache, "QUICK_FIRST_COMPILE", False)
    fn = cache.PersistentJit(lambda a: jnp.maximum(a, 0), "test-quick-off")
    fn(_r(4, 4))
    (held,) = fn._mem.values()
    assert not isinstance(held, cache._Quick)
