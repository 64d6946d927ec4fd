"""Pipeline parallelism: `pipeline_stages=2` with `nn.PipelineCell` runs a 2-stage MLP's stages on disjoint device
groups (1F1B or GPipe, one program) and ends 3 training steps with the values of the one-device run.

pipeline_script.py runs in one process over 2 virtual CPU devices, and as a `kiln msrun` job of 2 workers x 2
virtual devices (a stage per worker: activations and cotangents cross between the processes); each is compared
with the one-device run of the same script, in PyNative and in Graph mode, for both schedules. The 1F1B tables
are checked here, and what Kiln does not build is refused with one clear error each: a network it cannot cut into
stages, a stage drawing random numbers, 1F1B without a scalar loss, other schedulers, and pipeline_stages outside
the semi-auto modes.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import kiln as ms
from kiln import nn
from kiln._backend import pipeline as BP
from kiln.cli.msrun import free_port
from kiln.parallel import nn as parallel_nn
from tests.parallel.test_model_parallel import JOB_SECONDS, ROOT, _env

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "pipeline_script.py")


def _start(tmp, name: str, devices: int, workers: int, *script_args: str) -> tuple:
    """The script in one process (`kiln run`) or as a `kiln msrun` job of `workers` workers, `devices` CPU devices
    per process."""
    out = str(tmp / name)
    if workers == 1:
        args = [sys.executable, "-m", "kiln", "run", SCRIPT, *script_args, "--out", out]
    else:
        args = [sys.executable, "-m", "kiln", "msrun", f"--worker_num={workers}", f"--local_worker_num={workers}",
                "--master_addr=127.0.0.1", f"--master_port={free_port()}", f"--log_dir={tmp / (name + '_logs')}",
                "--join=True", "--cluster_time_out=60", SCRIPT, *script_args, "--out", out]  # fmt: skip
    proc = subprocess.Popen(args, cwd=ROOT, env=_env(devices), text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)  # fmt: skip
    return proc, out


def _results(job, files: list[str]) -> list[dict]:
    proc, out = job
    try:
        text, _ = proc.communicate(timeout=JOB_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        text, _ = proc.communicate()
        pytest.fail(f"the job did not end within {JOB_SECONDS} s:\n{text[-3000:]}")
    assert proc.returncode == 0, text[-3000:]
    return [dict(np.load(os.path.join(out, f))) for f in files]


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """The one-device run (no pipeline parallelism: PipelineCell's micro-batch loop)."""
    (values,) = _results(_start(tmp_path_factory.mktemp("pipeline"), "single", 1, 1, "--single"), ["single.npz"])
    return values


def _assert_equal_to(single: dict, runs: list[dict], devices: int) -> None:
    assert {k.split("/")[0] for k in single} == {"pynative_1f1b", "pynative_gpipe", "graph_1f1b", "graph_gpipe"}
    for values in runs:
        assert sorted(values) == sorted(single)
        for key, expected in single.items():
            if key.endswith("/devices"):
                assert int(expected) == 1 and int(values[key]) == devices, key
                continue
            np.testing.assert_allclose(values[key], expected, rtol=2e-5, atol=2e-6, err_msg=key)


def test_two_stages_over_two_devices_of_one_process_equal_one_device(single, tmp_path):
    (values,) = _results(_start(tmp_path, "one_process", 2, 1), ["rank0.npz"])
    _assert_equal_to(single, [values], devices=2)


def test_two_stages_over_two_processes_equal_one_device(single, tmp_path):
    runs = _results(_start(tmp_path, "two_processes", 2, 2), ["rank0.npz", "rank1.npz"])
    _assert_equal_to(single, runs, devices=4)


@pytest.fixture
def two_stages():
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, pipeline_stages=2)
    try:
        yield
    finally:
        ms.reset_auto_parallel_context()


def _batch():
    return ms.Tensor(np.ones((4, 8), np.float32)), ms.Tensor(np.ones((4, 8), np.float32))


def test_a_network_that_is_not_a_sequence_of_stages_is_refused(two_stages):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.first, self.second = nn.Dense(8, 8), nn.Dense(8, 8)
            self.second.pipeline_stage = 1

        def construct(self, x):
            return self.second(self.first(x))

    cell = nn.PipelineCell(nn.WithLossCell(Net(), nn.MSELoss()), 2)
    with pytest.raises(NotImplementedError, match="cuts the network into stages along an nn.SequentialCell"):
        cell(*_batch())


def test_stages_must_each_have_cells_in_order(two_stages):
    first, second = nn.Dense(8, 8), nn.Dense(8, 8)
    first.pipeline_stage = 1
    second.pipeline_stage = 0
    with pytest.raises(ValueError, match=r"cell 1 \(Dense\) has pipeline_stage=0: stages must not decrease"):
        nn.PipelineCell(nn.WithLossCell(nn.SequentialCell(first, second), nn.MSELoss()), 2)(*_batch())
    with pytest.raises(ValueError, match="no cell has pipeline_stage 1"):
        nn.PipelineCell(nn.WithLossCell(nn.SequentialCell(nn.Dense(8, 8)), nn.MSELoss()), 2)(*_batch())


