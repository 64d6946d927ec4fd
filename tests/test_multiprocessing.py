"""kiln.multiprocessing (mindspore.multiprocessing): forked children and pool workers run the kernels their
parent compiled; forking is said once, in Kiln's words."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kiln
import kiln.multiprocessing as mp
from kiln import ops
from kiln._pynative import dispatch, lazy


def _log(x):
    return ops.log(x)


def _child(q_in, q_out):
    q_out.put(float(ops.log(q_in.get()).asnumpy()))


@pytest.fixture
def fork_start():
    """Forked children for the test; the start method as it was afterwards."""
    ctx_before = mp.get_start_method(allow_none=True)
    mp.set_start_method("fork", force=True)
    yield
    mp.set_start_method(ctx_before, force=True)


def test_forked_children_and_pool_workers_run_ops(fork_start):
    assert float(ops.log(kiln.Tensor(2.0)).asnumpy()) > 0  # the parent has used the runtime
    q_in, q_out = mp.Queue(), mp.Queue()
    mp._warned = False
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        for _ in range(2):
            p = mp.Process(target=_child, args=(q_in, q_out))
            p.start()
            q_in.put(kiln.Tensor(np.float32(3.0)))
            np.testing.assert_allclose(q_out.get(timeout=60), np.log(3.0), rtol=1e-6)
            p.join(60)
            assert p.exitcode == 0
    messages = [str(w.message) for w in seen if issubclass(w.category, RuntimeWarning)]
    assert len(messages) == 1 and "kiln.multiprocessing" in messages[0] and "spawn" in messages[0]
    with mp.Pool(processes=2) as pool:
        out = pool.map(_log, [kiln.Tensor(2.0), kiln.Tensor(5.0)])
    np.testing.assert_allclose([o.asnumpy() for o in out], np.log([2.0, 5.0]), rtol=1e-6)


def test_a_forked_child_runs_a_window_its_parent_ran_op_by_op(monkeypatch, fork_start):
    # The parent's single-use marks are full, so its window ran op by op and was remembered; in a forked child the
    # same window comes again, which in the parent would get it compiled. The child must run the parent's kernels
    # instead: compiling in a forked child can hang.
    window = dispatch.WINDOW
    window.flush()
    monkeypatch.setattr(window, "programs", {})
    monkeypatch.setattr(window, "single_use", {("a one-off window", k) for k in range(lazy.MAX_SINGLE_USE)})
    monkeypatch.setattr(window, "refused", {})
    assert float(ops.log(kiln.Tensor(np.float32(2.0))).asnumpy()) > 0
    assert len(window.refused) == 1 and not window.programs
    q_in, q_out = mp.Queue(), mp.Queue()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = mp.Process(target=_child, args=(q_in, q_out))
        p.start()
        q_in.put(kiln.Tensor(np.float32(3.0)))
        np.testing.assert_allclose(q_out.get(timeout=60), np.log(3.0), rtol=1e-6)
        p.join(60)
    assert p.exitcode == 0
