"""Run by test_cell_primitive_shard.py in one process with 4 virtual CPU devices (XLA_FLAGS set before JAX loads).

In SEMI_AUTO_PARALLEL, strategies set on the primitives the nn cells hold (`conv.conv2d.shard`, `bn.bn_train.shard`,
`relu.relu.shard`, `pool.max_pool.shard`, `dense.matmul.shard`, `dense.bias_add.shard`) take effect: each layer's
output is split over the devices as the strategy says (its sharding spec), where the same layer unsharded gives a
one-device output (also when the strategies are set after a function over the layer compiled, and on a pickled or
deep-copied sharded network); and a small network with those strategies trains 3 steps (PyNative and GRAPH_MODE) to
the values of the unsharded network. Prints one JSON line.
"""

import copy
import json
import pickle

import numpy as np

import kiln as ms
from kiln import nn
from kiln.communication import init

init()  # one process, its 4 devices: TrainOneStepCell asks for the group size


def spec(t) -> list:
    return [list(a) if isinstance(a, tuple) else a for a in t._data.sharding.spec]


def devices(t) -> int:
    return len(t._data.sharding.device_set)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.dense = nn.Dense(4 * 4 * 4, 6)

    def construct(self, x):
        return self.dense(self.flatten(self.pool(self.relu(self.bn(self.conv(x))))))


def build(sharded: bool) -> Net:
    net = Net()
    rng = np.random.default_rng(1)
    for p in net.trainable_params():
        p.set_data(ms.Tensor((0.3 * rng.standard_normal(p.shape)).astype(np.float32)))
    if sharded:  # the batch split in 2 and the channels in 2, as the zoo's strategies split them
        net.conv.conv2d.shard(((2, 1, 1, 1), (2, 1, 1, 1)))
        net.bn.bn_train.shard(((2, 2, 1, 1), (2,), (2,), (2,), (2,)))
        net.relu.relu.shard(((2, 2, 1, 1),))
        net.pool.max_pool.shard(((2, 2, 1, 1),))
        net.dense.matmul.shard(((2, 1), (2, 1)))
        net.dense.bias_add.shard(((2, 2), (2,)))
    return net


def train(sharded: bool, mode: int):
    ms.set_context(mode=mode)
    net = build(sharded)
    net.set_train()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    rng = np.random.default_rng(2)
    losses = []
    for _ in range(3):
        x = ms.Tensor(rng.standard_normal((4, 3, 8, 8)).astype(np.float32))
        y = ms.Tensor(rng.integers(0, 6, 4).astype(np.int32))
        losses.append(float(step(x, y).asnumpy()))
    state = [p.asnumpy() for p in net.get_parameters()]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, state


ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
report = {}
x = ms.Tensor(np.random.default_rng(0).standard_normal((4, 3, 8, 8)).astype(np.float32))
maps = ms.Tensor(np.random.default_rng(4).standard_normal((4, 4, 8, 8)).astype(np.float32))
feats = ms.Tensor(np.random.default_rng(3).standard_normal((4, 64)).astype(np.float32))

# Each layer alone, PyNative: the sharded one's output is split, the unsharded one's stays on one device.
for name, run in {
    "conv2d": lambda net: net.conv(x),
    "relu": lambda net: net.relu(maps),
    "max_pool": lambda net: net.pool(maps),
    "dense": lambda net: net.dense(feats),
}.items():
    plain, sharded = run(build(False)), run(build(True))
    report[name] = {
        "diff": float(np.abs(plain.asnumpy() - sharded.asnumpy()).max()),
        "devices": [devices(plain), devices(sharded)],
        "spec": spec(sharded),
    }
# The layers given held primitives in session 25, each sharded alone (PyNative): split over the devices, equal values
seq = ms.Tensor(np.random.default_rng(7).standard_normal((4, 4, 16)).astype(np.float32))
rows = ms.Tensor(np.random.default_rng(8).standard_normal((4, 6)).astype(np.float32))
for name, (make, attr, strategy, args) in {
    "instance_norm": (lambda: nn.InstanceNorm2d(4), "instance_bn", ((2, 2, 1, 1), (2,), (2,), (2,), (2,)), (maps,)),
    "lrn": (lambda: nn.LRN(2), "lrn_op", ((2, 2, 1, 1),), (maps,)),
    "adaptive_avg_pool": (lambda: nn.AdaptiveAvgPool2d(3), "adaptive_avgpool2d", ((2, 2, 1, 1),), (maps,)),
    "replication_pad": (lambda: nn.ReplicationPad2d(1), "padv3", ((2, 2, 1, 1),), (maps,)),
    "max_pool_1d": (lambda: nn.MaxPool1d(2, 2), "max_pool", ((2, 2, 1, 1),), (seq,)),
    "smooth_l1": (lambda: nn.SmoothL1Loss(), "smooth_l1_loss", ((2, 2), (2, 2)), (rows, rows * 0.5)),
    "log_softmax": (lambda: nn.LogSoftmaxExt(-1), "log_softmax", ((4, 1),), (rows,)),
    "bidense": (lambda: nn.BiDense(6, 6, 4, "ones", "zeros"), "matmul", ((4, 1), (1, 1)), (rows, rows)),
}.items():
    plain, layer = make(), make()
    getattr(layer, attr).shard(strategy)
    want, got = plain(*args), layer(*args)
    # (some plain kernels come out replicated over the 4 devices: their spec names no device axis)
    report[f"held_{name}"] = {"diff": float(np.abs(want.asnumpy() - got.asnumpy()).max()),
                              "specs": [spec(want) if devices(want) > 1 else [], spec(got)],
                              "devices": devices(got)}  # fmt: skip
