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
from kiln import _backend as B
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


# -- the global step known on the host: predicted from the program, not read back at each step -------------------
#
# A rate per step is tested against the global step before each launch. The step a program provably writes as its old
# value + 1 (`input_checks.successors`) is known on the host (`known_values`), so the test reads no array back from
# the device (which would wait for the step before). Any other global-step array (set by the user, loaded, written
# by another program) is read once. The tests below train SGD on `w * x` summed (its gradient is `x`, ones): each
# step takes exactly its rate off the weight, so the rates taken are read off the weights with NumPy.


class Linear(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = ms.Parameter(Tensor(np.zeros(2, np.float32)), name="w")

    def construct(self, x):
        return (self.w * x).sum()


RATES = np.array([1.0, 2.0, 4.0, 8.0, 16.0, 32.0], np.float32)  # each rate's sum with the others is distinct
ONES = Tensor(np.ones(2, np.float32))


def _sgd_step(mode, rates=RATES, optimizer=nn.SGD):
    """(step, optimizer, net): one SGD step of `Linear` at the rates of `rates` (a Tensor), as `mode` runs it."""
    net = Linear()
    opt = optimizer(net.trainable_params(), learning_rate=Tensor(rates))
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    return _step_of(net, opt, mode), opt, net


def _step_of(net, opt, mode):
    """One training step of `net` by `opt`, as `mode` runs it: a TrainOneStepCell, or value_and_grad then `opt`
    (under jit with "jit")."""
    if mode == "graph":
        return nn.TrainOneStepCell(net, opt)
    grad_fn = ms.value_and_grad(net, None, opt.parameters)

    def eager(x):
        value, grads = grad_fn(x)
        opt(grads)
        return value

    return ms.jit(eager) if mode == "jit" else eager


def _taken(net) -> float:
    """The sum of the rates the steps took so far (each step takes its rate off the weight)."""
    return float(-net.w.asnumpy()[0])


def _device_reads(monkeypatch) -> list:
    """The backend arrays the host tests read back from the device (`_host_value`), as they are read."""
    reads = []
    host_value = input_checks._host_value

    def spy(a, *rest):
        if B.is_array(a):
            reads.append(a)
        return host_value(a, *rest)

    monkeypatch.setattr(input_checks, "_host_value", spy)
    return reads


def _past_the_end(step, global_step: int) -> None:
    with pytest.raises(IndexError, match=rf"6 step\(s\), but the optimizer is at step {global_step + 1} "):
        step(ONES)


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_the_global_step_is_not_read_back_at_each_step(mode, monkeypatch):
    step, opt, net = _sgd_step(mode)
    step(ONES)  # compiled; its test reads the first global step from the device
    reads = _device_reads(monkeypatch)
    for _ in range(5):
        step(ONES)
    assert reads == []  # each step's value was predicted by the step before (the old code read 5)
    assert _taken(net) == RATES.sum()
    # the table ends exactly there: the next steps raise, write nothing, and the step stays
    _past_the_end(step, 6)
    _past_the_end(step, 6)
    assert _taken(net) == RATES.sum()
    assert int(opt.global_step.asnumpy()[0]) == 6
    with pytest.raises(IndexError, match="global_step 6"):
        opt.get_lr()


@pytest.mark.parametrize("mode", ["graph", "jit", "pynative"])
@pytest.mark.parametrize("how", ["set_data", "assign_value", "ops.assign"])
def test_a_global_step_the_user_sets_is_read(mode, how, monkeypatch):
    # the host knew the step's array the program made; the user's new array is read, and predicted from there on
    step, opt, net = _sgd_step(mode)
    for _ in range(3):
        step(ONES)  # rates 0, 1, 2

    def set_step(value):
        new = Tensor(np.array([value], np.int32))
        if how == "set_data":
            opt.global_step.set_data(new)
        elif how == "assign_value":
            opt.global_step.assign_value(new)
        else:
            ops.assign(opt.global_step, new)

    set_step(1)
    for _ in range(5):
        step(ONES)  # rates 1 to 5 (a stale step 3 would end the table two steps early)
    assert _taken(net) == RATES[:3].sum() + RATES[1:].sum()
    _past_the_end(step, 6)
    set_step(5)
    reads = _device_reads(monkeypatch)
    step(ONES)  # rate 5
    assert _taken(net) == RATES[:3].sum() + RATES[1:].sum() + RATES[5]
    _past_the_end(step, 6)
    if mode != "pynative":
        assert len(reads) == 1  # the user's array, once
    # a step in the table, predicted, then one past its end set by the user: a stale prediction would let it train
    set_step(0)
    step(ONES)
    step(ONES)
    set_step(7)
    _past_the_end(step, 7)
    assert _taken(net) == RATES[:3].sum() + RATES[1:].sum() + RATES[5] + RATES[:2].sum()


@pytest.mark.filterwarnings("ignore:load_param_into_net")  # (the checkpoint holds the global step alone)
@pytest.mark.parametrize("mode", ["graph", "jit", "pynative"])
def test_a_global_step_loaded_from_a_checkpoint_is_read(mode, tmp_path):
    step, opt, net = _sgd_step(mode)
    step(ONES)
    step(ONES)
    early, late = str(tmp_path / "early.ckpt"), str(tmp_path / "late.ckpt")
    ms.save_checkpoint(opt, early, choice_func=lambda name: name == "global_step")
    for _ in range(4):
        step(ONES)  # global step 6: the table's end
    ms.save_checkpoint(opt, late, choice_func=lambda name: name == "global_step")
    ms.load_checkpoint(early, net=opt)
    assert int(opt.global_step.asnumpy()[0]) == 2
    for _ in range(4):
        step(ONES)  # rates 2 to 5
    assert _taken(net) == RATES.sum() + RATES[2:].sum()
    _past_the_end(step, 6)
    ms.load_checkpoint(early, net=opt)
    step(ONES)  # rate 2, and a prediction of step 3 for the array it made
    ms.load_checkpoint(late, net=opt)
    _past_the_end(step, 6)  # (a stale step 3 would have trained on)
    assert _taken(net) == RATES.sum() + RATES[2:].sum() + RATES[2]


@pytest.mark.parametrize("mode", ["graph", "jit", "pynative"])
def test_two_optimizers_each_with_its_step(mode):
    # two steps over one weight, each with its own optimizer and table (6 and 3 rates), called in turn
    step, opt, net = _sgd_step(mode)
    net2 = Linear()
    net2.w = net.w
    opt2 = nn.SGD(net2.trainable_params(), learning_rate=Tensor(RATES[:3] / 64))
    step2 = _step_of(net2, opt2, mode)
    for _ in range(3):
        step(ONES)
        step2(ONES)
    with pytest.raises(IndexError, match=r"3 step\(s\), but the optimizer is at step 4 "):
        step2(ONES)
    for _ in range(3):
        step(ONES)
    _past_the_end(step, 6)
    assert _taken(net) == RATES.sum() + RATES[:3].sum() / 64
    assert int(opt2.global_step.asnumpy()[0]) == 3


@pytest.mark.parametrize("mode", ["graph", "jit", "pynative"])
def test_two_optimizers_sharing_a_global_step(mode):
    # the second optimizer takes the first one's global step: each step advances it, each program predicts from the
    # array the other one made (or reads it)
    step, opt, net = _sgd_step(mode)
    net2 = Linear()
    net2.w = net.w
    opt2 = nn.SGD(net2.trainable_params(), learning_rate=Tensor(RATES / 64))
    opt2.global_step = opt.global_step
    step2 = _step_of(net2, opt2, mode)
    for _ in range(3):
        step(ONES)  # global steps 0, 2, 4
        step2(ONES)  # 1, 3, 5
    assert _taken(net) == RATES[0::2].sum() + RATES[1::2].sum() / 64
    _past_the_end(step, 6)
    _past_the_end(step2, 6)
    assert int(opt.global_step.asnumpy()[0]) == 6


@pytest.mark.parametrize("advance", ["+2", "*2+1", "=0"])
def test_a_program_that_writes_the_step_otherwise(advance, monkeypatch):
    # a compiled step that moves the global step by something else than + 1: + 2 is predicted as such; a step
    # computed otherwise (doubled, or set to a constant) is not predicted, and read back at each call
    ms.set_context(mode=ms.GRAPH_MODE)
    net = Linear()
    opt = nn.SGD(net.trainable_params(), learning_rate=Tensor(RATES))
    gs = opt.global_step

    @ms.jit
    def step(x):
        lr = opt.get_lr()  # the rate at the global step, tested on the host before the launch
        ops.assign(net.w, net.w - lr * x)
        if advance == "+2":
            ops.assign(gs, gs + 2)
        elif advance == "*2+1":
            ops.assign(gs, gs * 2 + 1)
        else:
            ops.assign(gs, Tensor(np.zeros([1], np.int32)))
        return lr

    step(ONES)
    reads = _device_reads(monkeypatch)
    rates = [float(step(ONES).asnumpy()) for _ in range(2)]
    expected = {"+2": [2, 4], "*2+1": [1, 3], "=0": [0, 0]}[advance]
    assert rates == list(RATES[expected])
    assert len(reads) == (0 if advance == "+2" else 2)
    if advance != "=0":
        with pytest.raises(IndexError, match=rf"global_step {6 if advance == '+2' else 7}\)"):
            step(ONES)
