"""XLA's options for whole programs (kiln/_backend/cache.py `compile_program`): a CPU program with a loop in it (a
recurrent layer's time loop) compiles with `_LOOP_OPTIONS`, any other with XLA's defaults, and both give the values
of the program compiled by the backend itself.
"""

from __future__ import annotations

import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from kiln._backend import cache, tiers

RNG = np.random.default_rng(0)


def _loop(x, w):
    return jax.lax.scan(lambda h, _: (jnp.tanh(h @ w + 0.5), h.sum()), x, None, length=20)


def _no_loop(x, w):
    return jnp.tanh(x @ w + 0.5).sum()


def _args():
    return jnp.asarray(RNG.standard_normal((8, 64)), jnp.float32), jnp.asarray(
        RNG.standard_normal((64, 64)) * 0.1, jnp.float32
    )


def _compiled_options(monkeypatch, fun, cached: bool):
    """The options `compile_program` compiled `fun`'s program with (untiered), and the program's outputs."""
    monkeypatch.setenv(tiers.ENV, "0")
    seen = []
    original = cache.compile_fresh
    monkeypatch.setattr(
        cache, "compile_fresh", lambda lowered, options=None: seen.append(options) or original(lowered, options)
    )
    args = _args()
    lowered = jax.jit(fun).lower(*args)
    if cached:  # JAX's own cache compiles it: the options reach `Lowered.compile`
        through_jax = type(lowered).compile
        monkeypatch.setattr(
            type(lowered), "compile", lambda self, options=None: seen.append(options) or through_jax(self, options)
        )
    program = cache.compile_program(lowered, cached=cached)
    expected = jax.jit(fun)(*args)
    for got, want in zip(jax.tree.leaves(program(*args)), jax.tree.leaves(expected), strict=True):
        np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)
    assert len(seen) == 1
    return seen[0]


@pytest.mark.parametrize("cached", [False, True])
def test_a_program_with_a_loop_compiles_with_the_loop_options(monkeypatch, cached):
    if jax.default_backend() != "cpu":
        pytest.skip("the loop options are the CPU's")
    options = _compiled_options(monkeypatch, _loop, cached)
    if "xla_cpu_prefer_vector_width" in os.environ.get("XLA_FLAGS", ""):
        assert options is None  # the user's setting wins
    else:
        assert options == cache._LOOP_OPTIONS


@pytest.mark.parametrize("cached", [False, True])
def test_a_program_without_a_loop_keeps_xla_defaults(monkeypatch, cached):
    assert _compiled_options(monkeypatch, _no_loop, cached) is None


def test_an_xla_without_the_loop_options_compiles_with_its_defaults(monkeypatch):
    """The first program with a loop finds out: XLA refuses an option it does not know, and the program compiles
    again with XLA's defaults; later programs do not try the options."""
    if jax.default_backend() != "cpu":
        pytest.skip("the loop options are the CPU's")
    monkeypatch.setattr(cache, "_LOOP_OPTIONS", {"xla_cpu_kiln_no_such_option": True})
    monkeypatch.setattr(cache._LOOP_SUPPORT, "known", None)
    with pytest.raises(Exception, match=cache._UNKNOWN_OPTION):  # this XLA indeed refuses it
        jax.jit(_loop).lower(*_args()).compile(cache._LOOP_OPTIONS)
    tried = []
    original = cache.compile_fresh
    monkeypatch.setattr(
        cache, "compile_fresh", lambda lowered, options=None: tried.append(options) or original(lowered, options)
    )
    monkeypatch.setenv(tiers.ENV, "0")
    args = _args()
    program = cache.compile_program(jax.jit(_loop).lower(*args))
    np.testing.assert_allclose(np.asarray(program(*args)[0]), np.asarray(jax.jit(_loop)(*args)[0]), rtol=1e-6)
    assert tried == [cache._LOOP_OPTIONS, None] and cache._LOOP_SUPPORT.known is False
    cache.compile_program(jax.jit(_loop).lower(*args))
    assert tried[2:] == [None]
