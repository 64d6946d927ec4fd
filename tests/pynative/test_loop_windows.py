"""Python loops over PyNative ops (kiln/_pynative/lazy.py, kiln/ops/_indexing.py): a loop writing `x[i]` stays in the
lazy window, an int index is an input (one kernel and one window structure for every `i`), and a long loop's windows
are cut at whole periods of its body, so that they share one compiled program.

PointNet++'s farthest-point sampling is such a loop (`centroids[i] = farthest` over `range(npoint)`): before these,
its first PyNative step ran one window per trip and compiled one setitem kernel per `i`.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Parameter, Tensor, ops
from kiln._core.tensor import Pending
from kiln._pynative import dispatch, lazy

DISPATCH_MODES = ("lazy",)


def _pending(t: Tensor) -> bool:
    return type(t._buf) is Pending and t._buf.array is None


def _sampling(points: np.ndarray, n: int):
    """A farthest-point-sampling loop as the zoo writes it: `centroids[i] = farthest`, then the next farthest."""
    xyz = Tensor(points)
    centroids = ops.zeros((n,), kiln.int32)
    distance = ops.ones((points.shape[0],), kiln.float32) * 1e9
    farthest = Tensor(np.array(0, np.int32))
    for i in range(n):
        centroids[i] = farthest
        dist = ((xyz - xyz[farthest]) ** 2).sum(-1)
        distance = ops.minimum(distance, dist)
        farthest = ops.argmax(distance).astype(kiln.int32)
    return centroids


def _sampling_numpy(points: np.ndarray, n: int) -> np.ndarray:
    centroids = np.zeros((n,), np.int32)
    distance = np.full((points.shape[0],), 1e9, np.float32)
    farthest = 0
    for i in range(n):
        centroids[i] = farthest
        distance = np.minimum(distance, ((points - points[farthest]) ** 2).sum(-1))
        farthest = int(np.argmax(distance))
    return centroids


def test_a_loop_writing_x_i_runs_as_one_window(window):
    points = np.random.default_rng(0).standard_normal((40, 3)).astype(np.float32)
    before = window.flushes
    centroids = _sampling(points, 12)
    assert _pending(centroids) and window.flushes == before  # no assignment ran the window
    np.testing.assert_array_equal(centroids.asnumpy(), _sampling_numpy(points, 12))
    assert window.flushes == before + 1 and len(window.programs) == 1


def test_an_int_index_is_an_input_one_program_for_every_value(window):
    x = Tensor(np.arange(12, dtype=np.float32).reshape(4, 3))
    for i in range(4):
        y = x[i] * 2.0
        np.testing.assert_allclose(y.asnumpy(), np.arange(12, dtype=np.float32).reshape(4, 3)[i] * 2.0)
        z = ops.zeros((4, 3), kiln.float32)
        z[i, 1:] = y[:2]
        expect = np.zeros((4, 3), np.float32)
        expect[i, 1:] = np.arange(12, dtype=np.float32).reshape(4, 3)[i, :2] * 2.0
        np.testing.assert_allclose(z.asnumpy(), expect)
    assert len(window.programs) == 2  # x[i] * 2, then the assignment: the same two structures at every i


def test_an_int_index_is_one_kernel_when_ops_run_at_once(monkeypatch):
    monkeypatch.setattr(dispatch, "LAZY", False)
    monkeypatch.setattr(dispatch, "_compiled", {})
    x = Tensor(np.arange(10, dtype=np.float32))
    for i in range(-5, 5):
        np.testing.assert_allclose(x[i].asnumpy(), np.arange(10, dtype=np.float32)[i])
        x[i] = -1.0
    np.testing.assert_allclose(x.asnumpy(), -np.ones(10, np.float32))
    kinds = {attrs for (prim, attrs) in dispatch._compiled if prim.name in ("TensorGetItem", "TensorSetItem")}
    assert kinds == {((("d", 0),),)}  # one spec, the int an input, for both ops at every i


def test_an_out_of_range_int_index_still_raises_at_its_line(window):
    x = Tensor(np.zeros((3, 2), np.float32))
    with pytest.raises(IndexError, match="index 3 is out of bounds for axis 0 with size 3"):
        x[3] = 1.0
    with pytest.raises(IndexError, match="index -4 is out of bounds"):
        _ = x[-4, 0]


@pytest.mark.parametrize("lazy_on", [True, False], ids=["window", "op by op"])
def test_gradients_through_x_i_reads_and_writes_in_a_loop(window, monkeypatch, lazy_on):
    monkeypatch.setattr(dispatch, "LAZY", lazy_on)
    w = Parameter(Tensor(np.array([0.5, -1.0, 2.0, 3.0], np.float32)), name="w")

    def f(w):
        buf = ops.zeros((4,), kiln.float32)
        for i in range(4):
            buf[i] = w[i] * w[(i + 1) % 4]
        return (buf * buf).sum()

    grad = kiln.grad(f)(w)
    v = np.array([0.5, -1.0, 2.0, 3.0])
    # d/dw_k of sum_i (w_i w_{i+1})^2 = 2 w_k (w_{k+1}^2 + w_{k-1}^2)
    expect = 2 * v * (np.roll(v, -1) ** 2 + np.roll(v, 1) ** 2)
    np.testing.assert_allclose(grad.asnumpy(), expect, rtol=1e-6)


def test_a_parameter_written_at_an_int_index_keeps_the_value(window):
    p = Parameter(Tensor(np.zeros((3,), np.float32)), name="p")
    for i in range(3):
        p[i] = float(i + 1)
    np.testing.assert_allclose(p.asnumpy(), [1.0, 2.0, 3.0])


def test_a_long_loop_s_windows_are_cut_at_whole_periods(window, monkeypatch):
    monkeypatch.setattr(lazy, "MAX_OPS", 40)
    points = np.random.default_rng(1).standard_normal((30, 3)).astype(np.float32)
    centroids = _sampling(points, 60)  # 9 ops a trip: windows of 36 once the period is seen
    np.testing.assert_array_equal(centroids.asnumpy(), _sampling_numpy(points, 60))
    aligned = len(window.programs)
    # the first window (40 ops), the middle ones (36 ops, four trips each) share one structure, the last one
    assert aligned <= 3, aligned
    # cut at MAX_OPS, each window starts 4 ops further into the body than the one before: a structure each
    monkeypatch.setattr(window, "programs", {})
    monkeypatch.setattr(window, "single_use", set())
    monkeypatch.setattr(lazy, "aligned_bound", lambda ops: lazy.MAX_OPS)
    np.testing.assert_array_equal(_sampling(points, 60).asnumpy(), _sampling_numpy(points, 60))
    assert len(window.programs) >= 8, len(window.programs)


@pytest.mark.parametrize(
    ("names", "expect"),
    [
        ("ab" * 10, 16),  # period 2
        ("xyz" + "abc" * 3, 15),  # period 3 at the end, whatever came before
        ("abcdef", 16),  # no repetition
        ("a" * 5, 16),  # period 1
        ("abcabd", 16),
    ],
)
def test_aligned_bound(monkeypatch, names, expect):
    monkeypatch.setattr(lazy, "MAX_OPS", 16)
    prims = {c: object() for c in set(names)}
    ops_ = [(prims[c], (), (), 1) for c in names]
    assert lazy.aligned_bound(ops_) == expect
