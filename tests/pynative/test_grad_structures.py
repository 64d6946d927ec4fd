"""What grad, value_and_grad and GradOperation return, by structure, dtype and value, in PyNative and GRAPH_MODE.

The rules (MindSpore 2.10's, checked with script files against it):
- the inputs' part is the bare gradient when one input is differentiated, a tuple when several are, and `()`
  when no position holds a Tensor (a Python number at a position gets no gradient and is left out);
- the weights' part is the bare gradient for one Parameter given alone, a tuple for a list or tuple of them;
  GradOperation(get_by_list=True) follows the same rule;
- integer Parameters are differentiated as real numbers and their gradient is cast back to their dtype, as
  integer inputs are; one used where only an integer will do (an index) gets zeros;
- an empty grad_position is refused when the transform is made; a position past the arguments is an IndexError.

Each case runs in both modes, called directly and from a Cell's construct, and under `jit` (AST and bytecode
capture), and must give the same result.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import GradOperation, Parameter, Tensor, nn, ops

MODES = [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE]


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    kiln.set_context(mode=kiln.PYNATIVE_MODE)


def _shape_of(value):
    """A value's structure with each Tensor as (dtype name, values): what the rules above fix."""
    if isinstance(value, tuple):
        return tuple(_shape_of(v) for v in value)
    if isinstance(value, Tensor):
        return (str(value.dtype), value.asnumpy().tolist())
    assert not isinstance(value, list), "gradients come in tuples, not lists"
    return value


def _int(*values):
    return ("Int32", list(values))


def _f32(*values):
    return ("Float32", [float(v) for v in values])


class _Affine(nn.Cell):
    """w * x + b * y with Parameters of `dtype`."""

    def __init__(self, dtype):
        super().__init__()
        self.w = Parameter(Tensor([6], dtype), name="w")
        self.b = Parameter(Tensor([2], dtype), name="b")

    def construct(self, x, y):
        return self.w * x + self.b * y


class _NoInput(nn.Cell):
    def __init__(self, dtype):
        super().__init__()
        self.w = Parameter(Tensor([6], dtype), name="w")
        self.b = Parameter(Tensor([2], dtype), name="b")

    def construct(self):
        return self.w + self.b


class _Add(nn.Cell):
    def construct(self, x, y):
        return x + y


class _InConstruct(nn.Cell):
    """Calls the gradient function from its own construct (compiled as one graph in GRAPH_MODE)."""

    def __init__(self, make):
        super().__init__()
        self.make = make

    def construct(self, *args):
        return self.make()(*args)


def _run(mode, make, args, in_construct=False):
    kiln.set_context(mode=mode)
    fn = _InConstruct(make) if in_construct else make()
    return _shape_of(fn(*args))


def _same_in_every_mode(make, args, expected, in_construct=True):
    for mode in MODES:
        assert _run(mode, make, args) == expected, f"mode {mode}"
        if in_construct:
            assert _run(mode, make, args, in_construct=True) == expected, f"mode {mode}, in construct"
    kiln.set_context(mode=kiln.PYNATIVE_MODE)
    for capture in ("ast", "bytecode"):
        got = _shape_of(kiln.jit(lambda *a: make()(*a), capture_mode=capture)(*args))
        assert got == expected, f"jit, capture_mode={capture}"


@pytest.mark.parametrize("dtype", [kiln.int32, kiln.float32])
def test_weights_part_is_bare_for_one_parameter_and_a_tuple_for_a_list(dtype):
    net = _Affine(dtype)
    x, y = Tensor([10], dtype), Tensor([20], dtype)
    g = _int if dtype == kiln.int32 else _f32
    cases = [
        (lambda: kiln.grad(net, None, net.w), g(10)),
        (lambda: kiln.grad(net, None, [net.w]), (g(10),)),
        (lambda: kiln.grad(net, None, net.trainable_params()), (g(10), g(20))),
        (lambda: kiln.grad(net, 0, net.w), (g(6), g(10))),
        (lambda: kiln.grad(net, (0,), net.w), (g(6), g(10))),
        (lambda: kiln.grad(net, (0, 1), (net.w,)), ((g(6), g(2)), (g(10),))),
        (lambda: GradOperation(get_by_list=True)(net, net.w), g(10)),
        (lambda: GradOperation(get_by_list=True)(net, (net.w,)), (g(10),)),
        (lambda: GradOperation(get_all=True, get_by_list=True)(net, net.w), ((g(6), g(2)), g(10))),
        (lambda: GradOperation(get_all=True, get_by_list=True)(net, [net.w, net.b]), ((g(6), g(2)), (g(10), g(20)))),
        (lambda: GradOperation()(net), g(6)),
    ]
    for make, expected in cases:
        _same_in_every_mode(make, (x, y), expected)


