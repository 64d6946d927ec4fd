"""A compiled program run without jax.jit's dispatch (kiln/_backend/launch.py): the same outputs as jax.jit's call,
and no launch where jax.jit's call does more than run the executable."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from kiln._backend.launch import array_type, launch_of


def _run(launch, arrays):
    return launch.execute(list(arrays)).consume_with_handlers(launch.handlers)


def test_a_launch_gives_what_jax_jits_call_gives():
    def f(x, y):
        return x * y + 1, jnp.sin(x).sum()

    fn = jax.jit(f)
    x = jnp.asarray(np.random.default_rng(0).standard_normal((3, 4)), jnp.float32)
    y = jnp.asarray(np.random.default_rng(1).standard_normal((3, 4)), jnp.float32)
    want = fn(x, y)
    for program in (fn, fn.lower(x, y).compile()):  # a called jax.jit and a compiled executable
        launch = launch_of(program, [x, y])
        assert launch is not None and launch.avals == (x.aval, y.aval)
        got = _run(launch, [x, y])
        assert len(got) == 2
        for g, w in zip(got, want, strict=True):
            assert type(g) is array_type() and g.aval == w.aval and g.committed == w.committed
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_no_launch_where_jax_jits_call_does_more_than_run_the_executable():
    x = jnp.ones((2, 2), jnp.float32)

    unused = jax.jit(lambda a, b: a * 2)  # an input the executable does not take
    unused(x, x)
    assert launch_of(unused, [x, x]) is None

    def print_it(a):
        jax.debug.callback(lambda v: None, a)  # a host callback
        return a + 1

    callback = jax.jit(print_it)
    callback(x)
    assert launch_of(callback, [x]) is None

    plain = jax.jit(lambda a: a + 1)
    plain(x)
    assert launch_of(plain, [np.ones((2, 2), np.float32)]) is None  # not a device array
    with jax.debug_nans(True):  # jax.jit's call checks the outputs for NaNs
        assert launch_of(plain, [x]) is None
    assert launch_of(plain, [x]) is not None
