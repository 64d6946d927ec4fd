"""Distributed training: communication API, collectives, data-parallel training, sharded datasets, launchers.

Three kinds of test:

- in this process (one device): the API's rules and errors, the one-rank group, the auto-parallel context,
  the reducer TrainOneStepCell inserts, dataset sharding against MindSpore 2.10's assignment, launcher options;
- a subprocess with 4 virtual CPU devices: data parallelism inside one process equals the one-device run, and
  every collective's lowering with the devices as ranks equals NumPy;
- real jobs of 2 worker processes on 127.0.0.1 through `kiln msrun` / `kiln run --nproc 2`: a MindSpore-style
  data-parallel script ends with the same parameters on both ranks, equal to the one-process full-batch run and
  to MindSpore 2.10's numbers (dp_goldens_mindspore.json, made by make_goldens_mindspore.py); collectives and
  their gradients across processes; a killed worker fails the job within the timeout; init() gives up with a
  message when the cluster cannot form.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import kiln as ms
import kiln.dataset as ds
from kiln import nn, ops
from kiln._backend import distributed as D
from kiln._parallel import shard as S
from kiln.cli.main import main as kiln_main
from kiln.cli.msrun import free_port
from kiln.communication import comm_func
from kiln.communication import management as M

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
GOLDENS = os.path.join(HERE, "dp_goldens_mindspore.json")
_LAUNCHER_ENV = ("RANK_ID", "RANK_SIZE", "MS_WORKER_NUM", "MS_SCHED_HOST", "MS_SCHED_PORT", "MS_TOPO_TIMEOUT",
                 "MS_ROLE", "MS_NODE_ID", "DEVICE_ID", "KILN_LOCAL_RANK", "KILN_LOCAL_WORKER_NUM")  # fmt: skip


def _clean_env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _LAUNCHER_ENV and k != "XLA_FLAGS"}
    env["JAX_PLATFORMS"] = "cpu"  # CPU workers even on a GPU machine (one GPU cannot host two workers)
    env.update(extra)
    return env


class _Job:
    """A subprocess started now; `result()` waits for it. A thread notes when it ended (for time limits)."""

    def __init__(self, args: list, env: dict, timeout: float, merge_output: bool = False) -> None:
        self.start = time.monotonic()
        self.proc = subprocess.Popen(
            args, cwd=ROOT, env=env, text=True, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT if merge_output else subprocess.PIPE,
        )  # fmt: skip
        self.timeout, self.out, self.err, self.elapsed, self.ended = timeout, None, None, None, None
        self.waiter = threading.Thread(target=self._wait, daemon=True)
        self.waiter.start()

    def _wait(self) -> None:
        try:
            self.out, self.err = self.proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.out, self.err = self.proc.communicate()
        self.elapsed, self.ended = time.monotonic() - self.start, time.time()

    def result(self) -> subprocess.CompletedProcess:
        self.waiter.join()
        return subprocess.CompletedProcess(self.proc.args, self.proc.returncode, self.out or "", self.err or "")


_INIT = """
import time
import kiln
from kiln.communication import init
print(f"init at {time.time():.3f}", flush=True)
start = time.monotonic()
try:
    init()
except RuntimeError as e:
    print("RuntimeError:", e, round(time.monotonic() - start, 1))
