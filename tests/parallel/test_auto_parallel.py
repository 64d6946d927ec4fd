"""`mindspore.parallel.auto_parallel.AutoParallel`: MindSpore 2.10's documented model-parallel script across processes.

auto_parallel_script.py, written from MindSpore's AutoParallel documentation (no `set_auto_parallel_context`), runs
under `kiln msrun` as 2 worker processes with 2 virtual CPU devices each: the tutorial's `jit` training-step
function wrapped in AutoParallel and `Model(AutoParallel(net), ...).train` with LossMonitor each print, on every
rank, the losses of the one-device run and end with its parameters, each device holding its slice of a split
parameter; so do they with `dataset_strategy("full_batch")` and optimizer parallelism (`hsdp`). In one process:
the options AutoParallel maps onto the auto-parallel context, and the refusal, naming it, of each one Kiln does not
build.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, nn
from kiln.cli import alias
from kiln.parallel.auto_parallel import AutoParallel
from tests.parallel.test_model_parallel import _finish, _start

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "auto_parallel_script.py")
RUNS = ("default", "full_batch_hsdp")


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The one-device run and the two 2-worker runs, two at a time (CI's cores)."""
    tmp = tmp_path_factory.mktemp("auto_parallel")
    results = {}
    for wave in ((("single", "--single"), ("default",)), (("full_batch_hsdp", "--full_batch", "--hsdp"),)):
        jobs = {name: _start(tmp, name, *args, script=SCRIPT) for name, *args in wave}
        for name, job in jobs.items():
            code, text, _ = _finish(job)
            assert code == 0, text[-3000:]
            files = ["single.npz"] if name == "single" else ["rank0.npz", "rank1.npz"]
            results[name] = [dict(np.load(os.path.join(job[2], f))) for f in files]
            results[f"{name}/text"] = text
    return results


@pytest.mark.parametrize("run", RUNS)
def test_every_rank_ends_with_the_one_device_values(trained, run):
    (single,) = trained["single"]
    for rank_values in trained[run]:
        for key, expected in single.items():
            if key.endswith(("/local_shape", "/state_bytes_per_device")):
                continue
            np.testing.assert_allclose(rank_values[key], expected, rtol=2e-5, atol=2e-6, err_msg=f"{run} {key}")


@pytest.mark.parametrize("run", RUNS)
def test_every_rank_prints_the_one_device_losses(trained, run):
    (single,) = trained["single"]
    text = trained[f"{run}/text"]
    for rank in (0, 1):
        printed = [float(v) for v in _printed(text, f"[worker {rank}] rank {rank} functional step ", " loss: ")]
        np.testing.assert_allclose(printed, single["functional/loss"], rtol=2e-5, err_msg=f"{run} rank {rank}")
        monitored = [float(v) for v in _printed(text, f"[worker {rank}] epoch: 1 step: ", ", loss is ")]
        np.testing.assert_allclose(monitored, single["model/loss"], rtol=2e-5, err_msg=f"{run} rank {rank}")


def _printed(text: str, prefix: str, separator: str) -> list[str]:
    return [line.split(separator)[1] for line in text.splitlines() if line.startswith(prefix)]


def test_split_parameters_keep_only_their_slice_on_each_device(trained):
    (single,) = trained["single"]
    assert tuple(single["functional/w1/local_shape"]) == (8, 16)  # one device holds it whole
    for rank_values in trained["default"]:
        for part in ("functional", "model"):
            assert tuple(rank_values[f"{part}/w1/local_shape"]) == (8, 8)  # columns split in 2
            assert tuple(rank_values[f"{part}/w2/local_shape"]) == (8, 8)  # rows split in 2


@pytest.fixture
def fresh_context():
    ms.reset_auto_parallel_context()
    yield
    ms.reset_auto_parallel_context()


def _step():
    net = nn.Dense(4, 2)
    optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)

    def forward(x, y):
        loss = ((net(x) - y) ** 2).mean()
        return loss, loss

    grad_fn = ms.value_and_grad(forward, None, net.trainable_params(), has_aux=True)

    @ms.jit
    def train_step(x, y):
        (loss, _), grads = grad_fn(x, y)
        optimizer(grads)
        return loss

    return net, train_step


def test_in_one_process_it_runs_the_function_and_puts_the_job_in_its_mode(fresh_context):
    net, train_step = _step()
    x, y = Tensor(np.ones((4, 4), np.float32)), Tensor(np.zeros((4, 2), np.float32))
    before = net.weight.asnumpy()
    parallel = AutoParallel(train_step)
    assert ms.get_auto_parallel_context("parallel_mode") == "semi_auto_parallel"
    first = float(parallel(x, y).asnumpy())
    assert float(parallel(x, y).asnumpy()) < first
    assert not np.array_equal(net.weight.asnumpy(), before)  # the optimizer it reaches trained the network
    AutoParallel(net, parallel_mode="sharding_propagation")
    assert ms.get_auto_parallel_context("parallel_mode") == "auto_parallel"


