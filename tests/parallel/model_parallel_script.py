"""A MindSpore-style SEMI_AUTO_PARALLEL training script: a Megatron-style MLP (column- then row-split MatMuls),
the same MLP written with a `Layout` and `Cell.shard`, and a sharded attention block, 3 `TrainOneStepCell` steps
each, `Model.train` and `Model.eval` on a sharded dataset; the MLP's checkpoints (one file per rank) loaded into
the MLP split another way; Adam on an MLP without strategies, optimizer parallelism on request.

Run by `kiln msrun --worker_num=2` with 2 virtual CPU devices per worker (4 devices in all), or with
`--single` in one process on one device with the same global batch; each rank saves its losses and final
parameters to `<out>/rank<r>.npz` (`single.npz` for the one-device run).
"""

import argparse
import os
import signal

import mindspore as ms
import mindspore.dataset as ds
import numpy as np
from mindspore import Parameter, Tensor, nn, ops
from mindspore.communication import get_group_size, get_rank, init
from mindspore.communication.comm_func import barrier

parser = argparse.ArgumentParser()
parser.add_argument("--single", action="store_true")
parser.add_argument("--full_batch", action="store_true")
parser.add_argument("--mode", default="pynative", choices=("pynative", "graph"))
parser.add_argument("--no_attention", action="store_true", help="build the attention block but do not train it")
parser.add_argument("--device_num", type=int, default=4)
parser.add_argument("--bad_strategy", action="store_true", help="split w1's 16 columns in 3")
parser.add_argument("--kill", action="store_true", help="rank 1 dies (SIGKILL) after the first step")
parser.add_argument("--optimizer_shard", type=int, default=0, help="optimizer_weight_shard_size for the Adam run")
parser.add_argument("--out", required=True)
args = parser.parse_args()

ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE, device_target="CPU")
if args.single:
    rank, size = 0, 1
else:
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(
        parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, device_num=args.device_num, full_batch=args.full_batch
    )

GLOBAL_BATCH, D_IN, D_HID, HEADS = 8, 8, 16, 2
rng = np.random.default_rng(11)
X = rng.standard_normal((3, GLOBAL_BATCH, D_IN)).astype(np.float32)
Y = rng.standard_normal((3, GLOBAL_BATCH, D_IN)).astype(np.float32)
SEQ = rng.standard_normal((3, GLOBAL_BATCH, 4, D_IN)).astype(np.float32)


def weight(shape, name):
    return Parameter(Tensor((0.3 * rng.standard_normal(shape)).astype(np.float32)), name=name)


class MegatronMLP(nn.Cell):
    """x @ w1 split by columns over 2 devices, relu, @ w2 split by rows (one all-reduce in the forward pass)."""

    def __init__(self):
        super().__init__()
        self.w1 = weight((D_IN, D_HID), "w1")
        self.w2 = weight((D_HID, D_IN), "w2")
        self.mm1 = ops.MatMul().shard(((1, 1), (1, 3) if args.bad_strategy else (1, 2)))
        self.mm2 = ops.MatMul().shard(((1, 2), (2, 1)))
        self.relu = ops.ReLU().shard(((1, 2),))

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


class LayoutMLP(nn.Cell):
    """The MLP with its strategies as a named device mesh (`Layout`); the cell's input split by `Cell.shard`."""

    def __init__(self):
        super().__init__()
        mesh = ms.Layout((2, 2), ("dp", "mp"))
        self.w1 = weight((D_IN, D_HID), "w1")
        self.w2 = weight((D_HID, D_IN), "w2")
        self.mm1 = ops.MatMul().shard((mesh("dp", "None"), mesh("None", "mp")))
        self.mm2 = ops.MatMul().shard((mesh("dp", "mp"), mesh("mp", "None")))
        self.shard(in_strategy=(mesh("dp", "None"),))

    def construct(self, x):
        return self.mm2(ops.relu(self.mm1(x, self.w1)), self.w2)


