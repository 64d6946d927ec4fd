"""Gradients of max/min-with-index ops when several elements tie for the extreme, written once for both
frameworks: `run(ms)` takes the `mindspore` module (for the goldens) or `kiln`, and returns
{"MODE case": input gradient as nested lists} for PyNative and GRAPH_MODE."""

import numpy as np

# row 0 ties at 3.0 for the max, row 1 at 0.0 for the max, row 2 at 5.0 for the max and at -1.0 for the min
X = np.array([[1.0, 3.0, 3.0, 2.0], [0.0, 0.0, -1.0, 0.0], [-1.0, 5.0, -1.0, 5.0]], np.float32)
WEIGHTS = np.array([1.0, 2.0, 3.0], np.float32)


def run(ms) -> dict:
    """Each case's input gradient in both modes."""
    ops = ms.ops

    class Picked(ms.nn.Cell):
        """(op(x, ...)[pick] * weights).sum(): op is a primitive or a function taking (x, axis, keep_dims)."""

        def __init__(self, op, pick, keep_dims, functional):
            super().__init__()
            self.op, self.pick, self.keep_dims, self.functional = op, pick, keep_dims, functional
            self.w = ms.Tensor(WEIGHTS.reshape(-1, 1) if keep_dims else WEIGHTS)

        def construct(self, x):
            if self.functional:
                out = self.op(x, 1, self.keep_dims)
            else:
                out = self.op(x)
            return (out[self.pick] * self.w).sum()

    class Reduced(ms.nn.Cell):
        """(op(x, axis) * weights).sum() for ReduceMax/ReduceMin: MindSpore splits a tie's gradient equally."""

        def __init__(self, op, axis, keep_dims):
            super().__init__()
            self.op, self.axis = op(keep_dims=keep_dims), axis
            w = WEIGHTS.reshape(-1, 1) if keep_dims else WEIGHTS
            self.w = ms.Tensor(w if axis == 1 else w[:1].reshape(()))

        def construct(self, x):
            return (self.op(x, self.axis) * self.w).sum()

    cases = {
        "ReduceMax": lambda: Reduced(ops.ReduceMax, 1, False),
        "ReduceMin_keep_dims": lambda: Reduced(ops.ReduceMin, 1, True),
        "ReduceMax_all": lambda: Reduced(ops.ReduceMax, (), False),
        "ArgMaxWithValue": lambda: Picked(ops.ArgMaxWithValue(axis=1), 1, False, False),
        "ArgMaxWithValue_keep_dims": lambda: Picked(ops.ArgMaxWithValue(axis=1, keep_dims=True), 1, True, False),
        "ArgMinWithValue": lambda: Picked(ops.ArgMinWithValue(axis=1), 1, False, False),
        "ops.max_axis": lambda: Picked(ops.max, 0, False, True),
        "ops.min_axis_keep_dims": lambda: Picked(ops.min, 0, True, True),
    }
    out = {}
    for mode in ("PYNATIVE_MODE", "GRAPH_MODE"):
        ms.set_context(mode=getattr(ms, mode))
        for name, make in cases.items():
            out[f"{mode} {name}"] = ops.GradOperation()(make())(ms.Tensor(X)).asnumpy().tolist()
    return out
