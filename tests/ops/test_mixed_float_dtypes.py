"""MatMul, BatchMatMul, BiasAdd, Dense and the convolutions convert no input, as MindSpore 2.10's (measured in both
modes: a float64 input with float32 weights raises TypeError there, as float64 data into an nn.Dense does), while
the elementwise ops promote (float64 + float32 -> float64 in both). The error names both inputs and dtypes and points
at the user's line."""

from __future__ import annotations

import traceback

import numpy as np
import pytest

import kiln
from kiln import nn, ops

F64 = kiln.Tensor(np.ones((2, 3), np.float64))
F32 = kiln.Tensor(np.ones((3, 4), np.float32))

REFUSED = {
    "ops.matmul": (lambda: ops.matmul(F64, F32), "'x1' (Float64) and 'x2' (Float32)"),
    "ops.MatMul": (lambda: ops.MatMul()(F64, F32), "'x1' (Float64) and 'x2' (Float32)"),
    "ops.bmm": (lambda: ops.bmm(ops.expand_dims(F64, 0), ops.expand_dims(F32, 0)), "(Float64) and 'x2' (Float32)"),
    "ops.bias_add": (lambda: ops.bias_add(F32, kiln.Tensor(np.ones(4))), "'input_x' (Float32) and 'bias' (Float64)"),
    "ops.conv2d": (
        lambda: ops.conv2d(kiln.Tensor(np.ones((1, 2, 5, 5))), kiln.Tensor(np.ones((3, 2, 3, 3), np.float32))),
        "'x' (Float64) and 'weight' (Float32)",
    ),
    "nn.Dense": (lambda: nn.Dense(3, 4)(F64), "'input' (Float64) and 'weight' (Float32)"),
}


class _Run(nn.Cell):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self):
        return self.fn()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("name", list(REFUSED))
def test_a_product_refuses_mixed_float_dtypes_at_the_users_line(name, mode):
    fn, words = REFUSED[name]
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        with pytest.raises(TypeError, match="must have the same dtype") as info:
            out = (_Run(fn) if mode == "graph" else fn)()
            out.asnumpy()
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    assert words in str(info.value)
    frames = [f for f in traceback.extract_tb(info.tb) if f.filename == __file__]
    assert frames, "the traceback reaches the test's own line"


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_elementwise_ops_still_promote(mode):
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    a, b = kiln.Tensor(np.full((2, 3), 0.1, np.float64)), kiln.Tensor(np.full((2, 3), 0.2, np.float32))
    try:
        outs = (
            _Run(lambda: (a + b, a * b, ops.concat((a, b))))()
            if mode == "graph"
            else (a + b, a * b, ops.concat((a, b)))
        )
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    want = (0.1 + np.float64(np.float32(0.2)), 0.1 * np.float64(np.float32(0.2)))
    for got, w in zip(outs[:2], want, strict=True):
        assert got.dtype == kiln.float64
        np.testing.assert_allclose(got.asnumpy(), w, rtol=1e-15)
    assert outs[2].dtype == kiln.float64


class _NumpyScalars(nn.Cell):
    """A float32 Tensor beside NumPy scalars: `1.0 / np.sqrt(d)` kept as an attribute, a literal np.float64, an
    np.int64 on the left."""

    def __init__(self):
        super().__init__()
        self.scale = 1.0 / np.sqrt(16)

    def construct(self, x):
        return x * self.scale, ops.mul(x, np.float64(0.5)), np.int64(1) + x, self.scale * x


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_numpy_scalars_take_the_tensors_dtype(mode):
    # MindSpore 2.10, both modes: a NumPy scalar is a number there, as a Python float is, so a float32 Tensor stays
    # float32 (Kiln promoted it to float64, and a product after it then met the float32 weights)
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        x = np.arange(1, 3, dtype=np.float32)
        outs = _NumpyScalars()(kiln.Tensor(x))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    for out, expected in zip(outs, (x * 0.25, x * 0.5, x + 1, x * 0.25), strict=True):
        assert out.dtype == kiln.float32
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-7)
    assert (kiln.Tensor(np.ones(2, np.int32)) * np.float64(0.5)).dtype == kiln.float32


class _NumpyScalarDivisions(nn.Cell):
    """The zoo's FastSpeech attention divides by `temperature = np.power(d_k, 0.5)` (an np.float64 attribute), then
    meets float32 values in BatchMatMul."""

    def __init__(self):
        super().__init__()
        self.temperature = np.power(16, 0.5)
        self.realdiv = ops.RealDiv()

    def construct(self, x):
        floor = ops.div(x, np.float64(2.0), rounding_mode="floor")
        trunc = ops.div(x, np.float32(2.0), rounding_mode="trunc")
        return x / self.temperature, ops.div(x, np.float64(4.0)), self.realdiv(x, np.float64(4.0)), floor, trunc


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_division_by_numpy_scalars_keeps_the_tensors_dtype(mode):
    # MindSpore 2.10, both modes: float32 (float16 for a float16 Tensor); Kiln's division took the NumPy scalar's
    # float64 (the products and sums above already took the Tensor's dtype)
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        x = np.array([1.0, 2.0, 5.0], np.float32)
        outs = _NumpyScalarDivisions()(kiln.Tensor(x))
        half = _NumpyScalarDivisions()(kiln.Tensor(x.astype(np.float16)))[0]
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    for out, expected in zip(outs, (x / 4, x / 4, x / 4, np.floor(x / 2), np.trunc(x / 2)), strict=True):
        assert out.dtype == kiln.float32
        np.testing.assert_allclose(out.asnumpy(), expected, rtol=1e-7)
    assert half.dtype == kiln.float16
    assert (kiln.Tensor(x) / np.float64(4.0)).dtype == kiln.float32
