"""Python effects under Tensor control flow, as a user sees them in PyNative, GRAPH_MODE, `@jit` and bytecode
capture (issue 18, point 8): lists (`mutable()` ones too) mutated in both branches of a Tensor `if`, a Tensor
appended to a global list, `ops.Print` in a Tensor `while` (once per trip, as MindSpore 2.10 prints), branches whose
shapes differ (they run, as in MindSpore; more in tests/_compiler/test_specialise.py), second-order gradients through
a Tensor `while` (as MindSpore 2.10 gives them), a dict carried through a Tensor `while` (its keys fixed)."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, mutable, ops
from kiln._backend import jax, jnp, lax
from kiln._compiler.errors import GraphCompileError
from tests._compiler.frontend.ast.modes import MODES, compiled


def _append_in_both_branches(x):
    out = []
    if x.sum() > 0:
        out.append(x + 1)
        out.append(x * 0)
    else:
        out.append(x - 1)
        out.append(x)
    return out[0] * 2 + out[1], len(out)


@pytest.mark.parametrize("mode", MODES)
def test_list_append_in_both_branches_of_a_tensor_if(mode):
    fn = compiled(mode, _append_in_both_branches)
    x = np.array([1.0, 2.0, 0.5], np.float32)
    y, n = fn(Tensor(x))
    np.testing.assert_allclose(y.asnumpy(), (x + 1) * 2)
    assert n == 2
    y, n = fn(Tensor(-x))
    np.testing.assert_allclose(y.asnumpy(), (-x - 1) * 2 - x)
    assert n == 2


def _append_to_a_marked_list_in_both_branches(x, marked):
    out = list(mutable([x * 0], True)) if marked is None else marked
    if x.sum() > 0:
        out.append(x + 1)
    else:
        out.append(x - 1)
    return out[-1] * 2, len(out)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("make", ["mutable", "dynamic_len", "copy_inside"])
def test_a_mutable_list_appended_in_both_branches_of_a_tensor_if(mode, make):
    """A `mutable()` list (a list subclass), given or made inside the graph, joins its branches as a list does;
    it raised "value does not belong to this graph"."""
    fn = compiled(mode, _append_to_a_marked_list_in_both_branches)
    x = np.array([1.0, 2.0], np.float32)
    for sign in (1, -1):
        marked = {"mutable": mutable([Tensor(x)]), "dynamic_len": mutable([Tensor(x)], True)}.get(make)
        y, n = fn(Tensor(sign * x), marked)
        np.testing.assert_allclose(y.asnumpy(), (sign * x + sign) * 2)
        assert n == 2


def _list_made_and_grown_in_one_branch(x):
    if x.sum() > 0:
        box = [x]
        box.append(x * 3)  # a list the other branch never sees: nothing of it is joined
        y = box[-1] + box[0]
    else:
        y = x * 0.5
    return y


@pytest.mark.parametrize("mode", MODES)
def test_a_list_made_and_grown_inside_one_branch_stays_in_it(mode):
    fn = compiled(mode, _list_made_and_grown_in_one_branch)
    x = np.array([1.0, 2.0], np.float32)
    np.testing.assert_allclose(fn(Tensor(x)).asnumpy(), x * 4)
    np.testing.assert_allclose(fn(Tensor(-x)).asnumpy(), -x * 0.5)


def _append_in_one_branch_then_loop(x):
    acc = [x]
    if x.sum() > 0:
        acc.append(x * 3)
    else:
        acc.append(x * 5)
    total = acc[0]
    for item in acc[1:]:
        total = total + item
    return total


@pytest.mark.parametrize("mode", MODES)
def test_list_grown_under_a_tensor_if_is_read_after_it(mode):
    fn = compiled(mode, _append_in_one_branch_then_loop)
    np.testing.assert_allclose(fn(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [4, 8])
    np.testing.assert_allclose(fn(Tensor(np.array([-1.0, -2.0], np.float32))).asnumpy(), [-6, -12])


_COLLECTED: list = []


def _append_to_global(x):
    _COLLECTED.append(x * 2)
    return x + 1


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_appended_to_a_global_list_inside_a_graph(mode):
    _COLLECTED.clear()
    out = compiled(mode, _append_to_global)(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [2, 3])
    assert len(_COLLECTED) == 1 and isinstance(_COLLECTED[0], Tensor)


def _print_each_trip(x):
    i = Tensor(0)
    while i < x.sum():
        ops.Print()("trip", i)
        i = i + 1
    return i


@pytest.mark.parametrize("mode", MODES)
def test_ops_print_inside_a_tensor_while_prints_once_per_trip(mode, capfd):
    fn = compiled(mode, _print_each_trip)
    assert int(fn(Tensor(np.array([1.0, 2.0], np.float32)))) == 3
    lines = [ln for ln in capfd.readouterr().out.splitlines() if ln.startswith("trip")]
    assert lines == ["trip 0", "trip 1", "trip 2"]


def _shapes_differ(x):
    if x.sum() > 0:
        y = x[:2]
    else:
        y = x
    return y * 2


@pytest.mark.parametrize("mode", MODES)
def test_branches_of_different_shapes_run_as_in_pynative(mode):
    fn = compiled(mode, _shapes_differ)
    for x in ([1.0, 2.0, 0.5], [-1.0, 2.0, -3.0]):
        out = fn(Tensor(np.array(x, np.float32)))
        want = _shapes_differ(Tensor(np.array(x, np.float32)))
        assert out.shape == want.shape
        np.testing.assert_allclose(out.asnumpy(), want.asnumpy())


def _cube_by_while(x):
    y = x
    i = Tensor(0)
    while i < 2:
        y = y * x
        i = i + 1
    return y.sum()


def _second_derivative(x):
    return ms.grad(ms.grad(_cube_by_while))(x)


@pytest.mark.parametrize("mode", MODES)
def test_second_order_gradient_through_a_tensor_while(mode):
    x = np.array([1.0, 2.0, 0.5], np.float32)
    np.testing.assert_allclose(compiled(mode, _second_derivative)(Tensor(x)).asnumpy(), 6 * x, rtol=1e-6)


def _halved_squares(x, trips):
    i = trips * 0  # a Tensor counter: one compiled loop, not unrolled
    while i < trips:
        x = x * x * 0.5
        i = i + 1
    return x.sum()


def _scaled_sines(x, w, trips):
    i = trips * 0
    while i < trips:
        x = ops.sin(x * w) + x * 0.5
        i = i + 1
    return (x * x).sum()


def _second(fn, wrt):
    return ms.grad(ms.grad(fn, grad_position=wrt), grad_position=wrt)


@pytest.mark.parametrize("how", ("graph", "jit", "bytecode", "grad_of_jit"))
def test_second_order_gradient_through_a_compiled_tensor_while(how):
    """MindSpore 2.10's graph mode gives [0.4375, 4.9833984] for `_halved_squares` at [1, 1.5], 3 trips."""
    x, trips = Tensor(np.array([1.0, 1.5], np.float32)), Tensor(3)
    want = _second(_halved_squares, 0)(x, trips).asnumpy()
    np.testing.assert_allclose(want, [0.4375, 4.9833984], rtol=1e-6)
    if how == "grad_of_jit":
        got = _second(ms.jit(_halved_squares), 0)(x, trips)
    else:
        got = compiled(how, _second(_halved_squares, 0))(x, trips)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)


