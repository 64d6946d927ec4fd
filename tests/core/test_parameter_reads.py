"""Gradients flow through every way of reading a Parameter (kiln/_core/tensor.py): `value()`, `.data`, `.T`,
slicing, indexing, `copy()`, casts, views and the identity-like ops, in PyNative, GRAPH_MODE and jit, each
checked against central finite differences of the same Cell. PyNative once dropped the gradient through
`value()` (3 instead of 6 in issue 21's example) and `copy()`."""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops

# name -> a read of the Parameter, broadcastable against x of shape (2, 2)
READS = {
    "value": lambda p: p.value(),
    "data": lambda p: p.data,
    "T": lambda p: p.T,
    "slice": lambda p: p[0:2],
    "index": lambda p: p[1],
    "value_index": lambda p: p.value()[0],
    "copy": lambda p: p.copy(),
    "init_data": lambda p: p.init_data(),
    "astype": lambda p: p.astype(ms.float32),
    "to": lambda p: p.to(ms.float32),
    "reshape": lambda p: p.reshape(2, 2),
    "view": lambda p: p.view(2, 2),
    "flatten_reshape": lambda p: p.flatten().reshape(2, 2),
    "expand_squeeze": lambda p: p.expand_dims(0).squeeze(0),
    "transpose": lambda p: p.transpose(1, 0),
    "contiguous": lambda p: p.contiguous(),
    "identity": lambda p: ops.identity(p),
    "depend": lambda p: ops.depend(p, p),
}

P0 = np.array([[1.0, 2.0], [3.0, 4.0]], np.float32)
X = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)


class _ReadTwice(nn.Cell):
    """(read(p) * x).sum() + (p * x).sum(): the gradient counts both reads."""

    def __init__(self, read) -> None:
        super().__init__()
        self.p = Parameter(Tensor(P0), name="p")
        self.read = read

    def construct(self, x):
        return (self.read(self.p) * x).sum() + (self.p * x).sum()


def _finite_differences(net, x, eps=1e-2):
    """Central differences of net(x) in each element of p (the function is linear in p, so they are exact up to
    float32 rounding)."""
    base = P0.astype(np.float64)
    grad = np.zeros_like(base)
    for idx in np.ndindex(base.shape):
        values = []
        for sign in (1, -1):
            moved = base.copy()
            moved[idx] += sign * eps
            net.p.set_data(Tensor(moved.astype(np.float32)))
            values.append(float(net(x).asnumpy()))
        grad[idx] = (values[0] - values[1]) / (2 * eps)
    net.p.set_data(Tensor(P0))
    return grad


def _gradient(net, x, way):
    grad_fn = ms.grad(net, None, net.trainable_params())
    if way == "jit":
        return ms.jit(grad_fn)(x)[0]
    ms.set_context(mode=ms.GRAPH_MODE if way == "graph" else ms.PYNATIVE_MODE)
    return grad_fn(x)[0]


@pytest.mark.parametrize("way", ["pynative", "graph", "jit"])
@pytest.mark.parametrize("read", sorted(READS))
def test_gradient_through_a_parameter_read(read, way):
    net = _ReadTwice(READS[read])
    x = Tensor(X)
    want = _finite_differences(net, x)
    got = _gradient(net, x, way).asnumpy()
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
    np.testing.assert_array_equal(net.p.asnumpy(), P0)  # reading changed nothing


def test_issue_example_counts_both_reads():
    p = Parameter(Tensor(np.array(1.0, np.float32)), name="p")
    x = Tensor(np.array(3.0, np.float32))
    grad = ms.grad(lambda x: (p.value() * x).sum() + (p * x).sum(), None, [p])(x)
    assert float(grad[0].asnumpy()) == 6.0


def test_gradient_flows_through_a_tensor_copy_in_pynative():
    # d/dx sum(x.copy() * x) = 2x: the copy is an op on the tape, not a constant.
    x = Tensor(np.array([1.0, -2.0, 3.0], np.float32))
    grad = ms.grad(lambda x: (x.copy() * x).sum())(x)
    np.testing.assert_allclose(grad.asnumpy(), [2.0, -4.0, 6.0])
