"""The four ways the frontend tests run a program: PyNative, GRAPH_MODE (inside a Cell), `@jit` (AST capture)
and `@jit(capture_mode="bytecode")`."""

from __future__ import annotations

import kiln as ms
from kiln import nn, ops
from kiln.ops import operations as P

MODES = ("pynative", "graph", "jit", "bytecode")

# the in-place writes of a plain Tensor that graphs must join as state and write back to the caller
WRITES = {
    "add_": lambda x, y: x.add_(y),
    "AssignAdd": lambda x, y: P.AssignAdd()(x, y),
    "assign": lambda x, y: ops.assign(x, x + y),
}


class Wrap(nn.Cell):
    """A Cell whose construct calls `fn`."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *args):
        return self.fn(*args)


def compiled(mode: str, fn):
    """`fn` as it runs in `mode` (GRAPH_MODE stays set until the test's end; the conftest resets it)."""
    if mode == "pynative":
        return fn
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
        return Wrap(fn)
    return ms.jit(fn, capture_mode="bytecode" if mode == "bytecode" else "ast")