def test_the_options_it_builds_set_the_context(fresh_context):
    parallel = AutoParallel(nn.Dense(4, 2))
    parallel.dataset_strategy("full_batch")
    assert ms.get_auto_parallel_context("full_batch") is True
    parallel.dataset_strategy(((4, 1), (4, 1)))
    assert ms.get_auto_parallel_context("full_batch") is False
    assert ms.get_auto_parallel_context("dataset_strategy") == ((4, 1), (4, 1))
    parallel.hsdp(shard_size=2, threshold=0)
    assert ms.get_auto_parallel_context("enable_parallel_optimizer") is True
    assert ms.get_auto_parallel_context("optimizer_weight_shard_size") == 2
    assert ms.get_auto_parallel_context("parallel_optimizer_config") == {"parallel_optimizer_threshold": 0}
    parallel.pipeline(stages=2, scheduler="gpipe")
    assert parallel.get_pipeline_stages() == ms.get_auto_parallel_context("pipeline_stages") == 2
    assert ms.get_auto_parallel_context("pipeline_config")["pipeline_scheduler"] == "gpipe"
    ms.set_auto_parallel_context(parallel_mode="data_parallel", full_batch=True)
    parallel(Tensor(np.ones((2, 4), np.float32)))  # a call puts the job back in its settings
    assert ms.get_auto_parallel_context("parallel_mode") == "semi_auto_parallel"
    assert ms.get_auto_parallel_context("full_batch") is False


@pytest.mark.parametrize(
    "method, args",
    [
        ("save_param_strategy_file", ("/tmp/strategy.ckpt",)),
        ("load_param_strategy_file", ("/tmp/strategy.ckpt",)),
        ("disable_strategy_file_only_for_trainable_params", ()),
        ("save_operator_strategy_file", ("/tmp/strategy.json",)),
        ("load_operator_strategy_file", ("/tmp/strategy.json",)),
        ("no_init_parameters_in_compile", ()),
        ("comm_fusion", ({"allreduce": {"mode": "auto", "config": None}},)),
        ("enable_fp32_communication", ()),
        ("set_group_ckpt_save_file", ("/tmp/groups.ckpt",)),
        ("print_local_norm", ()),
        ("dump_local_norm", ("/tmp/norms",)),
        ("enable_device_local_norm", ()),
        ("enable_gradients_mean", ()),
        ("disable_gradient_fp32_sync", ()),
        ("disable_loss_repeated_mean", ()),
        ("transformer_opt", ("/tmp/config.json",)),
    ],
)
def test_what_kiln_does_not_build_is_refused_by_name(fresh_context, method, args):
    parallel = AutoParallel(nn.Dense(4, 2))
    with pytest.raises(NotImplementedError, match=f"AutoParallel.{method}: not built in Kiln"):
        getattr(parallel, method)(*args)


def test_options_it_does_not_build_are_refused(fresh_context):
    with pytest.raises(NotImplementedError, match="parallel_mode='recursive_programming'"):
        AutoParallel(nn.Dense(4, 2), parallel_mode="recursive_programming")
    with pytest.raises(ValueError, match="'parallel_mode' must be one of"):
        AutoParallel(nn.Dense(4, 2), parallel_mode="auto")
    parallel = AutoParallel(nn.Dense(4, 2))
    with pytest.raises(NotImplementedError, match="hsdp\\(optimizer_level='level2'\\)"):
        parallel.hsdp(optimizer_level="level2")
    with pytest.raises(NotImplementedError, match="output_broadcast=True"):
        parallel.pipeline(stages=2, output_broadcast=True)
    with pytest.raises(NotImplementedError, match="interleaved"):
        parallel.pipeline(stages=2, interleave=True)
    with pytest.raises(NotImplementedError, match="'seqpipe' pipeline scheduler"):
        parallel.pipeline(stages=2, scheduler="seqpipe")
    with pytest.raises(NotImplementedError, match="a dataset strategy of Layouts"):
        layout = ms.Layout((2, 2), ("dp", "mp"))
        parallel.dataset_strategy((layout("dp", "mp"),))
    with pytest.raises(ValueError, match="'data_parallel' or 'full_batch'"):
        parallel.dataset_strategy("model_parallel")
    with pytest.raises(TypeError, match="a tuple of ints"):
        parallel.dataset_strategy(([4, 1],))
    assert ms.get_auto_parallel_context("enable_parallel_optimizer") is False  # a refused call changes nothing
    assert ms.get_auto_parallel_context("pipeline_stages") == 1


def test_mindspore_module_paths_resolve():
    with alias.mindspore_alias():
        from mindspore.nn.utils import no_init_parameters
        from mindspore.parallel.auto_parallel import AutoParallel as aliased

    assert aliased is AutoParallel
    assert no_init_parameters is nn.no_init_parameters