def test_pipeline_stages_outside_the_semi_auto_modes_is_refused():
    ms.set_auto_parallel_context(pipeline_stages=2)
    try:
        cell = nn.PipelineCell(nn.WithLossCell(nn.SequentialCell(nn.Dense(8, 8)), nn.MSELoss()), 2)
        with pytest.raises(ValueError, match="pipeline_stages=2\\) needs parallel_mode 'semi_auto_parallel'"):
            cell(*_batch())
    finally:
        ms.reset_auto_parallel_context()


def test_a_training_step_without_a_pipeline_cell_is_refused(two_stages):
    net = nn.SequentialCell(nn.Dense(8, 8), nn.Dense(8, 8))
    with pytest.raises(ValueError, match=r"pipeline_stages=2\): the training step's network has no nn.PipelineCell"):
        nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))


def test_mindspore_2_10_parallel_nn_names():
    """`mindspore.parallel.nn`'s `Pipeline` / `GradAccumulation` are PipelineCell / GradAccumulationCell under their
    newer names; without pipeline stages they are the micro-batch loop (the outputs summed)."""
    assert issubclass(parallel_nn.Pipeline, nn.PipelineCell)
    assert issubclass(parallel_nn.GradAccumulation, nn.GradAccumulationCell)
    assert parallel_nn.PipelineGradReducer is nn.PipelineGradReducer
    net = nn.WithLossCell(nn.SequentialCell(nn.Dense(8, 8)), nn.MSELoss())
    x, y = ms.Tensor(np.arange(32, dtype=np.float32).reshape(4, 8)), ms.Tensor(np.ones((4, 8), np.float32))
    expected = net(x[:2], y[:2]).asnumpy() + net(x[2:], y[2:]).asnumpy()
    for cls in (parallel_nn.Pipeline, parallel_nn.GradAccumulation):
        np.testing.assert_allclose(cls(net, 2)(x, y).asnumpy(), expected, rtol=1e-6)


def test_a_stage_drawing_random_numbers_is_refused(two_stages):
    first, second = nn.Dense(8, 8), nn.Dense(8, 8)
    second.pipeline_stage = 1
    net = nn.SequentialCell(first, nn.Dropout(p=0.5), second)
    net.set_train()
    with pytest.raises(NotImplementedError, match="a stage draws random numbers"):
        nn.PipelineCell(nn.WithLossCell(net, nn.MSELoss()), 2)(*_batch())


def test_one_f_one_b_needs_a_scalar_loss_and_other_schedulers_are_refused(two_stages):
    first, second = nn.Dense(8, 8), nn.Dense(8, 8)
    second.pipeline_stage = 1
    ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": "1f1b"})
    with pytest.raises(
        ValueError, match=r"1F1B schedule needs the last stage to return a scalar \(a loss\), not \(2, 8\)"
    ):
        nn.PipelineCell(nn.SequentialCell(first, second), 2)(_batch()[0])
    with pytest.raises(NotImplementedError, match="'seqpipe' pipeline scheduler is not built in Kiln"):
        ms.set_auto_parallel_context(pipeline_config={"pipeline_scheduler": "seqpipe"})
    with pytest.raises(NotImplementedError, match="interleaved \\(virtual\\) pipeline stages are not built"):
        ms.set_auto_parallel_context(pipeline_config={"pipeline_interleave": True, "pipeline_scheduler": "1f1b"})


@pytest.mark.parametrize("stages, micro_size", [(2, 4), (4, 8), (4, 2), (3, 5)])
def test_the_one_f_one_b_schedule(stages, micro_size):
    """Every stage runs each micro-batch forward once and backward once, each after its input arrived (a tick after
    the neighbour produced it), alternating after its warm-up, with at most `stages - s` micro-batches in flight."""
    table = BP.one_f_one_b_schedule(stages, micro_size)
    op, micro = table["op"], table["micro"]
    done = {}
    for t in range(len(op)):
        for s in range(stages):
            if op[t, s] != BP.IDLE:
                done[(int(op[t, s]), s, int(micro[t, s]))] = t
    for s in range(stages):
        for m in range(micro_size):
            f, b = done[(BP.FORWARD, s, m)], done[(BP.BACKWARD, s, m)]
            assert s == 0 or done[(BP.FORWARD, s - 1, m)] < f
            assert (done[(BP.BACKWARD, s + 1, m)] if s < stages - 1 else f) < b
        order = [int(o) for o in op[:, s] if o != BP.IDLE]
        warm = min(stages - s - 1, micro_size)
        assert order[:warm] == [BP.FORWARD] * warm
        steady = [BP.FORWARD, BP.BACKWARD] if micro_size > warm else [BP.BACKWARD] * min(2, micro_size)
        assert order[warm : warm + 2] == steady
        in_flight = max(sum(done[(BP.FORWARD, s, m)] <= t < done[(BP.BACKWARD, s, m)] for m in range(micro_size))
                        for t in range(len(op)))  # fmt: skip
        assert in_flight <= stages - s
    assert table["act_slots"] <= stages and table["cot_slots"] <= stages
