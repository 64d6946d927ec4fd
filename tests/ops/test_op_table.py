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

import zlib

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops
from tests.ops.records import OpRecord, all_records

_BF16 = np.dtype(kiln.bfloat16.np)


RECORDS = all_records()


def _cases(record: OpRecord) -> list[tuple]:
    return [tuple(record.shapes), *(tuple(c) for c in record.cases)]


def _dtype_name(dt) -> str:
    return np.dtype(dt).name


def _seed(*parts) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def _float_kind(dt) -> bool:
    dt = np.dtype(dt)
    return dt.kind == "f" or dt == _BF16


def make_inputs(record: OpRecord, dtype, shapes, seed: int) -> list[np.ndarray]:
    """Random inputs for one case: floats in `domain`, ints in [int_low, int_high), bools."""
    rng = np.random.default_rng(seed)
    maker = record.extra.get("make_inputs")
    if maker is not None:
        return [np.asarray(a) for a in maker(rng, np.dtype(dtype), shapes)]
    bool_pos = record.extra.get("bool_inputs", ())
    int_dtype = np.dtype(record.extra.get("int_dtype", np.int64))
    int_low = record.extra.get("int_low", 0)
    lo, hi = record.domain
    dtype = np.dtype(dtype)
    out = []
    for i, shape in enumerate(shapes):
        if i in record.int_inputs:
            out.append(rng.integers(int_low, record.int_high, size=shape).astype(int_dtype))
        elif i in bool_pos or dtype == np.bool_:
            out.append(rng.random(size=shape) < 0.5)
        elif dtype.kind in "iu":
            ilo, ihi = int(np.floor(lo)), int(np.ceil(hi))
            if dtype.kind == "u":
                ilo = max(ilo, 0)
            out.append(rng.integers(ilo, max(ihi, ilo + 1) + 1, size=shape).astype(dtype))
        else:
            out.append(rng.uniform(lo, hi, size=shape).astype(np.float64).astype(dtype))
    return out


def _as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def _to_numpy(value) -> np.ndarray:
    if isinstance(value, Tensor):
        return value.asnumpy()
    return np.asarray(value)


def _tolerances(record: OpRecord, dtype) -> tuple[float, float]:
    dt = np.dtype(dtype)
    if dt == np.float16:
        return max(record.rtol, 2e-3) * 5, max(record.atol, 2e-3) * 5
    if dt == _BF16:
        return max(record.rtol, 1.6e-2) * 2, max(record.atol, 1.6e-2) * 2
    if dt == np.float64:
        return min(record.rtol, 1e-9), min(record.atol, 1e-9)
    return record.rtol, record.atol


def _reference(record: OpRecord, arrays: list[np.ndarray]) -> tuple[tuple, list]:
    """(values, expected dtypes) of the reference for these inputs."""
    low_precision = [a.dtype in (np.dtype(np.float16), _BF16) for a in arrays]
    if any(low_precision):
        # The values come from float32; the dtype from the same call on the original dtype
        # where NumPy handles it, else it is the low-precision dtype wherever float32 came out.
        up = [a.astype(np.float32) if lp else a for a, lp in zip(arrays, low_precision)]
        values = tuple(np.asarray(v) for v in _as_tuple(record.ref(*up)))
        low = next(a.dtype for a, lp in zip(arrays, low_precision) if lp)
        dtypes = [low if v.dtype == np.float32 else v.dtype for v in values]
        return values, dtypes
    if record.extra.get("ref_upcast"):
        dtypes = [np.asarray(v).dtype for v in _as_tuple(record.ref(*arrays))]
        up = [a.astype(np.float64) if _float_kind(a.dtype) else a for a in arrays]
        values = tuple(np.asarray(v) for v in _as_tuple(record.ref(*up)))
        return values, dtypes
    values = tuple(np.asarray(v) for v in _as_tuple(record.ref(*arrays)))
    return values, [v.dtype for v in values]


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
    arrays = make_inputs(record, dtype, shapes, _seed(record.name, shapes, _dtype_name(dtype)))
    expected, expected_dtypes = _reference(record, arrays)
    got = _as_tuple(record.kiln(*(Tensor(a) for a in arrays)))
    assert len(got) == len(expected), f"{record.name}: {len(got)} outputs, reference has {len(expected)}"
    rtol, atol = _tolerances(record, dtype)
    for k, (g, e, edt) in enumerate(zip(got, expected, expected_dtypes)):
        g_np = _to_numpy(g)
        assert g_np.shape == e.shape, f"{record.name} output {k}: shape {g_np.shape}, reference {e.shape}"
        if record.extra.get("check_dtype", True):
            want = record.extra.get("ref_dtype")
            want = arrays[0].dtype if want == "input" else np.dtype(want if want is not None else edt)
            assert g_np.dtype == want, f"{record.name} output {k}: dtype {g_np.dtype}, expected {want}"
        if g_np.dtype.kind in "biu" and e.dtype.kind in "biu":
            np.testing.assert_array_equal(g_np, e, err_msg=f"{record.name} output {k}")
        else:
            g64 = g_np.astype(np.complex128 if g_np.dtype.kind == "c" else np.float64)
            np.testing.assert_allclose(g64, e, rtol=rtol, atol=atol, err_msg=f"{record.name} output {k}")


