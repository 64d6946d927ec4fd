"""Failures of ops deferred in PyNative's lazy window (kiln/_pynative/lazy.py) say what an eager run says.

Each case of the table runs its ops and reads the result, once with the window (the ops run when the value is read)
and once with `KILN_LAZY=0` (each op runs at its line): the error's type and message are the same, its traceback
ends at the user's line that called the failing op (the same line as the eager error's), and it carries no backend
frame and no chained backend error. Then: a failed window leaves the window usable, the values computed before the
failure intact, and an optimizer step whose window failed has written no Parameter.
"""

from __future__ import annotations

import traceback

import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, mint, nn, ops
from kiln._pynative import autograd, dispatch, lazy

DISPATCH_MODES = ("lazy",)  # each case runs both modes itself, to compare them
HUGE = (1 << 22, 1 << 22, 1 << 10)  # float32 zeros of this shape: more bytes than any machine has


@pytest.fixture
def huge_waits(monkeypatch):
    """An output too big to allocate waits in the window like any other (it would run at once), so its allocation
    fails when the window runs."""
    monkeypatch.setattr(lazy, "MAX_DEFERRED_BYTES", 1 << 62)
    monkeypatch.setattr(dispatch, "_avals", {})  # the size decision is cached with the output types


# -- the cases: each returns the Tensor whose read runs the window (an eager run raises before returning) ---------
def _allocation_fails_at_run_time():
    huge = ops.zeros(HUGE, kiln.float32)  # the failing line
    return huge * 2


def _lookup(i):
    return np.arange(4, dtype=np.float32)[i]  # IndexError for 7


def _index_checked_at_run_time():
    index = Tensor(np.array([1, 7], np.int32))
    return ops.Custom(_lookup, out_shape=(2,), out_dtype=kiln.float32, func_type="pyfunc")(index)  # the failing line


def _index_computed_in_the_window():
    index = Tensor(np.array([0, 1], np.int32)) * 3  # pending: Gather's bounds check runs once it is computed
    return ops.gather(Tensor(np.ones((3, 2), np.float32)), index, 0)  # the failing line


def _scattered_with_a_computed_index():
    index = (Tensor(np.array([[0], [2]], np.int32)) * 2).astype("int32")  # pending: [[0], [4]], 4 is out of range
    values = Tensor(np.ones((2, 3), np.float32))
    scattered = ops.ScatterNd()(index, values, (3, 3))  # the failing line
    return scattered * 2


def _dropped_result_of_a_checked_op():
    # eager stops at the gather; the window runs its check although nothing reads the gather's result
    x = Tensor(np.arange(3, dtype=np.float32))
    index = Tensor(np.array([0, 1], np.int32)) * 3
    ops.gather(Tensor(np.ones((3, 2), np.float32)), index, 0)  # the failing line
    return x + 1


def _backward_program_fails(monkeypatch):
    # the code before 9927908 took a sensitivity of the wrong shape; the backward program (one op of the window)
    # then failed when it ran: the error names the backward op that fails, as the op-by-op walk does
    monkeypatch.setattr(autograd, "_sens_for", lambda out, sens: sens)
    x, sens = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3,), np.float32))
    return ops.GradOperation(sens_param=True)(lambda v: (v * v).sum())(x, sens)  # the failing line


class _FailsInside(nn.Cell):
    def construct(self, x):
        return ops.zeros(HUGE, kiln.float32) * x[0]  # the failing line


def _fails_in_a_cells_construct():
    return _FailsInside()(Tensor(np.arange(3, dtype=np.float32)))


def _fails_in_the_second_window():
    x = Tensor(np.arange(3, dtype=np.float32))
    first = x * 2
    first.asnumpy()  # the first window runs
    second = ops.zeros(HUGE, kiln.float32)  # the failing line
    return second * first[1]


def _failed_value_read_by_a_later_window():
    # the failed op's Pending was taken for an output of the next window, by its old index: an IndexError (zoo5)
    x = Tensor(np.arange(3, dtype=np.float32))
    huge = ops.zeros(HUGE, kiln.float32)  # the failing line
    try:
        (x * 2).asnumpy()  # runs the window, which raises the failure; the user goes on
    except MemoryError:
        pass
    return huge * 2


def _failure_not_read_itself(monkeypatch):
    # eager stops at the failing line: the window raises the failure when it runs, whatever value is read
    monkeypatch.setattr(autograd, "_sens_for", lambda out, sens: sens)
    x = Tensor(np.arange(3, dtype=np.float32))
    ops.GradOperation(sens_param=True)(lambda v: (v * v).sum())(x, x)  # the failing line
    return x + 1


