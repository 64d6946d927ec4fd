"""A Parameter written in construct stays a leaf holding its new value, in both modes, as in MindSpore 2.10: the
gradient of what reads it after the write goes to the Parameter, none to the written value (goldens from
make_parameter_write_goldens_mindspore.py; GRAPH_MODE once differentiated into the value)."""

import json
import os

import numpy as np
import pytest

import kiln
from tests.ops.parameter_write_cases import CASES, run

with open(os.path.join(os.path.dirname(__file__), "parameter_write_goldens_mindspore.json")) as _f:
    GOLDENS = json.load(_f)["cases"]


@pytest.mark.parametrize("mode", ["pynative", "graph"])
@pytest.mark.parametrize("case", CASES)
def test_parameter_write_gradients(case: str, mode: str) -> None:
    """Losses, input and weight gradients and Parameter values of two steps equal MindSpore's (its GRAPH_MODE where it
    compiles the case, else its PyNative: Kiln's two modes agree)."""
    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        got = run(kiln, case)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    want = GOLDENS[mode].get(case, GOLDENS["pynative"][case])
    for step, (g, w) in enumerate(zip(got, want, strict=True)):
        for what, a, b in zip(("loss", "input grad", "weight grad", "p", "ema"), g, w, strict=True):
            np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6, err_msg=f"{case} step {step}: {what}")
