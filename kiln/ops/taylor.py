"""Higher-order forward differentiation (MindSpore's `ops.jet`, `ops.derivative`) on JAX's Taylor mode.

The user's function runs once on the backend's Taylor-mode transformation (`jax.experimental.jet`) with Tensors
standing for its symbolic values, as `ops.jvp` runs on the backend's forward mode. Series follow MindSpore's
(and JAX's) convention: term i is the (i + 1)-th derivative along the input direction, not a Taylor coefficient.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from kiln._backend import jnp
from kiln._core.tensor import Tensor
from kiln.ops._helpers import op_error
from kiln.ops.transforms import _pure, _to_tensors

__all__ = ["derivative", "jet"]


def _float(t, op: str, name: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise op_error(op, f"'{name}' must be a Tensor or a tuple of Tensors, but got {type(t).__name__}.", TypeError)
    return t if t.dtype.is_floating else Tensor._wrap(t._data.astype(np.float32))


def _taylor(fn: Callable, primals: tuple, series: tuple, op: str):
    jet_fn = importlib.import_module("jax.experimental.jet").jet  # the backend's Taylor mode (loaded when used)
    pure = _pure(fn, op)

    def single(*arrays):
        out = pure(*arrays)
        if isinstance(out, (tuple, list)):
            raise op_error(op, "the function must return one Tensor.", TypeError)
        return out

    p = tuple(x._data for x in primals)
    s = tuple([term for term in jnp.asarray(ser._data, x._data.dtype)] for x, ser in zip(primals, series, strict=True))
    out, out_series = jet_fn(single, p, s)
    return _to_tensors(out), Tensor._wrap(jnp.stack(out_series))


def jet(fn: Callable, primals, series):
    """Derivatives 1 .. n of `fn` at `primals` along the input derivatives in `series`.

    Args:
        fn: a function or Cell of Tensors returning one Tensor.
        primals: the input Tensor, or a tuple of them (int inputs are taken as float32).
        series: per input, a Tensor (n, *input.shape): term i is the (i + 1)-th derivative of the input path
            (usually ones for i = 0 and zeros after).

    Returns:
        (out_primals, out_series): fn(primals) and a Tensor (n, *out.shape) of its derivatives 1 .. n.
    """
    op = "jet"
    single = not isinstance(primals, (tuple, list))
    xs = (primals,) if single else tuple(primals)
    ss = (series,) if single else tuple(series)
    if len(xs) != len(ss):
        raise op_error(op, f"'primals' has {len(xs)} input(s) but 'series' has {len(ss)}.")
    xs = tuple(_float(x, op, "primals") for x in xs)
    for x, s in zip(xs, ss, strict=True):
        if not isinstance(s, Tensor) or tuple(s.shape[1:]) != tuple(x.shape) or s.ndim == 0:
            got = tuple(s.shape) if isinstance(s, Tensor) else type(s).__name__
            raise op_error(op, f"each 'series' entry must be (order, *{tuple(x.shape)}), but got {got}.")
    return _taylor(fn, xs, ss, op)


def derivative(fn: Callable, primals, order: int):
    """The `order`-th derivative of `fn` at `primals` along the all-ones direction of every input.

    Returns:
        (out_primals, out_series): fn(primals) and its `order`-th derivative (a Tensor of the output's shape).
    """
    op = "derivative"
    if not isinstance(order, int) or isinstance(order, bool) or order < 1:
        raise op_error(op, f"'order' must be a positive int, but got {order!r}.")
    single = not isinstance(primals, (tuple, list))
    xs = tuple(_float(x, op, "primals") for x in ((primals,) if single else primals))
    ss = tuple(Tensor._wrap(jnp.zeros((order, *x.shape), x._data.dtype).at[0].set(1)) for x in xs)
    out, out_series = _taylor(fn, xs, ss, op)
    return out, Tensor._wrap(out_series._data[-1])
