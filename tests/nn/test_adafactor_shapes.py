"""nn.AdaFactor against MindSpore 2.10 beyond test_optim_rounding's (16, 32) matrix: a vector (the unfactored
second moment) and a batch of matrices bit for bit; matrices of more than 1,000 elements, whose RMS MindSpore's
kernel sums in per-thread blocks (an order that depends on its machine) and Kiln with the backend's reduction,
within float32 rounding, and bit-equal between Kiln's PyNative and GRAPH_MODE.
Goldens: make_adafactor_shapes_goldens_mindspore.py."""

import base64
import json
import os

import numpy as np
import pytest

import kiln
from kiln._prims.state import _IN_ORDER_LIMIT as IN_ORDER_LIMIT
from tests.nn.adafactor_shapes_cases import SHAPES, run

with open(os.path.join(os.path.dirname(__file__), "adafactor_shapes_goldens_mindspore.json")) as _f:
    GOLDENS = {k: np.frombuffer(base64.b64decode(v), np.float32) for k, v in json.load(_f)["cases"].items()}


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
def test_adafactor_equals_mindspore(shape, mode):
    got, golden = run(kiln, shape, mode), GOLDENS[str(shape)]
    if got.size > IN_ORDER_LIMIT:
        # measured 1e-7 of the largest value apart (the RMS's order); a wrong update is far more
        np.testing.assert_allclose(got, golden, rtol=0, atol=1e-6 * np.abs(golden).max())
        return
    differ = np.flatnonzero(got.view(np.int32) != golden.view(np.int32))
    assert differ.size == 0, f"{differ.size} of {got.size} elements differ, first {differ[:5]}"


@pytest.mark.parametrize("shape", [s for s in SHAPES if np.prod(s) > IN_ORDER_LIMIT], ids=str)
def test_adafactor_modes_agree_on_large_parameters(shape):
    pynative, graph = run(kiln, shape, "pynative"), run(kiln, shape, "graph")
    assert np.array_equal(pynative.view(np.int32), graph.view(np.int32))
