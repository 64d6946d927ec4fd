"""Bad input in PyNative: a ValueError/TypeError naming the op and the shapes, never a backend trace."""

from __future__ import annotations

import os
import traceback

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops


def T(*shape, dtype=np.float32):
    return Tensor(np.ones(shape, dtype))


def _no_backend_chain(err: BaseException) -> None:
    """The error must not carry (or print) a chained JAX exception."""
    assert err.__cause__ is None
    assert err.__suppress_context__ or err.__context__ is None
    text = str(err)
    for word in ("jax", "Jax", "XLA", "Traceback", "jaxlib"):
        assert word not in text, f"backend detail {word!r} leaked into: {text}"


SHAPE_ERRORS = [
    ("BiasAdd", lambda: ops.bias_add(T(2, 3, 4, 4), T(5)), ("[2, 3, 4, 4]", "[5]")),
    ("BiasAdd", lambda: ops.BiasAdd()(T(4, 6), T(4)), ("[4, 6]", "[4]")),
    ("MatMul", lambda: ops.matmul(T(2, 3), T(4, 5)), ("[2, 3]", "[4, 5]")),
    ("MatMul", lambda: ops.MatMul()(T(2, 3), T(4, 5)), ("[2, 3]", "[4, 5]")),
    ("MatMul", lambda: ops.MatMul(transpose_b=True)(T(2, 3), T(3, 5)), ("[2, 3]", "[3, 5]")),
    ("MatMul", lambda: ops.bmm(T(2, 3, 4), T(2, 5, 6)), ("[2, 3, 4]", "[2, 5, 6]")),
    ("Add", lambda: ops.add(T(2, 3), T(4, 5)), ("[2, 3]", "[4, 5]")),
    ("Add", lambda: ops.Add()(T(2, 3), T(4, 5)), ("[2, 3]", "[4, 5]")),
    ("Add", lambda: T(3) + T(4), ("[3]", "[4]")),
    ("Mul", lambda: ops.mul(T(2, 3), T(2, 4)), ("[2, 3]", "[2, 4]")),
    ("Sub", lambda: T(5, 1) - T(2, 5, 3, 2), ("[5, 1]", "[2, 5, 3, 2]")),
    ("Reshape", lambda: ops.reshape(T(2, 3), (4, 2)), ("[2, 3]", "[4, 2]")),
    ("Concat", lambda: ops.concat((T(2, 3), T(3, 4)), 0), ("[2, 3]", "[3, 4]")),
    ("Stack", lambda: ops.stack((T(2, 3), T(2, 4))), ("[2, 3]", "[2, 4]")),
    ("Transpose", lambda: ops.transpose(T(2, 3), (0, 0)), ("[2, 3]",)),
    ("BroadcastTo", lambda: ops.broadcast_to(T(2, 3), (4, 3)), ("[2, 3]", "[4, 3]")),
]


@pytest.mark.parametrize(
    ("op", "call", "shapes"), SHAPE_ERRORS, ids=[f"{s[0]}-{i}" for i, s in enumerate(SHAPE_ERRORS)]
)
def test_shape_mismatch_is_a_value_error_naming_op_and_shapes(op, call, shapes):
    with pytest.raises(ValueError) as info:
        call()
    message = str(info.value)
    assert message.startswith(f"For '{op}'"), message
    for s in shapes:
        assert s in message, f"{s} missing from: {message}"
    _no_backend_chain(info.value)


ATTRIBUTE_ERRORS = [
    ("Softmax", lambda: ops.softmax(T(2, 3), 3), ValueError),
    ("ReduceSum", lambda: ops.sum(T(2, 3), 2), ValueError),
    ("ReduceMean", lambda: ops.mean(T(2, 3), -3), ValueError),
    ("Argmax", lambda: ops.argmax(T(2, 3), 4), ValueError),
    ("CumSum", lambda: ops.cumsum(T(2, 3), 3), ValueError),
    ("ExpandDims", lambda: ops.expand_dims(T(2, 3), 5), ValueError),
    ("TopK", lambda: ops.topk(T(2, 3), 5), ValueError),
    ("TopK", lambda: ops.topk(T(2, 3), 1.5), TypeError),
    ("OneHot", lambda: ops.one_hot(Tensor(np.array([1, 0])), -1), ValueError),
    ("Gather", lambda: ops.gather(T(3, 3), T(2), 0), TypeError),
    ("Split", lambda: ops.split(T(4, 2), [1, 2]), ValueError),
    ("Div", lambda: ops.div(T(2), T(2), rounding_mode="round"), ValueError),
]


