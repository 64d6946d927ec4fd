"""`_core/known_values`: the host's record of a few small integer arrays' values (an optimizer's global step), keyed
by the array object, bounded."""

from __future__ import annotations

import gc

import numpy as np
import pytest

from kiln import _backend as B
from kiln._core import known_values
from kiln._core.tensor import Pending


@pytest.fixture(autouse=True)
def empty():
    known_values.forget()
    yield
    known_values.forget()


def test_a_value_belongs_to_its_array_object_not_to_equal_ones():
    a = B.jnp.asarray(np.array([3], np.int32))
    known_values.remember(a, np.array([3], np.int32))
    np.testing.assert_array_equal(known_values.value(a), [3])
    assert known_values.value(B.jnp.asarray(np.array([3], np.int32))) is None  # an equal array: not known
    assert known_values.value(np.array([3], np.int32)) is None


def test_the_record_is_a_read_only_copy():
    a = B.jnp.asarray(np.array([3], np.int32))
    given = np.array([3], np.int32)
    known_values.remember(a, given)
    given[0] = 9
    kept = known_values.value(a)
    np.testing.assert_array_equal(kept, [3])
    with pytest.raises(ValueError):
        kept[0] = 4


def test_only_small_integer_arrays_are_kept():
    big = B.jnp.zeros(known_values.MAX_ELEMENTS + 1, np.int32)
    known_values.remember(big, np.zeros(known_values.MAX_ELEMENTS + 1, np.int32))
    floats = B.jnp.zeros(1, np.float32)
    known_values.remember(floats, np.zeros(1, np.float32))
    assert known_values.value(big) is None and known_values.value(floats) is None


def test_the_record_is_bounded_and_keeps_its_arrays_alive():
    # an entry holds its array, so no other array takes its id while it lives; the oldest entries go first
    arrays = [B.jnp.asarray(np.array([i], np.int32)) for i in range(known_values.MAX_ENTRIES + 10)]
    for i, a in enumerate(arrays):
        known_values.remember(a, np.array([i], np.int32))
    assert len(known_values._known) == known_values.MAX_ENTRIES
    assert known_values.value(arrays[0]) is None
    np.testing.assert_array_equal(known_values.value(arrays[-1]), [len(arrays) - 1])
    last = id(arrays[-1])
    del arrays
    gc.collect()
    assert known_values._known[last][0] is not None


def test_a_pending_value_is_held_weakly_and_moves_to_its_array():
    # what an op of the lazy window that increments its input records before the window runs
    before = B.jnp.asarray(np.array([4], np.int32))
    known_values.remember(before, np.array([4], np.int32))
    pending = Pending((1,), np.dtype(np.int32), False, None, 0)
    known_values.follow({0: (0, 1)}, [before], [pending], pending=True)
    np.testing.assert_array_equal(known_values.value(pending), [5])
    pending.array = B.jnp.asarray(np.array([5], np.int32))
    known_values.arrived()
    np.testing.assert_array_equal(known_values.value(pending.array), [5])
    assert not known_values.PENDING
    gone = Pending((1,), np.dtype(np.int32), False, None, 0)
    known_values.follow({0: (0, 1)}, [before], [gone], pending=True)
    del gone
    gc.collect()
    known_values.arrived()
    assert not known_values.PENDING  # (a value nobody holds any more is forgotten)


def test_an_increment_wraps_as_the_devices_integers_do():
    top = B.jnp.asarray(np.array([np.iinfo(np.int32).max], np.int32))
    known_values.remember(top, np.array([np.iinfo(np.int32).max], np.int32))
    out = top + 1
    known_values.follow({0: (0, 1)}, [top], [out])
    np.testing.assert_array_equal(known_values.value(out), np.asarray(out))
