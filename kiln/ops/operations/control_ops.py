"""Primitive classes of graph control (MindSpore's `other_ops` and `manually_defined`): loops, dependencies,
stop-gradient, state loads and updates."""

from __future__ import annotations

import functools

from kiln._core.tensor import Tensor
from kiln.ops import array, math
from kiln.ops.operations._build import as_int, attr_class, simple_class
from kiln.ops.primitive import Primitive

__all__ = [
    "StopGradient",
    "Depend",
    "Partial",
    "WhileLoop",
    "ForiLoop",
    "Scan",
    "MoveTo",
    "UpdateState",
    "Load",
]


def _loop_value(v):
    return bool(v.asnumpy()) if isinstance(v, Tensor) else bool(v)


def _while_loop(s, cond_func, loop_func, init_val):
    val = init_val
    while _loop_value(cond_func(val)):
        val = loop_func(val)
    return val


def _fori_loop(s, lower, upper, loop_func, init_val, unroll=True):
    val = init_val
    for i in range(as_int(lower), as_int(upper)):
        val = loop_func(i, val)
    return val


def _scan(s, loop_func, init, xs, length=None, unroll=True):
    carry, ys = init, []
    n = length if xs is None else (xs.shape[0] if isinstance(xs, Tensor) else len(xs))
    for i in range(n):
        carry, y = loop_func(carry, None if xs is None else xs[i])
        ys.append(y)
    if ys and isinstance(ys[0], Tensor):
        return carry, array.stack(ys, 0)
    return carry, ys


StopGradient = simple_class("StopGradient", math.stop_gradient)
Depend = simple_class("Depend", lambda value, expr: value)
Partial = attr_class("Partial", {}, lambda s, fn, *args: functools.partial(fn, *args))
WhileLoop = attr_class("WhileLoop", {}, _while_loop)
ForiLoop = attr_class("ForiLoop", {}, _fori_loop)
Scan = attr_class("Scan", {}, _scan)
MoveTo = attr_class("MoveTo", {}, lambda s, x, to="CPU", blocking=True: array.move_to(x, to, blocking))


class UpdateState(Primitive):
    """`UpdateState()(state, *exprs)`: MindSpore's side-effect ordering node; Kiln orders effects itself, so the
    state comes back unchanged."""

    def __init__(self) -> None:
        super().__init__("UpdateState")

    def __call__(self, state, *exprs):
        return state


class Load(Primitive):
    """`Load()(parameter, u)`: the current value of `parameter` (MindSpore's side-effect read node)."""

    def __init__(self) -> None:
        super().__init__("Load")

    def __call__(self, parameter, u=None):
        return Tensor._wrap(parameter._data) if isinstance(parameter, Tensor) else parameter
