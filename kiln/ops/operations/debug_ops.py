"""MindSpore's debug Primitive classes (`ops.operations.debug_ops`): Print, summaries, gradient hooks, Assert, Morph."""

from __future__ import annotations

import inspect

from kiln._compiler.ir import graph as G
from kiln._core.tensor import Tensor
from kiln._pynative import tape
from kiln._pynative.autograd import _custom_bprop_in_graph, call_with_custom_bprop
from kiln.ops import array
from kiln.ops._helpers import op_error
from kiln.ops.operations._build import attr_class
from kiln.ops.primitive import Primitive

__all__ = [
    "Print",
    "HookBackward",
    "InsertGradientOf",
    "Assert",
    "Morph",
    "ScalarSummary",
    "TensorSummary",
    "ImageSummary",
    "HistogramSummary",
]


def _hooked(args, rule_for, owner):
    """`args` passed through unchanged as new Tensors whose backward is `rule_for(cotangents)`."""
    single = len(args) == 1
    tensors = tuple(a for a in args if isinstance(a, Tensor))
    trace = G.current()
    if trace is not None and any(G.is_symbolic(t._data) for t in tensors):
        # In a graph: an identity with a custom backward in which the hook runs on the symbolic gradients
        def construct(*a):
            return a[0] if single else tuple(a)

        def bprop(*a):
            dout = a[-1]
            grads = rule_for((dout,) if single else tuple(dout))
            return tuple(g if g is not None else array.zeros_like(x) for g, x in zip(grads, a, strict=False))

        return _custom_bprop_in_graph(trace, owner, bprop, construct, args)
    if not tape.recording:
        return args[0] if single else args
    fresh = tuple(Tensor._wrap(t._data) for t in tensors)
    tape.record_custom(tensors, fresh, rule_for)
    it = iter(fresh)
    out = tuple(next(it) if isinstance(a, Tensor) else a for a in args)
    return out[0] if single else out


def _assert(s, cond, data):
    value = cond.asnumpy().all() if isinstance(cond, Tensor) else bool(cond)
    if not value:
        shown = [d.asnumpy().reshape(-1)[: s.summarize] if isinstance(d, Tensor) else d for d in data]
        raise ValueError(f"Assert failed: the condition is false; data: {shown}")


_summary_sinks: list = []  # callables sink(kind, name, value) installed by a summary recorder


def _summary(kind: str):
    def call(self, name, value):
        if not isinstance(name, str) or not name:
            raise op_error(self.name, f"'name' must be a non-empty str, but got {name!r}.", TypeError)
        if not isinstance(value, Tensor):
            raise op_error(self.name, f"'value' must be a Tensor, but got {type(value).__name__}.", TypeError)
        for sink in _summary_sinks:
            sink(kind, name, value)

    return call


def _summary_class(name: str, kind: str) -> type:
    cls = type(name, (Primitive,), {
        "__call__": _summary(kind),
        "__doc__": f"`{name}()(name, value)`: hand `value` to the active summary recorder under `name` "
                   "(MindSpore records it only inside a SummaryRecord; without one, as here, nothing is kept). "
                   "Returns None.",
    })  # fmt: skip
    cls.__init__ = lambda self: Primitive.__init__(self, name)
    return cls


class Print(Primitive):
    """Print tensors and strings (in PyNative: at once)."""

    def __init__(self) -> None:
        super().__init__("Print")

    def __call__(self, *args):
        print(*(a.asnumpy() if isinstance(a, Tensor) else a for a in args))


class HookBackward(Primitive):
    """Identity in the forward pass; in the backward pass `hook_fn(grads)` gets the tuple of the inputs'
    gradients and may return replacements (a tuple of as many Tensors; None keeps them).

    In a compiled graph (GRAPH_MODE, @jit) the hook is traced into the backward graph: it applies as in
    PyNative (MindSpore 2.10 skips it there), and its Python side effects run when the graph is compiled.
    """

    def __init__(self, hook_fn, cell_id: str = "") -> None:
        super().__init__("HookBackward")
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: 'hook_fn' must be callable, but got {type(hook_fn).__name__}.")
        self.hook_fn, self.cell_id = hook_fn, cell_id

    def __call__(self, *args):
        def rule(cots):
            # As MindSpore: one call with the tuple of the inputs' gradients; None keeps them
            new = self.hook_fn(tuple(cots))
            if new is None:
                return tuple(cots)
            new = (new,) if isinstance(new, Tensor) else new
            if not isinstance(new, (tuple, list)) or len(new) != len(cots):
                name = getattr(self.hook_fn, "__qualname__", type(self.hook_fn).__name__)
                raise TypeError(
                    f"HookBackward: hook_fn {name} receives the tuple of {len(cots)} gradient(s) and must return "
                    f"a tuple of as many Tensors (or None), but it returned "
                    f"{type(new).__name__ if not isinstance(new, (tuple, list)) else f'{len(new)} item(s)'}."
                )
            return tuple(new)

        return _hooked(args, rule, self)


class InsertGradientOf(Primitive):
    """Identity in the forward pass; the gradient flowing back through it becomes `f(gradient)`."""

    def __init__(self, f) -> None:
        super().__init__("InsertGradientOf")
        if not callable(f):
            raise TypeError(f"InsertGradientOf: 'f' must be callable, but got {type(f).__name__}.")
        self.f = f

    def __call__(self, *args):
        return _hooked(args, lambda cots: tuple(self.f(c) for c in cots), self)


Assert = attr_class("Assert", {"summarize": 3}, lambda s, cond, data: _assert(s, cond, data))


class Morph(Primitive):
    """`Morph(fn, infer_shape, infer_dtype, bprop_fn=None)(*args)`: call `fn` as one op (its Kiln ops run as
    usual, in PyNative and in graphs); `bprop_fn(*args, out, dout)` replaces its gradient when given."""

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None) -> None:
        super().__init__("Morph")
        if not callable(fn):
            raise TypeError(f"Morph: 'fn' must be callable, but got {type(fn).__name__}.")
        self.fn, self.infer_shape, self.infer_dtype, self.bprop_fn = fn, infer_shape, infer_dtype, bprop_fn

    def __call__(self, *args, **kwargs):
        if self.bprop_fn is None:
            return self.fn(*args, **kwargs)
        if kwargs:  # bprop_fn takes the inputs by position: keywords go to their places, as fn binds them
            bound = inspect.signature(self.fn).bind(*args, **kwargs)
            if bound.kwargs:
                raise TypeError(
                    f"Morph: bprop_fn takes the inputs by position, but {', '.join(bound.kwargs)} can only be "
                    f"given by keyword to {getattr(self.fn, '__name__', 'fn')}."
                )
            args = bound.args
        # the same path as a Cell's bprop: the tape in PyNative, a custom_vjp equation in a graph
        return call_with_custom_bprop(self, self.bprop_fn, self.fn, tuple(args))


ScalarSummary = _summary_class("ScalarSummary", "scalar")
TensorSummary = _summary_class("TensorSummary", "tensor")
ImageSummary = _summary_class("ImageSummary", "image")
HistogramSummary = _summary_class("HistogramSummary", "histogram")
