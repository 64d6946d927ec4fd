"""Host steps with data-dependent result shapes inside compiled programs (issue 21, the zoo's KTScripts DKT and
GRU4Rec): masked_select and a boolean-mask getitem differentiate (their pullback runs on the host, as the step
does), and a call whose mask selects another count traces again instead of reusing a program of the old shape; the
program of a count seen before is kept and runs again when that count comes back (no compile per step)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln._compiler.cache import memory
from kiln._compiler.errors import GraphCompileError
from tests._compiler.frontend.ast.modes import compiled

COMPILED = ("graph", "jit", "bytecode")


def _selected_loss(x, mask):
    picked = ops.masked_select(x, mask)
    return (picked * picked).sum() + (picked * 3.0).sum()


def _indexed_loss(x, mask):
    picked = x[mask]
    return (picked * picked).sum() + (picked * 3.0).sum()


def _gathered_loss(x, mask):
    picked = ops.gather(x.reshape(-1), ops.nonzero(mask.reshape(-1)).reshape(-1), 0)
    return (picked * picked).sum() + (picked * 3.0).sum()


LOSSES = {"masked_select": _selected_loss, "bool_getitem": _indexed_loss, "nonzero_gather": _gathered_loss}


def _reference_grad(x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    def loss(v):
        picked = jnp.where(mask, v, 0.0)
        return jnp.sum(picked * picked) + 3.0 * jnp.sum(picked)

    return np.asarray(jax.grad(loss)(jnp.asarray(x)))


def _masks(rng) -> list:
    """Two masks that select different counts (a program typed on the first must not serve the second)."""
    first = rng.uniform(size=(4, 5)) < 0.3
    second = first.copy()
    second[0, :] = True
    assert first.sum() != second.sum()
    return [first, second]


def _grad_fn(mode: str, loss):
    if mode == "graph":
        return ms.grad(compiled("graph", loss), 0)
    return ms.jit(ms.grad(loss, 0), capture_mode="bytecode" if mode == "bytecode" else "ast")


@pytest.mark.parametrize("mode", COMPILED)
@pytest.mark.parametrize("loss", list(LOSSES))
def test_data_dependent_selections_differentiate_in_a_compiled_program(mode, loss):
    # masked_select was GraphCompileError: "'masked_select' runs on the host ... a host step has no derivative"
    rng = np.random.RandomState(3)
    x = rng.randn(4, 5).astype(np.float32)
    grad = _grad_fn(mode, LOSSES[loss])
    eager = ms.grad(LOSSES[loss], 0)
    for mask in _masks(rng):
        got = grad(Tensor(x), Tensor(mask)).asnumpy()
        np.testing.assert_allclose(got, eager(Tensor(x), Tensor(mask)).asnumpy(), rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(got, _reference_grad(x, mask), rtol=1e-5, atol=1e-6)


def test_the_host_steps_gradient_matches_finite_differences():
    rng = np.random.RandomState(4)
    x = rng.randn(3, 4).astype(np.float64)
    mask = rng.uniform(size=x.shape) < 0.5
    got = ms.jit(ms.grad(_selected_loss, 0))(Tensor(x), Tensor(mask)).asnumpy()
    eps, fd = 1e-6, np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        fd[i] = (
            _selected_loss(Tensor(up), Tensor(mask)).asnumpy() - _selected_loss(Tensor(down), Tensor(mask)).asnumpy()
        )
        fd[i] /= 2 * eps
    np.testing.assert_allclose(got, fd, rtol=1e-5, atol=1e-6)


def _selected_rows(x, mask):
    rows = ops.masked_select(x, ops.expand_dims(mask, -1)).reshape((-1, x.shape[-1]))
    return rows.sum(axis=1) * 2.0


@pytest.mark.parametrize("mode", COMPILED)
def test_a_new_selected_count_traces_again(mode):
    # was "cannot reshape array of size ... into shape (...)" on the second call: the program kept the first count
    rng = np.random.RandomState(5)
    x = rng.randn(4, 5, 3).astype(np.float32)
    fn = compiled(mode, _selected_rows)
    for mask in [*_masks(rng), _masks(rng)[0]]:
        np.testing.assert_allclose(fn(Tensor(x), Tensor(mask)).asnumpy(), x[mask].sum(axis=1) * 2.0, rtol=1e-5)


class _Step(nn.Cell):
    """A training step on masked rows: value_and_grad of the weights and an SGD update, in one compiled call."""

    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.linspace(-1.0, 1.0, 3).astype(np.float32)), name="w")
        self.grad_fn = ops.value_and_grad(self.loss, None, [self.w])

    def loss(self, x, mask):
        rows = ops.masked_select(x * self.w, ops.expand_dims(mask, -1)).reshape((-1, 3))
        return (rows * rows).mean()

    def construct(self, x, mask):
        loss, grads = self.grad_fn(x, mask)
        return ops.depend(loss, ops.assign(self.w, self.w - 0.5 * grads[0]))


def test_a_compiled_training_step_on_masks_of_new_counts_matches_pynative():
    rng = np.random.RandomState(6)
    x = rng.randn(4, 5, 3).astype(np.float32)
    masks = [*_masks(rng), _masks(rng)[0]]
    runs = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        step = _Step()
        losses = [float(step(Tensor(x), Tensor(m)).asnumpy()) for m in masks]
        runs[mode] = (losses, step.w.asnumpy().copy())
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(runs[ms.GRAPH_MODE][0], runs[ms.PYNATIVE_MODE][0], rtol=1e-5)
    np.testing.assert_allclose(runs[ms.GRAPH_MODE][1], runs[ms.PYNATIVE_MODE][1], rtol=1e-5)


def _selected_per_trip(x, n):
    total = x.sum() * 0.0
    i = Tensor(0)
    while i < n:  # a Tensor loop: each trip's selection has another count
        total = total + ops.masked_select(x, x > i.astype(x.dtype)).sum()
        i = i + 1
    return total


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_a_host_step_changing_shape_within_one_call_is_a_kiln_error_not_a_hang(mode):
    x = Tensor(np.arange(6, dtype=np.float32))
    with pytest.raises(GraphCompileError, match=r"host step 'masked_select' .* recompiles"):
        compiled(mode, _selected_per_trip)(x, Tensor(3))


def _cycled_masks(rng, counts: int) -> list:
    """Masks of `counts` different counts (rows of a batch of 6 sequences of 7 steps, as a padded batch's)."""
    masks: dict = {}
    while len(masks) < counts:
        mask = np.arange(7)[None, :] < rng.randint(1, 8, size=6)[:, None]
        masks.setdefault(int(mask.sum()), mask)
    return list(masks.values())


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_a_count_seen_before_runs_its_program_again_without_a_compile(mode):
    # each change of count compiled again (the program of the old count was dropped): 3 counts cycled over 12 calls
    # compiled 11 times; each count's program is kept now, so it compiles 3 times and switches without compiling
    rng = np.random.RandomState(7)
    x = rng.randn(6, 7, 3).astype(np.float32)
    masks = _cycled_masks(rng, 3)
    fn = compiled(mode, _selected_rows)
    compiles = memory.STATS["compiles"]
    for step in range(12):
        mask = masks[step % 3]
        np.testing.assert_allclose(fn(Tensor(x), Tensor(mask)).asnumpy(), x[mask].sum(axis=1) * 2.0, rtol=1e-5)
    assert memory.STATS["compiles"] - compiles == 3


def _selected_pair(x, y, mask):
    """Two host steps of one count (the zoo's DKT selects its outputs and its labels with one mask)."""
    rows = ops.masked_select(x, ops.expand_dims(mask, -1)).reshape((-1, x.shape[-1]))
    labels = ops.masked_select(y, mask)
    return rows.sum(axis=1) * labels


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_two_host_steps_of_one_count_switch_together_without_a_compile(mode):
    # the run stops at the first step; the second still holds the old count when the kept program is looked for
    rng = np.random.RandomState(10)
    x = rng.randn(6, 7, 3).astype(np.float32)
    y = rng.randn(6, 7).astype(np.float32)
    masks = _cycled_masks(rng, 3)
    fn = compiled(mode, _selected_pair)
    compiles = memory.STATS["compiles"]
    for step in range(9):
        mask = masks[step % 3]
        got = fn(Tensor(x), Tensor(y), Tensor(mask)).asnumpy()
        np.testing.assert_allclose(got, _selected_pair(Tensor(x), Tensor(y), Tensor(mask)).asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(got, x[mask].sum(axis=1) * y[mask], rtol=1e-5)
    assert memory.STATS["compiles"] - compiles == 3


def test_the_programs_kept_for_other_counts_are_bounded(monkeypatch):
    # with room for one program besides the latest, a cycle of three counts never finds its count's program
    monkeypatch.setitem(memory.LIMITS, "host_variants", 1)
    rng = np.random.RandomState(8)
    x = rng.randn(6, 7, 3).astype(np.float32)
    masks = _cycled_masks(rng, 3)
    fn = compiled("jit", _selected_rows)
    compiles = memory.STATS["compiles"]
    for step in range(6):
        mask = masks[step % 3]
        np.testing.assert_allclose(fn(Tensor(x), Tensor(mask)).asnumpy(), x[mask].sum(axis=1) * 2.0, rtol=1e-5)
    assert memory.STATS["compiles"] - compiles == 6
    # two counts fit: after their first compiles they alternate without compiling
    compiles = memory.STATS["compiles"]
    for step in range(6):
        mask = masks[step % 2]
        np.testing.assert_allclose(fn(Tensor(x), Tensor(mask)).asnumpy(), x[mask].sum(axis=1) * 2.0, rtol=1e-5)
    assert memory.STATS["compiles"] - compiles <= 2


def test_a_training_step_over_changing_counts_matches_pynative_and_compiles_once_per_count():
    rng = np.random.RandomState(9)
    x = rng.randn(6, 7, 3).astype(np.float32)
    masks = _cycled_masks(rng, 4)
    order = [0, 1, 2, 1, 3, 0, 0, 2, 3, 1, 2, 0, 3, 3, 1, 0, 2, 1, 3, 2]
    runs = {}
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        step = _Step()
        compiles = memory.STATS["compiles"]
        losses = [float(step(Tensor(x), Tensor(masks[i])).asnumpy()) for i in order]
        runs[mode] = (losses, step.w.asnumpy().copy(), memory.STATS["compiles"] - compiles)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.testing.assert_allclose(runs[ms.GRAPH_MODE][0], runs[ms.PYNATIVE_MODE][0], rtol=1e-5)
    np.testing.assert_allclose(runs[ms.GRAPH_MODE][1], runs[ms.PYNATIVE_MODE][1], rtol=1e-5)
    assert runs[ms.GRAPH_MODE][2] == 4  # one per count (the old rule: one per change of count, 18 here)
