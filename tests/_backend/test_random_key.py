"""`random_key_data` (kiln/_backend): the seeded generator's raw key, built on the host without an XLA compile,
equal to what `jax.random.PRNGKey` gives for every seed Kiln accepts."""

import jax
import numpy as np
import pytest
from jax._src import compiler

from kiln import _backend as B
from kiln._core import random_state

SEEDS = (0, 1, 42, 2**31 - 1, 2**31, 2**32 - 1, 2**32, 2**32 + 5, 2**40 + 7, 2**63 - 1)


@pytest.mark.parametrize("seed", SEEDS)
def test_same_key_as_prngkey(seed):
    made = B.random_key_data(seed)
    expected = jax.random.key_data(jax.random.PRNGKey(seed))
    assert isinstance(made, jax.Array)
    assert made.dtype == expected.dtype and made.shape == expected.shape
    np.testing.assert_array_equal(np.asarray(made), np.asarray(expected))


def test_a_seed_past_64_bits_is_refused():
    with pytest.raises(OverflowError, match="64-bit"):
        B.random_key_data(2**63)


def test_set_seed_compiles_nothing(monkeypatch):
    monkeypatch.setattr(random_state, "_seed", random_state._seed)  # the global generator comes back after
    monkeypatch.setattr(random_state, "_key", random_state._key)
    compiles = []
    original = compiler.backend_compile_and_load
    monkeypatch.setattr(compiler, "backend_compile_and_load", lambda *a, **k: compiles.append(1) or original(*a, **k))
    random_state.set_seed(123456789012)
    assert compiles == []
    expected = jax.random.key_data(jax.random.PRNGKey(123456789012))
    np.testing.assert_array_equal(np.asarray(random_state.current_key()), np.asarray(expected))
