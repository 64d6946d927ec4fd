"""A MindSpore-style pipeline-parallel training script: a 2-stage MLP (`pipeline_stage` 0 and 1 on its Dense layers)
in `nn.PipelineCell(nn.WithLossCell(...), micro_size=4)`, 3 `TrainOneStepCell` steps with Momentum, in PyNative
and in Graph mode, each with the 1F1B schedule (MindSpore's default, and asked for by name) and with GPipe.

Run with `pipeline_stages=2` under SEMI_AUTO_PARALLEL: in one process over 2 virtual devices (`kiln run`), or by
`kiln msrun --worker_num=2` with 2 virtual CPU devices per worker (stage 0 on worker 0's devices, stage 1 on worker
1's); or with `--single` on one device without pipeline parallelism (PipelineCell's micro-batch loop), the same
global batch. Every rank feeds the whole batch (`full_batch=True`) and saves its losses and final parameters to
`<out>/rank<r>.npz` (`single.npz` for the one-device run).
"""

import argparse
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.communication import get_rank, init

parser = argparse.ArgumentParser()
parser.add_argument("--single", action="store_true")
parser.add_argument("--out", required=True)
args = parser.parse_args()

ms.set_context(device_target="CPU")
rank = 0
if not args.single:
    init()
    rank = get_rank()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, pipeline_stages=2, full_batch=True)

GLOBAL_BATCH, D_IN, D_HID, MICRO = 8, 8, 16, 4
data = np.random.default_rng(5)
X = data.standard_normal((3, GLOBAL_BATCH, D_IN)).astype(np.float32)
Y = data.standard_normal((3, GLOBAL_BATCH, D_IN)).astype(np.float32)

# (mode, pipeline_config): None leaves MindSpore's default scheduler, 1F1B.
RUNS = (("pynative", {"pipeline_scheduler": "1f1b"}), ("pynative", {"pipeline_scheduler": "gpipe"}),
        ("graph", None), ("graph", {"pipeline_scheduler": "gpipe"}))  # fmt: skip
results = {}
for mode, config in RUNS:
    name = f"{mode}_{'1f1b' if config is None else config['pipeline_scheduler']}"
    ms.set_context(mode=ms.GRAPH_MODE if mode == "graph" else ms.PYNATIVE_MODE)
    if not args.single:
        ms.set_auto_parallel_context(pipeline_config=config)
    rng = np.random.default_rng(7)
    first, second = nn.Dense(D_IN, D_HID), nn.Dense(D_HID, D_IN)
    for p in (*first.trainable_params(), *second.trainable_params()):
        p.set_data(Tensor((0.3 * rng.standard_normal(p.shape)).astype(np.float32)))
    first.pipeline_stage = 0
    second.pipeline_stage = 1
    net = nn.SequentialCell(first, nn.ReLU(), second)
    loss = nn.PipelineCell(nn.WithLossCell(net, nn.MSELoss()), MICRO)
    step = nn.TrainOneStepCell(loss, nn.Momentum(net.trainable_params(), 0.1, 0.9))
    outs = [step(Tensor(X[i]), Tensor(Y[i])) for i in range(3)]
    losses = [float(o.asnumpy()) for o in outs]
    # How many devices computed the loss (Kiln's array): the stages' devices when pipelined, else one.
    results[f"{name}/loss/devices"] = np.array(len(outs[-1]._data.sharding.device_set))
    results[f"{name}/loss"] = np.array(losses, np.float32)
    for p in net.trainable_params():
        results[f"{name}/{p.name}"] = p.asnumpy()
    print(f"rank {rank} {name} losses {losses}", flush=True)

os.makedirs(args.out, exist_ok=True)
np.savez(os.path.join(args.out, "single.npz" if args.single else f"rank{rank}.npz"), **results)
