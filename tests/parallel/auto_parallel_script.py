"""A model-parallel script written as MindSpore 2.10's documentation writes one, with
`mindspore.parallel.auto_parallel.AutoParallel` and no `set_auto_parallel_context`: a Megatron-style MLP
(`MatMul().shard` column- then row-split) built under `no_init_parameters`, trained 3 steps by
(a) a `jit` training-step function (`value_and_grad` + optimizer) wrapped in AutoParallel, and
(b) `Model(AutoParallel(net), loss_fn, optimizer).train` on a dataset each rank reads its shard of, with LossMonitor.

Run by `kiln msrun --worker_num=2` with 2 virtual CPU devices per worker (4 devices in all), or with `--single`
in one process on one device with the same global batch; each rank prints its losses and saves them and the final
parameters to `<out>/rank<r>.npz` (`single.npz` for the one-device run).
"""

import argparse
import os

import mindspore as ms
import mindspore.dataset as ds
import numpy as np
from mindspore import Parameter, Tensor, nn, ops
from mindspore.communication import get_group_size, get_rank, init
from mindspore.nn.utils import no_init_parameters
from mindspore.parallel.auto_parallel import AutoParallel
from mindspore.train import LossMonitor, Model
from mindspore.train.callback import Callback

parser = argparse.ArgumentParser()
parser.add_argument("--single", action="store_true")
parser.add_argument("--full_batch", action="store_true", help="dataset_strategy('full_batch'): every rank the batch")
parser.add_argument("--hsdp", action="store_true", help="optimizer parallelism: Momentum's state split in 2")
parser.add_argument("--out", required=True)
args = parser.parse_args()

ms.set_context(mode=ms.GRAPH_MODE, device_target="CPU")
if args.single:
    rank, size = 0, 1
else:
    init()
    rank, size = get_rank(), get_group_size()

GLOBAL_BATCH, D_IN, D_HID = 8, 8, 16
rng = np.random.default_rng(5)
X = rng.standard_normal((3, GLOBAL_BATCH, D_IN)).astype(np.float32)
Y = rng.standard_normal((3, GLOBAL_BATCH, D_IN)).astype(np.float32)
W1 = (0.3 * rng.standard_normal((D_IN, D_HID))).astype(np.float32)
W2 = (0.3 * rng.standard_normal((D_HID, D_IN))).astype(np.float32)


class Network(nn.Cell):
    """x @ w1 split by columns over 2 devices, relu, @ w2 split by rows; the batch over the other 2."""

    def __init__(self):
        super().__init__()
        self.w1 = Parameter(Tensor(W1), name="w1")
        self.w2 = Parameter(Tensor(W2), name="w2")
        self.mm1 = ops.MatMul().shard(((2, 1), (1, 2)))
        self.relu = ops.ReLU().shard(((2, 2),))
        self.mm2 = ops.MatMul().shard(((2, 2), (2, 1)))

    def construct(self, x):
        return self.mm2(self.relu(self.mm1(x, self.w1)), self.w2)


def configure(parallel_net):
    """The AutoParallel settings the command line asks for (one-device runs take none)."""
    if args.single:
        return
    if args.full_batch:
        parallel_net.dataset_strategy("full_batch")
    if args.hsdp:
        parallel_net.hsdp(shard_size=2, threshold=0)


def local(batch):
    """This rank's part of a global batch (the whole batch with full_batch)."""
    if args.full_batch or size == 1:
        return batch
    part = batch.shape[0] // size
    return batch[rank * part : (rank + 1) * part]


results = {}

# (a) the tutorial's functional training step
with no_init_parameters():
    net = Network()
    optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
net.init_parameters_data()
loss_fn = nn.MSELoss()


def forward_fn(data, target):
    logits = net(data)
    loss = loss_fn(logits, target)
    return loss, logits


grad_fn = ms.value_and_grad(forward_fn, None, net.trainable_params(), has_aux=True)


@ms.jit
def train_step(inputs, targets):
    (loss_value, _), grads = grad_fn(inputs, targets)
    optimizer(grads)
    return loss_value


parallel_net = train_step if args.single else AutoParallel(train_step, parallel_mode="semi_auto")
configure(parallel_net)
losses = []
for i in range(3):
    loss = parallel_net(Tensor(local(X[i])), Tensor(local(Y[i])))
    print(f"rank {rank} functional step {i} loss: {loss}", flush=True)
    losses.append(float(loss.asnumpy()))
results["functional/loss"] = np.array(losses, np.float32)
for p in net.trainable_params():
    results[f"functional/{p.name}"] = p.asnumpy()
    # What this process's first device holds of the parameter (the whole one on one device).
    results[f"functional/{p.name}/local_shape"] = np.array(p._data.addressable_shards[0].data.shape)


# (b) Model.train with LossMonitor on a dataset each rank reads its shard of (rank r: rows r, r + size, ...; the mean
# loss of a global batch does not depend on the order of its rows)
class LossRecorder(Callback):
    def __init__(self):
        super().__init__()
        self.losses = []

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy()))


shard = {} if size == 1 or args.full_batch else {"num_shards": size, "shard_id": rank}
rows = ds.NumpySlicesDataset((X.reshape(-1, D_IN), Y.reshape(-1, D_IN)), ["x", "y"], shuffle=False, **shard)
batches = rows.batch(GLOBAL_BATCH if args.full_batch else GLOBAL_BATCH // size)
net = Network()
parallel_net = net if args.single else AutoParallel(net, parallel_mode="semi_auto")
configure(parallel_net)
optimizer = nn.Momentum(net.trainable_params(), 0.1, 0.9)
model = Model(parallel_net, loss_fn=nn.MSELoss(), optimizer=optimizer)
recorder = LossRecorder()
model.train(1, batches, callbacks=[LossMonitor(1), recorder], dataset_sink_mode=False)
print(f"rank {rank} model losses {recorder.losses}", flush=True)
results["model/loss"] = np.array(recorder.losses, np.float32)
for p in net.trainable_params():
    results[f"model/{p.name}"] = p.asnumpy()
    results[f"model/{p.name}/local_shape"] = np.array(p._data.addressable_shards[0].data.shape)
# What one device holds of Momentum's state (optimizer parallelism divides it).
results["model/state_bytes_per_device"] = np.array(
    sum(p._data.addressable_shards[0].data.nbytes for p in optimizer.moments)
)

os.makedirs(args.out, exist_ok=True)
np.savez(os.path.join(args.out, "single.npz" if args.single else f"rank{rank}.npz"), **results)
