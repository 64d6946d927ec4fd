"""Kiln's forward values and input gradients on the inputs of derivative_from_output_goldens_mindspore.json, beside
MindSpore's (made by make_derivative_from_output_goldens_mindspore.py from derivative_from_output_cases.py)."""

from __future__ import annotations

import json
import os
from collections.abc import Callable

import numpy as np

import kiln as ms
from kiln import Tensor, ops
from tests._compiler.frontend.ast.modes import Wrap
from tests._prims import derivative_from_output_cases as cases

with open(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "derivative_from_output_goldens_mindspore.json")
) as f:
    GOLDENS = json.load(f)


def _to_numpy(t) -> np.ndarray:
    return t.astype(ms.float32).asnumpy() if t.dtype == ms.bfloat16 else t.asnumpy()


def inputs(name: str, dtype: str) -> tuple[list[np.ndarray], np.ndarray]:
    """The case's inputs and output gradient as MindSpore rounded them (bfloat16 ones widened to float32)."""
    shape = GOLDENS[f"shape/{name}"]
    arrays = [cases.from_bits(b, dtype, shape) for b in GOLDENS[f"inputs/{name}/{dtype}"]]
    return arrays[:-1], arrays[-1]


def kiln_and_mindspore(name: str, dtype: str, mode: int, fn: Callable) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """([Kiln's output, Kiln's input gradients...], [MindSpore's PyNative output, its gradients...]) for `fn` in
    Kiln's `mode`, as float16/float32 arrays (bfloat16 widened to float32)."""
    shape = GOLDENS[f"shape/{name}"]
    xs, dout = inputs(name, dtype)
    args = [Tensor(a) for a in (*xs, dout)]
    if dtype == "bfloat16":
        args = [a.astype(ms.bfloat16) for a in args]
    net = Wrap(fn)
    ms.set_context(mode=mode)
    try:
        grads = ops.GradOperation(get_all=True, sens_param=True)(net)(*args)
        out = net(*args[:-1])
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    kiln = [_to_numpy(out), *(_to_numpy(g) for g in grads)]
    want = [cases.from_bits(GOLDENS[f"pynative/{name}/{dtype}/out"], dtype, shape)]
    want += [cases.from_bits(b, dtype, shape) for b in GOLDENS[f"pynative/{name}/{dtype}"]]
    return kiln, want


def differing(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    """Where two arrays differ in value or in the sign of a zero (NaNs of either sign are equal)."""
    same = (got == want) & (np.signbit(got) == np.signbit(want))
    return ~(same | (np.isnan(got) & np.isnan(want)))
