"""The Jvp and Vjp Cells: forward- and reverse-mode products of a network with given tangents/cotangents."""

from __future__ import annotations

from kiln import ops
from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell

__all__ = ["Jvp", "Vjp"]


class _Transform(Cell):
    def __init__(self, fn) -> None:
        super().__init__()
        if not callable(fn):
            raise TypeError(f"For '{type(self).__name__}', 'fn' must be a Cell or function, but got {type(fn)}.")
        self.fn = fn

    def _split(self, args):
        name = type(self).__name__
        if len(args) < 2:
            raise TypeError(f"For '{name}', the inputs must be the network's inputs followed by 'v'.")
        *inputs, v = args
        for x in inputs:
            if not isinstance(x, Tensor):
                raise TypeError(f"For '{name}', every input must be a Tensor, but got {type(x).__name__}.")
        return tuple(inputs), v

    @staticmethod
    def _match(name: str, what: str, v, n: int):
        """`v` must be a Tensor for one item, a tuple of n Tensors for n > 1."""
        if n == 1:
            if not isinstance(v, Tensor):
                raise TypeError(f"For '{name}', 'v' must be a Tensor for one {what}, but got {type(v).__name__}.")
            return v
        if not isinstance(v, (tuple, list)) or len(v) != n or not all(isinstance(t, Tensor) for t in v):
            raise TypeError(f"For '{name}', 'v' must be a tuple of {n} Tensors, one per {what}, but got {v!r}.")
        return tuple(v)


class Jvp(_Transform):
    """`Jvp(fn)(*inputs, v)` -> (fn(*inputs), J v): the Jacobian-vector product of `fn` (forward mode); `v` is a
    Tensor for one input, a tuple with one tangent per input otherwise."""

    def construct(self, *args):
        inputs, v = self._split(args)
        v = self._match("Jvp", "input", v, len(inputs))
        return ops.jvp(self.fn, inputs if len(inputs) > 1 else inputs[0], v)


class Vjp(_Transform):
    """`Vjp(fn)(*inputs, v)` -> (fn(*inputs), v^T J): the vector-Jacobian product of `fn` (reverse mode); `v` is a
    Tensor for one output, a tuple with one cotangent per output otherwise; the gradients are one Tensor for one
    input, a tuple otherwise."""

    def construct(self, *args):
        inputs, v = self._split(args)
        out, vjp_fn = ops.vjp(self.fn, *inputs)
        n_out = len(out) if isinstance(out, (tuple, list)) else 1
        v = self._match("Vjp", "output", v, n_out)
        grads = vjp_fn(v)
        return out, grads[0] if isinstance(grads, tuple) and len(inputs) == 1 else grads
