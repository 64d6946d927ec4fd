"""Parameter and ParameterTuple: construction, naming, set_data and its errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import kiln
from kiln import Parameter, ParameterTuple, Tensor


def test_parameter_from_tensor_number_and_array():
    p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="w")
    assert isinstance(p, Tensor)
    assert p.name == "w" and p.requires_grad and p.shape == (2, 3) and p.dtype is kiln.float32
    q = Parameter(0.5, name="s", requires_grad=False)
    assert q.dtype is kiln.float32 and not q.requires_grad and q.shape == ()
    r = Parameter(np.arange(3, dtype=np.int32))
    assert r.dtype is kiln.int32
    np.testing.assert_array_equal(r.asnumpy(), [0, 1, 2])


def test_a_parameter_name_is_a_str_or_none():
    # as MindSpore's: None or a blank name gives a fresh `Parameter#<n>`, a name is stripped, other types and names
    # over 1024 characters are refused
    p = Parameter(Tensor(np.ones(2, np.float32)))
    q = Parameter(Tensor(np.ones(2, np.float32)), name="   ")
    assert p.name.startswith("Parameter#") and q.name.startswith("Parameter#") and p.name != q.name
    p.name = " w "
    assert p.name == "w"
    p.name = None
    assert p.name.startswith("Parameter#") and p.name != q.name
    with pytest.raises(ValueError, match="str or None, but got a int"):
        p.name = 3
    with pytest.raises(ValueError, match="at most 1024 characters"):
        Parameter(Tensor(np.ones(2, np.float32)), name="x" * 1025)


def test_parameter_repr_and_ops():
    p = Parameter(Tensor(np.ones(2, np.float32)), name="bias")
    assert repr(p).startswith("Parameter (name=bias,")
    assert "requires_grad=True" in repr(p)
    out = p * 2 + 1  # a Parameter computes like a Tensor
    assert type(out) is Tensor
    np.testing.assert_array_equal(out.asnumpy(), [3, 3])


def test_set_data_replaces_value_in_place_and_keeps_dtype():
    p = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="w")
    same = p.set_data(Tensor(np.ones((2, 2), np.float64)))
    assert same is p
    assert p.dtype is kiln.float32
    np.testing.assert_array_equal(p.asnumpy(), np.ones((2, 2)))
    p.set_data(np.full((2, 2), 3.0))
    np.testing.assert_array_equal(p.asnumpy(), np.full((2, 2), 3.0))


def test_set_data_refuses_a_new_shape():
    p = Parameter(Tensor(np.zeros((2, 2), np.float32)), name="w")
    with pytest.raises(ValueError) as info:
        p.set_data(Tensor(np.zeros((3,), np.float32)))
    assert "w" in str(info.value) and "[2, 2]" in str(info.value) and "[3]" in str(info.value)


def test_clone_and_copy_are_independent():
    p = Parameter(Tensor(np.zeros(2, np.float32)), name="w")
    c = p.clone()
    assert c is not p and c.name == "w"
    c.set_data(Tensor(np.ones(2, np.float32)))
    np.testing.assert_array_equal(p.asnumpy(), [0, 0])
    d = copy.deepcopy(p)
    assert isinstance(d, Parameter) and d.name == "w"


def test_parameter_tuple():
    a = Parameter(Tensor(np.zeros(2, np.float32)), name="a")
    b = Parameter(Tensor(np.ones(3, np.float32)), name="b")
    pt = ParameterTuple([a, b])
    assert isinstance(pt, tuple) and len(pt) == 2 and pt[0] is a
    cloned = pt.clone(prefix="m")
    assert [p.name for p in cloned] == ["m.a", "m.b"]
    assert cloned[0] is not a
    with pytest.raises(TypeError, match="Parameter"):
        ParameterTuple([a, Tensor(np.zeros(2, np.float32))])


def test_parameter_gradient_through_weights():
    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    x = Tensor(np.array([3.0, 4.0], np.float32))
    grads = kiln.grad(lambda x: (w * x).sum(), grad_position=None, weights=[w])(x)
    np.testing.assert_allclose(grads[0].asnumpy(), [3.0, 4.0])
