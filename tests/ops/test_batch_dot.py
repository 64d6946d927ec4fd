"""ops.batch_dot against a per-batch NumPy tensordot: values, gradients (finite differences), graph mode, errors."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, ops

RNG = np.random.default_rng(7)

CASES = [
    # (x1 shape, x2 shape, axes)
    ((3, 4, 5, 2, 3), (3, 1, 7, 3, 2), (-1, -2)),
    ((4, 3, 7, 5), (4, 1, 7, 1), 2),
    ((2, 3, 4), (2, 4, 5), None),
    ((2, 3), (2, 3), None),
    ((2, 5, 3), (2, 3), None),
    ((2, 3, 4), (2, 6, 3), [1, 2]),
]


def _reference(x1, x2, axes):
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - 1 if x2.ndim == 2 else x2.ndim - 2)
    elif isinstance(axes, int):
        axes = (axes, axes)
    a1, a2 = axes[0] % x1.ndim, axes[1] % x2.ndim
    out = np.stack([np.tensordot(p, q, (a1 - 1, a2 - 1)) for p, q in zip(x1, x2, strict=True)])
    return out[:, None] if out.ndim == 1 else out


@pytest.mark.parametrize(("s1", "s2", "axes"), CASES, ids=[f"{c[0]}x{c[1]}:{c[2]}" for c in CASES])
def test_values_pynative_and_graph(s1, s2, axes):
    x1, x2 = RNG.standard_normal(s1).astype(np.float32), RNG.standard_normal(s2).astype(np.float32)
    want = _reference(x1, x2, axes)
    got = ops.batch_dot(Tensor(x1), Tensor(x2), axes).asnumpy()
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    graph = kiln.jit(lambda a, b: ops.batch_dot(a, b, axes))(Tensor(x1), Tensor(x2)).asnumpy()
    np.testing.assert_allclose(graph, got, rtol=1e-6, atol=1e-6)


def test_gradients_against_finite_differences():
    s1, s2, axes = (2, 3, 4), (2, 5, 3), (1, 2)
    x1, x2 = RNG.standard_normal(s1), RNG.standard_normal(s2)
    w = RNG.standard_normal(_reference(x1, x2, axes).shape)

    def loss(a, b):
        return (_reference(a, b, axes) * w).sum()

    g1, g2 = kiln.grad(lambda a, b: (ops.batch_dot(a, b, axes) * Tensor(w)).sum(), grad_position=(0, 1))(
        Tensor(x1), Tensor(x2)
    )
    eps = 1e-6
    for x, g, first in ((x1, g1, True), (x2, g2, False)):
        fd = np.zeros_like(x)
        for i in np.ndindex(x.shape):
            d = np.zeros_like(x)
            d[i] = eps
            hi = loss(x + d, x2) if first else loss(x1, x + d)
            lo = loss(x - d, x2) if first else loss(x1, x - d)
            fd[i] = (hi - lo) / (2 * eps)
        np.testing.assert_allclose(g.asnumpy(), fd, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(
    ("s1", "s2", "axes"),
    [((2, 3, 4), (3, 4, 5), None), ((2, 3, 4), (2, 5, 5), None), ((2, 3, 4), (2, 4, 5), (0, 1)), ((3,), (3,), None)],
    ids=["batch sizes differ", "contracted sizes differ", "batch axis contracted", "1-D inputs"],
)
def test_bad_inputs_are_a_value_error(s1, s2, axes):
    # MindSpore 2.10 raises ValueError for the first three and the last (probed; its BatchMatMul raises at run time
    # for contracted sizes that differ)
    with pytest.raises(ValueError, match="batch_dot"):
        ops.batch_dot(Tensor(np.ones(s1, np.float32)), Tensor(np.ones(s2, np.float32)), axes)
