"""Arguments Kiln takes for MindSpore's signatures and does not act on say so (issue 20): a warning once, or a
NotImplementedError where the result would differ; their defaults pass silently."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kiln
from kiln import nn
from kiln._core import unsupported
from kiln.common import Parameter, Tensor


@pytest.fixture(autouse=True)
def _fresh_warnings(monkeypatch):
    monkeypatch.setattr(unsupported, "_warned", set())


def test_ignore_argument_warns_once_and_not_for_the_default():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        unsupported.ignore_argument("f", "x", None, reason="why")
        unsupported.ignore_argument("f", "x", 3, reason="why")
        unsupported.ignore_argument("f", "x", 4, reason="why")
    assert [str(w.message) for w in caught] == ["f: x=3 has no effect in Kiln (why)."]


def test_refuse_argument_raises_unless_default():
    unsupported.refuse_argument("f", "mode", "same", "same", reason="only 'same'")
    with pytest.raises(NotImplementedError, match=r"f: mode='other' is not supported by Kiln \(only 'same'\)"):
        unsupported.refuse_argument("f", "mode", "other", "same", reason="only 'same'")


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: kiln.Stream(priority=0, device="cuda:1"), "Stream: options=device"),
        (lambda: kiln.save_checkpoint([], "/nonexistent/dir/x.ckpt", incremental=True), "save_checkpoint: options"),
        (lambda: kiln.train.CheckpointConfig(incremental=True), "CheckpointConfig: options=incremental"),
        (lambda: kiln.set_cpu_affinity(True, None, module_to_cpu_dict={"main": [0]}), "module_to_cpu_dict"),
    ],
)
def test_unimplemented_options_warn(call, words):
    with pytest.warns(UserWarning, match=words):
        try:
            call()
        except (OSError, ValueError, TypeError):
            pass  # the call may fail later for its other arguments; the warning came first


def test_profiler_options_warn_and_offline_analyse_checks_its_folder(tmp_path):
    with pytest.warns(UserWarning, match="Profiler: options=profile_memory"):
        profiler = kiln.Profiler(output_path=str(tmp_path), start_profile=False, profile_memory=True)
    profiler.analyse()
    kiln.Profiler.offline_analyse(str(tmp_path))
    with pytest.raises(FileNotFoundError, match="no profiler output folder"):
        kiln.Profiler.offline_analyse(str(tmp_path / "missing"))


def test_cell_shard_options_warn():
    with pytest.warns(UserWarning, match="Cell.shard: options=device"):
        nn.Dense(2, 2).shard(((1, 1),), device="GPU")


def test_parameter_clone_initialises_as_asked():
    p = Parameter(Tensor(np.arange(6, dtype=np.float32).reshape(2, 3)), name="w")
    same = p.clone()
    np.testing.assert_array_equal(same.asnumpy(), p.asnumpy())
    zeros, ones = p.clone(init="zeros"), p.clone(init="ones")
    np.testing.assert_array_equal(zeros.asnumpy(), np.zeros((2, 3), np.float32))
    np.testing.assert_array_equal(ones.asnumpy(), np.ones((2, 3), np.float32))
    assert zeros.name == "w" and zeros.dtype == p.dtype
    np.testing.assert_array_equal(p.asnumpy(), np.arange(6, dtype=np.float32).reshape(2, 3))  # untouched
