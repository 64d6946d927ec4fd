"""The cyclic garbage collector is paused while a program is traced and compiled (kiln/_backend/gc_pause.py), and
only then: it comes back on after the build, nested pauses included, and stays off for a user who turned it off."""

from __future__ import annotations

import gc

import numpy as np

from kiln import _backend as B
from kiln._backend import gc_pause


def test_a_pause_nests_and_restores_the_collector():
    assert gc.isenabled()
    with gc_pause.paused():
        assert not gc.isenabled()
        with gc_pause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_collector_the_user_turned_off_stays_off():
    gc.disable()
    try:
        with gc_pause.paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_a_program_is_traced_with_the_collector_paused():
    seen = []

    def f(x):
        seen.append(gc.isenabled())  # (runs while the program is traced)
        return x * 2.0 + 1.0

    program = B.cache.persistent_jit(f, None, tiered=True, label="a test program")
    out = program(B.jnp.asarray(np.arange(3.0, dtype=np.float32)))
    np.testing.assert_array_equal(np.asarray(out), [1.0, 3.0, 5.0])
    assert seen == [False]
    assert gc.isenabled()
