"""Higher-order forward differentiation (MindSpore's `ops.jet`, `ops.derivative`) on JAX's Taylor mode.

The user's function runs once on the backend's Taylor-mode transformation (`jax.experimental.jet`) with Tensors
standing for its symbolic values, as `ops.jvp` runs on the backend's forward mode. Series follow MindSpore's
(and JAX's) convention: term i is the (i + 1)-th derivative along the input direction, not a Taylor coefficient.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from kiln._backend import jnp, taylor_jet
from kiln._compiler.ir import graph as G
from kiln._core.tensor import Tensor
from kiln._pynative.nested import call_with_graph_semantics, record
from kiln.ops._helpers import op_error
from kiln.ops.transforms import _pure

__all__ = ["derivative", "jet"]


def _float(t, op: str, name: str) -> Tensor:
    if not isinstance(t, Tensor):
        raise op_error(op, f"'{name}' must be a Tensor or a tuple of Tensors, but got {type(t).__name__}.", TypeError)
    return t if t.dtype.is_floating else Tensor._wrap(t._data.astype(np.float32))


def _outputs(out, op: str) -> tuple:
    """The function's output as a tuple of Tensors (one Tensor, or a tuple or list of them)."""
    outs = tuple(out) if isinstance(out, (tuple, list)) else (out,)
    if not outs or not all(isinstance(o, Tensor) for o in outs):
        raise op_error(op, "the function must return a Tensor or a tuple of Tensors.", TypeError)
    return outs


def _taylor(fn: Callable, primals: tuple, series: tuple, op: str):
    """(fn(*primals), its series): one Tensor each for a single output, tuples of them for a tuple output."""
    trace = G.current()
    if trace is not None and any(G.is_symbolic(t._data) for t in primals + series):
        return _taylor_in_graph(trace, fn, primals, series, op)
    pure = _pure(fn, op)
    several = []

    def arrays_out(*arrays):
        out = pure(*arrays)
        several.append(isinstance(out, (tuple, list)))
        return tuple(out) if several[-1] else (out,)

    p = tuple(x._data for x in primals)
    s = tuple([term for term in jnp.asarray(ser._data, x._data.dtype)] for x, ser in zip(primals, series, strict=True))
    out, out_series = taylor_jet(arrays_out, p, s)
    values = tuple(Tensor._wrap(o) for o in out)
    terms = tuple(Tensor._wrap(jnp.stack(t)) for t in out_series)
    return (values, terms) if several[0] else (values[0], terms[0])


def _taylor_in_graph(trace, fn: Callable, primals: tuple, series: tuple, op: str):
    """Inside a graph being recorded: `fn` recorded as a nested graph, one `taylor` equation (the backend's
    Taylor mode over the nested graph when lowered)."""
    positions = list(range(len(primals)))
    nested = record(trace, op, lambda *a: call_with_graph_semantics(G.current(), fn, a), list(primals), positions)
    if nested.written:
        raise op_error(op, "inside a compiled graph the function must not write Parameters or draw random numbers.")
    outs = _outputs(nested.result, op)
    order = series[0].shape[0]
    avals = [(tuple(o.shape), o._data.dtype) for o in outs]
    avals += [((order, *o.shape), o._data.dtype) for o in outs]
    ins = [x._data for x in primals] + [t._data for t in series] + list(nested.captured)
    results = trace.emit("taylor", ins, avals, {"graph": nested.graph, "n_primals": len(primals)})
    values = tuple(Tensor._wrap(r) for r in results[: len(outs)])
    terms = tuple(Tensor._wrap(r) for r in results[len(outs) :])
    several = isinstance(nested.result, (tuple, list))
    return (values, terms) if several else (values[0], terms[0])


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
    if isinstance(out_series, tuple):
        return out, tuple(t[-1] for t in out_series)
    return out, out_series[-1]
