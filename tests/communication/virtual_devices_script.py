"""Run by test_communication.py in a process with 4 virtual CPU devices (XLA_FLAGS set before JAX loads).

Prints one JSON line: how far a data-parallel training run (each batch spread over the 4 devices) is from
the same run on one device, where the parameters ended up, and how far each collective, run with the 4
devices as 4 ranks, is from NumPy.
"""

import json

import numpy as np

import kiln as ms
from kiln import nn
from kiln._backend import distributed as D
from kiln.communication import get_group_size, get_local_rank_size, get_rank, init

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
print(json.dumps(report))
