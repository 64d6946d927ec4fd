"""Value checks that read only a program's arguments are tested on the host before the launch (input_checks).

A training step whose only check is the sparse cross-entropy's label range runs without the check compiled in;
an out-of-range label raises at the failing call, through the program with every check compiled in, and leaves
every Parameter as it was. A check on a computed value stays in the program.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn, ops
from kiln._compiler import build, input_checks

LOGITS_IN = Tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(4, 6))
GOOD = np.array([0, 2, 1, 2], np.int32)
BAD = np.array([0, 2, 7, 2], np.int32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(6, 3, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc(x) * 0.5


def _train_step(mode):
    """A Momentum training step over `Net` with a sparse cross-entropy, called as `mode` runs it."""
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)
        return nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt), opt
    grad_fn = ms.value_and_grad(lambda x, y: loss(net(x), y), None, opt.parameters)

    @ms.jit
    def step(x, y):
        value, grads = grad_fn(x, y)
        opt(grads)
        return value

    return step, opt


def _state(opt) -> dict:
    """Every Parameter the step writes (weights and momenta), by position."""
    return {f"{k}:{p.name}": p.asnumpy().copy() for k, p in enumerate([*opt.parameters, *opt.moments])}


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_good_labels_run_without_the_checked_program(mode):
    step, _ = _train_step(mode)
    runs = build.STATS["checked_runs"]
    losses = [float(step(LOGITS_IN, Tensor(GOOD)).asnumpy()) for _ in range(3)]
    assert build.STATS["checked_runs"] == runs
    assert losses[0] > losses[1] > losses[2]  # the steps trained


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_a_bad_label_raises_at_the_call_and_leaves_the_parameters(mode):
    step, opt = _train_step(mode)
    step(LOGITS_IN, Tensor(GOOD))
    before = _state(opt)
    runs, builds = build.STATS["checked_runs"], build.STATS["checked_builds"]
    for _ in range(2):
        with pytest.raises(ValueError, match="7"):
            step(LOGITS_IN, Tensor(BAD))
        after = _state(opt)
        assert after.keys() == before.keys()
        for name, value in before.items():
            np.testing.assert_array_equal(after[name], value, err_msg=name)
    assert build.STATS["checked_runs"] == runs + 2
    assert build.STATS["checked_builds"] == builds + 1  # built once, on first need
    # a good call after the failures continues from the state the first step left
    expected_step, expected_opt = _train_step(mode)
    expected_step(LOGITS_IN, Tensor(GOOD))
    np.testing.assert_allclose(
        step(LOGITS_IN, Tensor(GOOD)).asnumpy(), expected_step(LOGITS_IN, Tensor(GOOD)).asnumpy(), rtol=1e-6
    )
    for name, value in _state(expected_opt).items():
        np.testing.assert_allclose(_state(opt)[name], value, rtol=1e-6, err_msg=name)


class ReshapedLabels(nn.Cell):
    """The labels reach the loss through an integer cast and a reshape."""

    def __init__(self):
        super().__init__()
        self.loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")

    def construct(self, logits, labels):
        return self.loss(logits, ops.reshape(labels.astype(ms.int32), (-1,)))


def test_labels_through_a_cast_and_a_reshape_are_tested_before_the_launch():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = ReshapedLabels()
    good, bad = Tensor(GOOD.astype(np.int8).reshape(4, 1)), Tensor(BAD.astype(np.int8).reshape(4, 1))
    runs = build.STATS["checked_runs"]
    value = net(LOGITS_IN, good).asnumpy()
    assert build.STATS["checked_runs"] == runs
    with pytest.raises(ValueError, match="7"):
        net(LOGITS_IN, bad)
    assert build.STATS["checked_runs"] == runs + 1
    np.testing.assert_allclose(net(LOGITS_IN, good).asnumpy(), value)


class ShiftedGather(nn.Cell):
    """The index checked is computed in the program (i + shift): it cannot be tested before the launch."""

    def construct(self, x, i, shift):
        return ops.gather(x, i + shift, 0).sum()


def test_a_check_on_a_computed_index_stays_in_the_program():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = ShiftedGather()
    x = Tensor(np.arange(4.0, dtype=np.float32))
    i, shift = Tensor(np.array([0, 1], np.int32)), Tensor(np.array([1, 2], np.int32))
    runs = build.STATS["checked_runs"]
    assert float(net(x, i, shift).asnumpy()) == 4.0
    with pytest.raises(IndexError, match="out of range"):
        net(x, Tensor(np.array([0, 2], np.int32)), shift)  # every argument in range, the sum is not
    assert build.STATS["checked_runs"] == runs  # the program's own check raised


class GatherRows(nn.Cell):
    """The index is an argument: the gather's check reads it, and only the shape of `x`."""

    def construct(self, x, i):
        return ops.gather(x, i, 0)


