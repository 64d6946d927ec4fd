"""The parallel-setting read-outs zoo scripts import: parallel._utils, _cost_model_context, auto_parallel_context
and set_algo_parameters, in one process (one device)."""

import warnings

import pytest

from kiln import parallel
from kiln._core import unsupported
from kiln._parallel.context import auto_parallel_context
from kiln.parallel import _cost_model_context, _utils


@pytest.fixture(autouse=True)
def _fresh_context():
    parallel.reset_auto_parallel_context()
    parallel.reset_algo_parameters()
    yield
    parallel.reset_auto_parallel_context()
    parallel.reset_algo_parameters()


def test_utils_read_the_context_alone():
    assert _utils._get_device_num() == 1
    assert _utils._get_global_rank() == 0
    assert _utils._get_gradients_mean() is False
    assert _utils._get_parallel_mode() == "stand_alone"
    assert _utils._get_enable_parallel_optimizer() is False
    assert _utils._get_pipeline_stages() == 1
    assert _utils._get_full_batch() is False


def test_utils_follow_what_was_set():
    parallel.set_auto_parallel_context(parallel_mode="data_parallel", gradients_mean=True, device_num=8)
    assert _utils._get_parallel_mode() == parallel.ParallelMode.DATA_PARALLEL
    assert _utils._get_gradients_mean() is True
    assert _utils._get_device_num() == 8


def test_auto_parallel_context_object():
    ctx = auto_parallel_context()
    assert ctx is auto_parallel_context()
    assert ctx.get_device_num_is_set() is False
    assert ctx.get_parallel_mode() == "stand_alone" and ctx.get_pipeline_stages() == 1
    parallel.set_auto_parallel_context(device_num=4)
    assert ctx.get_device_num_is_set() is True
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # Kiln warns once per process that the option has no effect
        ctx.set_all_reduce_fusion_split_indices([85, 160])
    assert parallel.get_auto_parallel_context("all_reduce_fusion_config") == [85, 160]
    with pytest.raises(TypeError):
        ctx.set_all_reduce_fusion_split_indices("85")


def test_algo_parameters_are_kept_and_checked():
    assert parallel.get_algo_parameters("elementwise_op_strategy_follow") is False
    assert parallel.get_algo_parameters("fully_use_devices") is False  # MindSpore 2.10's default
    unsupported._warned.discard(("set_algo_parameters", "elementwise_op_strategy_follow"))  # warned once a process
    with pytest.warns(UserWarning, match="elementwise_op_strategy_follow=True has no effect"):
        parallel.set_algo_parameters(elementwise_op_strategy_follow=True)
    assert parallel.get_algo_parameters("elementwise_op_strategy_follow") is True
    parallel.set_algo_parameters(fully_use_devices=False)  # the default: no warning needed
    with pytest.raises(ValueError, match="unknown option"):
        parallel.set_algo_parameters(no_such_option=True)
    with pytest.raises(TypeError):
        parallel.set_algo_parameters(fully_use_devices=1)
    with pytest.raises(ValueError):
        parallel.set_algo_parameters(algo_approxi_epsilon=0.0)
    parallel.reset_algo_parameters()
    assert parallel.get_algo_parameters("elementwise_op_strategy_follow") is False


def test_multi_subgraphs_flag():
    assert _cost_model_context._get_multi_subgraphs() is False
    _cost_model_context._set_multi_subgraphs()
    assert _cost_model_context._get_multi_subgraphs() is True
    _cost_model_context._set_multi_subgraphs(False)
    assert _cost_model_context._get_multi_subgraphs() is False
    with pytest.raises(TypeError):
        _cost_model_context._set_multi_subgraphs("yes")
