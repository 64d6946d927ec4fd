"""Linear-algebra calls that now run in traced ops (lu_unpack's permutation, which also takes unpack_data= and
unpack_pivots=; pinv's absolute cut-off, per matrix) or cast first (vector_norm of integers, which raised inside
`jit` for a negative ord): PyNative and `jit` agree, and agree with NumPy."""

from __future__ import annotations

import numpy as np

import kiln
from kiln import Tensor, ops


def _permutation(pivots, m):
    perm = np.arange(m)
    for i, j in enumerate(pivots - 1):
        perm[[i, j]] = perm[[j, i]]
    p = np.zeros((m, m), np.float32)
    p[perm, np.arange(m)] = 1
    return p


def test_lu_unpack_in_a_graph_matches_pynative_and_numpy():
    rng = np.random.default_rng(0)
    lu = Tensor(rng.uniform(-1, 1, (2, 4, 4)).astype(np.float32))
    piv = np.array([[3, 2, 4, 4], [1, 4, 3, 4]], np.int32)
    eager = ops.lu_unpack(lu, Tensor(piv))
    graph = kiln.jit(lambda a, b: ops.lu_unpack(a, b))(lu, Tensor(piv))
    for k in range(2):
        np.testing.assert_array_equal(eager[0].asnumpy()[k], _permutation(piv[k], 4))
    for e, g in zip(eager, graph):
        np.testing.assert_allclose(g.asnumpy(), e.asnumpy())
    p_only = kiln.jit(lambda a, b: ops.lu_unpack(a, b, unpack_data=False)[0])(lu, Tensor(piv))
    np.testing.assert_array_equal(p_only.asnumpy(), eager[0].asnumpy())


def test_pinv_with_atol_in_a_graph_cuts_each_matrix_by_its_own_largest_value():
    x = np.stack([np.diag([10.0, 1.0, 0.1]), np.diag([1.0, 0.15, 0.01])]).astype(np.float32)
    want = np.stack([np.diag([0.1, 1.0, 0.0]), np.diag([1.0, 0.0, 0.0])])
    for call in (
        lambda a: ops.pinv(a, atol=0.2, rtol=0.05),
        lambda a: ops.pinv(a, atol=Tensor(0.2)),
        lambda a: ops.pinv(a, atol=0.2, hermitian=True),
    ):
        np.testing.assert_allclose(call(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(kiln.jit(call)(Tensor(x)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_vector_norm_of_integers_in_a_graph():
    i = np.array([[1, -2, 0], [3, 4, 5]], np.int32)
    for o in (2, 1, -1, 0, float("inf"), 3):
        want = np.linalg.norm(i.ravel().astype(np.float64), o)
        for f in (ops.vector_norm, kiln.jit(lambda x, o=o: ops.vector_norm(x, o))):
            got = f(Tensor(i), o) if f is ops.vector_norm else f(Tensor(i))
            assert got.dtype == kiln.float32
            np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
