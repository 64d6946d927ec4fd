"""nn.AdaFactor against MindSpore 2.10 bit for bit beyond test_optim_rounding's (16, 32) matrix: a vector (the
unfactored second moment), a batch of matrices, and matrices of more than 1,000 elements (the kernel's RMS order),
in PyNative and GRAPH_MODE. Goldens: make_adafactor_shapes_goldens_mindspore.py."""

import base64
import json
import os

import numpy as np
import pytest

import kiln
from tests.nn.adafactor_shapes_cases import SHAPES, run

with open(os.path.join(os.path.dirname(__file__), "adafactor_shapes_goldens_mindspore.json")) as _f:
    GOLDENS = {k: np.frombuffer(base64.b64decode(v), np.float32) for k, v in json.load(_f)["cases"].items()}


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("shape", SHAPES, ids=[str(s) for s in SHAPES])
def test_adafactor_equals_mindspore(shape, mode):
    got = run(kiln, shape, mode)
    differ = np.flatnonzero(got.view(np.int32) != GOLDENS[str(shape)].view(np.int32))
    assert differ.size == 0, f"{differ.size} of {got.size} elements differ, first {differ[:5]}"
