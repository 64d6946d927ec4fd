"""Op records for linear algebra and Fourier transforms."""

from __future__ import annotations

import numpy as np
from scipy import linalg as sla

import kiln
from kiln import ops
from tests.ops.records import OpRecord

F32_16 = (np.float32, np.float16)


BF16 = kiln.bfloat16.np.type  # NumPy's view of bfloat16 (from ml_dtypes, which JAX ships)


def _well_conditioned(rng, dtype, shapes):
    ((n, _),) = shapes
    return [(np.eye(n) * 2 + rng.uniform(-0.5, 0.5, size=(n, n))).astype(dtype)]


def _spd(rng, dtype, shapes):
    """A symmetric positive-definite matrix per shape (well conditioned), then the other shapes as plain inputs."""
    out = []
    for i, s in enumerate(shapes):
        if i == 0:
            a = rng.uniform(-1, 1, size=s)
            out.append((a @ np.swapaxes(a, -1, -2) + s[-1] * np.eye(s[-1])).astype(dtype))
        else:
            out.append(rng.uniform(-1, 1, size=s).astype(dtype))
    return out


def _square(rng, dtype, shapes):
    """A well-conditioned square matrix, then plain inputs."""
    a = rng.uniform(-1, 1, size=shapes[0]) + 3 * np.eye(shapes[0][-1])
    return [a.astype(dtype)] + [rng.uniform(-1, 1, size=s).astype(dtype) for s in shapes[1:]]


def _tril_solve(rng, dtype, shapes):
    a = np.tril(rng.uniform(-1, 1, size=shapes[0])) + 3 * np.eye(shapes[0][-1])
    return [a.astype(dtype), rng.uniform(-1, 1, size=shapes[1]).astype(dtype)]


def _lu_inputs(rng, dtype, shapes):
    a = rng.uniform(-1, 1, size=shapes[0]) + 3 * np.eye(shapes[0][0])
    lu, piv = sla.lu_factor(a)
    return [rng.uniform(-1, 1, size=shapes[1]).astype(dtype), lu.astype(dtype), (piv + 1).astype(np.int32)]


def _qr_ref(x):
    q, r = np.linalg.qr(x)
    return q.astype(x.dtype), r.astype(x.dtype)


R = OpRecord


def _integers(rng, dtype, shapes):
    return [rng.integers(0, 4, size=s).astype(dtype) for s in shapes]


def _spd_plus_3i(rng, dtype, shapes):
    """One symmetric positive-definite matrix, A Aᵀ + 3I."""
    a = rng.uniform(-1, 1, size=shapes[0])
    return [(a @ np.swapaxes(a, -1, -2) + 3 * np.eye(a.shape[-1])).astype(dtype)]


