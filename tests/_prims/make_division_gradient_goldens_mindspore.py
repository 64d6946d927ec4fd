"""Write division_gradient_goldens_mindspore.json: the gradients MindSpore 2.10's CPU Div rule (dx = dout / y,
dy = -dout * (out / y)) gives for the quotient's two inputs, over divisors across the whole float16 range (|y| from
1e-3 to 6e4, where y * y leaves it), for a divisor of the quotient's shape and a broadcast column (its gradient
summed over the row: HyperText's Einstein midpoint divides by a sum of Lorentz factors), in float16, bfloat16 and
float32, PyNative and GRAPH_MODE. Values are bit patterns (tests/_prims/derivative_from_output_cases.py's `bits`).
Run from the repository root:
PYTHONPATH=$PWD /work/msvenv/bin/python tests/_prims/make_division_gradient_goldens_mindspore.py"""

import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

from tests._prims.derivative_from_output_cases import bits

DTYPES = {"float16": ms.float16, "bfloat16": ms.bfloat16, "float32": ms.float32}
ROWS, COLS = 64, 16


def division_inputs(case: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(x, y, dout) in float64 for `case`: "same shape" (ROWS, COLS) / (ROWS, COLS) or "column" (ROWS, COLS) /
    (ROWS, 1); the divisors' magnitudes log-uniform over [1e-3, 6e4] (same shape) or [1, 3e3] (column)."""
    rng = np.random.default_rng(21 if case == "same shape" else 22)
    x = rng.standard_normal((ROWS, COLS)) * 4
    lo, hi = (np.log(1e-3), np.log(6e4)) if case == "same shape" else (0.0, np.log(3e3))
    y = rng.choice([-1.0, 1.0], (ROWS, COLS if case == "same shape" else 1)) * np.exp(rng.uniform(lo, hi, (ROWS, 1)))
    if case == "same shape":
        y = y * np.exp(rng.uniform(lo, hi, (ROWS, COLS))) / np.exp(rng.uniform(lo, hi, (ROWS, 1)))
        y = np.sign(y) * np.clip(np.abs(y), 1e-3, 6e4)
    return x, y, rng.standard_normal((ROWS, COLS))


class _Div(nn.Cell):
    def construct(self, x, y):
        return ops.div(x, y)


def _f32(t):
    return t.astype(ms.float32).asnumpy() if t.dtype == ms.bfloat16 else t.asnumpy()


def main():
    out = {"version": ms.__version__}
    for mode_name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
        ms.set_context(mode=mode, device_target="CPU")
        grad = ops.GradOperation(get_all=True, sens_param=True)(_Div())
        for case in ("same shape", "column"):
            for dt, ms_dt in DTYPES.items():
                args = [Tensor(a.astype(np.float32)).astype(ms_dt) for a in division_inputs(case)]
                out[f"inputs/{case}/{dt}"] = [bits(_f32(a), dt) for a in args]
                out[f"shapes/{case}"] = [list(a.shape) for a in args]
                out[f"{mode_name}/{case}/{dt}/out"] = bits(_f32(_Div()(*args[:2])), dt)
                try:  # (its CPU ReduceSum has no bfloat16 kernel: a broadcast divisor's gradient)
                    out[f"{mode_name}/{case}/{dt}"] = [bits(_f32(g), dt) for g in grad(*args)]
                except RuntimeError as e:
                    out[f"{mode_name}/{case}/{dt}"] = f"unsupported: {type(e).__name__}"
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "division_gradient_goldens_mindspore.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=0)
        f.write("\n")


if __name__ == "__main__":
    main()