class Attention(nn.Cell):
    """Multi-head self-attention with the heads split over 2 devices and the batch over the other 2."""

    def __init__(self):
        super().__init__()
        self.wq = weight((D_IN, D_IN), "wq")
        self.wk = weight((D_IN, D_IN), "wk")
        self.wv = weight((D_IN, D_IN), "wv")
        self.wo = weight((D_IN, D_IN), "wo")
        self.proj_q = ops.MatMul().shard(((2, 1), (1, 2)))
        self.proj_k = ops.MatMul().shard(((2, 1), (1, 2)))
        self.proj_v = ops.MatMul().shard(((2, 1), (1, 2)))
        self.scores = ops.BatchMatMul(transpose_b=True).shard(((2, 2, 1, 1), (2, 2, 1, 1)))
        self.softmax = ops.Softmax().shard(((2, 2, 1, 1),))
        self.context = ops.BatchMatMul().shard(((2, 2, 1, 1), (2, 2, 1, 1)))
        self.proj_o = ops.MatMul().shard(((2, 2), (2, 1)))
        self.scale = 1.0 / np.sqrt(D_IN // HEADS)

    def heads(self, t, b, s):
        return ops.transpose(ops.reshape(t, (b, s, HEADS, D_IN // HEADS)), (0, 2, 1, 3))

    def construct(self, x):
        b, s, d = x.shape
        flat = ops.reshape(x, (b * s, d))
        q = self.heads(self.proj_q(flat, self.wq), b, s)
        k = self.heads(self.proj_k(flat, self.wk), b, s)
        v = self.heads(self.proj_v(flat, self.wv), b, s)
        p = self.softmax(self.scores(q, k) * self.scale)
        c = ops.reshape(ops.transpose(self.context(p, v), (0, 2, 1, 3)), (b * s, d))
        return ops.reshape(self.proj_o(c, self.wo), (b, s, d))


def local(batch):
    """This rank's part of a global batch (the whole batch with full_batch)."""
    if args.full_batch or size == 1:
        return batch
    part = batch.shape[0] // size
    return batch[rank * part : (rank + 1) * part]


results = {}
for name, net, inputs in (("mlp", MegatronMLP(), X), ("layout_mlp", LayoutMLP(), X), ("attention", Attention(), SEQ)):
    if name == "attention" and args.no_attention:
        continue
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    losses = []
    for i in range(3):
        target = SEQ[i] * 0.5 if name == "attention" else Y[i]
        losses.append(float(step(Tensor(local(inputs[i])), Tensor(local(target))).asnumpy()))
        if args.kill and rank == 1:
            os.kill(os.getpid(), signal.SIGKILL)  # rank 0 goes on into the next step's collectives
    results[f"{name}/loss"] = np.array(losses, np.float32)
    if name == "mlp":
        trained_mlp = net
    for p in net.trainable_params():
        results[f"{name}/{p.name}"] = p.asnumpy()
        # What this process's first device holds of the parameter (Kiln's array; the whole one on one device).
        results[f"{name}/{p.name}/local_shape"] = np.array(p._data.addressable_shards[0].data.shape)
    print(f"rank {rank} {name} losses {losses}", flush=True)

# Model.train on a dataset each rank reads its shard of (rank r: rows r, r + size, ...; the mean loss of a global
# batch does not depend on the order of its rows).
shard = {} if size == 1 or args.full_batch else {"num_shards": size, "shard_id": rank}
rows = ds.NumpySlicesDataset((X.reshape(-1, D_IN), Y.reshape(-1, D_IN)), ["x", "y"], shuffle=False, **shard)
net = MegatronMLP()
model = ms.Model(net, loss_fn=nn.MSELoss(), optimizer=nn.Momentum(net.trainable_params(), 0.1, 0.9), metrics={"mse"})
batches = rows.batch(GLOBAL_BATCH if args.full_batch else GLOBAL_BATCH // size)
model.train(1, batches, dataset_sink_mode=False)
for p in net.trainable_params():
    results[f"model_train/{p.name}"] = p.asnumpy()
# Model.eval reads each rank's shard as Model.train does: the metric is the one-device metric of the global batches.
results["model_eval/mse"] = np.array(model.eval(batches, dataset_sink_mode=False)["mse"], np.float32)

# Checkpoints: each rank saves the trained MLP (a parameter split across processes as the slice this rank holds,
# with no collective: rank 0 also saves once alone); the files merge into one, and load into an MLP split the other
# way (rows of w1, columns of w2), which keeps its split.
ckpt_dir = os.path.join(args.out, "ckpt")
os.makedirs(ckpt_dir, exist_ok=True)
ms.save_checkpoint(trained_mlp, os.path.join(ckpt_dir, f"rank_{rank}.ckpt"))
if rank == 0:
    ms.save_checkpoint(trained_mlp, os.path.join(ckpt_dir, "rank0_alone.ckpt"))
if size > 1:
    barrier()  # every rank's file is written
files = [os.path.join(ckpt_dir, f"rank_{r}.ckpt") for r in range(size)]
if rank == 0:
    merged = ms.load_distributed_checkpoint(None, files, return_param_dict=True)
    ms.save_checkpoint(merged, os.path.join(ckpt_dir, "merged.ckpt"))
reloaded = MegatronMLP()
reloaded.mm1 = ops.MatMul().shard(((1, 2), (2, 1)))
reloaded.mm2 = ops.MatMul().shard(((1, 1), (1, 2)))
ms.load_distributed_checkpoint(reloaded, files)
out = reloaded(Tensor(X[0]))  # the whole batch on every rank: a forward pass outside a training step
results["reloaded/out"] = out.asnumpy()
for p in reloaded.trainable_params():
    results[f"reloaded/{p.name}"] = p.asnumpy()
    results[f"reloaded/{p.name}/local_shape"] = np.array(p._data.addressable_shards[0].data.shape)

# Optimizer parallelism: Adam's moments split over the devices (ZeRO-1/2) when --optimizer_shard is given.
if args.optimizer_shard:
    ms.set_auto_parallel_context(enable_parallel_optimizer=True, optimizer_weight_shard_size=args.optimizer_shard)
# A network with no strategies: in semi-auto mode it trains data-parallel over the 4 devices (the batch split, the
# gradients all-reduced by XLA), the setting in which optimizer parallelism divides the state (ZeRO).
net = nn.SequentialCell(nn.Dense(D_IN, D_HID), nn.ReLU(), nn.Dense(D_HID, D_IN))
for p in net.trainable_params():
    p.set_data(Tensor((0.3 * rng.standard_normal(p.shape)).astype(np.float32)))
adam = nn.Adam(net.trainable_params(), learning_rate=0.05)
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), adam)
losses = [float(step(Tensor(local(X[i])), Tensor(local(Y[i]))).asnumpy()) for i in range(3)]
results["adam/loss"] = np.array(losses, np.float32)
for p in net.trainable_params():
    results[f"adam/{p.name}"] = p.asnumpy()
for p in adam.moment1:
    results[f"adam/{p.name}"] = p.asnumpy()
# The bytes of Adam's moments on one device (what optimizer parallelism divides among the devices).
state_bytes = sum(p._data.addressable_shards[0].data.nbytes for p in (*adam.moment1, *adam.moment2))
results["adam/state_bytes_per_device"] = np.array(state_bytes)
print(f"rank {rank} adam losses {losses}; Adam state bytes per device: {state_bytes}", flush=True)

os.makedirs(args.out, exist_ok=True)
np.savez(os.path.join(args.out, "single.npz" if args.single else f"rank{rank}.npz"), **results)
