"""Run by test_communication.py in a process with 4 virtual CPU devices (XLA_FLAGS set before JAX loads).

Prints one JSON line: how far a data-parallel training run (each batch spread over the 4 devices) is from
the same run on one device, where the parameters ended up, and how far each collective, run with the 4
devices as 4 ranks, is from NumPy; with the devices as 4 ranks (`virtual_ranks`), how far collectives in
compiled graphs are from PyNative and NumPy (gradients too), and GRAPH_MODE data-parallel training from one
device on the full batch; in SEMI_AUTO_PARALLEL mode, how far sharded matmuls (tuple strategies, Layout,
ms.shard, Cell.shard with a parameter plan, in PyNative, graphs and training) are from unsharded ones.
"""

import json
import os
import tempfile

import numpy as np

import kiln as ms
from kiln import nn, ops
from kiln._backend import distributed as D
from kiln.communication import comm_func, create_group, get_group_size, get_local_rank_size, get_rank, init
from kiln.communication._virtual import from_ranks, to_ranks, virtual_ranks

init()
report = {"rank": get_rank(), "group_size": get_group_size(), "local_rank_size": get_local_rank_size()}
report["local_devices"] = D.local_device_count()


def train(data_parallel: bool):
    ms.reset_auto_parallel_context()
    if data_parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    rng = np.random.default_rng(3)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
    for p in net.trainable_params():
        p.set_data(ms.Tensor((0.5 * rng.standard_normal(p.shape)).astype(np.float32)))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    data = np.random.default_rng(1)
    losses = []
    for _ in range(4):
        x = ms.Tensor(data.standard_normal((16, 4)).astype(np.float32))
        y = ms.Tensor(data.integers(0, 3, 16).astype(np.int32))
        losses.append(float(step(x, y).asnumpy()))
    params = [p.asnumpy() for p in net.trainable_params()]
    devices = len(net.trainable_params()[0]._data.sharding.device_set)
    return losses, params, devices


single_losses, single_params, single_devices = train(False)
dp_losses, dp_params, dp_devices = train(True)
report["param_diff"] = max(float(np.abs(a - b).max()) for a, b in zip(single_params, dp_params))
report["loss_diff"] = max(abs(a - b) for a, b in zip(single_losses, dp_losses))
report["devices_single"], report["devices_dp"] = single_devices, dp_devices

# The collectives' lowering, with the 4 devices as 4 ranks: rank r holds values[r].
values = np.random.default_rng(5).standard_normal((4, 8, 3)).astype(np.float32)
stacked, mesh = D.stacked_on_devices(values, 4)
expect = {
    ("all_reduce", "sum"): values.sum(0),
    ("all_reduce", "max"): values.max(0),
    ("all_reduce", "min"): values.min(0),
    ("all_reduce", "prod"): values.prod(0),
    ("all_gather", "sum"): values.reshape(32, 3),
    ("broadcast", "sum"): values[2],
    ("reduce_scatter", "sum"): values.sum(0).reshape(4, 2, 3),
    ("reduce_scatter", "max"): values.max(0).reshape(4, 2, 3),
    ("all_to_all", "sum"): values.reshape(4, 4, 2, 3).transpose(1, 0, 2, 3).reshape(4, 8, 3),
}
errors = {}
for (kind, op), want in expect.items():
    got = np.asarray(D.run_on_mesh(kind, stacked, mesh, "rank", op=op, root=2))
    errors[f"{kind}/{op}"] = float(np.abs(got - want).max()) if got.shape == want.shape else f"shape {got.shape}"
report["collective_errors"] = errors


# ---- collectives in graphs, the 4 devices as 4 ranks
def err(got, want) -> float:
    got, want = np.asarray(got), np.asarray(want)
    return float(np.abs(got - want).max()) if got.shape == want.shape else float("inf")