PRODUCTS = [
    OpRecord("matmul", ops.matmul, np.matmul, shapes=((3, 4), (4, 5)),
             cases=(((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (3, 4, 2)), ((4,), (4, 5)), ((3, 4), (4,))),
             dtypes=(np.float32, np.float16, BF16), rtol=1e-5, atol=1e-5),
    OpRecord("matmul_int", ops.matmul, np.matmul, shapes=((3, 4), (4, 2)), dtypes=(np.int32,), grad=False,
             domain=(-5, 5)),
    OpRecord("mm", ops.mm, np.matmul, shapes=((3, 4), (4, 2))),
    OpRecord("bmm", ops.bmm, np.matmul, shapes=((2, 3, 4), (2, 4, 5)), cases=(((2, 2, 3, 4), (2, 2, 4, 1)),)),
    OpRecord("MatMul_transpose", lambda a, b: ops.MatMul(transpose_a=True, transpose_b=True)(a, b),
             lambda a, b: a.T @ b.T, shapes=((4, 3), (5, 4))),
    OpRecord("BatchMatMul_transpose_b", lambda a, b: ops.BatchMatMul(transpose_b=True)(a, b),
             lambda a, b: a @ np.swapaxes(b, -1, -2), shapes=((2, 3, 4), (2, 5, 4))),
    OpRecord("bias_add", ops.bias_add, lambda x, b: x + b.reshape(1, -1, 1, 1), shapes=((2, 3, 4, 4), (3,)),
             dtypes=F32_16),
    OpRecord("bias_add_2d", ops.bias_add, lambda x, b: x + b, shapes=((2, 3), (3,))),
    OpRecord("bias_add_nhwc", lambda x, b: ops.bias_add(x, b, "NHWC"), lambda x, b: x + b, shapes=((2, 4, 4, 3), (3,))),
    OpRecord("einsum_matmul", lambda a, b: ops.einsum("ij,jk->ik", a, b), lambda a, b: np.einsum("ij,jk->ik", a, b),
             shapes=((3, 4), (4, 5))),
    OpRecord("einsum_batch_trace", lambda a, b: ops.einsum("bij,bjk->bk", a, b),
             lambda a, b: np.einsum("bij,bjk->bk", a, b), shapes=((2, 3, 4), (2, 4, 5))),
    OpRecord("einsum_outer_list", lambda a, b: ops.einsum("i,j->ij", [a, b]), lambda a, b: np.einsum("i,j->ij", a, b),
             shapes=((3,), (4,))),
    OpRecord("dot", ops.dot, np.dot, shapes=((3, 4), (4, 2)), cases=(((4,), (4,)),)),
    OpRecord("inner", ops.inner, np.inner, shapes=((4,), (4,)),
             cases=(((2, 2, 3), (2, 3)), ((2, 3), (2, 4, 3)), ((4, 3), (3,)))),
    OpRecord("outer", ops.outer, np.outer, shapes=((3,), (4,))),
    OpRecord("diag", ops.diag, np.diag, shapes=((4,),)),
    OpRecord("trace", ops.trace, np.trace, shapes=((4, 4),), cases=(((3, 5),),)),
    OpRecord("inverse", ops.inverse, np.linalg.inv, shapes=((3, 3),), rtol=1e-4, atol=1e-5,
             extra={"make_inputs": _well_conditioned}),
    OpRecord("norm_vector", lambda x: ops.norm(x), lambda x: np.linalg.norm(x), shapes=((6,),),
             cases=(((3, 4),),)),
    OpRecord("norm_l1_dim", lambda x: ops.norm(x, 1, dim=1), lambda x: np.linalg.norm(x, 1, axis=1), shapes=((3, 4),)),
    OpRecord("norm_fro_keep", lambda x: ops.norm(x, "fro", dim=(0, 1), keepdim=True),
             lambda x: np.linalg.norm(x, "fro", axis=(0, 1), keepdims=True), shapes=((3, 4),)),
]  # fmt: skip


DECOMPOSITIONS = [
    R("cholesky", ops.cholesky, np.linalg.cholesky, shapes=((3, 3),), rtol=1e-5, extra={"make_inputs": _spd}),
    R(
        "cholesky_upper",
        lambda a: ops.cholesky(a, True),
        lambda a: np.linalg.cholesky(a).T,
        shapes=((3, 3),),
        rtol=1e-5,
        extra={"make_inputs": _spd},
    ),  # fmt: skip
    R(
        "cholesky_solve",
        lambda a, b: ops.cholesky_solve(b, ops.cholesky(a)),
        lambda a, b: np.linalg.solve(a, b),
        shapes=((3, 3), (3, 2)),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _spd},
    ),  # fmt: skip
    R(
        "cholesky_inverse",
        lambda a: ops.cholesky_inverse(ops.cholesky(a)),
        np.linalg.inv,
        shapes=((3, 3),),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _spd},
    ),  # fmt: skip
    R(
        "matrix_solve",
        ops.matrix_solve,
        np.linalg.solve,
        shapes=((3, 3), (3, 2)),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _square},
    ),  # fmt: skip
    R(
        "matrix_power",
        lambda a: ops.matrix_power(a, 3),
        lambda a: np.linalg.matrix_power(a, 3),
        shapes=((3, 3),),
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R(
        "matrix_power_neg",
        lambda a: ops.matrix_power(a, -2),
        lambda a: np.linalg.matrix_power(a, -2),
        shapes=((3, 3),),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _square},
    ),  # fmt: skip
    R(
        "triangular_solve",
        lambda a, b: ops.MatrixTriangularSolve()(a, b),
        lambda a, b: sla.solve_triangular(a, b, lower=True),
        shapes=((3, 3), (3, 2)),
        rtol=1e-4,
        atol=1e-5,
        extra={"make_inputs": _tril_solve},
    ),  # fmt: skip
    R(
        "lstsq",
        ops.lstsq,
        lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0],
        shapes=((5, 3), (5, 2)),
        rtol=1e-4,
        atol=1e-5,
    ),  # fmt: skip
    R(
        "lu_solve",
        ops.lu_solve,
        lambda b, lu, piv: sla.lu_solve((lu, piv - 1), b),
        shapes=((3, 3), (3, 2)),
        rtol=1e-4,
        atol=1e-5,
        extra={
            "make_inputs": lambda r, d, s: (
                _lu_inputs(r, d, (s[0], s[1]))[:1] + _lu_inputs(np.random.default_rng(1), d, (s[0], s[1]))[1:]
            ),
            "grad_positions": (0,),
        },
    ),  # fmt: skip
    R("pinv", ops.pinv, np.linalg.pinv, shapes=((4, 3),), rtol=1e-4, atol=1e-5),
    R(
        "svd_values",
        lambda a: ops.svd(a, compute_uv=False),
        lambda a: np.linalg.svd(a, compute_uv=False),
        shapes=((4, 3),),
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R("qr", ops.qr, _qr_ref, shapes=((4, 3),), rtol=1e-4, atol=1e-5),
    R("matrix_exp", ops.matrix_exp, sla.expm, shapes=((3, 3),), rtol=1e-5, atol=1e-5),
    R("cond", ops.cond, np.linalg.cond, shapes=((3, 3),), rtol=1e-4, extra={"make_inputs": _square}),
    R("mv", ops.mv, np.matmul, shapes=((3, 4), (4,))),  # fmt: skip
]  # fmt: skip


