"""Tensor and Parameter methods installed by kiln/ops/tensor_methods.py."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, ops
from kiln._pynative import dispatch
from kiln.ops import tensor_methods
from tests._compiler.frontend.ast.modes import MODES, compiled


def test_every_listed_method_is_the_functional_op():
    x = Tensor(np.array([[1.0, 2.0], [3.0, 4.0]], np.float32))
    for name in tensor_methods.FROM_OPS:
        assert callable(getattr(Tensor, name)), name
    np.testing.assert_allclose(x.inverse().asnumpy(), ops.inverse(x).asnumpy())
    np.testing.assert_allclose(x.mm(x).asnumpy(), x.asnumpy() @ x.asnumpy())
    assert float(x.trace().asnumpy()) == 5.0


def test_small_methods():
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert x.t().shape == (3, 2) and x.swapdims(0, 1).shape == (3, 2) and x.movedim(0, 1).shape == (3, 2)
    assert x.new_full((2,), 7).dtype == kiln.float32 and x.expand((4, 2, 3)).shape == (4, 2, 3)
    assert x.type_as(Tensor(np.int32(1))).dtype == kiln.int32
    assert x.is_floating_point() and not x.is_complex() and x.is_signed()
    np.testing.assert_allclose(x.deg2rad().rad2deg().asnumpy(), x.asnumpy(), rtol=1e-6)


def test_parameter_set_dtype():
    p = Parameter(Tensor(np.array([1.5, 2.5], np.float32)), name="w")
    assert p.set_dtype(kiln.float16) is p
    assert p.dtype == kiln.float16 and p.name == "w"
    np.testing.assert_allclose(p.asnumpy(), [1.5, 2.5])


def test_a_tensor_is_never_equal_to_a_str_none_dict_or_sequence():
    """MindSpore 2.10 answers a Python bool (it was a Kiln internal error); `list.count` compares this way."""
    t = Tensor(np.array(1, np.int64))
    assert (t == "a", "a" == t, t != "a", t == None, t != None) == (False, False, True, False, True)  # noqa: E711
    assert (t == ("M", 1), t != {"k": 1}) == (False, True)
    # a tuple or list of numbers too, even one holding the same values (MindSpore 2.10: False / True)
    pair = Tensor(np.array([1, 2], np.int64))
    assert (pair == (1, 2), pair != (1, 2), pair == [1, 2], pair != [1, 3]) == (False, True, False, True)
    assert ["a", ("M", "B"), 20, t, Tensor(np.array(1, np.int64))].count(t) == 2

    @kiln.jit
    def count_in_a_graph():
        one = Tensor(1)
        return Tensor(["a", ("M", "B"), 20, one, Tensor(1)].count(one))

    assert count_in_a_graph().asnumpy() == 2


@pytest.mark.parametrize("mode", ["pynative", "jit"])
@pytest.mark.parametrize(
    "call", [lambda x: x.reshape(1, 1.5), lambda x: ops.reshape(x, (1, 1.0)), lambda x: ops.zeros((2, 2.0))]
)
def test_a_float_in_a_shape_is_a_type_error_not_truncated(mode, call):
    # NumPy and MindSpore 2.10 refuse it; int() would have made 1.5 a 1 silently
    with pytest.raises(TypeError, match="'shape' must hold ints"):
        (call if mode == "pynative" else kiln.jit(call))(Tensor(np.float32(1.0)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "call, args",
    [
        (lambda x, y: Tensor.add(x, y), ([1], [2])),  # a list as self: was "'list' object has no attribute 'dtype'"
        (lambda x, y: ops.add(x, y), ([1], (2,))),  # two sequences: Python's + would concatenate them
        (lambda x, y: Tensor.all(x, keep_dims=y), (1, True)),  # an int has no axes to reduce: was True
        (lambda x, y: ops.any(x, y), ([True, False], None)),
    ],
)
def test_a_tensor_method_or_reduction_given_no_tensor_is_a_type_error(mode, call, args):
    with pytest.raises(TypeError, match=r"Tensor\.add|ops\.add|ops\.all|ops\.any"):
        compiled(mode, call)(*args)


def test_a_sequence_beside_a_tensor_still_broadcasts():
    np.testing.assert_array_equal(Tensor.add(Tensor([1, 2]), [3, 4]).asnumpy(), [4, 6])
    np.testing.assert_array_equal(ops.add((1, 2), Tensor([3, 4])).asnumpy(), [4, 6])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "call, error",
    [
        (lambda x: x.transpose(1.0, 0), TypeError),  # NumPy refuses a float axis; int() would have truncated it
        (lambda x: ops.transpose(x, (1, 0.0)), TypeError),
        (lambda x: x.flatten(order="X"), ValueError),
        (lambda x: x.flatten(order=123), TypeError),
    ],
)
def test_a_bad_axis_or_order_is_the_users_error_in_every_mode(mode, call, error):
    with pytest.raises(error):
        compiled(mode, call)(Tensor(np.ones((2, 3), np.float32)))


@pytest.mark.parametrize("mode", MODES)
def test_flatten_in_fortran_order_in_every_mode(mode):
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    out = compiled(mode, lambda t: t.flatten(order="F"))(Tensor(x))
    np.testing.assert_array_equal(out.asnumpy(), x.flatten(order="F"))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "call, want",
    [
        (lambda t: t.transpose(0, 1), lambda x: np.swapaxes(x, 0, 1)),
        (lambda t: t.transpose(0, 2), lambda x: np.swapaxes(x, 0, 2)),
        (lambda t: t.transpose(-1, 1), lambda x: np.swapaxes(x, -1, 1)),
        (lambda t: t.transpose(1, 1), lambda x: x),
        (lambda t: t.transpose(dim0=2, dim1=0), lambda x: np.swapaxes(x, 2, 0)),
        (lambda t: t.transpose(1, 0, 2), lambda x: np.transpose(x, (1, 0, 2))),
        (lambda t: t.transpose((0, 1, 2)), lambda x: x),
        (lambda t: t.transpose(), lambda x: np.transpose(x)),
    ],
)
def test_transpose_of_two_axes_exchanges_them_in_every_mode(mode, call, want):
    # MindSpore 2.10's Tensor.transpose(dim0, dim1) exchanges two axes (its documentation and its PyNative: the zoo's
    # T-GCN builds its Laplacian with `matmul(m, d).transpose(0, 1)`, a matrix transpose); Kiln read two integers as
    # a permutation: the identity for a matrix (the Laplacian 0.08 off), an error for three axes. A tuple, or three or
    # more integers, is still a permutation. MindSpore's GRAPH_MODE reads `(0, 1)` as a permutation (its two modes
    # disagree; Kiln gives PyNative's answer in both).
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    np.testing.assert_array_equal(compiled(mode, call)(Tensor(x)).asnumpy(), want(x))
    np.testing.assert_array_equal(compiled(mode, lambda t: t.transpose(0, 1))(Tensor(x[0])).asnumpy(), x[0].T)


_MASK = np.array([[True, False, True], [True, True, False]])


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "x, call, want",
    [
        (_MASK, lambda t: t.cumsum(1, dtype=kiln.float32), np.array([[1, 1, 2], [1, 2, 2]], np.float32)),
        (_MASK, lambda t: t.cumsum(1), np.array([[1, 1, 2], [1, 2, 2]], np.int32)),
        (_MASK, lambda t: t.cumsum(), np.array([1, 1, 2, 3, 4, 4], np.int32)),
        (_MASK, lambda t: t.cumsum(1, dtype=kiln.bool_), np.array([[1, 1, 2], [1, 2, 2]], np.int32)),
        (_MASK, lambda t: t.cumsum(dim=1), np.array([[1, 1, 2], [1, 2, 2]], np.int32)),
        (_MASK, lambda t: t.cumsum(dim=1, dtype=kiln.float32), np.array([[1, 1, 2], [1, 2, 2]], np.float32)),
        (np.array([[100, 100, 100]], np.int8), lambda t: t.cumsum(1), np.array([[100, 200, 300]], np.int32)),
        (np.array([[100, 100, 100]], np.int8), lambda t: t.cumsum(), np.array([100, 200, 300], np.int32)),
        (np.float16([[6e4, 6e4, 1]]), lambda t: t.cumsum(1, dtype=kiln.float32), np.float32([[6e4, np.inf, np.inf]])),
    ],
)
def test_cumsum_method_scans_bool_and_small_ints_in_int32_in_every_mode(mode, x, call, want):
    # MindSpore 2.10's Tensor.cumsum (both modes, values and dtypes as above) scans bool, int8, int16 and uint8 in
    # int32 and casts the result to `dtype` where it differs from the input's: the zoo's DETR builds its position
    # embedding with `(~mask).cumsum(1, dtype=float32)`, which Kiln refused (its functional cumsum has no bool
    # kernel), and int8 sums wrapped around. The float16 scan overflows before the cast, as in MindSpore. Its PyNative
    # also takes the axis as `dim=` (its GRAPH_MODE raises a RuntimeError there; Kiln gives PyNative's answer in both).
    out = compiled(mode, call)(Tensor(x))
    assert kiln.dtype_to_nptype(out.dtype) == want.dtype
    np.testing.assert_array_equal(out.asnumpy(), want)


@pytest.mark.parametrize("reduce", [np.all, np.any])
@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": 1, "keepdims": True}])
def test_numpy_all_and_any_of_a_tensor_match_numpy(reduce, kwargs):
    # NumPy calls Tensor.all/any with out=None (and keepdims when given): was "unexpected keyword argument 'out'"
    a = np.array([[1, 0, 2], [3, 4, 0]], np.float32)
    got = reduce(Tensor(a), **kwargs)
    np.testing.assert_array_equal(np.asarray(got.asnumpy() if isinstance(got, Tensor) else got), reduce(a, **kwargs))


def _ms_take(x: np.ndarray, idx: np.ndarray, axis, mode: str) -> np.ndarray:
    """MindSpore 2.10's Tensor.take in NumPy: 'clip' keeps [-n, n) as Python indices and moves the rest to the
    nearer end (NumPy's own 'clip' moves every negative index to 0); 'wrap' takes them modulo n."""
    x = x.ravel() if axis is None else x
    n = x.shape[0 if axis is None else axis]
    fixed = np.mod(idx, n) if mode == "wrap" else np.where(idx < -n, 0, np.minimum(idx, n - 1))
    return np.take(x, fixed, axis=0 if axis is None else axis)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("axis, take_mode", [(None, "clip"), (1, "clip"), (None, "wrap"), (1, "wrap"), (-2, "clip")])
def test_take_has_mindspores_axis_and_mode_in_every_mode(mode, axis, take_mode):
    # the zoo's ReID Strong Baseline calls dist.take(pos, axis=-1): Kiln's method took no axis (TypeError) and
    # refused an index past the end where MindSpore 2.10 clips it (x.take([-13, -5, -1, 5, 13]) -> [0, 7, 11, 5, 11])
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[-13, -5, -1], [5, 13, 2]], np.int32)
    out = compiled(mode, lambda t, i: t.take(i, axis, take_mode))(Tensor(x), Tensor(idx))
    np.testing.assert_array_equal(out.asnumpy(), _ms_take(x, idx, axis, take_mode))


