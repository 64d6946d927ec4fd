"""Gradients with respect to complex Tensors follow MindSpore's convention in every mode.

MindSpore (as PyTorch) gives a real loss L of z = x + iy the gradient dL/dx + i dL/dy, the direction of steepest
ascent, so that `p - lr * grad` lowers the loss; the backend's convention is its conjugate. Expected values are
analytic (imag(z) -> 1j, |z| -> z/|z|, imag(conj(z)) -> -1j, a sensitivity s on z*w -> s*conj(w)); the first
three and the real-sensitivity case were checked against MindSpore 2.10 (its PyNative and GRAPH_MODE agree; it has
no complex gradient for Mul, so |z|^2 and z*w are checked against the formula only).
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import GradOperation, Parameter, Tensor, nn, ops
from tests._compiler.frontend.ast.modes import MODES, compiled

Z = np.array([1.3 + 0.4j, -0.5 + 2.0j], np.complex64)
W = np.array([2.0 + 3.0j, 0.5 - 1.0j], np.complex64)


@pytest.fixture(autouse=True)
def _pynative_after():
    yield
    kiln.set_context(mode=kiln.PYNATIVE_MODE)


def _run(mode: str, grad_fn, *args):
    return compiled(mode, lambda *a: grad_fn(*a))(*args)


def _imag_sum(z):
    return ops.imag(z).sum()


def _abs_sum(z):
    return ops.abs(z).sum()


def _imag_of_conj(z):
    return ops.imag(ops.conj(z)).sum()


def _squared_norm(z):
    return ops.real(z * ops.conj(z)).sum()


def _times_w(z):
    return z * Tensor(W)


CASES = [
    (_imag_sum, np.full_like(Z, 1j)),
    (_abs_sum, Z / np.abs(Z)),
    (_imag_of_conj, np.full_like(Z, -1j)),
    (_squared_norm, 2 * Z),
]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("fn", "expected"), CASES, ids=[c[0].__name__ for c in CASES])
def test_gradient_of_a_real_loss_is_the_steepest_ascent_direction(mode, fn, expected):
    got = _run(mode, GradOperation()(fn), Tensor(Z))
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_sensitivity_of_a_complex_output(mode):
    s = np.array([0.5 - 1.0j, 2.0 + 0.0j], np.complex64)
    got = _run(mode, GradOperation(sens_param=True)(_times_w), Tensor(Z), Tensor(s))
    np.testing.assert_allclose(got.asnumpy(), s * np.conj(W), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("mode", MODES)
def test_real_sensitivity_through_real_part(mode):
    s = np.array([2.0, -1.0], np.float32)
    got = _run(mode, GradOperation(sens_param=True)(ops.real), Tensor(Z), Tensor(s))
    np.testing.assert_allclose(got.asnumpy(), s.astype(np.complex64), rtol=1e-6)


class _SquaredNorm(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(Z), name="p")

    def construct(self):
        return ops.real(self.p * ops.conj(self.p)).sum()


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_descent_step_on_a_complex_parameter_lowers_the_loss(mode):
    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
    net = _SquaredNorm()
    (g,) = GradOperation(get_by_list=True)(net, net.trainable_params())()
    np.testing.assert_allclose(g.asnumpy(), 2 * Z, rtol=1e-5)
    before = float(net().asnumpy())
    net.p.set_data(net.p - 0.1 * g)
    assert float(net().asnumpy()) < before


class _DoublingBprop(nn.Cell):
    """Identity forward; its bprop doubles the gradient it receives, in the user's convention."""

    def construct(self, x):
        return x * 1

    def bprop(self, x, out, dout):
        return (dout * 2,)


@pytest.mark.parametrize("mode", MODES)
def test_custom_bprop_sees_and_returns_the_users_convention(mode):
    cell = _DoublingBprop()

    def loss(z):
        return ops.imag(cell(z)).sum()

    got = _run(mode, GradOperation()(loss), Tensor(Z))
    np.testing.assert_allclose(got.asnumpy(), np.full_like(Z, 2j), rtol=1e-6)


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_tensor_hook_sees_and_returns_the_users_convention(mode):
    seen = []

    def hook(g):
        seen.append(g.asnumpy() if mode == "pynative" else None)
        return g * 3

    class Hooked(nn.Cell):
        def construct(self, z):
            y = z * 1
            y.register_hook(hook)
            return ops.imag(y).sum()

    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
    got = GradOperation()(Hooked())(Tensor(Z))
    np.testing.assert_allclose(got.asnumpy(), np.full_like(Z, 3j), rtol=1e-6)
    if mode == "pynative":
        np.testing.assert_allclose(seen[0], np.full_like(Z, 1j), rtol=1e-6)