graph_errors = {}
with virtual_ranks(4):
    create_group("odd_reversed", [3, 1])
    rank_values = [values[r] for r in range(4)]  # (8, 3) on each rank
    x = to_ranks(rank_values)

    def collectives(x):
        return (
            comm_func.all_reduce(x)[0],
            ops.AllReduce(ops.ReduceOp.MAX)(x),
            ops.AllReduce(ops.ReduceOp.PROD)(x),
            comm_func.all_gather_into_tensor(x)[0],
            comm_func.reduce_scatter_tensor(x)[0],
            ops.ReduceScatter(ops.ReduceOp.MIN)(x),
            comm_func.broadcast(x, src=2),
            ops.AlltoAll(4, 0, 1)(x),
            comm_func.all_reduce(x, group="odd_reversed")[0],
            comm_func.all_gather_into_tensor(x, group="odd_reversed")[0],
        )

    numpy_results = [
        [values.sum(0)] * 4,
        [values.max(0)] * 4,
        [values.prod(0)] * 4,
        [values.reshape(32, 3)] * 4,
        [values.sum(0)[2 * r : 2 * r + 2] for r in range(4)],
        [values.min(0)[2 * r : 2 * r + 2] for r in range(4)],
        [values[2]] * 4,
        [np.concatenate([values[j][2 * r : 2 * r + 2] for j in range(4)], axis=1) for r in range(4)],
        [values[3] + values[1]] * 4,  # members 1 and 3 (non-members' results are not checked)
        [np.concatenate([values[3], values[1]])] * 4,
    ]
    eager = collectives(x)
    programs = []
    _spmd_jit = D.spmd_jit
    D.spmd_jit = lambda fun: programs.append(fun) or _spmd_jit(fun)
    calls = []
    _call = D.SpmdProgram.__call__
    D.SpmdProgram.__call__ = lambda self, *args: calls.append((self, args)) or _call(self, *args)
    graph = ms.jit(collectives)(x)
    D.SpmdProgram.__call__ = _call
    graph_errors["one_program"] = abs(len(programs) - 1)
    program, args = calls[-1]
    hlo = program.lower(*args).compile().as_text()
    report["hlo_collectives"] = sorted({op for op in ("all-reduce", "all-gather", "all-to-all") if f" {op}(" in hlo})
    for k, (e, g, want) in enumerate(zip(eager, graph, numpy_results)):
        ranks = (1, 3) if k >= 8 else range(4)
        graph_errors[f"graph_vs_pynative/{k}"] = max(err(from_ranks(g)[r], from_ranks(e)[r]) for r in ranks)
        graph_errors[f"graph_vs_numpy/{k}"] = max(err(from_ranks(g)[r], want[r]) for r in ranks)

    def loss(w):
        gathered = comm_func.all_gather_into_tensor(w)[0]
        return (comm_func.all_reduce(w * w)[0] * gathered[:8]).sum() + ops.ReduceScatter()(w * 3).sum()

    w = to_ranks([values[r] * 0.5 for r in range(4)])
    g_eager, g_graph = ms.grad(loss)(w), ms.jit(ms.grad(loss))(w)
    graph_errors["grad_graph_vs_pynative"] = max(err(a, b) for a, b in zip(from_ranks(g_graph), from_ranks(g_eager)))
    # By MindSpore's rules (each rank's loss; a collective's backward sums the ranks' cotangents):
    # 2 w_r * (4 w_0) from the all-reduce, + 4 * sum_t w_t^2 on rank 0 from the gathered w_0, + 3.
    ws = [values[r] * 0.5 for r in range(4)]
    squares = sum(v * v for v in ws)
    by_hand = [8 * ws[r] * ws[0] + 3 + (4 * squares if r == 0 else 0) for r in range(4)]
    graph_errors["grad_vs_hand"] = max(err(from_ranks(g_graph)[r], by_hand[r]) for r in range(4))


def train_graph(ranks: int):
    """GRAPH_MODE TrainOneStepCell: 4 virtual ranks with a quarter batch each, or one device on the full batch."""
    ms.reset_auto_parallel_context()
    if ranks > 1:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    rng = np.random.default_rng(3)
    net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3))
    for p in net.trainable_params():
        p.set_data(ms.Tensor((0.5 * rng.standard_normal(p.shape)).astype(np.float32)))
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    data = np.random.default_rng(1)
    for _ in range(4):
        x = data.standard_normal((16, 4)).astype(np.float32)
        y = data.integers(0, 3, 16).astype(np.int32)
        if ranks > 1:
            step(to_ranks(np.split(x, ranks)), to_ranks(np.split(y, ranks)))
        else:
            step(ms.Tensor(x), ms.Tensor(y))
    if ranks > 1:
        return [from_ranks(p) for p in net.trainable_params()]
    return [[p.asnumpy()] for p in net.trainable_params()]


ms.set_context(mode=ms.GRAPH_MODE)
full = train_graph(1)
with virtual_ranks(4):
    dp = train_graph(4)