def _executable(cell):
    (bucket,) = cell.__dict__["_kiln_graph_cache"].entries.values()
    return bucket[0]


@pytest.mark.parametrize(
    "case",
    ["sparse_ce", "cast_reshape", "gather"],
)
def test_the_compiled_tester_agrees_with_passes(case):
    """`tester(tests)` (what a call runs) against `passes(tests, leaves)` on inputs in range, out of range, and of
    another shape or dtype (None: the call builds its key)."""
    ms.set_context(mode=ms.GRAPH_MODE)
    rng = np.random.default_rng(0)
    if case == "gather":
        net, first = GatherRows(), Tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3))
        labels = [np.array(v, np.int32) for v in ([0, 3, 1], [0, 4, 1], [-1, 2, 0], [3, 3, 3])]
        other = [np.array([0, 1], np.int32), np.array([0, 1, 2], np.int64)]
    else:
        net = (
            ReshapedLabels()
            if case == "cast_reshape"
            else nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
        )
        first, dtype = LOGITS_IN, np.int8 if case == "cast_reshape" else np.int32
        shape = (4, 1) if case == "cast_reshape" else (4,)
        labels = [rng.integers(lo, hi, 4).astype(dtype).reshape(shape) for lo, hi in ((0, 6), (0, 9), (-3, 6), (5, 6))]
        other = [GOOD.reshape(2, 2).astype(dtype), GOOD.astype(np.int16).reshape(shape)]
    net(first, Tensor(labels[0]))
    ex = _executable(net)
    assert ex.input_tests is not None and ex.tester is not None
    verdicts = set()
    for value in [*labels, *other]:
        leaves = [first._data, Tensor(value)._data]
        expected = input_checks.passes(ex.input_tests, leaves)
        assert ex.tester(leaves) is expected, value
        verdicts.add(expected)
    assert verdicts == {True, False, None}  # each outcome met


class EdgeMean(nn.Cell):
    """A graph layer's neighbour sum, as the zoo's SGCN writes it: self loops from an arange joined to the argument
    `edge_index` by Concat, `row, col = edge_index`, the gathered rows `x[col]` scattered by ScatterNd at
    `ExpandDims(row.astype(int32), 0).T`. Every index is the argument moved about: tested before the launch."""

    def construct(self, x, edge_index):
        loops = ops.Tile()(ops.ExpandDims()(ms.numpy.arange(0, x.shape[0], dtype=ms.int32), 0), (2, 1))
        edge_index = ops.Concat(1)((edge_index, loops))
        row, col = edge_index
        indices = ops.ExpandDims()(row.astype("int32"), 0).T
        return ops.ScatterNd()(indices, x[col], (x.shape[0], x.shape[1]))


def _edge_mean_numpy(x: np.ndarray, edges: np.ndarray) -> np.ndarray:
    edges = np.concatenate([edges, np.tile(np.arange(x.shape[0]), (2, 1))], axis=1)
    out = np.zeros_like(x)
    np.add.at(out, edges[0], x[edges[1]])
    return out


