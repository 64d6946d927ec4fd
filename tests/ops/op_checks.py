"""Checks shared by the op table's tests (test_op_table.py, test_op_modes.py): a record's inputs, its reference's
values and dtypes, the comparison of Kiln's outputs with them, and the scalar loss whose gradient the tests take.
See test_op_table.py for the `OpRecord.extra` keys these read."""

from __future__ import annotations

import zlib

import numpy as np

import kiln
from kiln import Tensor
from tests.ops.records import OpRecord

_BF16 = np.dtype(kiln.bfloat16.np)


def seed_of(*parts) -> int:
    """A stable seed from the parts (a record name, shapes, a purpose): same inputs on every run and worker."""
    return zlib.crc32("/".join(str(p) for p in parts).encode())


def float_kind(dt) -> bool:
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


def as_tuple(value) -> tuple:
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


def to_numpy(value) -> np.ndarray:
    if isinstance(value, Tensor):
        return value.asnumpy()
    return np.asarray(value)


def tolerances(record: OpRecord, dtype) -> tuple[float, float]:
    dt = np.dtype(dtype)
    if dt == np.float16:
        return max(record.rtol, 2e-3) * 5, max(record.atol, 2e-3) * 5
    if dt == _BF16:
        return max(record.rtol, 1.6e-2) * 2, max(record.atol, 1.6e-2) * 2
    if dt == np.float64:
        return min(record.rtol, 1e-9), min(record.atol, 1e-9)
    return record.rtol, record.atol


def reference(record: OpRecord, arrays: list[np.ndarray]) -> tuple[tuple, list]:
    """(values, expected dtypes) of the reference for these inputs."""
    low_precision = [a.dtype in (np.dtype(np.float16), _BF16) for a in arrays]
    if any(low_precision):
        # The values come from float32; the dtype from the same call on the original dtype
        # where NumPy handles it, else it is the low-precision dtype wherever float32 came out.
        up = [a.astype(np.float32) if lp else a for a, lp in zip(arrays, low_precision)]
        values = tuple(np.asarray(v) for v in as_tuple(record.ref(*up)))
        low = next(a.dtype for a, lp in zip(arrays, low_precision) if lp)
        dtypes = [low if v.dtype == np.float32 else v.dtype for v in values]
        return values, dtypes
    if record.extra.get("ref_upcast"):
        dtypes = [np.asarray(v).dtype for v in as_tuple(record.ref(*arrays))]
        up = [a.astype(np.float64) if float_kind(a.dtype) else a for a in arrays]
        values = tuple(np.asarray(v) for v in as_tuple(record.ref(*up)))
        return values, dtypes
    values = tuple(np.asarray(v) for v in as_tuple(record.ref(*arrays)))
    return values, [v.dtype for v in values]


def check_against_reference(record: OpRecord, arrays: list[np.ndarray], outputs, dtype, where: str = "") -> None:
    """Assert that `outputs` (Kiln's result for `arrays`) match the record's reference: count, shape, dtype, values.

    Args:
        record: the op record.
        arrays: the NumPy inputs the outputs were computed from.
        outputs: a Tensor or a tuple/list of them (or Python/NumPy values).
        dtype: the input dtype, which sets the tolerances.
        where: a label for the messages (the execution mode).
    """
    name = f"{record.name}{where}"
    expected, expected_dtypes = reference(record, arrays)
    got = as_tuple(outputs)
    assert len(got) == len(expected), f"{name}: {len(got)} outputs, reference has {len(expected)}"
    rtol, atol = tolerances(record, dtype)
    for k, (g, e, edt) in enumerate(zip(got, expected, expected_dtypes)):
        g_np = to_numpy(g)
        assert g_np.shape == e.shape, f"{name} output {k}: shape {g_np.shape}, reference {e.shape}"
        if record.extra.get("check_dtype", True):
            want = record.extra.get("ref_dtype")
            want = arrays[0].dtype if want == "input" else np.dtype(want if want is not None else edt)
            assert g_np.dtype == want, f"{name} output {k}: dtype {g_np.dtype}, expected {want}"
        if g_np.dtype.kind in "biu" and e.dtype.kind in "biu":
            np.testing.assert_array_equal(g_np, e, err_msg=f"{name} output {k}")
        else:
            g64 = g_np.astype(np.complex128 if g_np.dtype.kind == "c" else np.float64)
            np.testing.assert_allclose(g64, e, rtol=rtol, atol=atol, err_msg=f"{name} output {k}")


# ---- gradients ----------------------------------------------------------------------------
def grad_positions(record: OpRecord, arrays: list[np.ndarray]) -> tuple[int, ...]:
    pos = record.extra.get("grad_positions")
    if pos is not None:
        return tuple(pos)
    return tuple(i for i, a in enumerate(arrays) if float_kind(a.dtype))


def float_outputs(outs) -> list[int]:
    return [k for k, o in enumerate(outs) if float_kind(to_numpy(o).dtype)]


def loss_fn(record: OpRecord, cotangents: list[np.ndarray], float_out: list[int]):
    """sum(output * cotangent) over the float outputs, as a Kiln function of the inputs."""

    def loss(*xs):
        outs = as_tuple(record.kiln(*xs))
        total = None
        for k, cot in zip(float_out, cotangents):
            term = (outs[k] * Tensor(cot.astype(to_numpy(outs[k]).dtype))).sum()
            total = term if total is None else total + term
        return total

    return loss
