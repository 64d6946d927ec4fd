"""Kiln's pytrees (kiln/_core/tree.py): flatten and unflatten give back the value's structure, and an ("f", pieces)
template (a str the compiler formats from run-time Tensors) gives back the str an f-string of them gives."""

from __future__ import annotations

import numpy as np

from kiln import Tensor
from kiln._core.tree import LEAF, flatten, unflatten


def test_flatten_and_unflatten_round_trip():
    value = (Tensor([1.0]), [2, Tensor([3.0])], {"k": Tensor([4.0])})
    leaves: list = []
    template = flatten(value, leaves)
    back = unflatten(template, iter(leaves))
    assert back[1][0] == 2 and isinstance(back[1], list) and set(back[2]) == {"k"}
    np.testing.assert_array_equal(back[2]["k"].asnumpy(), [4.0])


def test_a_formatted_template_is_the_fstring_of_its_leaves():
    x, y = Tensor([1, 2]), Tensor(3)
    template = ("s", tuple, (LEAF, ("f", ("x=", (LEAF, -1, ""), ", y=", (LEAF, 114, ">2")))))
    out = unflatten(template, iter([x._data, x._data, y._data]))
    assert out[1] == f"x={x}, y={y!r:>2}"
    assert isinstance(out[0], Tensor)
