"""Parameter conversion and validation for distributions and bijectors.

The `check_*` functions look at concrete values (at construction time) and raise ValueError; Parameters are
trainable and are not checked (their value may change). `CheckTuple` / `CheckTensor` are Cells usable inside
`construct` (in both modes) that raise TypeError for a value of the wrong kind.
"""

from __future__ import annotations

import operator

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.nn.cell import Cell

_FLOATS = (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16)


def cast_to_tensor(t, hint_type=mstype.float32):
    """`t` (number, list, ndarray, Tensor) as a Tensor of `hint_type`; a Parameter is returned as it is."""
    if t is None:
        raise ValueError("cast_to_tensor: the input cannot be None.")
    if isinstance(t, Parameter):
        return t
    if isinstance(t, (bool, np.bool_)):
        raise TypeError("cast_to_tensor: the input cannot be a bool.")
    if isinstance(t, Tensor):
        return t.astype(hint_type) if t.dtype != hint_type else t
    if isinstance(t, (np.ndarray, np.generic, list, tuple, int, float)):
        return Tensor(np.asarray(t), dtype=hint_type)
    raise TypeError(f"cannot convert an input of type {type(t).__name__} to a Tensor of type {hint_type}.")


def _value_dtype(v):
    """The Kiln dtype of a Tensor or ndarray parameter; None for Python numbers and lists."""
    if isinstance(v, Tensor):
        return v.dtype
    if isinstance(v, (np.ndarray, np.generic)):
        return mstype.to_dtype(v.dtype)
    return None


def set_param_type(args, hint_type):
    """The dtype the parameters in dict `args` are computed in.

    Tensors and arrays among them must share one dtype (TypeError otherwise); float16 stays float16, any other
    (float64, integers) computes in float32. Without any, `hint_type` decides (float32 unless it is a float).
    """
    common = None
    for name, v in args.items():
        dt = _value_dtype(v)
        if dt is None:
            continue
        if common is None:
            common = (name, dt)
        elif dt != common[1]:
            raise TypeError(
                f"the parameters must have the same dtype, but '{common[0]}' is {common[1]} and '{name}' is {dt}."
            )
    if common is None:
        return hint_type if hint_type in _FLOATS else mstype.float32
    return mstype.float16 if common[1] == mstype.float16 else mstype.float32


def _concrete(value):
    """The NumPy value of a Tensor/array/number to check; None for a Parameter (not checked)."""
    if isinstance(value, Parameter):
        return None
    if isinstance(value, Tensor):
        return value.asnumpy()
    return np.asarray(value)


def check_greater_zero(value, name):
    if value is None:
        raise ValueError(f"{name} cannot be None.")
    v = _concrete(value)
    if v is not None and not np.all(v > 0):
        raise ValueError(f"{name} must be greater than zero.")


def check_greater_equal_zero(value, name):
    v = _concrete(value)
    if v is not None and not np.all(v >= 0):
        raise ValueError(f"{name} has a negative value; it must be 0 or more everywhere.")


def check_greater(a, b, name_a, name_b):
    if a is None or b is None:
        raise ValueError(f"{name_a} and {name_b} cannot be None.")
    va, vb = _concrete(a), _concrete(b)
    if va is not None and vb is not None and not np.all(va < vb):
        raise ValueError(f"{name_a} must be less than {name_b}.")


def check_prob(p):
    v = _concrete(p)
    if v is None:
        return
    if not np.all(v > 0):
        raise ValueError("probabilities must be greater than zero.")
    if not np.all(v < 1):
        raise ValueError("probabilities must be less than one.")


def check_sum_equal_one(probs):
    v = _concrete(probs)
    if v is None:
        return
    total = np.sum(v, axis=-1)
    eps = np.finfo(v.dtype if v.dtype.kind == "f" else np.float32).eps
    if not np.allclose(total, 1.0, rtol=10 * eps, atol=eps):
        raise ValueError("the probabilities of each category must sum to one.")


def check_rank(probs):
    v = _concrete(probs)
    if v is not None and v.ndim == 0:
        raise ValueError("the probabilities of a Categorical distribution must have rank >= 1.")


def check_distribution_name(name, expected):
    if name != expected:
        raise ValueError(f"the other distribution must be {expected}, but got {name}.")


def raise_none_error(name):
    raise TypeError(f"'{name}' must be a Tensor: it was not given at construction, so it must be passed in the call.")


def raise_not_implemented(func_name, dist_name):
    raise NotImplementedError(f"{func_name} is not implemented for the {dist_name} distribution.")


class CheckTuple(Cell):
    """`CheckTuple()(value, name)`: `value` if it is a tuple, else TypeError."""

    def construct(self, x, name):
        if not isinstance(x, tuple):
            raise TypeError(f"'{name}' must be a tuple, but got {type(x).__name__}.")
        return x


class CheckTensor(Cell):
    """`CheckTensor()(value, name)`: `value` if it is a Tensor (or Parameter), else TypeError."""

    def construct(self, x, name):
        if not isinstance(x, Tensor):
            raise TypeError(f"'{name}' must be a Tensor or Parameter, but got {type(x).__name__}.")
        return x


def read_only(attribute: str) -> property:
    """A read-only property returning `self.<attribute>` (the public face of a distribution's or bijector's state).

    Args:
        attribute: the private attribute's name.

    Returns:
        The property.
    """
    return property(operator.attrgetter(attribute))