def test_take_along_an_axis_differentiates_as_numpy():
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([3, 3, -1, 0, 9], np.int32)
    grad = ops.grad(lambda t: (t.take(Tensor(idx), axis=1) * 2).sum())(Tensor(x))
    want = np.zeros_like(x)
    np.add.at(want, (slice(None), np.where(idx < -4, 0, np.minimum(idx, 3)) % 4), 2.0)
    np.testing.assert_array_equal(grad.asnumpy(), want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "call, reps",
    [
        (lambda t: t.repeat(2, 1), (2, 1)),
        (lambda t: t.repeat((2, 1, 3)), (2, 1, 3)),
        (lambda t: t.repeat(repeats=[1, 2]), (1, 2)),
    ],
)
def test_repeat_is_mindspores_tile_in_every_mode(mode, call, reps):
    # MindSpore 2.10's Tensor.repeat(*repeats) is PyTorch's (a tile); Kiln's was NumPy's element repeat, so
    # t.repeat(2, 1) of a (2, 3) Tensor gave (2, 6) where MindSpore gives (4, 3). NumPy's is t.repeat_interleave.
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(compiled(mode, call)(Tensor(x)).asnumpy(), np.tile(x, reps))


@pytest.mark.parametrize(
    "call, error", [(lambda t: t.repeat(2), ValueError), (lambda t: t.repeat(2, axis=1), TypeError)]
)
def test_repeat_refuses_numpys_arguments_as_mindspore(call, error):
    # fewer counts than axes, or NumPy's axis keyword: MindSpore 2.10 raises these (the zoo's ReID code, written
    # for MindSpore 2.0's NumPy-style repeat, fails there the same way)
    with pytest.raises(error):
        call(Tensor(np.ones((2, 3), np.float32)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["argmax", "argmin"])
@pytest.mark.parametrize("kwargs", [{"dim": -1}, {"dim": 0, "keepdim": True}, {"dim": None}, {"axis": 1}])
def test_argmax_and_argmin_take_dim_and_keepdim(mode, name, kwargs):
    # MindSpore 2.10's Tensor.argmax/argmin also take its PyTorch-style overload's dim/keepdim (its own tests call
    # tokens.argmax(dim=-1) in GRAPH_MODE); was "unexpected keyword argument 'dim'"
    a = np.array([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]], np.float32)
    got = compiled(mode, lambda t: getattr(t, name)(**kwargs))(Tensor(a)).asnumpy()
    axis = kwargs.get("dim", kwargs.get("axis"))
    want = getattr(np, name)(a, axis=axis, keepdims=kwargs.get("keepdim", False) and axis is not None)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "kwargs", [{"min": -0.5, "max": 0.5}, {"max": 1.0}, {"min": None, "max": 0.5}, {"min": -0.5}], ids=str
)
def test_clip_takes_mindspore_2s_min_and_max(mode, kwargs):
    # MindSpore 2.10's Tensor.clip(min=None, max=None) is clamp's alias; Kiln's took MindSpore 1.x's xmin/xmax, so
    # clip(max=1) raised "unexpected keyword argument 'max'" (found by the zoo's HAKE, whose clip(xmin=None, xmax=1)
    # MindSpore 2.10 refuses in both modes)
    a = np.array([[-2.0, -0.25, 0.5], [0.75, 1.5, -0.5]], np.float32)
    got = compiled(mode, lambda t: t.clip(**kwargs))(Tensor(a)).asnumpy()
    np.testing.assert_array_equal(got, np.clip(a, kwargs.get("min"), kwargs.get("max")))


