"""PyNative's lazy window (kiln/_pynative/lazy.py): ops recorded, then run as one compiled program.

Each case compares with the same code run op by op (`dispatch.LAZY` off) and checks when the window runs: a value
read on the host, a Parameter read outside dispatch, an op that cannot wait, the size bound.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, nn, ops
from kiln._core.tensor import Pending
from kiln._pynative import backward_program, dispatch, lazy, tape

DISPATCH_MODES = ("lazy",)


def _both(run):
    """`run()` with the window, then op by op: (lazy result as NumPy, eager result as NumPy)."""
    lazy_out = [np.asarray(t.asnumpy()) for t in run()]
    dispatch.LAZY = False
    try:
        eager_out = [np.asarray(t.asnumpy()) for t in run()]
    finally:
        dispatch.LAZY = True
    return lazy_out, eager_out


def _pending(t: Tensor) -> bool:
    return type(t._buf) is Pending and t._buf.array is None


def test_ops_wait_with_their_shapes_known_until_a_value_is_read(window):
    x = Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    y = ops.relu(ops.matmul(x, ops.transpose(x, (1, 0))) - 10.0)
    assert _pending(y) and y.shape == (2, 2) and y.dtype == kiln.float32 and y.ndim == 2
    before = window.flushes
    np.testing.assert_allclose(y.asnumpy(), np.maximum(x.asnumpy() @ x.asnumpy().T - 10.0, 0))
    assert window.flushes == before + 1 and not _pending(y)


@pytest.mark.parametrize(
    "read", [lambda t: t.asnumpy(), lambda t: repr(t), lambda t: bool(t.sum() > 0), lambda t: t.tolist()]
)
def test_host_reads_run_the_window(window, read):
    t = ops.exp(Tensor(np.ones((2,), np.float32)))
    assert _pending(t)
    read(t)
    assert not window.ops


def test_shape_errors_raise_at_the_op_in_the_same_words():
    def bad():
        return ops.matmul(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((2, 3), np.float32)))

    with pytest.raises(ValueError) as lazy_err:
        bad()
    dispatch.LAZY = False
    try:
        with pytest.raises(ValueError) as eager_err:
            bad()
    finally:
        dispatch.LAZY = True
    assert str(lazy_err.value) == str(eager_err.value)
    assert not dispatch.WINDOW.ops  # nothing recorded


def test_value_bounds_still_raise_at_the_op():
    with pytest.raises(IndexError) as err:
        ops.gather(Tensor(np.ones((3, 2), np.float32)), Tensor(np.array([0, 5], np.int32)), 0)
    assert "Gather" in str(err.value)


def test_an_index_computed_in_the_window_keeps_it_open(window):
    # the bounds check of a gather or scatter whose index is still pending runs on the host once the window has run:
    # the op waits (it used to run the window and then itself, cutting a step into one program per indexing op)
    table = Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    raw = np.array([3, 0, 2], np.int32)

    def run():
        index = (Tensor(raw) - 1).abs().astype("int32")  # [2, 1, 1]; astype to its own dtype reads nothing
        rows = table[index]
        picked = ops.gather(rows, index - 1, 0)
        cells = ops.ScatterNd()(ops.expand_dims(index, 1), picked, (4, 3))
        return [ops.tanh(cells) + rows.sum()]

    before = window.flushes
    out = run()[0]
    assert _pending(out) and window.flushes == before
    index = np.abs(raw - 1)
    rows = table.asnumpy()[index]
    cells = np.zeros((4, 3), np.float32)
    np.add.at(cells, index, rows[index - 1])
    np.testing.assert_allclose(out.asnumpy(), np.tanh(cells) + rows.sum(), rtol=1e-6)
    assert window.flushes == before + 1
    lazy_out, eager_out = _both(run)
    np.testing.assert_array_equal(lazy_out[0], eager_out[0])


def test_a_passed_bounds_check_is_not_taken_for_other_inputs():
    # The host check of the same index array is skipped when it passed just before; any other array, or the same
    # array against a smaller table, is checked again.
    table = Tensor(np.ones((3, 2), np.float32))
    good = Tensor(np.array([0, 2], np.int32))
    for _ in range(2):
        ops.gather(table, good, 0).asnumpy()
    with pytest.raises(IndexError):
        ops.gather(table, Tensor(np.array([0, 3], np.int32)), 0)
    with pytest.raises(IndexError):
        ops.gather(Tensor(np.ones((2, 2), np.float32)), good, 0)
    labels = Tensor(np.array([0, 2], np.int32))
    # the sparse cross-entropy's own label check (reduction 'none' is a one-hot, whose out-of-range rows are all
    # off_value as MindSpore's, so it has none)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    loss(Tensor(np.zeros((2, 3), np.float32)), labels).asnumpy()
    with pytest.raises((IndexError, ValueError), match="out of range"):
        loss(Tensor(np.zeros((2, 2), np.float32)), labels)


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 3)

    def construct(self, x):
        return self.fc2(ops.relu(self.fc1(x)))


def _train_steps(n: int, make_opt=lambda params: nn.Momentum(params, 0.1, 0.9)):
    kiln.set_seed(0)
    net = _Net()
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = make_opt(net.trainable_params())
    grad_fn = kiln.value_and_grad(lambda x, y: loss_fn(net(x), y), None, opt.parameters)
    x = Tensor(np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32))
    label = Tensor(np.array([0, 2, 1, 1, 0], np.int32))
    losses = []
    for _ in range(n):
        loss, grads = grad_fn(x, label)
        opt(grads)
        losses.append(loss)
    return losses + list(net.trainable_params())


def test_a_training_step_is_one_program_reused_by_later_steps(window):
    _train_steps(1)
    assert len(window.programs) == 1
    ((ops_, _),) = window.programs
    names = [prim.name for prim, *_ in ops_]
    assert "BackwardProgram" in names and names[-1] == "FusedMomentum", names
    flushes = window.flushes
    _train_steps(3)
    assert len(window.programs) == 1  # steps 2 and 3 (and a new network of the same structure) hit the cache
    assert window.flushes == flushes + 3


def test_training_computes_what_op_by_op_computes(window):
    lazy_out, eager_out = _both(lambda: _train_steps(3))
    for a, b in zip(lazy_out, eager_out, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


# optimizers whose step is an update per parameter (PerParameterOptimizer); Rprop and ASGD store through `_store`
_PER_PARAMETER = {
    "rmsprop": lambda params: nn.RMSProp(params, 0.01, momentum=0.9, centered=True),
    "adagrad": lambda params: nn.Adagrad(params, learning_rate=0.1),
    "rprop": lambda params: nn.Rprop(params, learning_rate=0.1),
    "asgd": lambda params: nn.ASGD(params, learning_rate=0.1, t0=1.0),
}


@pytest.mark.parametrize("name", sorted(_PER_PARAMETER))
def test_a_per_parameter_optimizer_step_is_one_program(window, name):
    # each parameter's update ran the window (and the global step's AssignAdd ran it before them): WGAN's RMSProp
    # steps were 21 windows. The step is one program, and computes what op by op computes
    flushes = window.flushes
    _train_steps(1, _PER_PARAMETER[name])
    assert window.flushes == flushes + 1
    lazy_out, eager_out = _both(lambda: _train_steps(3, _PER_PARAMETER[name]))
    for a, b in zip(lazy_out, eager_out, strict=True):  # (one program: XLA may fuse a multiply-add)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_a_per_parameter_optimizer_step_whose_window_fails_writes_nothing(window, monkeypatch):
    # as when each write ran the window: the step raises the failing op's error and no Parameter (weights, optimizer
    # state, global step) changes
    monkeypatch.setattr(lazy, "MAX_DEFERRED_BYTES", 1 << 62)
    monkeypatch.setattr(dispatch, "_avals", {})
    net = _Net()
    opt = nn.RMSProp(net.trainable_params(), 0.01, momentum=0.9)
    before = {p.name: p.asnumpy().copy() for p in opt.get_parameters()}
    before["global_step"] = opt.global_step.asnumpy().copy()
    huge = ops.zeros((1 << 22, 1 << 22, 1 << 10), kiln.float32)
    grads = tuple(ops.ones_like(p) + huge[0, 0, 0] for p in opt.parameters)
    assert _pending(grads[0])
    with pytest.raises(MemoryError, match="Fill"):
        opt(grads)
    after = {p.name: p.asnumpy() for p in opt.get_parameters()}
    after["global_step"] = opt.global_step.asnumpy()
    assert before.keys() == after.keys()
    for k, v in before.items():
        np.testing.assert_array_equal(after[k], v, err_msg=k)


def test_hooks_retain_graph_and_higher_order_gradients(window):
    def run():
        x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
        seen = []

        def f(x):
            y = x * x
            y.register_hook(lambda g: seen.append(g.asnumpy()) or g * 2)
            return y.sum()

        g = kiln.grad(f)(x)
        second = kiln.grad(kiln.grad(lambda x: (x * x * x).sum()))(x)
        assert len(seen) == 1
        return [g, second]

    lazy_out, eager_out = _both(run)
    np.testing.assert_allclose(lazy_out[0], [4.0, 8.0, 12.0])
    np.testing.assert_allclose(lazy_out[1], [6.0, 12.0, 18.0])
    for a, b in zip(lazy_out, eager_out, strict=True):
        np.testing.assert_allclose(a, b)


def test_parameter_value_and_in_place_writes(window):
    def run():
        w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
        g = kiln.grad(lambda x: (w.value() * x).sum(), None, [w])(Tensor(np.array([3.0, 4.0], np.float32)))
        t = ops.exp(Tensor(np.zeros((2,), np.float32)))  # pending
        ops.assign(w, t * 5.0)  # an in-place write runs at once, on the window's value
        out = ops.relu(w) + 1.0
        return [g[0], w, out]

    lazy_out, eager_out = _both(run)
    np.testing.assert_allclose(lazy_out[0], [3.0, 4.0])
    np.testing.assert_allclose(lazy_out[1], [5.0, 5.0])
    for a, b in zip(lazy_out, eager_out, strict=True):
        np.testing.assert_allclose(a, b)


def test_parameter_value_keeps_the_window_open(window):
    # an embedding cell returning `table.value()` beside its lookup (the zoo's Transformer and Deep&Cross) ran the
    # window at each value(): its step was cut into several programs. The value is the Parameter's at the call and
    # its gradient reaches the Parameter
    w = Parameter(Tensor(np.array([1.0, 2.0], np.float32)), name="w")
    x = np.array([3.0, 4.0], np.float32)

    def run():
        w.set_data(Tensor(np.array([1.0, 2.0], np.float32)))
        y = ops.exp(Tensor(x)) * w
        v = w.value()
        before = window.flushes
        loss, g = kiln.value_and_grad(lambda t: (ops.tanh(t) * w.value() * w.value()).sum(), None, [w])(Tensor(x))
        if dispatch.LAZY:
            assert window.flushes == before and _pending(loss) and _pending(g[0])
        ops.assign(w, y)  # a write after the read: the value read keeps the old one
        ops.assign(w, w.value() + v)
        return [loss, g[0], v, w, w.value()]

    lazy_out, eager_out = _both(run)
    np.testing.assert_allclose(lazy_out[1], np.tanh(x) * 2 * np.array([1.0, 2.0]), rtol=1e-6)
    np.testing.assert_allclose(lazy_out[3], np.exp(x) * [1.0, 2.0] + [1.0, 2.0], rtol=1e-6)
    for a, b in zip(lazy_out, eager_out, strict=True):
        np.testing.assert_array_equal(a, b)


def test_random_ops_draw_the_same_numbers(window):
    def run():
        kiln.set_seed(3)
        a = ops.uniform((3,), Tensor(0.0), Tensor(1.0))
        b = ops.standard_normal((2, 2)) * 2.0
        return [a, b]

    lazy_out, eager_out = _both(run)
    for a, b in zip(lazy_out, eager_out, strict=True):
        np.testing.assert_array_equal(a, b)


def test_a_parameter_read_outside_dispatch_runs_the_window_first(window):
    w = Parameter(Tensor(np.ones((2,), np.float32)), name="w")
    t = ops.exp(Tensor(np.zeros((2,), np.float32)))
    assert window.ops
    _ = w._data  # a compiled graph reads it this way and may donate the buffer
    assert not window.ops and not _pending(t)


def test_the_window_runs_at_its_size_bound(window, monkeypatch):
    monkeypatch.setattr(lazy, "MAX_OPS", 4)
    t = Tensor(np.zeros((2,), np.float32))
    for _ in range(9):
        t = t + 1.0
    assert len(window.ops) == 1
    np.testing.assert_allclose(t.asnumpy(), [9.0, 9.0])


def test_a_window_whose_structure_changes_every_time_goes_op_by_op(window, monkeypatch):
    monkeypatch.setattr(lazy, "MAX_SINGLE_USE", 2)
    x = Tensor(np.array([2.0], np.float32))
    for n in range(1, 6):
        y = x
        for _ in range(n):
            y = y * x
        np.testing.assert_allclose(y.asnumpy(), [2.0 ** (n + 1)])
    assert len(window.programs) == 2


def test_a_window_that_comes_again_is_compiled_once_the_single_use_marks_are_full(window, monkeypatch):
    # a long-lived process: its first windows each ran once; a later loop's window must still compile
    monkeypatch.setattr(lazy, "MAX_SINGLE_USE", 2)
    x = Tensor(np.array([2.0], np.float32))

    def power(n: int) -> Tensor:
        y = x
        for _ in range(n):
            y = y * x
        return y

    for n in (1, 2):
        power(n).asnumpy()
    for _ in range(3):
        np.testing.assert_allclose(power(7).asnumpy(), [2.0**8])
    assert len(window.programs) == 3
    assert len(window.single_use) == 1  # power(7) ran again; power(1) gave up its mark


def test_a_failing_program_runs_op_by_op(window, monkeypatch):
    def broken(key):
        raise RuntimeError("no program")

    monkeypatch.setattr(window, "_compile", broken)
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(
        kiln.grad(lambda x: (ops.sin(x) * x).sum())(x).asnumpy(), np.sin([1, 2]) + np.cos([1, 2]) * [1, 2], rtol=1e-6
    )


def test_other_threads_run_their_ops_at_once(window):
    found = []

    def work():
        found.append(ops.exp(Tensor(np.zeros((2,), np.float32))))

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert not _pending(found[0]) and not window.ops


def test_off_switch_launches_each_op(window, monkeypatch):
    monkeypatch.setattr(dispatch, "LAZY", False)
    t = ops.exp(Tensor(np.zeros((2,), np.float32)))
    assert not _pending(t) and not window.ops


def test_backward_program_is_recorded_only_without_an_outer_level(window):
    backward_program._primitives.clear()
    x = Tensor(np.array([1.0, 2.0], np.float32))
    kiln.grad(lambda x: (x * x).sum())(x)
    assert len(backward_program._primitives) == 1
    assert not tape.recording


def test_a_huge_output_runs_at_once_and_its_error_is_raised_at_its_line(window):
    # more bytes than any machine has: raised by the call itself, not by a later, unrelated read
    with pytest.raises(MemoryError, match="Fill"):
        ops.zeros((1 << 22, 1 << 22, 1 << 10), kiln.float32)
    x = Tensor(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal((x + 1).asnumpy(), [1, 2, 3])


def test_a_failed_window_raises_its_failure_and_gives_each_value_its_own(window, monkeypatch):
    # the huge op waits here (bound lifted), so its window fails as one program and is replayed op by op: the run
    # raises the failure whatever value is read (an eager run stops at that op's line, tests/pynative/
    # test_lazy_errors.py); an unrelated value is still computed, the failed op's value and what reads it raise
    monkeypatch.setattr(lazy, "MAX_DEFERRED_BYTES", 1 << 62)
    monkeypatch.setattr(dispatch, "_avals", {})  # the size decision is cached with the output types
    x = Tensor(np.arange(3, dtype=np.float32))
    huge = ops.zeros((1 << 22, 1 << 22, 1 << 10), kiln.float32)
    reads_huge = huge + 1
    unrelated = x * 2
    assert _pending(huge) and _pending(unrelated)
    with pytest.raises(MemoryError, match="Fill"):
        unrelated.asnumpy()
    np.testing.assert_array_equal(unrelated.asnumpy(), [0, 2, 4])
    with pytest.raises(MemoryError, match="Fill"):
        huge.asnumpy()
    with pytest.raises(MemoryError, match="Fill"):
        reads_huge.asnumpy()


def test_batchnorm_moving_statistics_wait_in_the_window(window):
    """Writing BatchNorm's moving statistics into their Parameters ran the window at every BatchNorm (Pix2Pix's U-Net
    step: 25 windows compiled where 2 do); the Parameters now hold the pending values, the window runs once per
    training step (at the optimizer's update), and the values are op by op's."""

    def run():
        kiln.set_seed(1)
        net = nn.SequentialCell(
            [nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), nn.ReLU(), nn.Conv2d(3, 2, 1), nn.BatchNorm2d(2)]
        )
        net.set_train()
        opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
        rng = np.random.default_rng(0)
        x = Tensor(rng.standard_normal((2, 2, 5, 5)).astype(np.float32))
        target = Tensor(rng.standard_normal((2, 2, 5, 5)).astype(np.float32))
        grad_fn = kiln.value_and_grad(lambda x: ((net(x) - target) ** 2).mean(), None, opt.parameters)
        flushes = dispatch.WINDOW.flushes
        for _ in range(2):
            loss, grads = grad_fn(x)
            opt(grads)
        stats = [p for p in net.get_parameters() if "moving_" in p.name]
        if dispatch.LAZY:
            assert dispatch.WINDOW.flushes == flushes + 2
            assert all(type(p._buf) is Pending for p in stats)
        return [loss, *stats, *opt.parameters]

    lazy_out, eager_out = _both(run)
    for a, b in zip(lazy_out, eager_out, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def test_moving_statistics_written_pending_match_numpy(window):
    bn = nn.BatchNorm1d(3, momentum=0.8)
    bn.set_train()
    x = np.random.default_rng(1).standard_normal((6, 3)).astype(np.float32)
    y = bn(Tensor(x) * 1.0)
    assert type(bn.moving_mean._buf) is Pending and window.ops
    # MindSpore's momentum weighs the running value: running = momentum * running + (1 - momentum) * batch
    np.testing.assert_allclose(bn.moving_mean.asnumpy(), 0.2 * x.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.asnumpy(), 0.8 + 0.2 * x.var(0, ddof=1), rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