# The same in a compiled function (the strategy recorded as a constraint in the graph)
dense = build(True).dense
graph_out = ms.jit(lambda v: dense(v) * 2)(feats)
report["dense_graph"] = {"diff": float(np.abs(graph_out.asnumpy() - 2 * build(False).dense(feats).asnumpy()).max()),
                         "devices": devices(graph_out), "spec": spec(graph_out)}  # fmt: skip
# Strategies set after the function compiled: it compiles again, with them
dense = build(False).dense
run = ms.jit(lambda v: dense(v) * 2)
first = run(feats)
dense.matmul.shard(((2, 1), (2, 1)))
dense.bias_add.shard(((2, 2), (2,)))
after = run(feats)
report["dense_graph_sharded_after"] = {"diff": float(np.abs(after.asnumpy() - first.asnumpy()).max()),
                                       "devices": [devices(first), devices(after)], "spec": spec(after)}  # fmt: skip
# A sharded network pickled and deep-copied: the copies keep the strategies
for name, again in (("pickled", pickle.loads(pickle.dumps(build(True)))), ("deepcopied", copy.deepcopy(build(True)))):
    out = again.dense(feats)
    report[name] = {"diff": float(np.abs(out.asnumpy() - build(False).dense(feats).asnumpy()).max()),
                    "devices": devices(out), "spec": spec(out)}  # fmt: skip

for mode_name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
    ms.reset_auto_parallel_context()
    plain_losses, plain_state = train(False, mode)
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
    losses, state = train(True, mode)
    report[f"train_{mode_name}"] = {
        "loss_diff": max(abs(a - b) for a, b in zip(losses, plain_losses)),
        "state_diff": max(float(np.abs(a - b).max()) for a, b in zip(state, plain_state)),
        "losses": losses,
    }
ms.reset_auto_parallel_context()

# EmbeddingLookup's slice modes set MindSpore's strategies on its held gatherv2 (over device_num devices): the lookup
# equals the plain one, with the table's columns or the ids' rows split as the mode says; a Wide&Deep-style net trains
# to the plain net's values in both modes.
table = np.random.default_rng(5).standard_normal((8, 4)).astype(np.float32)
ids = ms.Tensor(np.random.default_rng(6).integers(0, 8, (4, 3)).astype(np.int32))
plain = nn.EmbeddingLookup(8, 4, param_init=ms.Tensor(table), target="DEVICE")(ids)
for slice_mode in ("table_row_slice", "table_column_slice", "batch_slice"):
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=4)
    lookup = nn.EmbeddingLookup(8, 4, param_init=ms.Tensor(table), target="DEVICE", slice_mode=slice_mode)
    out = lookup(ids)
    report[f"lookup_{slice_mode}"] = {"diff": float(np.abs(out.asnumpy() - plain.asnumpy()).max()),
                                      "devices": devices(out), "spec": spec(out),
                                      "strategy": lookup.gatherv2.in_strategy}  # fmt: skip
    ms.reset_auto_parallel_context()


class Lookup(nn.Cell):
    def __init__(self, slice_mode):
        super().__init__()
        self.emb = nn.EmbeddingLookup(8, 4, param_init=ms.Tensor(table), target="DEVICE", slice_mode=slice_mode)
        self.dense = nn.Dense(12, 1, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.dense(self.emb(x).reshape(4, 12))


def train_lookup(slice_mode, mode):
    ms.set_context(mode=mode)
    net = Lookup(slice_mode)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Adam(net.trainable_params(), 0.1))
    labels = ms.Tensor(np.ones((4, 1), np.float32))
    losses = [float(step(ids, labels).asnumpy()) for _ in range(3)]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    return losses, net.emb.embedding_table.asnumpy()


for mode_name, mode in (("pynative", ms.PYNATIVE_MODE), ("graph", ms.GRAPH_MODE)):
    plain_losses, plain_table = train_lookup("batch_slice", mode)
    for slice_mode in ("table_row_slice", "table_column_slice"):
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=4, full_batch=True)
        losses, trained = train_lookup(slice_mode, mode)
        ms.reset_auto_parallel_context()
        report[f"train_lookup_{slice_mode}_{mode_name}"] = {
            "loss_diff": max(abs(a - b) for a, b in zip(losses, plain_losses)),
            "state_diff": float(np.abs(trained - plain_table).max()),
        }
print(json.dumps(report))
