"""The op table: every `OpRecord` of the `tests/ops/records` package, checked

- forward, for each dtype in `record.dtypes` and each input-shape case, against the
  record's NumPy/SciPy/JAX reference (values, and the output dtype);
- backward (when `record.grad`), for each case: `kiln.grad` of sum(output * random
  cotangent) w.r.t. every float input, at float64, against central finite differences of
  the Kiln op itself at float64; and the same vector-Jacobian product at float32, taken
  through `GradOperation(get_all=True, sens_param=True)` with the cotangent as `sens`,
  against the float64 one.

Keys of `OpRecord.extra` the harness understands (all optional):
    bool_inputs: positions holding boolean data (masks, conditions).
    int_dtype: NumPy dtype of the `int_inputs` (default int64).
    int_low: inclusive lower bound of the integer inputs (default 0).
    grad_positions: the float positions to differentiate (default: every float input).
    check_dtype: False when the reference's output dtype is not the one MindSpore gives.
    ref_dtype: a NumPy dtype, or "input" (the dtype of the first input), that the output must
        have instead of the reference's own dtype.
    grad_cases: indices into [shapes, *cases] of the cases to check gradients on (default: all).
    grad_rtol, grad_atol: gradient tolerances (defaults 1e-4, 1e-6).
    make_inputs: `make_inputs(rng, dtype, shapes) -> list` replacing the random inputs
        (for inputs with structure: permutations, unique indices, sorted values).
    fd_eps: finite-difference step (default 1e-6).
    ref_upcast: compute the reference on float64 copies of the inputs (for float16/bfloat16
        inputs the reference always runs on float32 copies, since NumPy's half precision
        functions are not a more precise yardstick).
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops
from tests.ops.op_checks import (
    as_tuple,
    check_against_reference,
    float_outputs,
    grad_positions,
    loss_fn,
    make_inputs,
    seed_of,
    to_numpy,
)
from tests.ops.records import OpRecord, all_records

_BF16 = np.dtype(kiln.bfloat16.np)


RECORDS = all_records()


def _cases(record: OpRecord) -> list[tuple]:
    return [tuple(record.shapes), *(tuple(c) for c in record.cases)]


def _dtype_name(dt) -> str:
    return np.dtype(dt).name


def _forward_params():
    """Every dtype on the first shape case; the other cases (broadcasting, 0-d) on the first dtype.

    Each (op, shapes, dtype) costs one backend compile, so the cross product would
    double the table's time for little: dtype handling does not depend on the shape.
    """
    params = []
    for r in RECORDS:
        for ci, shapes in enumerate(_cases(r)):
            for dt in r.dtypes if ci == 0 else r.dtypes[:1]:
                params.append(pytest.param(r, shapes, dt, id=f"{r.name}-{_dtype_name(dt)}-{ci}"))
    return params


def _grad_params():
    params = []
    for r in RECORDS:
        if not r.grad:
            continue
        wanted = r.extra.get("grad_cases")
        for ci, shapes in enumerate(_cases(r)):
            if wanted is None or ci in wanted:
                params.append(pytest.param(r, shapes, id=f"{r.name}-{ci}"))
    return params


@pytest.mark.parametrize(("record", "shapes", "dtype"), _forward_params())
def test_forward(record: OpRecord, shapes, dtype):
    arrays = make_inputs(record, dtype, shapes, seed_of(record.name, shapes, _dtype_name(dtype)))
    check_against_reference(record, arrays, record.kiln(*(Tensor(a) for a in arrays)), dtype)


# ---- gradients ----------------------------------------------------------------------------
def _numeric_loss(record: OpRecord, arrays: list[np.ndarray], cotangents, float_out) -> float:
    outs = as_tuple(record.kiln(*(Tensor(a) for a in arrays)))
    return float(sum(np.sum(to_numpy(outs[k]).astype(np.float64) * c) for k, c in zip(float_out, cotangents)))


FD_ELEMENTS = 24  # inputs up to this size get a finite difference per element
FD_DIRECTIONS = 3  # larger ones: this many sampled elements' worth, plus random directions


def _central(record, arrays, p, step, cotangents, float_out, eps) -> float:
    plus = list(arrays)
    minus = list(arrays)
    plus[p] = arrays[p] + eps * step
    minus[p] = arrays[p] - eps * step
    f_plus = _numeric_loss(record, plus, cotangents, float_out)
    f_minus = _numeric_loss(record, minus, cotangents, float_out)
    return (f_plus - f_minus) / (2 * eps)


def _finite_difference_checks(record, arrays, positions, cotangents, float_out, eps, seed):
    """[(input position, direction, numeric directional derivative)] for the tape to match.

    Small inputs are probed along every coordinate; larger ones along FD_ELEMENTS sampled
    coordinates and FD_DIRECTIONS random directions (which see every element at once).
    """
    rng = np.random.default_rng(seed)
    checks = []
    for p in positions:
        shape, n = arrays[p].shape, arrays[p].size
        coords = range(n) if n <= FD_ELEMENTS else rng.choice(n, FD_ELEMENTS, replace=False)
        directions = []
        for c in coords:
            e = np.zeros(n)
            e[c] = 1.0
            directions.append(e.reshape(shape))
        if n > FD_ELEMENTS:
            directions += [rng.standard_normal(shape) for _ in range(FD_DIRECTIONS)]
        for d in directions:
            checks.append((p, d, _central(record, arrays, p, d, cotangents, float_out, eps)))
    return checks


def _tape_grads(record, arrays, positions, cotangents, float_out) -> list[np.ndarray]:
    """kiln.grad of sum(output * cotangent) with grad_position = the float inputs."""
    fn = kiln.grad(loss_fn(record, cotangents, float_out), grad_position=positions)
    grads = as_tuple(fn(*(Tensor(a) for a in arrays)))
    return [to_numpy(g) for g in grads]


def _sens_grads(record, arrays, positions, cotangents, float_out, outs) -> list[np.ndarray]:
    """The same vector-Jacobian product through GradOperation(get_all=True, sens_param=True)."""
    fixed = [Tensor(a) for a in arrays]

    def partial(*xs):
        args = list(fixed)
        for p, x in zip(positions, xs):
            args[p] = x
        return record.kiln(*args)

    cots = iter(cotangents)
    sens = [
        Tensor(next(cots).astype(to_numpy(o).dtype)) if k in float_out else ops.zeros_like(o)
        for k, o in enumerate(as_tuple(outs))
    ]
    sens_arg = tuple(sens) if isinstance(outs, (tuple, list)) else sens[0]
    grads = ops.GradOperation(get_all=True, sens_param=True)(partial)(*(fixed[p] for p in positions), sens_arg)
    return [to_numpy(g) for g in as_tuple(grads)]


@pytest.mark.parametrize(("record", "shapes"), _grad_params())
def test_gradient(record: OpRecord, shapes):
    _check_gradient(record, shapes, float32_too=shapes == _cases(record)[0])


def _check_gradient(record: OpRecord, shapes, float32_too: bool):
    arrays = make_inputs(record, np.float64, shapes, seed_of(record.name, shapes, "grad"))
    positions = grad_positions(record, arrays)
    assert positions, f"{record.name} has grad=True but no float inputs"
    outs = as_tuple(record.kiln(*(Tensor(a) for a in arrays)))
    float_out = float_outputs(outs)
    rng = np.random.default_rng(seed_of(record.name, shapes, "cotangent"))
    cotangents = [rng.standard_normal(to_numpy(outs[k]).shape) for k in float_out]

    tape64 = _tape_grads(record, arrays, positions, cotangents, float_out)
    for p, g in zip(positions, tape64):
        assert g.dtype == np.float64, f"{record.name}: gradient of input {p} is {g.dtype} for float64 input"
        assert g.shape == arrays[p].shape, f"{record.name}: gradient of input {p} has shape {g.shape}"
    by_position = dict(zip(positions, tape64))
    eps = record.extra.get("fd_eps", 1e-6)
    checks = _finite_difference_checks(
        record, arrays, positions, cotangents, float_out, eps, seed_of(record.name, shapes, "fd")
    )
    rtol = record.extra.get("grad_rtol", 1e-4)
    atol = record.extra.get("grad_atol", 1e-6)
    for p in positions:
        mine = [(float(np.sum(by_position[p] * d)), n) for q, d, n in checks if q == p]
        tape_values, numeric = np.array([m for m, _ in mine]), np.array([n for _, n in mine])
        scale = max(1.0, float(np.max(np.abs(numeric)))) if numeric.size else 1.0
        np.testing.assert_allclose(
            tape_values, numeric, rtol=rtol, atol=atol * scale,
            err_msg=f"{record.name}: tape vs finite differences (per element, then random directions), input {p}",
        )  # fmt: skip

    if not float32_too:  # the float32 path is checked on the record's first case
        return
    arrays32 = [a.astype(np.float32) if a.dtype == np.float64 else a for a in arrays]
    outs32 = record.kiln(*(Tensor(a) for a in arrays32))
    tape32 = _sens_grads(record, arrays32, positions, cotangents, float_out, outs32)
    for p, g32, g64 in zip(positions, tape32, tape64):
        assert g32.dtype == np.float32, f"{record.name}: gradient of input {p} is {g32.dtype} for float32 input"
        scale = max(1.0, float(np.max(np.abs(g64)))) if g64.size else 1.0
        np.testing.assert_allclose(
            g32, g64, rtol=2e-3, atol=2e-4 * scale, err_msg=f"{record.name}: float32 vs float64 gradient, input {p}"
        )


def test_table_is_not_empty():
    assert len(RECORDS) > 50