def test_return_ids_pair_each_gradient_with_its_position_or_name():
    net = _Affine(kiln.int32)
    x, y = Tensor([10], kiln.int32), Tensor([20], kiln.int32)
    expected = (((0, _int(6)), (1, _int(2))), ("w", _int(10)))
    _same_in_every_mode(lambda: kiln.grad(net, (0, 1), net.w, return_ids=True), (x, y), expected, in_construct=False)


@pytest.mark.parametrize("dtype", [kiln.int32, kiln.float32])
def test_no_inputs_gives_an_empty_inputs_part(dtype):
    net = _NoInput(dtype)
    one = _int(1) if dtype == kiln.int32 else _f32(1)
    _same_in_every_mode(lambda: GradOperation(get_all=True, get_by_list=True)(net, net.w), (), ((), one))
    _same_in_every_mode(lambda: GradOperation(get_by_list=True)(net, [net.w, net.b]), (), (one, one))
    _same_in_every_mode(lambda: GradOperation()(net), (), ())


def test_a_python_number_at_a_position_gets_no_gradient():
    t = Tensor([2.0])
    _same_in_every_mode(lambda: kiln.grad(_Add()), (1, 2), ())
    _same_in_every_mode(lambda: kiln.grad(_Add(), 1), (t, 1), ())
    _same_in_every_mode(lambda: kiln.grad(_Add(), (0, 1)), (1, t), _f32(1))
    _same_in_every_mode(lambda: kiln.grad(_Add(), 0, return_ids=True), (1, t), ())
    three = kiln.grad(lambda x, k, z: x * k * z, (0, 1, 2))
    _same_in_every_mode(lambda: three, (t, 2, Tensor([5.0])), (_f32(10), _f32(4)), in_construct=False)
    for mode in MODES:
        kiln.set_context(mode=mode)
        value, grads = kiln.value_and_grad(_Add())(1, 2)
        assert (value, grads) == (3, ())


def test_integer_parameter_gradient_is_cast_back_and_its_value_kept():
    net = _Affine(kiln.int32)
    for mode in MODES:
        kiln.set_context(mode=mode)
        grads = kiln.grad(net, 0, net.trainable_params())(Tensor([10], kiln.int32), Tensor([20], kiln.int32))
        assert _shape_of(grads) == (_int(6), (_int(10), _int(20)))
        assert _shape_of(net.w) == _int(6) and _shape_of(net.b) == _int(2)


class _Counter(nn.Cell):
    """Writes its Parameter while its output depends on it."""

    def __init__(self, dtype=kiln.int32):
        super().__init__()
        self.n = Parameter(Tensor([1], dtype), name="n")

    def construct(self, x):
        out = self.n * x
        self.n = self.n + 1
        return out


@pytest.mark.parametrize("dtype", [kiln.int32, kiln.float32])
def test_a_differentiated_parameter_written_by_the_function_keeps_the_write_in_its_dtype(dtype):
    # the gradient is taken at the value on entry; the write stays (in graphs it was dropped)
    expected = (_int(7), _int(2)) if dtype == kiln.int32 else (_f32(7), _f32(2))
    for mode in MODES:
        kiln.set_context(mode=mode)
        net = _Counter(dtype)
        assert _shape_of(kiln.grad(net, None, net.n)(Tensor([7.0], dtype))) == expected[0]
        assert _shape_of(net.n) == expected[1]


