"""Primitive classes that run user code (`ops.operations.custom_ops`): Custom and PyFunc."""

from __future__ import annotations

import numbers

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._pynative.autograd import call_with_custom_bprop
from kiln.ops._helpers import apply, prim
from kiln.ops.primitive import Primitive

__all__ = [
    "PyFunc",
    "Custom",
]


def _as_shapes(value) -> tuple:
    value = list(value)
    if value and all(isinstance(v, numbers.Integral) for v in value):
        return (tuple(int(v) for v in value),)
    return tuple(tuple(int(d) for d in s) for s in value)


def _run_pyfunc(fn, inputs, out_shapes, out_dtypes):
    tensors = tuple(x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs)
    dtypes = tuple(mstype.to_dtype(d).np for d in out_dtypes)
    return apply(prim("PyFunc"), tensors, (fn, out_shapes, dtypes))


class PyFunc(Primitive):
    """`PyFunc(fn, in_types, in_shapes, out_types, out_shapes)(*inputs)`: run the Python function `fn` on NumPy
    copies of the inputs (on the host, also inside compiled graphs) and return its outputs as Tensors of the
    declared dtypes and shapes (a tuple); the inputs may also come as one tuple or list. It has no derivative: a
    gradient reaching it raises RuntimeError (cut it with ops.stop_gradient). It runs at every call, also in graphs
    (never merged or dropped as unused)."""

    def __init__(self, fn, in_types, in_shapes, out_types, out_shapes, stateful: bool = True) -> None:
        super().__init__("PyFunc")
        if not callable(fn):
            raise TypeError(f"PyFunc: 'fn' must be callable, but got {type(fn).__name__}.")
        self.fn = fn
        for k, v in (("in_types", in_types), ("in_shapes", in_shapes), ("out_types", out_types),
                     ("out_shapes", out_shapes), ("stateful", stateful)):  # fmt: skip
            self.add_prim_attr(k, v)
        self._out_shapes = _as_shapes(out_shapes)
        self._out_types = tuple(out_types)
        if len(self._out_shapes) != len(self._out_types):
            raise ValueError(f"PyFunc: {len(self._out_types)} out_types but {len(self._out_shapes)} out_shapes.")

    def __call__(self, *inputs):
        if len(inputs) == 1 and isinstance(inputs[0], (tuple, list)):  # PyFunc((x1, x2)): the tuple holds the inputs
            inputs = tuple(inputs[0])
        return _run_pyfunc(self.fn, inputs, self._out_shapes, self._out_types)


class Custom(Primitive):
    """`Custom(func, out_shape, out_dtype, func_type="pyfunc")`: a user op written as a Python function of NumPy
    arrays, run on the host (also inside compiled graphs). `out_shape`/`out_dtype` are the output's shape and
    dtype (tuples of them for several outputs) or functions of the inputs' shapes/dtypes. `bprop(*inputs, out,
    dout)` gives the gradient. The compiled kinds ("aot", "hybrid", "akg", "tbe", "julia", "aicpu") build
    device kernels with MindSpore's toolchains, which Kiln does not have: they are refused."""

    _KINDS = ("pyfunc", "aot", "hybrid", "akg", "tbe", "julia", "aicpu", "ms_kernel")

    def __init__(self, func, out_shape=None, out_dtype=None, func_type: str = "pyfunc", bprop=None,
                 reg_info=None) -> None:  # fmt: skip
        super().__init__("Custom")
        if func_type not in self._KINDS:
            raise ValueError(f"Custom: 'func_type' must be one of {self._KINDS}, but got {func_type!r}.")
        if func_type != "pyfunc":
            raise NotImplementedError(
                f"Custom: func_type={func_type!r} compiles a device kernel with MindSpore's toolchain, which Kiln "
                "does not have; write the op as func_type='pyfunc' (a NumPy function) or with Kiln ops."
            )
        if not callable(func):
            raise TypeError(f"Custom: 'func' must be callable, but got {type(func).__name__}.")
        self.func, self.out_shape, self.out_dtype, self.func_type, self.bprop = (
            func, out_shape, out_dtype, func_type, bprop,
        )  # fmt: skip
        self.add_prim_attr("func_type", func_type)

    def _declared(self, inputs):
        shapes = [tuple(x.shape) if isinstance(x, Tensor) else np.shape(x) for x in inputs]
        dtypes = [x.dtype if isinstance(x, Tensor) else mstype.to_dtype(np.asarray(x).dtype) for x in inputs]
        shape = self.out_shape(*shapes) if callable(self.out_shape) else self.out_shape
        dtype = self.out_dtype(*dtypes) if callable(self.out_dtype) else self.out_dtype
        if shape is None or dtype is None:
            raise ValueError("Custom: 'out_shape' and 'out_dtype' must be given (values or functions).")
        several = isinstance(dtype, (tuple, list))
        shapes_out = tuple(tuple(s) for s in shape) if several else (tuple(shape),)
        dtypes_out = tuple(dtype) if several else (dtype,)
        return shapes_out, dtypes_out, several

    def __call__(self, *inputs):
        shapes, dtypes, several = self._declared(inputs)

        def forward(*xs):
            outs = _run_pyfunc(self.func, xs, shapes, dtypes)
            return outs if several else outs[0]

        if self.bprop is None:
            return forward(*inputs)
        # as a Cell's bprop: on the tape in PyNative, one custom_vjp equation in a graph (the pyfunc has no derivative)
        return call_with_custom_bprop(self, self.bprop, forward, inputs)
