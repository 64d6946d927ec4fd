"""Every op record in every execution mode: its value against the record's reference and its gradient against
PyNative's, so that an op added to the table is checked in all modes without writing a test.

The cells (PyNative's own are test_op_table.py's: value against the reference, gradient against finite differences):

- value, compiled: GRAPH_MODE (the record called in a Cell's `construct`), `@jit` (`kiln.jit`, AST capture) and
  bytecode (`kiln.jit(capture_mode="bytecode")`), on the record's first dtype and shapes; each must compile.
- gradient, compiled: `kiln.grad` of sum(outputs * cotangent) over the float inputs at float64, against PyNative's
  tape on the same inputs. graph: `grad(f)` under GRAPH_MODE; jit and bytecode: `jit(grad(f))` in PyNative and
  `grad(jit(f))` under GRAPH_MODE (in PyNative `grad(jit(f))` runs the function on the tape and compiles nothing).
- vmap: records with `vmap=True`: `kiln.vmap` over three stacked examples equals the op on each example.

Size: KILN_OP_MODES=all runs the whole matrix (the nightly size). The CI size runs every record's value in one
compiled mode, the three modes taken in turn along the table (so every record is compiled on every run), and the
gradient of every third differentiable record in one of the five compiled transforms, also in turn. The
terminal summary (tests/ops/conftest.py) prints the matrix: records per mode x check and their outcomes.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn
from kiln._compiler.cache import memory as cache
from tests.ops.op_checks import (
    as_tuple,
    check_against_reference,
    float_kind,
    float_outputs,
    grad_positions,
    make_inputs,
    seed_of,
    to_numpy,
    tolerances,
)
from tests.ops.records import OpRecord, all_records

RECORDS = all_records()
FULL = os.environ.get("KILN_OP_MODES", "ci") == "all"
GRAD_STRIDE = 3  # CI size: every third differentiable record's gradient

VALUE_MODES = ("graph", "jit", "bytecode")
# (mode, transform): how the compiled gradient is taken
GRAD_CELLS = (("graph", "grad"), ("jit", "jit_grad"), ("jit", "grad_jit"), ("bytecode", "jit_grad"),
              ("bytecode", "grad_jit"))  # fmt: skip

# Why cells fail today (from the full KILN_OP_MODES=all run); each listed cell is a strict xfail (it must fail with
# the error named, or its entry goes). None is listed: the compiled gradients through bincount's weights and
# masked_select, listed before, pass in every mode (they had passed unnoticed since before 04e0a9b: CI's stride of
# gradient records had not reached them).
KNOWN_FAILURES: dict[tuple[str, str, str], tuple[str, type]] = {}


class _RecordCell(nn.Cell):
    """A Cell whose construct calls one record's op: calling it under GRAPH_MODE compiles the op."""

    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def construct(self, *xs):
        return self.fn(*xs)


def _param(check: str, mode: str, record: OpRecord, *values):
    """A test parameter for one cell, with its strict xfail if KNOWN_FAILURES lists it."""
    reason, error = KNOWN_FAILURES.get((check, mode, record.name), (None, None))
    marks = [pytest.mark.xfail(strict=True, reason=reason, raises=error)] if reason else []
    return pytest.param(record, *values, id="-".join([*values, record.name]), marks=marks)


def _value_params():
    params = []
    for i, r in enumerate(RECORDS):
        for mode in VALUE_MODES if FULL else (VALUE_MODES[i % len(VALUE_MODES)],):
            params.append(_param("value", mode, r, mode))
    return params


