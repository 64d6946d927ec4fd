"""Reductions that pick one element along an axis (max/min with index, argmax/argmin): a 0-d input, and the
gradient when elements tie for the extreme.

A 0-d Tensor reduced along axis 0 or -1 is its own extreme, at index 0 (MindSpore 2.10 and torch agree; checked
with a script file), in PyNative and in graphs, with the gradient passing through.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops
from tests._prims import extremum_tie_cases

HERE = os.path.dirname(os.path.abspath(__file__))


def _mode(mode, fn):
    return fn if mode == "pynative" else kiln.jit(fn)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
@pytest.mark.parametrize("axis", [0, -1])
@pytest.mark.parametrize("reduce", [ops.max, ops.min])
def test_max_and_min_with_index_of_a_0d_tensor(mode, axis, reduce):
    value, index = _mode(mode, lambda x: reduce(x, axis))(Tensor(np.int64(7)))
    assert (value.shape, index.shape) == ((), ())
    assert (int(value.asnumpy()), int(index.asnumpy())) == (7, 0)


@pytest.mark.parametrize("mode", ["pynative", "jit"])
@pytest.mark.parametrize("arg", [ops.argmax, ops.argmin])
def test_argmax_and_argmin_of_a_0d_tensor(mode, arg):
    index = _mode(mode, lambda x: arg(x, 0))(Tensor(np.float32(2.5)))
    assert index.shape == () and int(index.asnumpy()) == 0


def test_gradient_through_max_of_a_0d_tensor():
    assert float(kiln.grad(lambda x: ops.max(x, 0)[0] * 3)(Tensor(np.float32(2.0))).asnumpy()) == 3.0


def test_axis_1_of_a_0d_tensor_is_still_an_error():
    with pytest.raises((ValueError, IndexError)):
        ops.argmax(Tensor(np.float32(2.5)), 1)


def test_max_and_min_with_index_send_the_gradient_to_the_index_when_elements_tie():
    # MindSpore 2.10 gives a tied max's (or min's) whole gradient to the element at the returned index, in both
    # modes; Kiln shared it among the tied elements (found by the zoo's PointNet, whose max over points ties).
    # Goldens: make_extremum_tie_goldens_mindspore.py, cases: extremum_tie_cases.py.
    with open(os.path.join(HERE, "extremum_tie_goldens_mindspore.json")) as f:
        want = json.load(f)["cases"]
    got = extremum_tie_cases.run(kiln)
    assert sorted(got) == sorted(want)
    for case, grad in want.items():
        np.testing.assert_array_equal(np.array(got[case]), np.array(grad), err_msg=case)