CASES = {
    "allocation at run time": (_allocation_fails_at_run_time, True),
    "index checked at run time (a pyfunc)": (_index_checked_at_run_time, False),
    "index computed in the window": (_index_computed_in_the_window, False),
    "index computed in the window, ScatterNd": (_scattered_with_a_computed_index, False),
    "index computed in the window, result dropped": (_dropped_result_of_a_checked_op, False),
    "backward program": (_backward_program_fails, False),
    "in a Cell's construct": (_fails_in_a_cells_construct, True),
    "in the second of two windows": (_fails_in_the_second_window, True),
    "failed value read by a later window": (_failed_value_read_by_a_later_window, True),
    "failure not read itself": (_failure_not_read_itself, False),
}


def _run(case, monkeypatch, lazy_on: bool) -> pytest.ExceptionInfo:
    monkeypatch.setattr(dispatch, "LAZY", lazy_on)
    try:
        with pytest.raises(Exception) as err:  # noqa: PT011  (any: its type is compared with the other mode's)
            args = (monkeypatch,) if case in (_backward_program_fails, _failure_not_read_itself) else ()
            case(*args).asnumpy()
    finally:
        monkeypatch.setattr(dispatch, "LAZY", True)
    return err


def _user_frames(err: pytest.ExceptionInfo) -> list[tuple]:
    return [(f.filename, f.lineno) for f in traceback.extract_tb(err.value.__traceback__) if f.filename == __file__]


def _after_user_line(err: pytest.ExceptionInfo) -> list:
    frames = traceback.extract_tb(err.value.__traceback__)
    last = max(i for i, f in enumerate(frames) if f.filename == __file__)
    return frames[last + 1 :]


@pytest.mark.parametrize("name", list(CASES))
def test_a_deferred_failure_says_what_an_eager_run_says(name, monkeypatch, request):
    case, huge = CASES[name]
    if huge:
        request.getfixturevalue("huge_waits")
    eager = _run(case, monkeypatch, lazy_on=False)
    lazy_err = _run(case, monkeypatch, lazy_on=True)
    assert type(lazy_err.value) is type(eager.value)
    assert str(lazy_err.value) == str(eager.value)
    # it points at the line that called the op (eager's innermost user frame), as the traceback's last frame
    assert _user_frames(lazy_err)[-1] == _user_frames(eager)[-1]
    # and shows no more of Kiln after that line than the eager error does (a deferred failure: none)
    assert len(_after_user_line(lazy_err)) <= len(_after_user_line(eager))
    shown = "".join(traceback.format_exception(lazy_err.value))
    assert "jax" not in shown.lower().replace("kiln_lazy", "")
    assert not dispatch.WINDOW.ops  # the window is usable: empty, and the next ops run
    x = Tensor(np.arange(3, dtype=np.float32))
    np.testing.assert_array_equal((x * 2 + 1).asnumpy(), [1, 3, 5])


class _Zeros(nn.Cell):
    def construct(self, shape):
        return ops.zeros(shape, kiln.float32)


def test_an_op_reached_another_way_at_the_same_position_fails_at_its_own_line(huge_waits, monkeypatch):
    # the window looks for an op's user frame where the op at its position found it last time (`errors.user_frame`'s
    # hint): each way of reaching the op below runs a window of its own (the op at position 0), the last one failing;
    # mint.zeros reaches the op through one more frame of Kiln's than ops.zeros
    def from_a_helper(shape):
        return ops.zeros(shape, kiln.float32)

    ways = {
        "a helper": from_a_helper,
        "this frame": lambda shape: ops.zeros(shape, kiln.float32),
        "this frame, through mint": lambda shape: mint.zeros(shape),
        "a Cell of Kiln's around a user's Cell": nn.SequentialCell([_Zeros()]),
        "a user's Cell": _Zeros(),
    }
    for failing in ways:
        for name, way in ways.items():
            if name != failing:
                np.testing.assert_array_equal(way((2, 3)).asnumpy(), np.zeros((2, 3), np.float32))
        errors = []
        for lazy_on in (False, True):
            monkeypatch.setattr(dispatch, "LAZY", lazy_on)
            with pytest.raises(MemoryError) as err:
                ways[failing](HUGE).asnumpy()
            errors.append(err)
        monkeypatch.setattr(dispatch, "LAZY", True)
        eager, lazy_err = errors
        assert _user_frames(lazy_err)[-1] == _user_frames(eager)[-1], failing


