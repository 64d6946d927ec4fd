"""Host interaction from inside a graph: run-time `print` and LAX host calls."""

from __future__ import annotations

import builtins

import numpy as np

from kiln._core import graph as G
from kiln._core.tensor import Tensor


class _Struct:
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype) -> None:
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)


def _split(values):
    """(static template, arrays): Tensors become holes filled at run time."""
    arrays, template = [], []
    for v in values:
        if isinstance(v, Tensor):
            template.append(("t", len(arrays), v.dtype))
            arrays.append(v._data)
        else:
            template.append(("c", v))
    return template, arrays


def _fill(template, arrays):
    out = []
    for entry in template:
        if entry[0] == "t":
            out.append(Tensor(np.asarray(arrays[entry[1]])))
        else:
            out.append(entry[1])
    return out


def print_(ctx, args, kwargs):
    """`print` in a graph: a host callback equation, so it prints when the graph runs, in program order,
    and only when its branch is taken."""
    template, arrays = _split(args)
    trace = G.current()
    if not ctx.tracing or trace is None or not any(G.is_symbolic(a) for a in arrays):
        builtins.print(*args, **kwargs)
        return None

    def host(*values):
        builtins.print(*_fill(template, values), **kwargs)

    trace.emit("callback", arrays, [], {"fn": host})
    return None


def host_call(ctx, fn, args, kwargs):
    """LAX: run `fn` on the host when the graph runs (its inputs are only known then)."""
    flat_args = list(args) + list(kwargs.values())
    template, arrays = _split(flat_args)
    n_pos = len(args)
    keys = list(kwargs)

    def call_host(*values):
        filled = _fill(template, values)
        return fn(*filled[:n_pos], **dict(zip(keys, filled[n_pos:], strict=True)))

    # The output's shape comes from one run on placeholder values of the right shapes.
    with G.recording(None):
        sample = call_host(*(np.zeros(a.shape, a.dtype) for a in arrays))
    out_template, out_structs = _result_spec(sample)

    def host(*values):
        result = call_host(*values)
        _, flat = _result_spec(result, concrete=True)
        return tuple(np.asarray(x, dtype=s.dtype).reshape(s.shape) for x, s in zip(flat, out_structs, strict=True))

    outs = G.current().emit("host_call", arrays, [(s.shape, s.dtype) for s in out_structs], {"fn": host})
    return _rebuild(out_template, iter(outs))


def _result_spec(value, concrete: bool = False):
    flat: list = []

    def walk(v):
        if isinstance(v, (tuple, list)):
            return (type(v), tuple(walk(x) for x in v))
        if isinstance(v, Tensor) or isinstance(v, (np.ndarray, np.generic)) or isinstance(v, (int, float, bool)):
            arr = np.asarray(v.asnumpy() if isinstance(v, Tensor) else v)
            if isinstance(v, float):
                arr = arr.astype(np.float32)
            flat.append(arr if concrete else _Struct(arr.shape, arr.dtype))
            return ("leaf", isinstance(v, Tensor))
        if v is None:
            return ("none",)
        raise TypeError(f"a host call in graph mode may return Tensors, numbers or tuples, not {type(v).__name__}.")

    return walk(value), flat


def _rebuild(desc, it):
    if desc[0] == "leaf":
        return Tensor._wrap(next(it))
    if desc[0] == "none":
        return None
    return desc[0](_rebuild(d, it) for d in desc[1])