@pytest.mark.parametrize("mode", MODES)
def test_clip_refuses_mindspore_1s_xmin_and_xmax(mode):
    with pytest.raises(TypeError):
        compiled(mode, lambda t: t.clip(xmin=None, xmax=1))(Tensor(np.ones(3, np.float32)))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape", [(5,), (4, 3), (0, 2)])
def test_iterating_a_tensor_gives_its_rows_in_every_mode(mode, shape):
    x = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)

    def rows(t):
        a = [r * 2.0 for r in t]
        b = tuple(t)
        return (*a, *b)

    out = compiled(mode, rows)(Tensor(x))
    expected = [r * 2.0 for r in x] + list(x)
    assert len(out) == len(expected)
    for got, want in zip(out, expected, strict=True):
        np.testing.assert_array_equal(got.asnumpy(), want)


def test_iterating_a_tensor_is_one_unstack_however_many_rows():
    """`list(weight)` (the zoo's SGCN) was one getitem per row: 192 ops in PyNative's window, 192 kernels eagerly."""
    dispatch.WINDOW.flush()
    rows = list(Tensor(np.arange(12, dtype=np.float32).reshape(6, 2)) * 1.0)
    assert [prim.name for prim, *_ in dispatch.WINDOW.ops] == ["Mul", "Unstack"]
    np.testing.assert_array_equal(np.stack([r.asnumpy() for r in rows]), np.arange(12).reshape(6, 2))


def test_a_long_first_axis_is_unstacked_in_slices(monkeypatch):
    monkeypatch.setattr(tensor_methods, "ROWS_PER_UNSTACK", 2)
    x = np.arange(10, dtype=np.float32).reshape(5, 2)
    rows = list(Tensor(x))
    assert len(rows) == 5 and all(r.shape == (2,) for r in rows)
    np.testing.assert_array_equal(np.stack([r.asnumpy() for r in rows]), x)


def test_iterating_a_0d_tensor_is_a_type_error():
    with pytest.raises(TypeError, match="iteration over a 0-d Tensor"):
        list(Tensor(np.float32(1.0)))


def test_the_gradient_through_iterated_rows_matches_jax():
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)

    def f(t):
        return sum((float(i + 1) * ops.sin(r)).sum() for i, r in enumerate(t))

    def f_ref(t):
        return sum((float(i + 1) * jnp.sin(t[i])).sum() for i in range(t.shape[0]))

    np.testing.assert_allclose(kiln.grad(f)(Tensor(x)).asnumpy(), jax.grad(f_ref)(x), rtol=1e-6)
