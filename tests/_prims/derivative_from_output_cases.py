"""Inputs of the backward-rule goldens (make_derivative_from_output_goldens_mindspore.py; read by test_math.py and,
through derivative_goldens.py, nn/test_activation.py): random values in each function's domain with its edges (0,
saturation, division by 0), and a random output gradient; the softmax cases along several axes and row lengths."""

from __future__ import annotations

import numpy as np

DTYPES = ("float16", "float32", "bfloat16")
CASES = ("tanh", "sigmoid", "exp", "sqrt", "rsqrt", "reciprocal", "log", "erf", "gelu", "softmax", "log_softmax", "div",
         "pow", "gelu_tanh", "softmax_axis0", "softmax_long", "softmax_3d", "log_softmax_long", "softmin")  # fmt: skip
# the axis each softmax case normalises over (its rows: 8 long, 32 along axis 0, 128 long, the middle of three axes)
AXES = {"softmax": -1, "log_softmax": -1, "softmax_axis0": 0, "softmax_long": -1, "softmax_3d": 1,
        "log_softmax_long": -1, "softmin": -1}  # fmt: skip
N = 512
EDGES = {
    "tanh": [0.0, -0.0, 1e-4, -1e-4, 4.0, -4.0, 5.0, 8.0, -9.0, 20.0, -20.0],
    "sigmoid": [0.0, 10.0, -10.0, 17.0, -17.0, 30.0, -30.0],
    "exp": [0.0, -20.0, 10.0, 11.0],
    "sqrt": [0.0, 6e-8, 1e-4, 1.0, 4.0, 6e4],
    "rsqrt": [0.0, 6e-8, 1e-4, 1.0, 4.0, 6e4],
    "reciprocal": [0.0, -0.0, 1e-4, -1e-4, 1.0, 300.0],
    "log": [0.0, 6e-8, 1e-4, 1.0, 6e4],
    "erf": [0.0, 3.0, -3.0, 5.0],
    "gelu": [0.0, 3.0, -3.0, 6.0, -6.0],
    "gelu_tanh": [0.0, 3.0, -3.0, 4.9, -4.9, 6.0, -6.0],
    "div": [0.0, -0.0, 1e-3, 1.0, 300.0],
}


def _uniform(rng, lo, hi):
    return rng.uniform(lo, hi, N)


def _draw(name: str, rng):
    if name in ("sqrt", "rsqrt", "log"):
        return [np.exp(rng.uniform(-6, 6, N))]
    if name == "exp":
        return [_uniform(rng, -8, 8)]
    if name == "reciprocal":
        return [rng.choice([-1.0, 1.0], N) * np.exp(rng.uniform(-4, 4, N))]
    if name == "div":
        return [rng.standard_normal(N) * 4, rng.choice([-1.0, 1.0], N) * np.exp(rng.uniform(-3, 3, N))]
    if name == "pow":
        return [np.exp(rng.uniform(-2, 2, N)), _uniform(rng, -2, 3)]
    if name in ("softmax", "log_softmax", "softmin"):
        return [rng.standard_normal(N).reshape(N // 8, 8) * 3]
    if name == "softmax_axis0":
        return [rng.standard_normal(N).reshape(32, N // 32) * 3]
    if name in ("softmax_long", "log_softmax_long"):
        return [rng.standard_normal(N).reshape(N // 128, 128) * 3]
    if name == "softmax_3d":
        return [rng.standard_normal(N).reshape(4, N // 32, 8) * 3]
    return [rng.standard_normal(N) * 3]


def case_inputs(name: str, dtype: str) -> tuple[list[np.ndarray], np.ndarray]:
    """The inputs (float64, representable in `dtype` once cast) and the output gradient of one function."""
    rng = np.random.default_rng(sum(map(ord, name)))
    xs = _draw(name, rng)
    edges = EDGES.get(name)
    if edges is not None:  # the last inputs are the edges (the divisor's for div)
        flat = xs[-1].reshape(-1)
        flat[-len(edges) :] = edges
    dout = rng.standard_normal(xs[0].shape)
    return xs, dout


def bits(a: np.ndarray, dtype: str) -> str:
    """The values of `a` in `dtype` as hex bit patterns (bfloat16 as the top half of its float32 bits)."""
    if dtype == "float16":
        return np.ascontiguousarray(a, np.float16).view(np.uint16).astype(">u2").tobytes().hex()
    if dtype == "bfloat16":
        return (np.ascontiguousarray(a, np.float32).view(np.uint32) >> 16).astype(">u2").tobytes().hex()
    return np.ascontiguousarray(a, np.float32).view(np.uint32).astype(">u4").tobytes().hex()


def from_bits(text: str, dtype: str, shape) -> np.ndarray:
    """The inverse of `bits`: float16 or float32 values (bfloat16 ones widened to float32)."""
    raw = bytes.fromhex(text)
    if dtype == "float32":
        return np.frombuffer(raw, ">u4").astype(np.uint32).view(np.float32).reshape(shape)
    halves = np.frombuffer(raw, ">u2").astype(np.uint16)
    if dtype == "float16":
        return halves.view(np.float16).reshape(shape)
    return (halves.astype(np.uint32) << 16).view(np.float32).reshape(shape)