"""


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    """The subprocess jobs of this module, started in two waves so that their waits overlap (CI time): the jobs
    with time limits (a killed worker, a cluster that cannot form) with the one-process job, then, once those
    ended, the two 2-worker training jobs."""
    tmp = tmp_path_factory.mktemp("jobs")
    kiln = [sys.executable, "-m", "kiln"]
    dp_script = os.path.join(HERE, "dp_script.py")
    common = {"RANK_SIZE": "2", "MS_WORKER_NUM": "2", "MS_SCHED_HOST": "127.0.0.1", "MS_TOPO_TIMEOUT": "3"}
    started = {
        "tmp": tmp,
        "kill": _Job([*kiln, "msrun", "--worker_num=2", "--local_worker_num=2", f"--master_port={free_port()}",
                      f"--log_dir={tmp / 'kill'}", "--join=True", "--cluster_time_out=30",
                      os.path.join(HERE, "kill_script.py")], _clean_env(), 90),
        "lonely_worker": _Job([sys.executable, "-c", _INIT],
                              _clean_env(**common, RANK_ID="1", MS_SCHED_PORT=str(free_port())), 60),
        "lonely_coordinator": _Job([sys.executable, "-c", _INIT],
                                   _clean_env(**common, RANK_ID="0", MS_SCHED_PORT=str(free_port())), 60),
        "virtual": _Job([sys.executable, os.path.join(HERE, "virtual_devices_script.py")],
                        _clean_env(XLA_FLAGS="--xla_force_host_platform_device_count=4"), 180),
    }  # fmt: skip
    for name in ("kill", "lonely_worker", "lonely_coordinator"):
        started[name].waiter.join()
    started |= {
        "nproc": _Job([*kiln, "run", "--nproc", "2", os.path.join(HERE, "collectives_script.py"), str(tmp / "ckpt")],
                      _clean_env(), 180),
        "dp_single": _Job([*kiln, "run", dp_script, "--single", "--out", str(tmp / "single")], _clean_env(), 180,
                          merge_output=True),
        "dp": _Job([*kiln, "msrun", "--worker_num=2", "--local_worker_num=2", "--master_addr=127.0.0.1",
                    f"--master_port={free_port()}", f"--log_dir={tmp / 'logs'}", "--join=True", "--cluster_time_out=90",
                    dp_script, "--out", str(tmp / "dist")], _clean_env(), 240),
    }  # fmt: skip
    (tmp / "ckpt").mkdir()
    yield started
    for job in started.values():
        if isinstance(job, _Job) and job.proc.poll() is None:
            job.proc.kill()


@pytest.fixture
def comm_state(monkeypatch):
    """Run with no launcher variables, and give back the communication state and parallel context afterwards."""
    for k in _LAUNCHER_ENV:
        monkeypatch.delenv(k, raising=False)
    saved = {k: getattr(M.GlobalComm, k) for k in ("BACKEND", "WORLD_COMM_GROUP", "INITED")}
    world, groups = dict(M._world), dict(M._groups)
    M.GlobalComm.INITED = False
    yield
    for k, v in saved.items():
        setattr(M.GlobalComm, k, v)
    M._world.clear()
    M._world.update(world)
    M._groups.clear()
    M._groups.update(groups)
    ms.reset_auto_parallel_context()


# ---------------------------------------------------------------- in this process
def test_rank_before_init_is_an_error(comm_state):
    for fn in (M.get_rank, M.get_group_size, M.get_local_rank):
        with pytest.raises(RuntimeError, match=r"call communication\.init\(\) first"):
            fn()
    with pytest.raises(RuntimeError, match=r"init\(\) first"):
        comm_func.all_reduce(ms.Tensor(np.ones(2, np.float32)))


@pytest.mark.parametrize(
    "env, message",
    [
        ({"RANK_SIZE": "2", "MS_WORKER_NUM": "3", "RANK_ID": "0"}, "inconsistent: RANK_SIZE=2 but MS_WORKER_NUM=3"),
        ({"RANK_SIZE": "2", "RANK_ID": "2", "MS_SCHED_HOST": "127.0.0.1", "MS_SCHED_PORT": "9"}, "out of range"),
        ({"RANK_SIZE": "2"}, "RANK_ID is not set"),
        ({"RANK_SIZE": "2", "RANK_ID": "1"}, "MS_SCHED_HOST/MS_SCHED_PORT"),
        ({"RANK_SIZE": "two"}, "RANK_SIZE must be an integer"),
        ({"RANK_SIZE": "1", "MS_TOPO_TIMEOUT": "soon"}, "MS_TOPO_TIMEOUT"),
    ],
)
def test_init_rejects_a_bad_launcher_environment(comm_state, monkeypatch, env, message):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    with pytest.raises(ValueError, match=message):
        M.init()
    assert not M.GlobalComm.INITED


def test_one_process_group(comm_state):
    with pytest.raises(RuntimeError, match="'hccl' is not available"):  # Ascend's
        M.init("hccl")
    M.init()
    assert (M.get_rank(), M.get_group_size(), M.get_local_rank(), M.get_local_rank_size()) == (0, 1, 0, 1)
    world = "nccl_world_group" if ms.get_context("device_target") == "GPU" else "mccl_world_group"
    assert M.GlobalComm.INITED and M.GlobalComm.WORLD_COMM_GROUP == world
    assert M.get_group_size("hccl_world_group") == 1  # every world name means the world
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(3, 2))
    for out in (comm_func.all_reduce(x)[0], comm_func.all_gather_into_tensor(x)[0], ops.ReduceScatter()(x),
                comm_func.broadcast(x, 0), ops.AllReduce(ops.ReduceOp.MAX)(x), ops.Broadcast(0)((x,))[0]):  # fmt: skip
        np.testing.assert_array_equal(out.asnumpy(), x.asnumpy())
    comm_func.barrier()
    assert ms.get_auto_parallel_context("device_num") == 1

    M.create_group("solo", [0])
    assert M.get_rank("solo") == 0 and M.get_process_group_ranks("solo") == [0]
    assert M.get_world_rank_from_group_rank("solo", 0) == 0 and M.get_group_rank_from_world_rank(0, "solo") == 0
    with pytest.raises(ValueError, match="already exists"):
        M.create_group("solo", [0])
    with pytest.raises(ValueError, match="not a rank of the world"):
        M.create_group("far", [0, 5])
    with pytest.raises(ValueError, match="duplicates"):
        M.create_group("twice", [0, 0])
    with pytest.raises(ValueError, match="no group named 'nope'"):
        M.get_rank("nope")
    M.destroy_group("solo")

    with pytest.raises(TypeError, match="'op' must be one of"):
        comm_func.all_reduce(x, op="avg")
    with pytest.raises(TypeError, match="'async_op' must be a bool"):
        comm_func.all_reduce(x, async_op=1)
    with pytest.raises(TypeError, match="communicates Tensors; it got a"):
        comm_func.all_reduce(np.ones(2))
    with pytest.raises(ValueError, match="out of range"):
        comm_func.broadcast(x, src=1)
    with pytest.raises(ValueError, match="'split_count' \\(2\\) must equal the size"):
        ops.AlltoAll(2, 0, 0)(x)


def test_auto_parallel_context():
    try:
        assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
        assert ms.get_auto_parallel_context("gradients_mean") is False
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=4)
        assert ms.get_auto_parallel_context("parallel_mode") == "data_parallel"
        assert ms.get_auto_parallel_context("gradients_mean") is True
        assert ms.get_auto_parallel_context("device_num") == 4
        assert ms.context.set_auto_parallel_context is ms.set_auto_parallel_context
        assert ms.context.ParallelMode.HYBRID_PARALLEL == "hybrid_parallel"
        with pytest.raises(ValueError, match="'parallel_mode' must be one of"):
            ms.set_auto_parallel_context(parallel_mode="bogus")
        with pytest.raises(ValueError, match="unknown option 'foo'"):
            ms.set_auto_parallel_context(foo=1)
        with pytest.raises(ValueError, match="unknown option 'foo'"):
            ms.get_auto_parallel_context("foo")
        with pytest.raises(TypeError, match="'gradients_mean' must be a bool"):
            ms.set_auto_parallel_context(gradients_mean=1)
        with pytest.raises(ValueError, match="'device_num' must be in"):
            ms.set_auto_parallel_context(device_num=0)
        with pytest.warns(UserWarning, match="no effect"):
            ms.set_auto_parallel_context(enable_alltoall=True)
        with pytest.raises(ValueError, match="'pipeline_stages' must be at least 1"):
            ms.set_auto_parallel_context(pipeline_stages=0)
        with pytest.raises(ValueError, match="'optimizer_weight_shard_size' must be -1 or > 1"):
            ms.set_auto_parallel_context(optimizer_weight_shard_size=1)
        assert ms.get_auto_parallel_context("optimizer_weight_shard_size") == -1  # a refused value is not recorded
        ms.set_auto_parallel_context(pipeline_stages=2)  # acted on by nn.PipelineCell (tests/parallel/test_pipeline.py)
        assert ms.get_auto_parallel_context("pipeline_stages") == 2
        ms.reset_auto_parallel_context()
        assert ms.get_auto_parallel_context("parallel_mode") == "stand_alone"
        assert ms.get_auto_parallel_context("device_num") == 1
    finally:
        ms.reset_auto_parallel_context()


def test_layout_and_strategy_rules():
    layout = ms.Layout((2, 2, 2), ("dp", "sp", "mp"))
    # MindSpore's numbering of the tensor map: the last mesh axis is 0, -1 a whole dimension.
    assert layout("dp", ("sp", "mp"), "None").to_dict()["tensor_map"] == (2, (1, 0), -1)
    assert layout("dp", "mp").to_dict()["device_matrix"] == (2, 2, 2)
    with pytest.raises(ValueError, match="same length"):
        ms.Layout((2, 2), ("dp",))
    with pytest.raises(ValueError, match="'None' cannot be an axis name"):
        ms.Layout((2,), ("None",))
    with pytest.raises(ValueError, match="is used more than once"):
        layout("dp", "dp")
    with pytest.raises(ValueError, match="not one of"):
        layout("tp")
    with pytest.raises(ValueError, match="call the layout with a tensor map"):
        layout.to_dict()
    x, y = ms.Tensor(np.ones((8, 6), np.float32)), ms.Tensor(np.ones((6, 4), np.float32))
    mm = ops.MatMul().shard(((3, 1), (1, 1)))
    assert mm.in_strategy == ((3, 1), (1, 1))
    np.testing.assert_array_equal(mm(x, y).asnumpy(), np.full((8, 4), 6.0))  # ignored outside semi-auto
    try:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
        with pytest.raises(ValueError, match=r"strategy \(3, 1\) of input 0 does not divide its shape \(8, 6\)"):
            mm(x, y)
        with pytest.raises(ValueError, match="has 1 entries for a 2-D tensor"):
            ops.MatMul().shard(((1,), (1, 1)))(x, y)
        with pytest.raises(ValueError, match="strategy has 1 entries for 2 tensor inputs"):
            ops.MatMul().shard(((1, 1),))(x, y)
        if len(ms.Tensor(1)._data.devices()) == 1 and D.device_count() == 1:
            with pytest.raises(ValueError, match="needs more devices than the 1 available"):
                ops.MatMul().shard(((2, 1), (1, 1)))(x, y)
        # How tuple strategies land on the mesh of 4 devices (2 x 2: "d0", "d1"), as MindSpore's device matrix:
        # MatMul's rows and columns on different axes, the contraction dimension on one axis for both inputs.
        ms.set_auto_parallel_context(device_num=4)
        spec = lambda prim, strategies, shapes: [d[3] for d in S.joint_specs(  # noqa: E731
            list(zip(strategies, shapes, S._labels(prim, shapes))))]  # fmt: skip
        mm = ops.MatMul()
        assert spec(mm, ((2, 1), (1, 2)), ((8, 6), (6, 4))) == [("d0", None), (None, "d1")]
        assert spec(mm, ((2, 2), (2, 1)), ((8, 6), (6, 4))) == [("d0", "d1"), ("d1", None)]
        assert spec(ops.MatMul(transpose_b=True), ((1, 2), (2, 2)), ((8, 6), (4, 6))) == [(None, "d0"), ("d1", "d0")]
        assert spec(ops.Add(), ((2, 2), (2,)), ((8, 6), (6,))) == [("d0", "d1"), ("d1",)]  # broadcast: shared
        assert spec(mm, ((4, 1), (1, 1)), ((8, 6), (6, 4))) == [(("d0", "d1"), None), (None, None)]
        # Not together (each tensor then takes the first free axes): k split 2 and 4 ways; more axes than exist.
        assert S.joint_specs([((1, 2), (8, 6), ["i", "k"]), ((4, 1), (8, 4), ["k", "j"])]) is None
        assert S.joint_specs([((2, 1), (8, 6), ["i", "k"]), ((4, 1), (8, 4), ["k", "j"])]) is None
        ms.set_auto_parallel_context(device_num=1)
        f = ms.shard(lambda a, b: ops.matmul(a, b), in_strategy=((1, 1), (1, 1)))
        np.testing.assert_array_equal(ms.jit(f)(x, y).asnumpy(), np.full((8, 4), 6.0))
    finally:
        ms.reset_auto_parallel_context()


def test_checkpoint_saved_by_four_ranks_loads_into_one(tmp_path):
    """N=4 ranks each saved their slice of a (8, 6) table and the same bias; one process loads the whole."""
    table = np.random.default_rng(0).standard_normal((8, 6)).astype(np.float32)
    bias = np.arange(3, dtype=np.float32)
    grid = ms.Layout((2, 2), ("dp", "mp"))
    cases = {
        # rank r = (i, j) on the 2 x 2 device grid holds rows block i and columns block j
        "grid": (grid("dp", "mp"), lambda r: table[4 * (r // 2) : 4 * (r // 2) + 4, 3 * (r % 2) : 3 * (r % 2) + 3]),
        # transposed (MindSpore's slice index of rank r = (i, j) is (j, i) here, checked with MindSpore 2.10)
        "transposed": (
            grid("mp", "dp"),
            lambda r: table[4 * (r % 2) : 4 * (r % 2) + 4, 3 * (r // 2) : 3 * (r // 2) + 3],
        ),
        # split over "dp" only: ranks (i, 0) and (i, 1) hold the same rows
        "rows": (grid("dp", "None"), lambda r: table[4 * (r // 2) : 4 * (r // 2) + 4]),
        # split over both axes on one dimension: rank r holds rows 2r, 2r + 1
        "both": (grid(("dp", "mp"), "None"), lambda r: table[2 * r : 2 * r + 2]),
    }
    for case, (layout, piece) in cases.items():
        files = []
        for r in range(4):
            path = str(tmp_path / f"{case}_rank{r}.ckpt")
            ms.save_checkpoint({"table": ms.Tensor(piece(r)), "bias": ms.Tensor(bias)}, path)
            files.append(path)

        class Net(nn.Cell):
            def __init__(self):
                super().__init__()
                self.table = ms.Parameter(ms.Tensor(np.zeros((8, 6), np.float32)), name="table")
                self.bias = ms.Parameter(ms.Tensor(np.zeros(3, np.float32)), name="bias")

        net = Net()
        ms.load_distributed_checkpoint(net, files, train_strategy_filename={"table": layout})
        np.testing.assert_array_equal(net.table.asnumpy(), table, err_msg=case)
        np.testing.assert_array_equal(net.bias.asnumpy(), bias)
        slices = [ms.Parameter(ms.Tensor(piece(r)), name="table") for r in range(4)]
        merged = ms.merge_sliced_parameter(slices, {"table": layout.to_dict()})
        np.testing.assert_array_equal(merged.asnumpy(), table, err_msg=case)
    rows = [ms.Parameter(ms.Tensor(table[2 * r : 2 * r + 2]), name="t") for r in range(4)]
    np.testing.assert_array_equal(ms.merge_sliced_parameter(rows).asnumpy(), table)  # no strategy: along axis 0
    with pytest.raises(ValueError, match="4 devices .* but there are 2 slices"):
        ms.merge_sliced_parameter(rows[:2], {"t": grid("dp", "None")})


def _tiny_step(seed: int = 0):
    rng = np.random.default_rng(seed)
    net = nn.Dense(3, 2)
    for p in net.trainable_params():
        p.set_data(ms.Tensor(rng.standard_normal(p.shape).astype(np.float32)))
    return net, nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1))


def test_train_one_step_cell_inserts_the_reducer(comm_state):
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    with pytest.raises(RuntimeError, match=r"init\(\) first"):
        _tiny_step()
    M.init()
    net, step = _tiny_step()
    assert isinstance(step.grad_reducer, nn.DistributedGradReducer) and step.grad_reducer.mean
    x, y = ms.Tensor(np.ones((4, 3), np.float32)), ms.Tensor(np.zeros((4, 2), np.float32))
    step(x, y)
    ms.reset_auto_parallel_context()
    ref_net, ref_step = _tiny_step()
    assert type(ref_step.grad_reducer) is nn.Identity  # as MindSpore's outside data-parallel mode
    ref_step(x, y)
    for a, b in zip(net.trainable_params(), ref_net.trainable_params()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    ms.set_auto_parallel_context(parallel_mode="data_parallel", device_num=4)
    with pytest.raises(ValueError, match="device_num=4. does not match the job, which has 1 rank"):
        _tiny_step()


def test_dataset_shards_match_mindspore():
    """Expected values printed by MindSpore 2.10 for the same calls (unshuffled; see the module docstring)."""

    def rows(**kw):
        return [int(r["x"]) for r in ds.NumpySlicesDataset({"x": np.arange(10)}, **kw).create_dict_iterator(
            output_numpy=True)]  # fmt: skip

    assert [rows(shuffle=False, num_shards=3, shard_id=k) for k in range(3)] == [
        [0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # fmt: skip
    assert [rows(shuffle=False, num_shards=4, shard_id=k) for k in range(4)] == [
        [0, 4, 8], [1, 5, 9], [2, 6, 0], [3, 7, 1]]  # fmt: skip
    assert [rows(shuffle=False, num_shards=3, shard_id=k, num_samples=2) for k in range(3)] == [[0, 3], [1, 4], [2, 5]]
    assert [rows(sampler=ds.DistributedSampler(3, k, shuffle=False)) for k in range(3)] == [
        [0, 3, 6, 9], [1, 4, 7, 0], [2, 5, 8, 1]]  # fmt: skip
    assert rows(sampler=ds.DistributedSampler(2, 0, shuffle=False, num_samples=3)) == [0, 2, 4]

    class Source:
        def __getitem__(self, i):
            return (np.array(i),)

        def __len__(self):
            return 7

    gen = [ds.GeneratorDataset(Source(), ["x"], shuffle=False, num_shards=2, shard_id=k) for k in range(2)]
    got = [[int(r[0]) for r in g.create_tuple_iterator(output_numpy=True)] for g in gen]
    assert got == [[0, 2, 4, 6], [1, 3, 5, 0]]
    assert [g.get_dataset_size() for g in gen] == [4, 4]

    # Shuffled shards agree on the permutation without a seed (as in MindSpore): together they cover every row.
    for epoch_rows in zip(*[rows(shuffle=True, num_shards=2, shard_id=k) for k in range(2)]):
        assert len(epoch_rows) == 2
    assert sorted(rows(shuffle=True, num_shards=2, shard_id=0) + rows(shuffle=True, num_shards=2, shard_id=1)) == list(
        range(10)
    )
    with pytest.raises(ValueError, match="either sampler or num_shards, shard_id"):
        rows(sampler=ds.DistributedSampler(2, 0), num_shards=2, shard_id=0)
    with pytest.raises(ValueError, match="shard_id must be in"):
        ds.DistributedSampler(2, 2)


def test_launcher_refuses_bad_requests(capsys):
    script = os.path.join(HERE, "kill_script.py")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert kiln_main(["msrun", "--worker_num=2", "--local_worker_num=2", f"--master_port={port}", script]) == 2
        assert "already in use" in capsys.readouterr().err
    cases = [
        (["--worker_num=2", "--local_worker_num=3"], "exceeds --worker_num"),
        (["--worker_num=4", "--local_worker_num=2"], "give each machine its --node_rank"),
        (["--worker_num=4", "--local_worker_num=2", "--node_rank=2"], "beyond --worker_num 4"),
    ]
    for options, message in cases:
        assert kiln_main(["msrun", *options, script]) == 2
        assert message in capsys.readouterr().err
    assert kiln_main(["msrun", "--worker_num=1", "--local_worker_num=1", "no_such_script.py"]) == 2
    assert "no such script" in capsys.readouterr().err


# ---------------------------------------------------------------- 4 virtual devices in one process
def test_data_parallel_on_virtual_devices(jobs):
    proc = jobs["virtual"].result()
    assert proc.returncode == 0, proc.stderr[-3000:]
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert (report["rank"], report["group_size"], report["local_devices"]) == (0, 1, 4)
    assert report["devices_single"] == 1 and report["devices_dp"] == 4  # the data-parallel run used all 4
    assert report["param_diff"] < 1e-6 and report["loss_diff"] < 1e-6
    assert report["collective_errors"] == {k: 0.0 for k in report["collective_errors"]}
    assert len(report["collective_errors"]) == 9

    # The 4 devices as 4 ranks: collectives in one compiled program equal PyNative and NumPy; gradients too.
    graph = report["graph_errors"]
    assert graph["one_program"] == 0
    assert report["hlo_collectives"] == ["all-gather", "all-reduce", "all-to-all"]  # XLA's own collectives
    assert len([k for k in graph if k.startswith("graph_vs_")]) == 20
    assert all(v == 0.0 for k, v in graph.items() if k.startswith("graph_vs_")), graph
    assert graph["grad_graph_vs_pynative"] < 1e-5 and graph["grad_vs_hand"] < 1e-5, graph
    assert graph["graph_dp_vs_full_batch"] < 1e-6, graph  # GRAPH_MODE data parallel = one device, full batch

    # SEMI_AUTO_PARALLEL: sharded matmuls and a sharded training run equal the unsharded ones, on 4 devices.
    semi = report["semi_auto"]
    for name in ("tuple", "layout", "contracted", "ms.shard"):
        assert semi[f"{name}/pynative"] < 1e-5 and semi[f"{name}/graph"] < 1e-5, (name, semi)
        assert semi[f"{name}/devices"] == 4, (name, semi)
    assert semi["tuple/out_spec"] == ["d0", "d1"]  # rows on one mesh axis, columns on the other (propagated)
    assert semi["layout/out_spec"] == ["dp", "mp"]
    assert semi["grad"] < 1e-5 and semi["train"] < 1e-6, semi
    assert semi["train/devices"] == [4, 1]  # the parameter plan split dense.weight; unsharded it stays on one
    assert semi["ckpt_2_to_4/value"] == 0.0 and semi["ckpt_2_to_4/devices"] == 4  # loaded, still split


# ---------------------------------------------------------------- real 2-worker jobs
def _load(path: str) -> dict:
    with np.load(path) as f:
        return {k: f[k] for k in f.files}


def test_msrun_data_parallel_training(jobs):
    tmp_path = jobs["tmp"]
    logs = tmp_path / "logs"
    job, single = jobs["dp"].result(), jobs["dp_single"].result()
    assert job.returncode == 0, job.stderr[-3000:] + job.stdout[-3000:]
    assert single.returncode == 0, single.stdout[-3000:]
    assert sorted(os.listdir(logs)) == ["worker_0.log", "worker_1.log"]
    assert "done 1 2" in (logs / "worker_1.log").read_text()

    r0, r1 = _load(tmp_path / "dist" / "rank0.npz"), _load(tmp_path / "dist" / "rank1.npz")
    ref = _load(tmp_path / "single" / "rank0.npz")
    golden = json.load(open(GOLDENS))
    params = [k for k in ref if "/" in k]
    assert len(params) == 8
    for k in params:
        np.testing.assert_array_equal(r0[k], r1[k], err_msg=k)  # identical on both ranks
        np.testing.assert_allclose(r0[k], ref[k], atol=1e-6, err_msg=k)  # = one process on the full batch
        np.testing.assert_allclose(r0[k], golden["dist"][0][k], atol=2e-6, err_msg=k)  # = MindSpore 2.10
        np.testing.assert_allclose(ref[k], golden["single"][k], atol=2e-6, err_msg=k)
    # Each rank's loss is its own shard's, as in MindSpore; their mean is the full batch's.
    for r, got in enumerate((r0, r1)):
        np.testing.assert_allclose(got["loop_losses"], golden["dist"][r]["loop_losses"], atol=1e-6)
    np.testing.assert_allclose((r0["loop_losses"] + r1["loop_losses"]) / 2, ref["loop_losses"], atol=1e-6)
    # Collectives MindSpore's CPU build runs, and the reducer, give MindSpore's values; the rest NumPy's.
    for k in ("AllReduce", "AllGather", "broadcast", "Broadcast", "grad_reducer_mean", "env"):
        for r, got in enumerate((r0, r1)):
            np.testing.assert_array_equal(got[k], np.asarray(golden["dist"][r][k]), err_msg=k)
    base = [np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * r for r in range(2)]
    tall = [np.arange(12, dtype=np.float32).reshape(4, 3) + 100 * r for r in range(2)]
    for r, got in enumerate((r0, r1)):
        np.testing.assert_array_equal(got["all_reduce"], base[0] + base[1])
        np.testing.assert_array_equal(got["AllReduce_max"], np.maximum(*base))
        np.testing.assert_array_equal(got["all_gather"], np.concatenate(base))
        np.testing.assert_array_equal(got["reduce_scatter"], (tall[0] + tall[1])[2 * r : 2 * r + 2])
        np.testing.assert_array_equal(got["ReduceScatter"], (tall[0] + tall[1])[2 * r : 2 * r + 2])


def test_run_nproc_collectives_across_processes(jobs):
    job = jobs["nproc"].result()
    tmp_path = jobs["tmp"] / "ckpt"
    assert job.returncode == 0, job.stderr[-3000:] + job.stdout[-3000:]
    reports = {}
    for line in job.stdout.splitlines():
        if line.startswith("[worker ") and '"errors"' in line:
            report = json.loads(line.split("] ", 1)[1])
            reports[report["rank"]] = report
    assert sorted(reports) == [0, 1]
    for report in reports.values():
        assert report["size"] == 2
        bad = {k: v for k, v in report["errors"].items() if v != 0}
        assert not bad, bad
        assert len(report["errors"]) == 37
        assert sum(k.startswith("graph/") for k in report["errors"]) == 16

    # N=2 -> M=1: the checkpoints each rank saved, loaded into one process, equal rank 0's merged checkpoint
    # (the one-process full-batch run and the whole table).
    files = [str(tmp_path / f"rank_{r}.ckpt") for r in range(2)]
    net = nn.Dense(4, 2)
    with pytest.raises(ValueError, match="'table' differs between the 2 checkpoints"):
        ms.load_distributed_checkpoint(net, files)
    rows = ms.Layout((2,), ("dp",))("dp", "None")
    layouts = {"table": rows}
    loaded = ms.load_distributed_checkpoint(None, files, train_strategy_filename=layouts, return_param_dict=True)
    merged = ms.load_checkpoint(str(tmp_path / "merged.ckpt"))
    np.testing.assert_array_equal(loaded["table"].asnumpy(), np.arange(24, dtype=np.float32).reshape(8, 3))
    np.testing.assert_array_equal(merged["table"].asnumpy(), loaded["table"].asnumpy())
    strategy = tmp_path / "layouts.json"
    strategy.write_text(json.dumps({"table": rows.to_dict()}))
    ms.load_distributed_checkpoint(net, files, train_strategy_filename=str(strategy))
    for p in net.trainable_params():
        np.testing.assert_allclose(p.asnumpy(), merged[p.name].asnumpy(), atol=1e-6, err_msg=p.name)


def test_killed_worker_fails_the_job_within_the_timeout(jobs):
    job = jobs["kill"].result()
    tmp_path = jobs["tmp"] / "kill"
    assert job.returncode == 1, job.stderr[-3000:]
    assert "worker 1 was killed by SIGKILL; stopped the other workers" in job.stderr
    assert "first all-reduce done" in (tmp_path / "worker_0.log").read_text()
    died = float((tmp_path / "worker_1.log").read_text().split("first all-reduce done at ")[1].split()[0])
    assert jobs["kill"].ended - died < 15, jobs["kill"].ended - died  # well before --cluster_time_out=30


def test_init_gives_up_when_the_cluster_cannot_form(jobs):
    """Rank 1 with no rank 0 to reach raises; rank 0 whose peer never comes leaves with a message. No hang."""
    worker, coordinator = jobs["lonely_worker"].result(), jobs["lonely_coordinator"].result()
    for name, result in (("lonely_worker", worker), ("lonely_coordinator", coordinator)):
        began = float(result.stdout.split("init at ")[1].split()[0])
        assert jobs[name].ended - began < 20, (name, jobs[name].ended - began)  # MS_TOPO_TIMEOUT=3, no hang
    assert worker.returncode == 0, worker.stderr[-2000:]
    assert "could not reach the coordinator at 127.0.0.1:" in worker.stdout and "within 3 s" in worker.stdout
    assert coordinator.returncode == 1, coordinator.stderr[-2000:]
    assert "the cluster of 2 worker(s) did not form within 3 s (rank 0" in coordinator.stderr
