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
