"""The PyNative backward pass as one compiled program (kiln/_pynative/backward_program.py).

Every case runs the same gradient twice, op by op (`tape.FUSED_BACKWARD` off) and as one program, and
compares; the structural checks say when the program is used (one per tape structure, reused by later
steps) and when the walk goes op by op (hooks, custom rules, higher-order gradients).
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, nn, ops
from kiln._pynative import backward_program, dispatch, tape

# The backward program compiled and cached on its own, ops launched at once; recorded in the lazy window as one
# op with the forward, it is tested in test_lazy_window.py
DISPATCH_MODES = ("eager",)


@pytest.fixture(autouse=True)
def _fresh_programs(monkeypatch):
    """Each case starts with no compiled backward program (and no single-use ones counted)."""
    monkeypatch.setattr(backward_program, "_programs", {})
    monkeypatch.setattr(backward_program, "_single_use", set())
    monkeypatch.setattr(backward_program, "_refused", {})


def _both(run):
    """`run()` op by op, then as one program: (op-by-op result, program result, programs built meanwhile)."""
    saved = tape.FUSED_BACKWARD
    try:
        tape.FUSED_BACKWARD = False
        per_op = run()
        tape.FUSED_BACKWARD = True
        backward_program._programs.clear()
        fused = run()
        return per_op, fused, len(backward_program._programs)
    finally:
        tape.FUSED_BACKWARD = saved


def _assert_same(a, b):
    for x, y in zip(a, b, strict=True):
        np.testing.assert_allclose(x.asnumpy(), y.asnumpy(), rtol=1e-6, atol=1e-6)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        h = ops.relu(self.fc1(x))
        return self.fc2(h) + self.fc2(h * 0.5)  # fc2's weight used twice: its gradients are summed


def test_network_gradients_match_the_op_by_op_walk():
    kiln.set_seed(0)
    net = _Net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    x = Tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    label = Tensor(np.array([0, 2, 1, 1, 0], np.int32))  # an integer input: no gradient flows to it
    grad_fn = kiln.value_and_grad(lambda x, y: loss_fn(net(x), y), 0, net.trainable_params())

    def run():
        loss, (gx, gw) = grad_fn(x, label)
        return [loss, gx, *gw]

    per_op, fused, built = _both(run)
    _assert_same(per_op, fused)
    assert built == 1


def test_one_program_per_tape_structure_reused_by_later_steps(monkeypatch):
    w = Parameter(Tensor(np.ones((3, 3), np.float32)), name="w")
    x = Tensor(np.arange(9, dtype=np.float32).reshape(3, 3))
    grad_fn = kiln.grad(lambda x: ops.tanh(ops.matmul(x, w)).sum(), None, [w])
    monkeypatch.setattr(tape, "FUSED_BACKWARD", True)
    backward_program._programs.clear()
    first = grad_fn(x)
    assert len(backward_program._programs) == 1
    calls = []
    for key, fn in list(dispatch._compiled.items()):
        monkeypatch.setitem(dispatch._compiled, key, lambda *a, _fn=fn, _k=key: calls.append(_k[0].name) or _fn(*a))
    second = grad_fn(x)
    assert len(backward_program._programs) == 1
    assert not [name for name in calls if "Grad[" in name], calls  # no backward op dispatched on its own
    _assert_same(first, second)


def test_constants_of_another_type_get_another_program(monkeypatch):
    monkeypatch.setattr(tape, "FUSED_BACKWARD", True)
    backward_program._programs.clear()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    g_int = kiln.grad(lambda x: ops.pow(x, 2).sum())(x)
    g_float = kiln.grad(lambda x: ops.pow(x, 2.0).sum())(x)
    np.testing.assert_allclose(g_int.asnumpy(), [2.0, 4.0])
    np.testing.assert_allclose(g_float.asnumpy(), [2.0, 4.0])
    assert len(backward_program._programs) == 2


def test_hooks_and_higher_order_gradients_walk_op_by_op(monkeypatch):
    monkeypatch.setattr(tape, "FUSED_BACKWARD", True)
    x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
    seen = []

    def f(x):
        y = x * x
        y.register_hook(lambda g: seen.append(g.asnumpy()) or g * 2)
        return y.sum()

    backward_program._programs.clear()
    g = kiln.grad(f)(x)
    np.testing.assert_allclose(g.asnumpy(), 4 * x.asnumpy())
    assert len(seen) == 1 and not backward_program._programs
    second = kiln.grad(kiln.grad(lambda x: (x * x * x).sum()))(x)  # d2/dx2 x^3 = 6x
    np.testing.assert_allclose(second.asnumpy(), 6 * x.asnumpy())


def test_a_failing_program_falls_back_to_the_op_by_op_walk(monkeypatch):
    monkeypatch.setattr(tape, "FUSED_BACKWARD", True)
    backward_program._programs.clear()

    def broken(the_plan):
        raise RuntimeError("no program")

    monkeypatch.setattr(backward_program, "_program", broken)
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(kiln.grad(lambda x: (x * x).sum())(x).asnumpy(), [2.0, 4.0])


@pytest.mark.parametrize("fused", [False, True])
def test_sens_and_multiple_outputs(fused, monkeypatch):
    monkeypatch.setattr(tape, "FUSED_BACKWARD", fused)
    x = Tensor(np.array([1.0, -2.0, 3.0], np.float32))
    sens = (Tensor(np.array([1.0, 1.0, 2.0], np.float32)), Tensor(np.float32(3.0)))
    grad_op = ops.GradOperation(sens_param=True)
    g = grad_op(lambda x: (x * 2, (x * x).sum()))(x, sens)
    np.testing.assert_allclose(g.asnumpy(), 2 * np.array([1.0, 1.0, 2.0]) + 3.0 * 2 * x.asnumpy())


def test_a_tape_that_changes_every_step_goes_op_by_op_after_a_few_programs(monkeypatch):
    monkeypatch.setattr(tape, "FUSED_BACKWARD", True)
    monkeypatch.setattr(backward_program, "MAX_SINGLE_USE", 2)
    for n in range(1, 5):  # n multiplications: a new tape structure each time
        x = Tensor(np.array([2.0], np.float32))

        def f(x, n=n):
            y = x
            for _ in range(n):
                y = y * x
            return y.sum()

        np.testing.assert_allclose(kiln.grad(f)(x).asnumpy(), [(n + 1) * 2.0**n])
    assert len(backward_program._programs) == 2


def test_programs_that_run_again_do_not_count_against_new_ones(monkeypatch):
    monkeypatch.setattr(tape, "FUSED_BACKWARD", True)
    monkeypatch.setattr(backward_program, "MAX_SINGLE_USE", 1)
    x = Tensor(np.array([2.0], np.float32))
    square = kiln.grad(lambda x: (x * x).sum())
    cube = kiln.grad(lambda x: (x * x * x).sum())
    square(x)
    square(x)  # run again: no longer single-use
    cube(x)
    assert len(backward_program._programs) == 2
    np.testing.assert_allclose(cube(x).asnumpy(), [12.0])


def test_a_plan_that_comes_again_is_compiled_once_the_single_use_marks_are_full(monkeypatch):
    monkeypatch.setattr(tape, "FUSED_BACKWARD", True)
    monkeypatch.setattr(backward_program, "MAX_SINGLE_USE", 1)
    x = Tensor(np.array([2.0], np.float32))
    kiln.grad(lambda x: (x * x).sum())(x)  # run once: the single-use mark is full
    cube = kiln.grad(lambda x: (x * x * x).sum())
    for _ in range(3):
        np.testing.assert_allclose(cube(x).asnumpy(), [12.0])
    assert len(backward_program._programs) == 2