def test_a_failed_value_raises_its_error_again_and_earlier_values_stay(huge_waits):
    x = Tensor(np.arange(3, dtype=np.float32))
    before = x * 3
    huge = ops.zeros(HUGE, kiln.float32)
    reads_huge = huge + 1
    unrelated = x * 2
    with pytest.raises(MemoryError, match="Fill"):
        unrelated.asnumpy()  # eager would have stopped at `huge`'s line
    np.testing.assert_array_equal(before.asnumpy(), [0, 3, 6])
    np.testing.assert_array_equal(unrelated.asnumpy(), [0, 2, 4])
    for read in (huge.asnumpy, reads_huge.asnumpy, lambda: huge * 2):  # a later op on it raises at its call
        with pytest.raises(MemoryError, match="Fill"):
            read()


class _Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) / 10), name="w")
        self.b = Parameter(Tensor(np.array([0.5, -0.5], np.float32)), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w.T) + self.b


def _broken_gradients(net, x) -> tuple:
    """The net's gradients: the weight's computed, the bias's from a backward program that fails (a sensitivity of
    the wrong shape, taken as the code before 9927908 took it)."""
    grads = kiln.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(x)
    wrong = Tensor(np.ones((3,), np.float32))
    return grads[0], ops.GradOperation(sens_param=True)(lambda b: (b * b).sum())(net.b, wrong)


def _state(net, opt) -> list:
    return [*net.trainable_params(), *(p for _, p in opt.parameters_and_names())]


@pytest.mark.parametrize("opt_class", [nn.Momentum, nn.Adagrad], ids=["fused step", "per-parameter step"])
def test_an_optimizer_step_whose_window_failed_writes_no_parameter(opt_class, monkeypatch):
    # the per-parameter step stored the weight, then raised at the bias's gradient (the old window raised a
    # failure only to the reader of a failed value)
    monkeypatch.setattr(autograd, "_sens_for", lambda out, sens: sens)
    if opt_class is nn.Momentum:
        opt_class = lambda params, learning_rate: nn.Momentum(params, learning_rate, 0.9)  # noqa: E731
    net, x = _Net(), Tensor(np.array([[1.0, 2.0, 3.0]], np.float32))
    opt = opt_class(net.trainable_params(), learning_rate=0.1)
    state = [p.asnumpy().copy() for p in _state(net, opt)]
    assert len(state) > 3  # the weights, the optimizer's state and its step count
    grads = _broken_gradients(net, x)
    with pytest.raises(ValueError, match="ReduceSumGrad"):
        opt(grads)
    for old, new in zip(state, [p.asnumpy() for p in _state(net, opt)], strict=True):
        np.testing.assert_array_equal(new, old)
    # the next step runs, from the untouched state, as an eager step does
    opt(kiln.grad(lambda x: net(x).sum(), grad_position=None, weights=net.trainable_params())(x))
    got = [p.asnumpy() for p in net.trainable_params()]
    monkeypatch.setattr(dispatch, "LAZY", False)
    ref_net = _Net()
    ref_opt = opt_class(ref_net.trainable_params(), learning_rate=0.1)
    ref_opt(kiln.grad(lambda x: ref_net(x).sum(), grad_position=None, weights=ref_net.trainable_params())(x))
    for g, want in zip(got, [p.asnumpy() for p in ref_net.trainable_params()], strict=True):
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-7)  # one program vs op by op: rounding


def test_an_op_refused_while_its_abstract_evaluation_recorded_ops_leaves_the_window_usable(monkeypatch):
    # A Tensor given as `norm`'s `ord` is compared (`ord == 1`) by the op's implementation while its output types
    # are traced: those comparisons are recorded in the window before the op is refused. The refusal used to drop
    # every argument the window took since the op began, the comparisons' included, and the next flush failed on
    # an unrelated op (an IndexError from `norm(x, 1)`).
    monkeypatch.setattr(dispatch, "_avals", {})  # traced anew, as in a fresh process
    values = np.arange(12, dtype=np.float32).reshape(3, 4) - 5
    x = Tensor(values)
    dispatch.WINDOW.flush()
    with pytest.raises(ValueError, match="Norm"):
        ops.norm(x, x)
    assert dispatch.WINDOW.ops, "the refused call recorded no op: this test no longer covers the case"
    np.testing.assert_allclose(ops.norm(x, 1).asnumpy(), np.linalg.norm(values, 1), rtol=1e-6)
    np.testing.assert_allclose((x * 2 + 1).asnumpy(), values * 2 + 1)