def _grad_params():
    params = []
    differentiable = [r for r in RECORDS if r.grad]
    for i, r in enumerate(differentiable):
        if FULL:
            cells = GRAD_CELLS
        elif i % GRAD_STRIDE == 0:
            cells = (GRAD_CELLS[(i // GRAD_STRIDE) % len(GRAD_CELLS)],)
        else:
            cells = ()
        for mode, transform in cells:
            params.append(_param(transform, mode, r, mode, transform))
    return params


def _compiled_call(mode: str, fn, args):
    """fn(*args) compiled as `mode` says; asserts that something was compiled."""
    before = cache.STATS["compiles"]
    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
        try:
            out = _RecordCell(fn)(*args)
        finally:
            kiln.set_context(mode=kiln.PYNATIVE_MODE)
    else:
        out = kiln.jit(fn, capture_mode="ast" if mode == "jit" else "bytecode")(*args)
    assert cache.STATS["compiles"] > before, f"{mode}: nothing was compiled"
    return out


@pytest.mark.parametrize(("record", "mode"), _value_params())
def test_value(record: OpRecord, mode: str):
    dtype = record.dtypes[0]
    arrays = make_inputs(record, dtype, record.shapes, seed_of(record.name, "modes"))
    out = _compiled_call(mode, record.kiln, [Tensor(a) for a in arrays])
    check_against_reference(record, arrays, out, dtype, where=f" ({mode})")


def _loss(record: OpRecord, cotangents: list[tuple[int, Tensor]]):
    """sum(output * cotangent) over the float outputs, with the cotangents as constants (graph-safe)."""

    def loss(*xs):
        outs = as_tuple(record.kiln(*xs))
        total = 0.0
        for k, cot in cotangents:
            total = total + (outs[k] * cot).sum()
        return total

    return loss


def _compiled_grad(mode: str, transform: str, loss, positions, args):
    """The gradient of `loss` by `transform` in `mode`; asserts that something was compiled."""
    before = cache.STATS["compiles"]
    capture = "bytecode" if mode == "bytecode" else "ast"
    if transform == "jit_grad":
        grads = kiln.jit(kiln.grad(loss, grad_position=positions), capture_mode=capture)(*args)
    else:
        inner = loss if transform == "grad" else kiln.jit(loss, capture_mode=capture)
        kiln.set_context(mode=kiln.GRAPH_MODE)
        try:
            grads = kiln.grad(inner, grad_position=positions)(*args)
        finally:
            kiln.set_context(mode=kiln.PYNATIVE_MODE)
    assert cache.STATS["compiles"] > before, f"{mode} {transform}: nothing was compiled"
    return [to_numpy(g) for g in as_tuple(grads)]


@pytest.mark.parametrize(("record", "mode", "transform"), _grad_params())
def test_gradient(record: OpRecord, mode: str, transform: str):
    arrays = make_inputs(record, np.float64, record.shapes, seed_of(record.name, "modes-grad"))
    positions = grad_positions(record, arrays)
    args = [Tensor(a) for a in arrays]
    outs = as_tuple(record.kiln(*args))
    rng = np.random.default_rng(seed_of(record.name, "modes-cotangent"))
    cotangents = [(k, Tensor(rng.standard_normal(outs[k].shape).astype(to_numpy(outs[k]).dtype)))
                  for k in float_outputs(outs)]  # fmt: skip
    loss = _loss(record, cotangents)
    eager = [to_numpy(g) for g in as_tuple(kiln.grad(loss, grad_position=positions)(*args))]
    compiled = _compiled_grad(mode, transform, loss, positions, args)
    assert len(compiled) == len(eager), f"{record.name}: {len(compiled)} gradients, PyNative gives {len(eager)}"
    for p, c, e in zip(positions, compiled, eager, strict=True):
        assert c.dtype == e.dtype, f"{record.name} ({mode} {transform}): gradient {p} is {c.dtype}, PyNative {e.dtype}"
        assert c.shape == e.shape, f"{record.name} ({mode} {transform}): gradient {p} shape {c.shape} vs {e.shape}"
        scale = max(1.0, float(np.max(np.abs(e)))) if e.size else 1.0
        np.testing.assert_allclose(
            c, e, rtol=1e-6, atol=1e-9 * scale, err_msg=f"{record.name} ({mode} {transform}): gradient of input {p}"
        )


VMAP_BATCH = 3


@pytest.mark.parametrize("record", [_param("vmap", "vmap", r) for r in RECORDS if r.vmap])
def test_vmap(record: OpRecord):
    dtype = record.dtypes[0]
    examples = [make_inputs(record, dtype, record.shapes, seed_of(record.name, "vmap", i)) for i in range(VMAP_BATCH)]
    stacked = [Tensor(np.stack(column)) for column in zip(*examples, strict=True)]
    batched = as_tuple(kiln.vmap(record.kiln)(*stacked))
    one_by_one = [as_tuple(record.kiln(*(Tensor(a) for a in ex))) for ex in examples]
    rtol, atol = tolerances(record, dtype)
    assert len(batched) == len(one_by_one[0]), f"{record.name}: vmap gives {len(batched)} outputs"
    for k, b in enumerate(batched):
        want = np.stack([to_numpy(outs[k]) for outs in one_by_one])
        got = to_numpy(b)
        assert got.dtype == want.dtype, f"{record.name} output {k}: vmap dtype {got.dtype}, per example {want.dtype}"
        assert got.shape == want.shape, f"{record.name} output {k}: vmap shape {got.shape}, per example {want.shape}"
        if float_kind(got.dtype):
            np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=rtol, atol=atol)
        else:
            np.testing.assert_array_equal(got, want)
