"""Primitive.set_user_data / get_user_data: data a caller keeps on one primitive instance."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops


def test_user_data_is_kept_per_instance_and_leaves_the_op_alone():
    x = Tensor(np.array([1.5, -2.25, 3.0]), kiln.float64)
    cast, other = ops.Cast(), ops.Cast()
    cast.set_user_data("__user_data__", x)
    other.set_user_data("__user_data__", 7)
    out = cast(x, kiln.float32)
    np.testing.assert_array_equal(out.asnumpy(), np.array([1.5, -2.25, 3.0], np.float32))
    assert cast.get_user_data("__user_data__") is x
    assert other.get_user_data("__user_data__") == 7


def test_a_key_never_set_is_a_key_error():
    cast = ops.Cast()
    cast.set_user_data("a", 1)
    with pytest.raises(KeyError):
        cast.get_user_data("b")
    with pytest.raises(KeyError):
        ops.Cast().get_user_data("a")