# ---- gradients ----------------------------------------------------------------------------
def _grad_positions(record: OpRecord, arrays: list[np.ndarray]) -> tuple[int, ...]:
    pos = record.extra.get("grad_positions")
    if pos is not None:
        return tuple(pos)
    return tuple(i for i, a in enumerate(arrays) if _float_kind(a.dtype))


def _float_outputs(outs) -> list[int]:
    return [k for k, o in enumerate(outs) if _float_kind(_to_numpy(o).dtype)]


def _loss_fn(record: OpRecord, cotangents: list[np.ndarray], float_out: list[int]):
    """sum(output * cotangent) over the float outputs, as a Kiln function of the inputs."""

    def loss(*xs):
        outs = _as_tuple(record.kiln(*xs))
        total = None
        for k, cot in zip(float_out, cotangents):
            term = (outs[k] * Tensor(cot.astype(_to_numpy(outs[k]).dtype))).sum()
            total = term if total is None else total + term
        return total

    return loss


def _numeric_loss(record: OpRecord, arrays: list[np.ndarray], cotangents, float_out) -> float:
    outs = _as_tuple(record.kiln(*(Tensor(a) for a in arrays)))
    return float(sum(np.sum(_to_numpy(outs[k]).astype(np.float64) * c) for k, c in zip(float_out, cotangents)))


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
    fn = kiln.grad(_loss_fn(record, cotangents, float_out), grad_position=positions)
    grads = _as_tuple(fn(*(Tensor(a) for a in arrays)))
    return [_to_numpy(g) for g in grads]


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
        Tensor(next(cots).astype(_to_numpy(o).dtype)) if k in float_out else ops.zeros_like(o)
        for k, o in enumerate(_as_tuple(outs))
    ]
    sens_arg = tuple(sens) if isinstance(outs, (tuple, list)) else sens[0]
    grads = ops.GradOperation(get_all=True, sens_param=True)(partial)(*(fixed[p] for p in positions), sens_arg)
    return [_to_numpy(g) for g in _as_tuple(grads)]


@pytest.mark.parametrize(("record", "shapes"), _grad_params())
def test_gradient(record: OpRecord, shapes):
    _check_gradient(record, shapes, float32_too=shapes == _cases(record)[0])


def _check_gradient(record: OpRecord, shapes, float32_too: bool):
    arrays = make_inputs(record, np.float64, shapes, _seed(record.name, shapes, "grad"))
    positions = _grad_positions(record, arrays)
    assert positions, f"{record.name} has grad=True but no float inputs"
    outs = _as_tuple(record.kiln(*(Tensor(a) for a in arrays)))
    float_out = _float_outputs(outs)
    rng = np.random.default_rng(_seed(record.name, shapes, "cotangent"))
    cotangents = [rng.standard_normal(_to_numpy(outs[k]).shape) for k in float_out]

    tape64 = _tape_grads(record, arrays, positions, cotangents, float_out)
    for p, g in zip(positions, tape64):
        assert g.dtype == np.float64, f"{record.name}: gradient of input {p} is {g.dtype} for float64 input"
        assert g.shape == arrays[p].shape, f"{record.name}: gradient of input {p} has shape {g.shape}"
    by_position = dict(zip(positions, tape64))
    eps = record.extra.get("fd_eps", 1e-6)
    checks = _finite_difference_checks(
        record, arrays, positions, cotangents, float_out, eps, _seed(record.name, shapes, "fd")
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
