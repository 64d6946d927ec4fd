"""Helpers of the tests of PyNative's compiled programs (lazy windows, backward plans): a network that repeats one
block, and a clean slate of compiled programs."""

from kiln import nn, ops
from kiln._pynative import backward_program, dispatch, tape


class Chain(nn.Cell):
    """n small Dense blocks in a Python loop: a first step repeats the same ops n times."""

    def __init__(self, n: int):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(3, 3) for _ in range(n)])

    def construct(self, x):
        for dense in self.layers:
            x = ops.sigmoid(dense(x)) * x + x * 0.5  # values stay near 1; the 0.5 a constant of the backward plan
        return (x * x).sum()


def forget_programs(monkeypatch):
    """No lazy-window or backward program compiled yet (restored after the test), backward fused; the window."""
    w = dispatch.WINDOW
    w.flush()
    for name, empty in (("programs", {}), ("single_use", set()), ("refused", {})):
        monkeypatch.setattr(w, name, empty)
    for name, empty in (("_programs", {}), ("_single_use", set()), ("_refused", {})):
        monkeypatch.setattr(backward_program, name, empty)
    monkeypatch.setattr(tape, "FUSED_BACKWARD", True)
    return w