class _IndexParam(nn.Cell):
    def __init__(self):
        super().__init__()
        self.i = Parameter(Tensor([2, 0], kiln.int32), name="i")

    def construct(self, x):
        return ops.gather(x, self.i, 0).sum()


def test_an_integer_parameter_used_as_an_index_gets_zeros():
    net = _IndexParam()
    expected = (_f32(1, 0, 1), _int(0, 0))
    _same_in_every_mode(lambda: kiln.grad(net, 0, net.i), (Tensor([1.0, 2.0, 3.0]),), expected, in_construct=False)


@pytest.mark.parametrize("position", [(), []])
def test_an_empty_grad_position_is_refused_when_the_transform_is_made(position):
    net = _Affine(kiln.float32)
    for weights in (None, net.w, []):
        with pytest.raises(RuntimeError, match="grad_position is empty"):
            kiln.grad(net, position, weights)
        with pytest.raises(RuntimeError, match="grad_position is empty"):
            kiln.value_and_grad(net, position, weights)


@pytest.mark.parametrize("mode", MODES)
def test_a_position_past_the_arguments_is_an_index_error(mode):
    kiln.set_context(mode=mode)
    net = _NoInput(kiln.float32)
    with pytest.raises(IndexError, match="grad_position 0 is out of range"):
        kiln.grad(net, 0)()
    with pytest.raises(IndexError, match=r"grad_position \(0, 2\) is out of range"):
        kiln.grad(_Add(), (0, 2))(Tensor([1.0]), Tensor([2.0]))


def test_gradient_values_agree_with_numpy_for_integer_parameters():
    net = _Affine(kiln.int32)
    x = np.array([3, -4], np.int32)
    y = np.array([5, 7], np.int32)
    for mode in MODES:
        kiln.set_context(mode=mode)
        gw, gb = kiln.grad(net, None, [net.w, net.b])(Tensor(x), Tensor(y))
        np.testing.assert_array_equal(gw.asnumpy(), [x.sum()])
        np.testing.assert_array_equal(gb.asnumpy(), [y.sum()])
        assert gw.dtype == kiln.int32 and gb.dtype == kiln.int32


class _GradInConstruct(nn.Cell):
    """grad with return_ids and get_grad, both inside construct."""

    def __init__(self, net, identifier):
        super().__init__()
        self.net = net
        self.identifier = identifier

    def construct(self, x, y):
        return ops.get_grad(kiln.grad(self.net, 0, self.net.w, return_ids=True)(x, y), self.identifier)


@pytest.mark.parametrize("mode", MODES)
def test_get_grad_of_an_identifier_not_there_is_a_runtime_error_in_construct_too(mode):
    kiln.set_context(mode=mode)
    net = _Affine(kiln.float32)
    x, y = Tensor([10.0]), Tensor([20.0])
    assert _shape_of(_GradInConstruct(net, net.w)(x, y)) == _f32(10)
    with pytest.raises(RuntimeError, match="no gradient is identified by 1"):
        _GradInConstruct(net, 1)(x, y)


class _GradOfNoArgs(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x, y):
        return kiln.grad(self.net, 0)()


@pytest.mark.parametrize("mode", MODES)
def test_a_position_past_the_arguments_is_an_index_error_in_construct_too(mode):
    kiln.set_context(mode=mode)
    with pytest.raises(IndexError, match="grad_position 0 is out of range"):
        _GradOfNoArgs(_NoInput(kiln.float32))(Tensor([1.0]), Tensor([2.0]))


class _KeywordsOnly(nn.Cell):
    def construct(self, *, a, b):
        return a * b


@pytest.mark.parametrize("mode", MODES)
def test_grad_operation_with_keyword_arguments_only_differentiates_the_first(mode):
    kiln.set_context(mode=mode)
    a, b = Tensor([2.0]), Tensor([3.0])
    assert _shape_of(GradOperation()(_KeywordsOnly())(a=a, b=b)) == _f32(3)
    assert _shape_of(GradOperation(get_all=True)(_KeywordsOnly())(a=a, b=b)) == (_f32(3), _f32(2))