graph_errors["graph_dp_vs_full_batch"] = max(err(c, f[0]) for d, f in zip(dp, full) for c in d)
ms.set_context(mode=ms.PYNATIVE_MODE)
report["graph_errors"] = graph_errors

# ---- SEMI_AUTO_PARALLEL on the 4 devices
semi = {}
ms.reset_auto_parallel_context()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
rng = np.random.default_rng(0)
a, b = rng.standard_normal((8, 16)).astype(np.float32), rng.standard_normal((16, 12)).astype(np.float32)
ta, tb = ms.Tensor(a), ms.Tensor(b)
layout = ms.Layout((2, 2), ("dp", "mp"))
cases = {
    "tuple": ops.MatMul().shard(((2, 1), (1, 2))),
    "layout": ops.MatMul().shard((layout("dp", "None"), layout("None", "mp"))),
    "contracted": ops.MatMul().shard(((1, 4), (4, 1))),  # the reduction dimension split: XLA adds an all-reduce
    "ms.shard": ms.shard(lambda x, y: ops.matmul(x, y), in_strategy=((4, 1), (1, 1))),
}
for name, mm in cases.items():
    eager = mm(ta, tb)
    graph = ms.jit(lambda x, y, mm=mm: mm(x, y) * 2)(ta, tb)
    semi[f"{name}/pynative"] = err(eager.asnumpy(), a @ b)
    semi[f"{name}/graph"] = err(graph.asnumpy(), 2 * (a @ b))
    semi[f"{name}/devices"] = len(eager._data.sharding.device_set)
    semi[f"{name}/out_spec"] = [list(a) if isinstance(a, tuple) else a for a in graph._data.sharding.spec]
grads = ms.jit(ms.grad(lambda x, y: cases["tuple"](x, y).sum(), grad_position=(0, 1)))(ta, tb)
semi["grad"] = max(err(grads[0].asnumpy(), np.ones((8, 12)) @ b.T), err(grads[1].asnumpy(), a.T @ np.ones((8, 12))))


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(16, 12)
        self.mm = ops.MatMul().shard(((2, 2), (2, 1)))
        self.w = ms.Parameter(ms.Tensor(np.zeros((12, 4), np.float32)), name="w")

    def construct(self, x):
        return self.mm(self.dense(x), self.w)


def train_semi(sharded: bool):
    ms.reset_auto_parallel_context()
    if sharded:  # device_num as MindSpore scripts set it: the devices the strategies split over
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=4)
    init_rng = np.random.default_rng(1)
    net = Net()
    for p in net.trainable_params():
        p.set_data(ms.Tensor((0.3 * init_rng.standard_normal(p.shape)).astype(np.float32)))
    net.shard(in_strategy=((4, 1),), parameter_plan={"dense.weight": (2, 2)})
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.05))
    for _ in range(3):
        step(ta, ms.Tensor(np.ones((8, 4), np.float32)))
    weight = net.trainable_params()[0]
    return [p.asnumpy() for p in net.trainable_params()], len(weight._data.sharding.device_set)


ms.set_context(mode=ms.GRAPH_MODE)
sharded_params, sharded_devices = train_semi(True)
plain_params, plain_devices = train_semi(False)
ms.set_context(mode=ms.PYNATIVE_MODE)
semi["train"] = max(err(u, v) for u, v in zip(sharded_params, plain_params))
semi["train/devices"] = [sharded_devices, plain_devices]

# N=2 -> this job: a checkpoint two ranks saved (row halves of dense.weight) loads into a parameter this job
# splits over its 4 devices; the parameter keeps its split.
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
with tempfile.TemporaryDirectory() as tmp:
    weight = np.random.default_rng(2).standard_normal((12, 16)).astype(np.float32)
    files = [os.path.join(tmp, f"rank_{r}.ckpt") for r in range(2)]
    for r, f in enumerate(files):
        ms.save_checkpoint({"dense.weight": ms.Tensor(weight[6 * r : 6 * r + 6])}, f)
    net = Net()
    net.shard(in_strategy=((4, 1),), parameter_plan={"dense.weight": (2, 2)})
    rows = ms.Layout((2,), ("dp",))("dp", "None")
    ms.load_distributed_checkpoint(net, files, train_strategy_filename={"dense.weight": rows})
    semi["ckpt_2_to_4/value"] = err(net.dense.weight.asnumpy(), weight)
    semi["ckpt_2_to_4/devices"] = len(net.dense.weight._data.sharding.device_set)
ms.reset_auto_parallel_context()
report["semi_auto"] = semi
print(json.dumps(report))
