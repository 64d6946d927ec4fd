"""Comparisons and logic of `kiln.numpy`: elementwise comparisons, logical operators, finiteness tests,
closeness and equality of whole arrays, membership."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.numpy._utils import finish, is_float, to_tensor, to_tensors

__all__: list[str] = []


def _compare(name: str, fn):
    def f(x1, x2, dtype=None) -> Tensor:
        a, b = to_tensors(x1, x2)
        return finish(fn(a, b), dtype)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Elementwise `{name}` of `x1` and `x2`, broadcast.

    Args:
        x1, x2 (Tensor | number | list): the operands.
        dtype: the result's dtype (bool).

    Returns:
        Tensor of the broadcast shape.
    """
    __all__.append(name)
    return f


def _bool(x: Tensor) -> Tensor:
    return x if x.dtype == mstype.bool_ else ops.not_equal(x, 0)


equal = _compare("equal", ops.equal)
not_equal = _compare("not_equal", ops.not_equal)
greater = _compare("greater", ops.greater)
greater_equal = _compare("greater_equal", ops.greater_equal)
less = _compare("less", ops.less)
less_equal = _compare("less_equal", ops.less_equal)
logical_and = _compare("logical_and", lambda a, b: ops.logical_and(_bool(a), _bool(b)))
logical_or = _compare("logical_or", lambda a, b: ops.logical_or(_bool(a), _bool(b)))
logical_xor = _compare("logical_xor", lambda a, b: ops.logical_xor(_bool(a), _bool(b)))


def _test(name: str, fn, default):
    def f(x, dtype=None) -> Tensor:
        x = to_tensor(x)
        out = fn(x) if is_float(x) else ops.full(tuple(x.shape), default, dtype=mstype.bool_)
        return finish(out, dtype)

    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"""Elementwise `{name}` of `x` (integer input: {default} everywhere).

    Args:
        x (Tensor | number | list): the input.
        dtype: the result's dtype (bool).

    Returns:
        Tensor of bool.
    """
    __all__.append(name)
    return f


isnan = _test("isnan", ops.isnan, False)
isinf = _test("isinf", ops.isinf, False)
isfinite = _test("isfinite", ops.isfinite, True)
isposinf = _test("isposinf", lambda x: ops.logical_and(ops.isinf(x), ops.greater(x, 0)), False)
isneginf = _test("isneginf", lambda x: ops.logical_and(ops.isinf(x), ops.less(x, 0)), False)


def logical_not(a, dtype=None) -> Tensor:
    """Elementwise NOT of `a` (non-zero is true).

    Args:
        a (Tensor | number | list): the input.
        dtype: the result's dtype (bool).

    Returns:
        Tensor of bool.
    """
    return finish(ops.logical_not(_bool(to_tensor(a))), dtype)


def isclose(a, b, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Elementwise |a - b| <= atol + rtol * |b|; equal infinities are close.

    Args:
        a, b (Tensor | number | list): the operands (broadcast).
        rtol (float): relative tolerance.
        atol (float): absolute tolerance.
        equal_nan (bool): NaN counts as close to NaN.

    Returns:
        Tensor of bool.
    """
    a, b = to_tensors(a, b)
    if not is_float(a) and not is_float(b):
        a, b = ops.cast(a, mstype.float32), ops.cast(b, mstype.float32)
    diff = ops.abs(ops.sub(a, b))
    close = ops.less_equal(diff, ops.add(atol, ops.mul(rtol, ops.abs(b))))
    finite = ops.logical_and(ops.isfinite(a), ops.isfinite(b))
    close = ops.logical_or(ops.logical_and(close, finite), ops.equal(a, b))
    if equal_nan:
        close = ops.logical_or(close, ops.logical_and(ops.isnan(a), ops.isnan(b)))
    return close


def allclose(a, b, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Whether every element is close (see `isclose`), as a bool Tensor."""
    return ops.all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan: bool = False) -> Tensor:
    """Whether the inputs have the same shape and values (a bool Tensor).

    Args:
        a1, a2 (Tensor | list): the inputs.
        equal_nan (bool): NaNs at the same places count as equal.

    Returns:
        Tensor of bool, a scalar.
    """
    a, b = to_tensors(a1, a2)
    if tuple(a.shape) != tuple(b.shape):
        return ops.full((), False, dtype=mstype.bool_)
    eq = ops.equal(a, b)
    if equal_nan and (is_float(a) or is_float(b)):
        eq = ops.logical_or(eq, ops.logical_and(ops.isnan(a), ops.isnan(b)))
    return ops.all(eq)


def array_equiv(a1, a2) -> Tensor:
    """Whether the inputs broadcast to one shape and are equal there (a bool Tensor)."""
    a, b = to_tensors(a1, a2)
    try:
        np.broadcast_shapes(tuple(a.shape), tuple(b.shape))
    except ValueError:
        return ops.full((), False, dtype=mstype.bool_)
    return ops.all(ops.equal(a, b))


def isin(element, test_elements, invert: bool = False) -> Tensor:
    """Whether each element of `element` occurs in `test_elements` (shape of `element`).

    Args:
        element (Tensor | list): the values to look up.
        test_elements (Tensor | list): the values to look for (flattened).
        invert (bool): give the opposite.

    Returns:
        Tensor of bool.
    """
    e, t = to_tensors(element, test_elements)
    flat = ops.reshape(t, (-1,))
    if flat.shape[0] == 0:
        out = ops.zeros(tuple(e.shape), mstype.bool_)
    else:
        out = ops.any(ops.equal(ops.expand_dims(e, -1), flat), -1)
    return ops.logical_not(out) if invert else out


def in1d(ar1, ar2, invert: bool = False) -> Tensor:
    """`isin` of `ar1` flattened."""
    return isin(ops.reshape(to_tensor(ar1), (-1,)), ar2, invert)


__all__ += ["logical_not", "isclose", "allclose", "array_equal", "array_equiv", "isin", "in1d"]
