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


def _x(*shape):
    return Tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape) / 7)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: kiln.ops.max(_x(2, 3), 1, initial=0.0), "ops.max: initial=0.0"),
        (lambda: kiln.ops.min(_x(2, 3), 1, where=Tensor(np.ones((2, 3), bool))), "ops.min: where="),
        (lambda: kiln.ops.lrn(_x(1, 4, 2, 2), norm_region="WITHIN_CHANNEL"), "norm_region"),
        (lambda: kiln.ops.AvgPool3D(data_format="NDHWC"), "AvgPool3D: data_format"),
        (lambda: kiln.ops.Conv2DTranspose(2, 3, mode=2), "Conv2DTranspose: mode=2"),
        (lambda: kiln.mint.nn.ConvTranspose2d(2, 2, 3)(_x(1, 2, 4, 4), output_size=(6, 6)), "output_size"),
    ],
)
def test_arguments_that_would_change_the_result_are_refused(call, words):
    with pytest.raises(NotImplementedError, match=words):
        call()


@pytest.mark.parametrize(
    "call",
    [
        lambda g: kiln.mint.rand(2, 3, generator=g),
        lambda g: kiln.mint.randn(2, 3, generator=g),
        lambda g: kiln.mint.randperm(4, generator=g),
        lambda g: kiln.mint.bernoulli(Tensor(np.full((2, 2), 0.5, np.float32)), generator=g),
        lambda g: kiln.ops.uniform_(_x(2, 2), generator=g),
    ],
)
def test_a_generator_other_than_the_global_stream_warns(call):
    with pytest.warns(UserWarning, match="global generator"):
        out = call(kiln.Generator())
    assert out.shape[0] in (2, 4)


def test_candidate_samplers_check_num_true():
    true = Tensor(np.array([[1, 2], [3, 4]], np.int64))
    with pytest.raises(ValueError, match="num_true"):
        kiln.ops.uniform_candidate_sampler(true, 1, 2, True, 5)
    with pytest.raises(ValueError, match="num_true"):
        kiln.ops.log_uniform_candidate_sampler(true, 3, 2, True, 5)


def test_csr_gather_checks_sparse_shape():
    indptr, indices = Tensor(np.array([0, 1, 2], np.int32)), Tensor(np.array([0, 1], np.int32))
    dense = _x(2, 3)
    np.testing.assert_allclose(kiln.ops.csr_gather(indptr, indices, dense, (2, 3)).asnumpy(), [0.0, 4 / 7], rtol=1e-6)
    with pytest.raises(ValueError, match="sparse_shape"):
        kiln.ops.csr_gather(indptr, indices, dense, (3, 3))


def test_instance_norm_with_running_statistics_against_numpy():
    x = np.random.default_rng(0).standard_normal((2, 3, 4, 4)).astype(np.float32)
    mean, var = np.array([0.1, -0.2, 0.3], np.float32), np.array([1.5, 0.5, 2.0], np.float32)
    out = kiln.mint.nn.functional.instance_norm(
        Tensor(x), Tensor(mean), Tensor(var), use_input_stats=False, eps=1e-5
    ).asnumpy()
    want = (x - mean[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match="in place"):
        kiln.mint.nn.functional.instance_norm(Tensor(x), Tensor(mean), Tensor(var))


def test_set_memory_warns_that_xla_sizes_its_allocator_at_start_up():
    kiln.set_memory()  # the defaults: silent
    with pytest.warns(UserWarning, match="set_memory: max_size='8GB'"):
        kiln.set_memory(max_size="8GB")
