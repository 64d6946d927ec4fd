"""Parameter and ParameterTuple: construction, naming, set_data and its errors."""

from __future__ import annotations

import copy

import numpy as np
import pytest

import kiln
from kiln import Parameter, ParameterTuple, Tensor, nn, ops
from kiln.common.initializer import Normal, initializer


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


def test_set_data_takes_a_new_shape_as_mindspore():
    # MindSpore 2.10 (CPU, both modes) gives the Parameter the new shape and value; `slice_shape` sets `sliced` and
    # checks nothing; a Parameter made by an initializer takes the new shape too
    p = Parameter(Tensor(np.zeros((2, 4), np.float32)), name="w")
    assert p.sliced is False
    assert p.set_data(Tensor(np.full((3, 5), 2.0, np.float64))) is p
    assert p.shape == (3, 5) and p.dtype is kiln.float32
    np.testing.assert_array_equal(p.asnumpy(), np.full((3, 5), 2.0))
    p.set_data(Tensor(np.ones((4, 4), np.float32)), slice_shape=True)
    assert p.shape == (4, 4) and p.sliced is True
    q = Parameter(initializer("normal", (2, 4), kiln.float32), name="q")
    q.set_data(Tensor(np.ones((3, 5), np.float32)))
    assert q.shape == (3, 5)
    np.testing.assert_array_equal(q.asnumpy(), np.ones((3, 5)))


class _MatMulNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.ones((2, 4), np.float32)), name="w")

    def construct(self, x):
        return ops.matmul(x, self.weight)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_a_program_compiled_before_set_data_changed_the_shape_compiles_again(mode):
    # MindSpore 2.10's GRAPH_MODE ran the program compiled for the old shape on a call with the old input shape
    # (a (3, 4) result from the (3, 5) weight); PyNative refuses that matmul. Kiln refuses it in both modes.
    kiln.set_context(mode=mode)
    net = _MatMulNet()
    x_old = np.ones((3, 2), np.float32)
    for _ in range(3):  # past the first call: the cache's fast path and direct launch are in use
        np.testing.assert_array_equal(net(Tensor(x_old)).asnumpy(), np.full((3, 4), 2.0))
    w = np.arange(15, dtype=np.float32).reshape(3, 5)
    net.weight.set_data(Tensor(w))
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), x @ w)
    with pytest.raises(ValueError, match=r"MatMul.*\[3, 2\].*\[3, 5\]"):
        net(Tensor(x_old))
    net.weight.set_data(Tensor(np.full((2, 4), 3.0, np.float32)))  # back to the first shape
    np.testing.assert_array_equal(net(Tensor(x_old)).asnumpy(), np.full((3, 4), 6.0))


def test_a_program_for_dynamic_input_shapes_compiles_again_after_set_data():
    # set_inputs with a None size: one program serves every batch size; a weight of another shape needs another
    kiln.set_context(mode=kiln.GRAPH_MODE)
    net = _MatMulNet()
    net.set_inputs(Tensor(shape=[None, 2], dtype=kiln.float32))
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), x @ np.ones((2, 4)))
    w = np.arange(10, dtype=np.float32).reshape(2, 5)
    net.weight.set_data(Tensor(w))
    np.testing.assert_array_equal(net(Tensor(x)).asnumpy(), x @ w)
    net.weight.set_data(Tensor(np.ones((3, 5), np.float32)))
    with pytest.raises(ValueError, match=r"MatMul.*\[3, 2\].*\[3, 5\]"):
        net(Tensor(x))


def test_a_jit_function_reading_a_reshaped_parameter_compiles_again():
    w = Parameter(Tensor(np.ones((2, 2), np.float32)), name="w")
    f = kiln.jit(lambda x: x * w)
    x = Tensor(np.ones((2, 2), np.float32))
    np.testing.assert_array_equal(f(x).asnumpy(), np.ones((2, 2)))
    w.set_data(Tensor(np.full((1, 2), 3.0, np.float32)))
    np.testing.assert_array_equal(f(x).asnumpy(), np.full((2, 2), 3.0))  # broadcast against the new shape


def test_a_bytecode_capture_reading_a_reshaped_parameter_compiles_again():
    w = Parameter(Tensor(np.ones((2, 4), np.float32)), name="w")

    @kiln.jit(capture_mode="bytecode")
    def f(x):
        return ops.matmul(x, w) * 2

    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    for _ in range(2):
        np.testing.assert_array_equal(f(Tensor(x)).asnumpy(), 2 * x @ np.ones((2, 4)))
    w2 = np.arange(10, dtype=np.float32).reshape(2, 5)
    w.set_data(Tensor(w2))
    np.testing.assert_array_equal(f(Tensor(x)).asnumpy(), 2 * x @ w2)
    w.set_data(Tensor(np.ones((3, 5), np.float32)))
    with pytest.raises(ValueError, match=r"MatMul.*\[3, 2\].*\[3, 5\]"):
        f(Tensor(x))


def test_set_data_inside_a_compiled_graph_keeps_the_shape():
    # MindSpore 2.10 refuses set_data in a graph altogether; Kiln records a write of the same shape, and refuses a
    # new shape (the program fixes each Parameter's shape), naming both
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.zeros((2, 4), np.float32)), name="w")

        def construct(self, x):
            self.w.set_data(x)
            return self.w * 2

    kiln.set_context(mode=kiln.GRAPH_MODE)
    net = Net()
    np.testing.assert_array_equal(net(Tensor(np.ones((2, 4), np.float32))).asnumpy(), np.full((2, 4), 2.0))
    with pytest.raises(ValueError, match=r"'w'.*inside a compiled graph.*\[2, 4\] to \[3, 5\]"):
        net(Tensor(np.ones((3, 5), np.float32)))
    assert net.w.shape == (2, 4)


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


def test_has_init_is_a_property_that_reads_false():
    """MindSpore's `has_init` is a property, False once the data exists (Kiln's initializers make it at once): zoo code
    writes `if param.has_init:`, which read the bound method, truthy, when Kiln had a method."""
    made = [
        Tensor(np.ones(3, np.float32)),
        Parameter(Tensor(np.ones(3, np.float32)), name="p"),
        Parameter(initializer(Normal(), [2, 3]), name="q"),
    ]
    assert [x.has_init for x in made] == [False, False, False]