@pytest.mark.parametrize(
    ("op", "call", "kind"), ATTRIBUTE_ERRORS, ids=[f"{s[0]}-{i}" for i, s in enumerate(ATTRIBUTE_ERRORS)]
)
def test_invalid_attribute_names_the_op(op, call, kind):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value).startswith(f"For '{op}'"), str(info.value)
    _no_backend_chain(info.value)


def test_error_inside_a_gradient_is_the_same_error():
    def loss(x):
        return ops.bias_add(x, T(7)).sum()

    with pytest.raises(ValueError) as info:
        kiln.grad(loss)(T(2, 3))
    assert str(info.value).startswith("For 'BiasAdd'")
    _no_backend_chain(info.value)
    # the tape is usable afterwards
    g = kiln.grad(lambda x: (x * x).sum())(T(2))
    np.testing.assert_allclose(g.asnumpy(), [2.0, 2.0])


def test_wrong_argument_count_is_a_type_error():
    with pytest.raises(TypeError):
        ops.add(T(2))
    with pytest.raises(TypeError):
        ops.MatMul()(T(2, 2))


def test_error_is_raised_at_the_call_not_later():
    # PyNative raises when the op runs, before any asnumpy() forces a value.
    with pytest.raises(ValueError):
        ops.matmul(T(2, 3), T(2, 3))


def test_errors_of_later_calls_are_independent():
    # One op's cached backend function must not be poisoned by a failed call.
    with pytest.raises(ValueError):
        ops.matmul(T(2, 3), T(4, 5))
    np.testing.assert_allclose(ops.matmul(T(2, 3), T(3, 5)).asnumpy(), np.full((2, 5), 3.0))


@pytest.mark.parametrize("mode", ["pynative", "jit"])
@pytest.mark.parametrize(
    ("op", "call"),
    [
        ("Add", lambda x: x.add("1")),  # an op with its own check
        ("ReduceMean", lambda x: ops.mean("1", 0)),
    ],
)
def test_a_string_input_is_a_type_error_naming_the_op(mode, op, call):
    run = call if mode == "pynative" else kiln.jit(call)
    with pytest.raises(TypeError, match=f"For '{op}', input . must be a Tensor or a number, but got str") as info:
        run(Tensor(np.int64(2)))
    _no_backend_chain(info.value)


_KILN_DIR = os.path.dirname(kiln.__file__) + os.sep
_DISPATCH_DIRS = tuple(_KILN_DIR + d + os.sep for d in ("_pynative", "_core", "_prims", "_backend"))

TRACEBACK_CASES = {
    "reshape": lambda: ops.reshape(T(2, 3), (4, 2)),  # the op's check, run when it is recorded
    "primitive_axis": lambda: ops.ReduceMean()(T(2, 3), 5),
    "tensor_index": lambda: T(3, 4)[Tensor(5, kiln.int32)],  # a bounds check of the index's value
    "operator": lambda: T(3) + T(4),
}


@pytest.mark.parametrize("case", list(TRACEBACK_CASES))
def test_an_op_failing_outside_a_cell_shows_no_dispatch_frames(case, monkeypatch):
    # the traceback ended in dispatch.apply, _defer, diagnose, validate, the check and op_error (up to 11 frames
    # of Kiln's internals after the user's line); now the user's line and the public op they called
    monkeypatch.delenv("KILN_DEBUG", raising=False)
    with pytest.raises((ValueError, IndexError)) as info:
        TRACEBACK_CASES[case]()
    frames = traceback.extract_tb(info.value.__traceback__)
    assert any(f.filename == __file__ for f in frames)
    internal = [f"{f.filename}:{f.lineno}" for f in frames if f.filename.startswith(_DISPATCH_DIRS)]
    assert not internal, internal
    assert str(info.value).startswith("For ") or "out of bounds" in str(info.value)


def test_kiln_debug_keeps_the_dispatch_frames(monkeypatch):
    monkeypatch.setenv("KILN_DEBUG", "1")
    with pytest.raises(ValueError) as info:
        ops.reshape(T(2, 3), (4, 2))
    assert any(f.filename.startswith(_DISPATCH_DIRS) for f in traceback.extract_tb(info.value.__traceback__))
