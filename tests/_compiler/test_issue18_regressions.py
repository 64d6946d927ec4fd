"""Issue 18, point by point, as a user sees it: graph mode (GRAPH_MODE, `@jit`, bytecode capture) computes what
PyNative computes.

3. an int Tensor combined with a Python float is float32, values and gradients as in PyNative;
6. `float(x)` / `int(x)` / `bool(x)` of a 0-d Tensor leaves a graph as the Python type, and so does Python
   arithmetic on them;
5. shapes that leave a graph compiled with `set_inputs` None dims are ints;
2. `assert` on a Tensor condition raises AssertionError when the graph runs (and keeps the gradient).
12. `jit(backend="GE")` runs, with a one-time warning that XLA compiles every graph.
8. `a, *rest = ...` (a starred assignment target) compiles and unpacks as Python does.

PYTEST_DONT_REWRITE: the `assert` statements of the programs under test must reach the compiler as written.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops
from kiln._compiler import api
from tests._compiler.frontend.ast.modes import Wrap

MODES = ("pynative", "graph", "jit", "bytecode")


def _run(mode: str, fn, *args):
    """`fn(*args)` in one of the four modes."""
    if mode == "pynative":
        return fn(*args)
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
        try:
            return Wrap(fn)(*args)
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
    if mode == "jit":
        return ms.jit(fn)(*args)
    return ms.jit(fn, capture_mode="bytecode")(*args)


def _int_plus_float(x):
    return x + 0.5, x * 1.0, x + 0.0, 2.5 - x


@pytest.mark.parametrize("mode", MODES)
def test_int_tensor_with_python_float_is_float32(mode):
    x = Tensor(np.array([1, 2, 3], np.int32))
    outs = _run(mode, _int_plus_float, x)
    assert [o.dtype for o in outs] == [ms.float32] * 4
    expected = [np.array([1.5, 2.5, 3.5]), np.array([1, 2, 3]), np.array([1, 2, 3]), np.array([1.5, 0.5, -0.5])]
    for o, e in zip(outs, expected, strict=True):
        np.testing.assert_array_equal(o.asnumpy(), e.astype(np.float32))


def _scaled_int_sum(w, k):
    return (w * (k + 0.5)).sum()


@pytest.mark.parametrize("mode", MODES)
def test_int_tensor_with_python_float_gradient(mode):
    w = Tensor(np.array([1.0, 2.0], np.float32))
    k = Tensor(np.array([1, 3], np.int32))
    grad_fn = ms.grad(_scaled_int_sum)
    g = grad_fn(w, k) if mode == "pynative" else _run(mode, grad_fn, w, k)
    assert g.dtype == ms.float32
    np.testing.assert_allclose(g.asnumpy(), [1.5, 3.5])


def test_int_times_one_after_int_times_float_one():
    """`x * 1` and `x * 1.0` are different programs (1 == 1.0, but the result types differ)."""
    x = Tensor(np.array([1, 2], np.int32))
    assert ms.jit(lambda x: x * 1)(x).dtype == ms.int32
    assert ms.jit(lambda x: x * 1.0)(x).dtype == ms.float32


def _scalars_of(x):
    s = x.sum()
    return float(s), int(s), bool(s > 0)


@pytest.mark.parametrize("mode", MODES)
def test_float_int_bool_of_a_0d_tensor_leave_the_graph_as_python_types(mode):
    x = Tensor(np.array([1.5, 2.0], np.float32))
    out = _run(mode, _scalars_of, x)
    assert [type(v) for v in out] == [float, int, bool]
    assert out == (3.5, 3, True)
    again = _run(mode, _scalars_of, Tensor(np.array([-1.5, 0.25], np.float32)))  # the cached program too
    assert again == (-1.25, -1, False) and [type(v) for v in again] == [float, int, bool]


def _arithmetic_on_scalars_of(x):
    v = float(x.sum())
    n = int(x.max())
    return v * 2, n + 1, n / 2, -n, 3 - v, v > 1, x.sum().item() * 2


@pytest.mark.parametrize("mode", MODES)
def test_arithmetic_on_python_scalars_of_a_tensor_stays_python_arithmetic(mode):
    # held-out probe float_of_tensor: `float(x) * 2` left GRAPH_MODE and @jit as a 0-d Tensor
    out = _run(mode, _arithmetic_on_scalars_of, Tensor(np.array([1.5, 2.5], np.float32)))
    assert [type(v) for v in out] == [float, int, float, int, float, bool, float]
    assert out == (8.0, 3, 1.0, -2, -1.0, True, 8.0)


def _tensors_of_scalars_of(x):
    v = float(x.sum())
    n = int(x.max())
    return Tensor(v), Tensor(n + 1), v


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_made_of_a_python_scalar_of_a_tensor_is_a_tensor(mode):
    # Tensor(float(x)) left GRAPH_MODE and @jit as the Python float it was made from
    out = _run(mode, _tensors_of_scalars_of, Tensor(np.array([1.5, 2.5], np.float32)))
    assert [type(v) for v in out] == [Tensor, Tensor, float]
    assert [o.dtype for o in out[:2]] == [ms.float32, ms.int64]
    assert [o.item() for o in out[:2]] == [4.0, 3] and out[2] == 4.0


def _tensor_of_a_run_time_value_with_a_dtype(x):
    return Tensor(x * 2, ms.int32) + 1, Tensor(x, dtype=ms.float16)


@pytest.mark.parametrize("mode", MODES)
def test_a_tensor_of_a_run_time_value_with_a_dtype_is_cast(mode):
    # Tensor(x, dtype) of a Tensor computed in the graph was "'Var' object has no attribute 'astype'"
    x = Tensor(np.array([1.5, 2.5], np.float32))
    ints, halves = _run(mode, _tensor_of_a_run_time_value_with_a_dtype, x)
    assert ints.dtype == ms.int32 and ints.asnumpy().tolist() == [4, 6]
    assert halves.dtype == ms.float16 and halves.asnumpy().tolist() == [1.5, 2.5]


class _Sizes(nn.Cell):
    def construct(self, x):
        y = ops.concat((x, x, x))
        return y.shape[0], y.shape, x * 2


@pytest.mark.parametrize("mode", ("pynative", "graph"))
def test_shapes_leaving_a_graph_with_none_dims_are_ints(mode):
    net = _Sizes()
    net.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32))
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    for batch in (1, 4):
        n, shape, _ = net(Tensor(np.ones((batch, 2), np.float32)))
        assert type(n) is int and n == 3 * batch
        assert shape == (3 * batch, 2) and all(type(d) is int for d in shape)
        assert n + 1 == 3 * batch + 1  # usable as a Python int


class _SizesInADict(nn.Cell):
    def construct(self, x):
        return {"rows": ops.concat((x, x)).shape[0], "x": x}


def test_a_shape_in_a_returned_dict_with_none_dims_is_an_int():
    net = _SizesInADict()
    net.set_inputs(Tensor(shape=[None, 2], dtype=ms.float32))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        for batch in (1, 3):
            out = net(Tensor(np.ones((batch, 2), np.float32)))
            assert type(out["rows"]) is int and out["rows"] == 2 * batch
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _checked_double(x):
    assert x.sum() > 0, "the sum must be positive"
    return x * 2


@pytest.mark.parametrize("mode", MODES)
def test_assert_on_a_tensor_condition_is_checked(mode):
    np.testing.assert_array_equal(_run(mode, _checked_double, Tensor(np.ones(2, np.float32))).asnumpy(), [2, 2])
    with pytest.raises(AssertionError, match="the sum must be positive"):
        _run(mode, _checked_double, Tensor(-np.ones(2, np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_assert_on_a_tensor_condition_keeps_the_gradient(mode):
    grad_fn = ms.grad(lambda x: _checked_double(x).sum())
    x = Tensor(np.array([1.0, 2.0], np.float32))
    g = grad_fn(x) if mode == "pynative" else _run(mode, grad_fn, x)
    np.testing.assert_allclose(g.asnumpy(), [2.0, 2.0])


def test_jit_backend_ge_runs_with_a_one_time_warning():
    api._noted.discard("jit(backend='GE')")  # the note is once per process: start from "not yet said"
    try:
        with pytest.warns(UserWarning, match="XLA compiles every graph"):
            np.testing.assert_array_equal(ms.jit(_checked_double, backend="GE")(Tensor([1.0, 2.0])).asnumpy(), [2, 4])
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            ms.jit(_checked_double, backend="GE")(Tensor([1.0, 2.0]))
    finally:
        api._noted.discard("jit(backend='GE')")


def _starred(x):
    a, *rest = (x, x * 2, x * 3)
    *first, last = x
    head, *middle, tail = (1, 2, 3, 4)
    return a + rest[0] + rest[1] + first[0] + last + head + tail + len(middle) + len(rest)


@pytest.mark.parametrize("mode", MODES)
def test_starred_assignment_unpacks_as_python_does(mode):
    x = Tensor(np.array([1.0, 5.0], np.float32))
    out = _run(mode, _starred, x)
    np.testing.assert_allclose(out.asnumpy(), [6 + 1 + 5 + 5 + 4, 30 + 1 + 5 + 5 + 4])


def test_construct_inputs_named_like_the_compilers_own_are_passed_by_keyword():
    # `construct(self, x, c)` called as net(x, c=...): the compiled body took the Cell as its own first
    # parameter named `c`, so a keyword `c` clashed ("got multiple values for argument 'c'").
    class Net(nn.Cell):
        def construct(self, x, c):
            return x * 2 + c

    x, c = Tensor(np.float32([1, 2])), Tensor(np.float32([10, 20]))
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        out = Net()(x, c=c)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_array_equal(out.asnumpy(), Net()(x, c=c).asnumpy())
    np.testing.assert_array_equal(out.asnumpy(), [12, 24])


def _iterators_out(x):
    return map(lambda a: a * 2, (x, x + 1)), zip((1, 2), (3, 4)), filter(lambda a: a > 1, (1, 2, 3)), [x]


@pytest.mark.parametrize("mode", ("graph", "jit"))
def test_an_iterator_a_graph_returns_is_run_inside_it_and_leaves_as_a_tuple(mode):
    """A `map`/`zip`/`filter` leaving a graph used to come out lazy: iterating it later called into a compiler that
    had finished. It runs inside the graph and leaves as a tuple, with PyNative's items; a list stays a list."""
    x = Tensor(np.array([1.0, 2.0], np.float32))
    mapped, zipped, filtered, listed = _run(mode, _iterators_out, x)
    expected = [a.asnumpy() for a in _iterators_out(x)[0]]
    assert type(mapped) is tuple and len(mapped) == 2
    for got, want in zip(mapped, expected, strict=True):
        np.testing.assert_allclose(got.asnumpy(), want)
    assert zipped == ((1, 3), (2, 4)) and filtered == (2, 3)
    assert type(listed) is list
