"""SEMI_AUTO_PARALLEL across processes: `shard` strategies over one mesh of every process's devices.

Jobs of 2 worker processes with 2 virtual CPU devices each (4 devices) run model_parallel_script.py through
`kiln msrun`: the Megatron-style MLP and the sharded attention block end their 3 training steps with the
values of the one-device run (PyNative and Graph mode, each rank feeding its half of the batch, and with
`full_batch=True`), each device holding only its slice of a split parameter; Adam with optimizer parallelism
(its moments split over 4 or 2 devices) ends with the one-device values while each device holds a quarter or a
half of the moments' bytes. A strategy that does not divide a
shape, a `device_num` that does not count the job's devices and a killed worker each end the job with one
clear error, within the time limit.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

from kiln.cli.msrun import free_port

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "model_parallel_script.py")
_LAUNCHER_ENV = ("RANK_ID", "RANK_SIZE", "MS_WORKER_NUM", "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_TOPO_TIMEOUT",
                 "MS_ROLE", "MS_NODE_ID", "DEVICE_ID", "KILN_LOCAL_RANK", "KILN_LOCAL_WORKER_NUM")  # fmt: skip
D_IN, D_HID = 8, 16  # the script's layer sizes
JOB_SECONDS = 90  # a job that has not ended by then hangs


def _env(devices: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _LAUNCHER_ENV}
    env.update(JAX_PLATFORMS="cpu", XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}", PYTHONPATH=ROOT)
    return env


def _start(tmp, name: str, *script_args: str) -> tuple:
    """A 2-worker `kiln msrun` job (2 devices per worker) of the script, or the one-device run (`--single`)."""
    out = str(tmp / name)
    if "--single" in script_args:
        args, env = [sys.executable, "-m", "kiln", "run", SCRIPT, *script_args, "--out", out], _env(1)
    else:
        args = [sys.executable, "-m", "kiln", "msrun", "--worker_num=2", "--local_worker_num=2",
                "--master_addr=127.0.0.1", f"--master_port={free_port()}", f"--log_dir={tmp / (name + '_logs')}",
                "--join=True", "--cluster_time_out=60", SCRIPT, *script_args, "--out", out]  # fmt: skip
        env = _env(2)
    proc = subprocess.Popen(args, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    return proc, time.monotonic(), out


def _finish(job) -> tuple[int, str, float]:
    proc, start, _ = job
    try:
        text, _ = proc.communicate(timeout=JOB_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        text, _ = proc.communicate()
        pytest.fail(f"the job did not end within {JOB_SECONDS} s:\n{text[-3000:]}")
    return proc.returncode, text, time.monotonic() - start


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """The one-device run and the 2-worker runs (PyNative, Graph mode, full batch), two at a time (CI's cores)."""
    tmp = tmp_path_factory.mktemp("model_parallel")
    results = {}
    for wave in ((("single", "--single"), ("pynative", "--mode", "pynative", "--optimizer_shard", "4")),
                 (("graph", "--mode", "graph", "--optimizer_shard", "2"), ("full_batch", "--full_batch"))):  # fmt: skip
        jobs = {name: _start(tmp, name, *args) for name, *args in wave}
        for name, job in jobs.items():
            code, text, _ = _finish(job)
            assert code == 0, text[-3000:]
            files = ["single.npz"] if name == "single" else ["rank0.npz", "rank1.npz"]
            results[name] = [dict(np.load(os.path.join(job[2], f))) for f in files]
    return results


@pytest.mark.parametrize("run", ["pynative", "graph", "full_batch"])
def test_sharded_training_equals_one_device(trained, run):
    (single,) = trained["single"]
    for rank_values in trained[run]:
        for key, expected in single.items():
            if key.endswith(("/local_shape", "/state_bytes_per_device")):
                continue
            np.testing.assert_allclose(rank_values[key], expected, rtol=2e-5, atol=2e-6, err_msg=f"{run} {key}")


def test_split_parameters_keep_only_their_slice_on_each_device(trained):
    (single,) = trained["single"]
    assert tuple(single["mlp/w1/local_shape"]) == (8, 16)  # one device holds it whole
    for rank_values in trained["graph"] + trained["pynative"]:
        assert tuple(rank_values["mlp/w1/local_shape"]) == (8, 8)  # columns split in 2
        assert tuple(rank_values["mlp/w2/local_shape"]) == (8, 8)  # rows split in 2
        assert tuple(rank_values["attention/wq/local_shape"]) == (8, 4)
        assert tuple(rank_values["attention/wo/local_shape"]) == (4, 8)


@pytest.mark.parametrize(
    "args, message",
    [
        (("--bad_strategy",), r"For 'MatMul', the strategy \(1, 3\) of input 1 does not divide its shape \(8, 16\)"),
        (("--device_num", "2"), r"device_num=2\) does not match the job: 2 processes with 4 devices in all"),
        (("--kill",), r"worker 1 was killed by SIGKILL; stopped the other workers"),
    ],
)
def test_a_broken_job_ends_with_one_clear_error(tmp_path, args, message):
    code, text, seconds = _finish(_start(tmp_path, "broken", *args))
    assert code != 0 and seconds < JOB_SECONDS
    assert re.search(message, text), text[-3000:]


def test_optimizer_parallelism_divides_the_state_among_the_devices(trained):
    per_device = {run: int(trained[run][0]["adam/state_bytes_per_device"]) for run in trained}
    print("Adam moments, bytes per device:", per_device)  # the figure of the issue: falling as devices grow
    whole = per_device["single"]
    assert whole == 2 * 4 * (2 * D_IN * D_HID + D_IN + D_HID)  # two moments of two Dense layers, float32
    assert per_device["full_batch"] == whole  # no optimizer parallelism: every device holds all of it
    assert per_device["graph"] == whole // 2  # optimizer_weight_shard_size=2
    assert per_device["pynative"] == whole // 4  # split over all 4 devices