def _scaled_sines_second_jax(x: np.ndarray, w: np.ndarray, trips: int) -> np.ndarray:
    """`_second(_scaled_sines, 1)` by JAX in float64, the loop a `lax.fori_loop`."""

    def loss(x, w):
        x = lax.fori_loop(0, trips, lambda i, x: jnp.sin(x * w) + x * 0.5, x)
        return (x * x).sum()

    return np.asarray(jax.grad(lambda w: jax.grad(loss, argnums=1)(x, w).sum())(w))


@pytest.mark.parametrize("trips", (5, 1030))  # 1030: past the 1024 recorded trips (recomputed from the last)
def test_second_order_gradient_in_a_loop_constant_and_past_the_buffer(trips):
    x, w = np.array([0.3, -0.2], np.float32), np.array([0.9, 1.1], np.float32)
    want = _scaled_sines_second_jax(x.astype(np.float64), w.astype(np.float64), trips)
    args = Tensor(x), Tensor(w), Tensor(trips)
    got = ms.jit(_second(_scaled_sines, 1))(*args).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    if trips < 100:
        # PyNative unrolls the loop into its tape: 1,030 trips took 270 s on the 2-core CI machine (its lazy windows
        # of the second backward grow with the trips and XLA's compile of them grows faster), so only the short loop.
        np.testing.assert_allclose(_second(_scaled_sines, 1)(*args).asnumpy(), want, rtol=1e-4, atol=1e-6)


def _dict_through_a_while(v, w):
    box = {"a": v, "b": w}
    i = Tensor(0, ms.int32)
    while i < ops.cast(ops.abs(w).sum(), ms.int32) % 3 + 1:
        box["a"] = box["a"] * 0.75 + ops.tanh(box["b"]) * 0.25
        i = i + 1
    return box["a"], box["b"]


@pytest.mark.parametrize("mode", MODES)
def test_a_dict_carried_through_a_tensor_while(mode):
    v, w = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([0.5, 1.0], np.float32))
    a, b = compiled(mode, _dict_through_a_while)(v, w)
    want_a, want_b = _dict_through_a_while(v, w)
    np.testing.assert_allclose(a.asnumpy(), want_a.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(b.asnumpy(), want_b.asnumpy())
    grad = ms.grad(compiled(mode, lambda x, y: _dict_through_a_while(x, y)[0].sum()))(v, w)
    want = ms.grad(lambda x, y: _dict_through_a_while(x, y)[0].sum())(v, w)
    np.testing.assert_allclose(grad.asnumpy(), want.asnumpy(), rtol=1e-5)


def _dict_grows_in_a_while(x):
    box = {"a": x}
    i = Tensor(0, ms.int32)
    while i < ops.cast(x.sum(), ms.int32):
        box["b"] = box["a"] * 2
        i = i + 1
    return box["a"]


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_a_dict_whose_keys_change_in_a_tensor_while_is_a_kiln_error(mode):
    with pytest.raises(GraphCompileError, match="must keep its keys"):
        compiled(mode, _dict_grows_in_a_while)(Tensor(np.array([1.0], np.float32)))