def test_indices_moved_by_index_transpose_and_concat_are_tested_before_the_launch():
    x = np.arange(12.0, dtype=np.float32).reshape(4, 3)
    good = np.array([[0, 1, 3, 2, 3], [1, 2, 0, 0, 2]], np.int32)
    bad_col, bad_row = good.copy(), good.copy()
    bad_col[1, 2], bad_row[0, 4] = 4, -5
    ms.set_context(mode=ms.PYNATIVE_MODE)
    eager = EdgeMean()
    pynative = {}
    for name, edges in (("col", bad_col), ("row", bad_row)):
        with pytest.raises(Exception) as err:  # noqa: PT011  (the error PyNative raises is the reference)
            eager(Tensor(x), Tensor(edges)).asnumpy()
        pynative[name] = err
    ms.set_context(mode=ms.GRAPH_MODE)
    net = EdgeMean()
    runs = build.STATS["checked_runs"]
    got = net(Tensor(x), Tensor(good)).asnumpy()
    np.testing.assert_array_equal(got, _edge_mean_numpy(x, good))
    ex = _executable(net)
    assert not ex.checked and ex.input_tests is not None  # the program runs without its checks
    assert build.STATS["checked_runs"] == runs
    for name, edges in (("col", bad_col), ("row", bad_row)):
        with pytest.raises(pynative[name].type) as err:
            net(Tensor(x), Tensor(edges)).asnumpy()
        value = str(edges[1, 2] if name == "col" else edges[0, 4])
        assert value in str(err.value) and value in str(pynative[name].value), (err.value, pynative[name].value)
    assert build.STATS["checked_runs"] == runs + 2  # each failed test ran the program with its checks compiled in
    # the host tests give the verdicts of `passes`, and NumPy's (every index within the 4 rows)
    for edges in (good, bad_col, bad_row, np.array([[3, 3], [0, -4]], np.int32), good.astype(np.int64)):
        leaves = [Tensor(x)._data, Tensor(edges)._data]
        expected = input_checks.passes(ex.input_tests, leaves)
        assert ex.tester(leaves) is expected
        if edges.dtype == good.dtype and edges.shape == good.shape:
            assert expected is bool(((edges >= -4) & (edges < 4)).all()), edges
        else:  # another shape or dtype: the call builds its key
            assert expected is None, edges


class TwiceIndexed(nn.Cell):
    """Two tensors of one shape indexed by the same argument: one host test serves both checks."""

    def construct(self, x, i):
        return x[i].sum() + (x * 2)[i].sum()


def test_a_repeated_check_is_tested_once():
    ms.set_context(mode=ms.GRAPH_MODE)
    net = TwiceIndexed()
    x = np.arange(6.0, dtype=np.float32).reshape(3, 2)
    i = np.array([2, 0, 2], np.int32)
    assert float(net(Tensor(x), Tensor(i)).asnumpy()) == 3 * x[i].sum()
    assert len(_executable(net).input_tests) == 1
    with pytest.raises(IndexError, match="out of bounds"):
        net(Tensor(x), Tensor(np.array([2, 3, 0], np.int32))).asnumpy()


def test_arrays_that_passed_are_not_tested_again(monkeypatch):
    """The same (immutable) argument arrays pass again without a host read; new arrays, a failing one included,
    and NumPy arrays (which may change in place) are tested at each call."""
    ms.set_context(mode=ms.GRAPH_MODE)
    net = EdgeMean()
    x = Tensor(np.arange(12.0, dtype=np.float32).reshape(4, 3))
    good = np.array([[0, 1, 3, 2, 3], [1, 2, 0, 0, 2]], np.int32)
    net(x, Tensor(good))
    ex = _executable(net)
    reads = []
    host_value = input_checks._host_value
    monkeypatch.setattr(input_checks, "_host_value", lambda a, *rest: reads.append(a) or host_value(a, *rest))
    run = input_checks.tester(ex.input_tests)
    leaves = [x._data, Tensor(good)._data]
    assert run(leaves) is True
    first = len(reads)
    assert first > 0
    assert run(list(leaves)) is True
    assert len(reads) == first  # nothing read again
    bad = good.copy()
    bad[1, 0] = 9
    assert run([x._data, Tensor(bad)._data]) is False
    assert run([x._data, Tensor(good)._data]) is True  # a new array of the same values: tested
    assert len(reads) > first + 1
    mutable = good.copy()
    assert run([x._data, mutable]) is True
    mutable[0, 0] = 7
    assert run([x._data, mutable]) is False


def test_a_rate_per_step_is_tested_on_the_global_step_before_the_launch():
    # the rate lookup reads the optimizer's global step, a Parameter the program reads before writing it: the host
    # tests its value before each launch (an in-graph check cost a select over every written Parameter and a read
    # of the error code at each step), and the step past the table's end raises through the checked program
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    opt = nn.Momentum(net.trainable_params(), learning_rate=[0.1, 0.05, 0.01], momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), opt)
    x, y = LOGITS_IN, Tensor(np.zeros((4, 3), np.float32))
    runs = build.STATS["checked_runs"]
    for _ in range(3):
        step(x, y)
    ex = _executable(step)
    assert not ex.checked and ex.input_tests is not None
    assert build.STATS["checked_runs"] == runs
    before = _state(opt)
    with pytest.raises(IndexError, match=r"3 step\(s\).*step 4 \(global_step 3\)"):
        step(x, y)
    assert build.STATS["checked_runs"] == runs + 1
    after = _state(opt)
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)
    assert int(opt.global_step.asnumpy()[0]) == 3
