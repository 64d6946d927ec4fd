"""A MindSpore-style data-parallel training script, run unchanged by MindSpore 2.10 (`msrun`) and by Kiln
(`kiln msrun`); `--single` runs the same training in one process on the full batch.

Each rank saves its final parameters, its losses and the results of a few collectives to `<out>/rank<r>.npz`.
Phase 1 trains with `Model.train` on a sharded NumpySlicesDataset, phase 2 with a `TrainOneStepCell` loop on
a sharded GeneratorDataset; with `gradients_mean=True` and equal shards both equal the full-batch run.
"""

import argparse
import os

import mindspore as ms
import mindspore.dataset as ds
import numpy as np
from mindspore import nn, ops
from mindspore.communication import GlobalComm, comm_func, get_group_size, get_rank, init
from mindspore.context import ParallelMode

parser = argparse.ArgumentParser()
parser.add_argument("--single", action="store_true")
parser.add_argument("--out", required=True)
args = parser.parse_args()

ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
if args.single:
    rank, size = 0, 1
else:
    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True, device_num=size)

GLOBAL_BATCH = 8
data_rng = np.random.default_rng(7)
X = data_rng.standard_normal((32, 4)).astype(np.float32)
Y = data_rng.standard_normal((32, 2)).astype(np.float32)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 2)
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(x)))


def make_net():
    net = Net()
    init_rng = np.random.default_rng(3)
    for p in net.trainable_params():
        p.set_data(ms.Tensor((0.5 * init_rng.standard_normal(p.shape)).astype(np.float32)))
    return net


def params_of(net, prefix):
    return {prefix + p.name: p.asnumpy() for p in net.trainable_params()}


shard = {} if args.single else {"num_shards": size, "shard_id": rank}
results = {}

# Phase 1: Model.train on a sharded NumpySlicesDataset (rank r reads rows r, r + size, ...).
net = make_net()
dataset = ds.NumpySlicesDataset((X, Y), column_names=["x", "y"], shuffle=False, **shard).batch(GLOBAL_BATCH // size)
opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
model = ms.Model(net, loss_fn=nn.MSELoss(), optimizer=opt)
model.train(2, dataset, dataset_sink_mode=False)
results.update(params_of(net, "model/"))


# Phase 2: a TrainOneStepCell loop on a sharded GeneratorDataset.
class Source:
    def __getitem__(self, i):
        return X[i], Y[i]

    def __len__(self):
        return len(X)


net = make_net()
dataset = ds.GeneratorDataset(Source(), column_names=["x", "y"], shuffle=False, **shard).batch(GLOBAL_BATCH // size)
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.L1Loss()), nn.SGD(net.trainable_params(), learning_rate=0.05))
step.set_train()
losses = [float(step(x, y).asnumpy()) for x, y in dataset.create_tuple_iterator()]
results.update(params_of(net, "loop/"))
results["loop_losses"] = np.array(losses, np.float32)

# Collectives (MindSpore's CPU build lacks some of them: those are skipped there).
if not args.single:
    world = GlobalComm.WORLD_COMM_GROUP
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * rank)
    y4 = ms.Tensor(np.arange(12, dtype=np.float32).reshape(4, 3) + 100 * rank)

    def first(out):
        out = out[0] if isinstance(out, (tuple, list)) else out
        return out.asnumpy()

    cases = {
        "all_reduce": lambda: first(comm_func.all_reduce(x, group=world)),
        "AllReduce": lambda: first(ops.AllReduce()(x)),
        "AllReduce_max": lambda: first(ops.AllReduce(ops.ReduceOp.MAX)(x)),
        "all_gather": lambda: first(comm_func.all_gather_into_tensor(x, group=world)),
        "AllGather": lambda: first(ops.AllGather()(x)),
        "reduce_scatter": lambda: first(comm_func.reduce_scatter_tensor(y4, group=world)),
        "ReduceScatter": lambda: first(ops.ReduceScatter()(y4)),
        "broadcast": lambda: first(comm_func.broadcast(x, src=1, group=world)),
        "Broadcast": lambda: first(ops.Broadcast(1)((x,))),
    }
    for name, fn in cases.items():
        try:
            results[name] = fn()
        except RuntimeError as e:
            print("unsupported here:", name, str(e).splitlines()[0], flush=True)
    grads = (ms.Tensor(np.full((2,), rank + 1.0, np.float32)), ms.Tensor(np.full((3,), 2.0 * rank, np.float32)))
    reduced = nn.DistributedGradReducer(net.trainable_params()[:2], mean=True)(grads)
    results["grad_reducer_mean"] = np.concatenate([r.asnumpy() for r in reduced])
    results["env"] = np.array([int(os.environ.get(k, -1)) for k in ("RANK_ID", "RANK_SIZE", "MS_WORKER_NUM")])

os.makedirs(args.out, exist_ok=True)
np.savez(os.path.join(args.out, f"rank{rank}.npz"), **results)
print("done", rank, size, flush=True)