FFT_AND_NORMS = [
    OpRecord("rfft_irfft_roundtrip", lambda x: ops.irfft(ops.rfft(x) * 2, 6), lambda x: 2 * x, shapes=((3, 6),),
             rtol=1e-5),
    OpRecord("fft_abs", lambda x: ops.abs(ops.fft2(x)), lambda x: np.abs(np.fft.fft2(x)).astype(x.dtype),
             shapes=((3, 4),), rtol=1e-4, atol=1e-4),
    OpRecord("hfft_of_ihfft", lambda x: ops.hfft(ops.ihfft(x), 8), lambda x: x, shapes=((2, 8),), rtol=1e-5),
    OpRecord("det", ops.det, np.linalg.det, shapes=((2, 3, 3),), rtol=1e-4),
    OpRecord("logdet_spd", ops.logdet, lambda x: np.linalg.slogdet(x)[1].astype(x.dtype), shapes=((2, 3, 3),),
             rtol=1e-5, extra={"make_inputs": _spd_plus_3i}),
    OpRecord("vector_norm_p3", lambda x: ops.vector_norm(x, 3, 1), lambda x: np.sum(np.abs(x) ** 3, 1) ** (1 / 3),
             shapes=((3, 4),), rtol=1e-5),
    OpRecord("matrix_norm_fro", ops.matrix_norm, lambda x: np.linalg.norm(x, "fro", (-2, -1)), shapes=((2, 3, 4),),
             rtol=1e-5),
    OpRecord("baddbmm", lambda i, a, b: ops.baddbmm(i, a, b, 0.5, 2.0), lambda i, a, b: 0.5 * i + 2.0 * (a @ b),
             shapes=((2, 3, 5), (2, 3, 4), (2, 4, 5)), rtol=1e-5),
    OpRecord("addr", lambda x, u, v: ops.addr(x, u, v, beta=0.5), lambda x, u, v: 0.5 * x + np.outer(u, v),
             shapes=((3, 4), (3,), (4,))),
    OpRecord("frac", ops.frac, lambda x: x - np.trunc(x), shapes=((3, 4),), domain=(-3.0, 3.0), grad=False),
    OpRecord("heaviside", ops.heaviside, lambda x, v: np.heaviside(x, v).astype(x.dtype), shapes=((3, 4), (4,)),
             grad=False, extra={"make_inputs": _integers}),
]  # fmt: skip


RECORDS: list[OpRecord] = [
    *PRODUCTS,
    *DECOMPOSITIONS,
    *FFT_AND_NORMS,
]
