"""Tensor and Parameter methods installed by kiln/ops/tensor_methods.py."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, ops
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


@pytest.mark.parametrize("reduce", [np.all, np.any])
@pytest.mark.parametrize("kwargs", [{}, {"axis": 0}, {"axis": 1, "keepdims": True}])
def test_numpy_all_and_any_of_a_tensor_match_numpy(reduce, kwargs):
    # NumPy calls Tensor.all/any with out=None (and keepdims when given): was "unexpected keyword argument 'out'"
    a = np.array([[1, 0, 2], [3, 4, 0]], np.float32)
    got = reduce(Tensor(a), **kwargs)
    np.testing.assert_array_equal(np.asarray(got.asnumpy() if isinstance(got, Tensor) else got), reduce(a, **kwargs))


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
