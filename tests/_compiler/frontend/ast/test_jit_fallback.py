"""JIT fallback at run time, as a user sees it in PyNative, GRAPH_MODE, `@jit` and bytecode capture (issue 18,
point 11): `asnumpy()`, NumPy calls, `print` and f-strings of Tensors, `in`/`len`/`max` on Tensors whose values
are known only when the graph runs are host steps of the compiled program, in program order, also inside
branches and loops whose condition is a Tensor; the rest stays compiled."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from kiln._compiler.errors import GraphCompileError
from tests._compiler.frontend.ast.modes import MODES, compiled


def _numpy_round_trip(x):
    y = x * 2
    total = np.sum(y.asnumpy())
    return x + Tensor(total)


@pytest.mark.parametrize("mode", MODES)
def test_asnumpy_and_numpy_calls_on_run_time_values(mode):
    fn = compiled(mode, _numpy_round_trip)
    np.testing.assert_allclose(fn(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [7, 8])
    np.testing.assert_allclose(fn(Tensor(np.array([0.5, 0.5], np.float32))).asnumpy(), [2.5, 2.5])


def _numpy_statistics(x):
    a = (x * 2).asnumpy()
    return x - np.mean(a) + np.std(a) * np.var(a, ddof=1)


@pytest.mark.parametrize("mode", MODES)
def test_numpy_functions_that_call_a_method_of_their_argument(mode):
    # np.mean/std/var call `a.mean(axis=None, dtype=None, out=None)` on what is not an ndarray: in a graph
    # `x.asnumpy()` is a run-time Tensor, and this failed with "_mean_method() got an unexpected keyword
    # argument 'dtype'" (MindSpore 2.10's graph mode runs it)
    x = np.array([1.0, 2.0, 4.0], np.float32)
    want = x - np.mean(2 * x) + np.std(2 * x) * np.var(2 * x, ddof=1)
    got = compiled(mode, _numpy_statistics)(Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)


def _numpy_mean_of_a_tensor(x):
    return x - np.mean(x * 2)


def test_a_numpy_function_of_a_run_time_tensor_under_strict_says_why():
    # was the TypeError of NumPy's call of Tensor.mean with its own keywords
    strict = ms.jit(_numpy_mean_of_a_tensor, jit_config=ms.JitConfig(jit_syntax_level="STRICT"))
    with pytest.raises(GraphCompileError, match="needs the value of a Tensor"):
        strict(Tensor(np.array([1.0, 2.0], np.float32)))


def _prints_fstring(x):
    y = x + 1
    print(f"y = {y}, sum {y.sum()}")
    return y


@pytest.mark.parametrize("mode", MODES)
def test_an_fstring_of_run_time_tensors_prints_their_values(mode, capfd):
    x = Tensor(np.array([1.0, 2.0], np.float32))
    fn = compiled(mode, _prints_fstring)
    fn(x)
    expected = f"y = {x + 1}, sum {(x + 1).sum()}"  # PyNative's text
    assert capfd.readouterr().out.splitlines() == [expected]
    fn(Tensor(np.array([5.0, 6.0], np.float32)))
    x2 = Tensor(np.array([6.0, 7.0], np.float32))
    assert capfd.readouterr().out.splitlines() == [f"y = {x2}, sum {x2.sum()}"]


def _membership(x):
    y = x * 2
    return len(y), 4.0 in y, 5.0 in y, 5.0 not in y, max(y)


@pytest.mark.parametrize("mode", MODES)
def test_len_in_and_max_on_run_time_tensors(mode):
    n, has4, has5, lacks5, top = compiled(mode, _membership)(Tensor(np.array([1.0, 2.0, 0.5], np.float32)))
    assert (n, has4, has5, lacks5) == (3, True, False, True)
    assert type(has4) is bool
    assert float(top) == 4.0


def _host_step_in_a_branch(x):
    if x.sum() > 0:
        y = Tensor(x.asnumpy() + 1)
    else:
        y = x * 10
    return y


@pytest.mark.parametrize("mode", MODES)
def test_asnumpy_inside_a_tensor_branch(mode):
    fn = compiled(mode, _host_step_in_a_branch)
    np.testing.assert_allclose(fn(Tensor(np.array([1.0, 2.0], np.float32))).asnumpy(), [2, 3])
    np.testing.assert_allclose(fn(Tensor(np.array([-1.0, -2.0], np.float32))).asnumpy(), [-10, -20])


def _host_step_in_a_loop(x):
    i = Tensor(0)
    while i < 3:
        x = x + Tensor(np.ones(2, np.float32) * float(x.asnumpy()[0]))
        i = i + 1
    return x


@pytest.mark.parametrize("mode", MODES)
def test_asnumpy_inside_a_tensor_while(mode):
    out = compiled(mode, _host_step_in_a_loop)(Tensor(np.array([1.0, 0.0], np.float32)))
    np.testing.assert_allclose(out.asnumpy(), [8, 7])


def _any_all_of_run_time_conditions(x):
    if any([x.sum() > 100, x.max() > 1]):
        y = x + 1
    else:
        y = x - 1
    return y, any([x.min() > 5, False]), all((x.max() > 1, x.min() > 0)), all([True, x.shape[0] > 1])


@pytest.mark.parametrize("mode", MODES)
def test_any_and_all_of_run_time_tensor_conditions(mode):
    # held-out probe any_all_builtin: GRAPH_MODE and @jit raised "asnumpy() reads a concrete value"
    fn = compiled(mode, _any_all_of_run_time_conditions)
    y, a, b, c = fn(Tensor(np.array([1.0, 2.0], np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [2.0, 3.0])
    assert (a, b, c) == (False, True, True) and all(type(v) is bool for v in (a, b, c))
    y, a, b, c = fn(Tensor(np.array([0.5, 1.0], np.float32)))
    np.testing.assert_allclose(y.asnumpy(), [-0.5, 0.0])
    assert (a, b, c) == (False, False, True)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("op", "expected"),
    [
        (ops.masked_select, [1.0, 3.0, -4.0]),
        (ops.argwhere, [[0, 0], [0, 1], [1, 0], [1, 1]]),
    ],
    ids=["masked_select", "argwhere"],
)
def test_a_library_op_with_a_value_dependent_shape_passed_straight_to_jit(mode, op, expected):
    x = Tensor(np.array([[1.0, -2.0], [3.0, -4.0]], np.float32))
    args = (x, Tensor(np.array([[True, False], [True, True]]))) if op is ops.masked_select else (x,)
    np.testing.assert_array_equal(compiled(mode, op)(*args).asnumpy(), expected)


@pytest.mark.parametrize("mode", MODES)
def test_unique_passed_straight_to_jit(mode):
    values, positions = compiled(mode, ops.unique)(Tensor(np.array([3, 1, 3, 2], np.int32)))
    np.testing.assert_array_equal(values.asnumpy(), [3, 1, 2])
    np.testing.assert_array_equal(positions.asnumpy(), [0, 1, 0, 2])


def _weighted_count(x, w):
    return (ops.bincount(x, w * w, minlength=8) * 2.0).sum()


def _grad_sum(x, w):
    return ms.grad(_weighted_count, 1)(x, w).sum()


def _in_mode(mode: str, fn):
    if mode == "graph":
        return compiled(mode, fn)
    return ms.jit(fn, capture_mode="bytecode" if mode == "bytecode" else "ast")


@pytest.mark.parametrize("mode", ["graph", "jit", "bytecode"])
def test_the_gradient_through_a_host_step_is_its_pynative_gradient(mode):
    # was GraphCompileError "'bincount' runs on the host ... has no derivative": the pullback runs on the host too
    x = Tensor(np.array([1, 3, 2, 3], np.int32))
    w = Tensor(np.array([0.5, 1.0, 2.0, 3.0], np.float32))
    eager = ms.grad(_weighted_count, 1)(x, w).asnumpy()
    np.testing.assert_allclose(eager, 4 * w.asnumpy())  # d/dw of sum(2 w^2)
    np.testing.assert_allclose(_in_mode(mode, ms.grad(_weighted_count, 1))(x, w).asnumpy(), eager)


@pytest.mark.parametrize("mode", ["jit", "bytecode"])
def test_a_second_gradient_through_a_host_step_is_a_kiln_error_naming_the_op(mode):
    x = Tensor(np.array([1, 3, 2, 3], np.int32))
    w = Tensor(np.array([0.5, 1.0, 2.0, 3.0], np.float32))
    np.testing.assert_allclose(ms.grad(_grad_sum, 1)(x, w).asnumpy(), [4, 4, 4, 4])  # PyNative
    with pytest.raises(GraphCompileError, match=r"the gradient of 'bincount' runs on the host, and a host step has no"):
        _in_mode(mode, ms.grad(_grad_sum, 1))(x, w)


def _raise_with_values(x):
    y = x * 2
    if y.shape[0] > 1:  # known while compiling: every call of this shape raises
        raise ValueError(f"y holds {y}")
    return y


@pytest.mark.parametrize("mode", MODES)
def test_a_raise_on_every_path_shows_the_run_time_values_in_its_message(mode):
    # was "y holds Tensor(shape=[2], ..., value=<symbolic>)" in graphs
    x = Tensor(np.array([1.0, 2.0], np.float32))
    with pytest.raises(ValueError, match=r"y holds \[2\. 4\.\]"):
        compiled(mode, _raise_with_values)(x)


def _raise_in_differentiated(x):
    if x.shape[0] > 1:
        raise ValueError(f"x is {x}")
    return x * x


@pytest.mark.parametrize("mode", MODES)
def test_a_raise_with_run_time_values_inside_a_gradient(mode):
    fn = compiled(mode, lambda x: ms.grad(_raise_in_differentiated)(x))
    with pytest.raises(ValueError, match=r"x is \[3\. 4\.\]"):
        fn(Tensor(np.array([3.0, 4.0], np.float32)))


def _returns_text(x, y):
    return x + 1, "x {} and {:>4}".format(x, y * 2), f"y={y!r}"  # noqa: UP032  (str.format is the point)


@pytest.mark.parametrize("mode", MODES)
def test_a_str_formatted_from_run_time_tensors_leaves_the_graph_as_pynative_gives_it(mode):
    # str.format and f-strings of run-time Tensors returned from a graph: were "Tensor(..., value=<symbolic>)"
    fn = compiled(mode, _returns_text)
    for x, y in ((Tensor([1]), Tensor(3)), (Tensor([5]), Tensor(-1))):
        got, want = fn(x, y), _returns_text(x, y)
        np.testing.assert_array_equal(got[0].asnumpy(), want[0].asnumpy())
        assert got[1:] == want[1:]
        assert isinstance(got[1], str)


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_str_format_with_named_fields_of_run_time_tensors(mode):
    # bytecode capture loses the keyword names of a call that becomes a Python step (KeyError, also before)
    def fn(x):
        return "{a!r}|{b:>3}|{0}".format(x, a=x * 2, b=x + 1)  # noqa: UP032  (str.format is the point)

    x = Tensor(4)
    assert compiled(mode, fn)(x) == fn(x)
