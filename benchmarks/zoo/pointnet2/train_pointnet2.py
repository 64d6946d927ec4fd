"""Train steps of the zoo's PointNet++ (official/cv/PointNet2, vendored unchanged in src/) as its train.py wires
it (`Model(net, NLLLoss(), AdamWeightDecay)`: a WithLossCell in a TrainOneStepCell), at a small configuration:
2 samples of 128 points, 40 classes, the zoo's model with 64 and 16 centroids in its first two set abstractions
(the zoo's 512 and 128 unroll 640 farthest-point-sampling steps in the graph; sa2 groups 64 of sa1's centroids).

A MindSpore script: run it with MindSpore 2.10 or with `kiln run`. Usage: train_pointnet2.py MODE [STEPS];
prints `MODE first: S s`, `MODE steady: S s` (median of the steps after the first) and `MODE losses: ...`
(the zoo's NLLLoss gives one loss per sample: BATCH values per step).
The two Dropout layers are replaced by identities (they draw from the framework's own generator, so losses would
not compare), and np.random is seeded before the first step: the zoo's farthest-point sampling draws its start
points with np.random at trace time (a constant of the compiled graph).
"""

import os
import sys
import time

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.pointnet2 import NLLLoss, PointNet2  # noqa: E402

BATCH, POINTS, CLASSES = 2, 128, 40
# centroids of the first two set abstractions (the zoo's: 512, 128; POINTNET2_CENTROIDS=512,128 runs those)
SA1_POINTS, SA2_POINTS = (int(n) for n in os.environ.get("POINTNET2_CENTROIDS", "64,16").split(","))


class Identity(nn.Cell):
    """Stands in for a Dropout layer."""

    def construct(self, x):
        return x


def build(steps: int):
    """(train cell, points, labels): the zoo's train wiring on NumPy-seeded weights, and `steps` batches."""
    rng = np.random.RandomState(5)
    points = rng.uniform(-1, 1, size=(steps, BATCH, POINTS, 3)).astype(np.float32)
    labels = rng.randint(0, CLASSES, size=(steps, BATCH)).astype(np.int32)
    net = PointNet2(CLASSES, False)
    rng = np.random.RandomState(7)
    for p in net.trainable_params():
        if p.name.endswith("weight") and len(p.shape) > 1:
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) / np.sqrt(fan_in)).astype(np.float32)))
        elif p.name.endswith("bias"):
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    # the zoo's 512 and 128 centroids unroll 640 sampling steps in MindSpore's graph
    net.sa1.npoint, net.sa2.npoint = SA1_POINTS, SA2_POINTS
    net.drop1 = Identity()
    net.drop2 = Identity()
    loss_net = nn.WithLossCell(net, NLLLoss())
    opt = nn.AdamWeightDecay(net.trainable_params(), learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                             weight_decay=1e-4)
    train = nn.TrainOneStepCell(loss_net, opt)
    train.set_train()
    return train, points, labels


def main(mode: str, steps: int) -> None:
    ms.set_context(mode=getattr(ms, mode), max_call_depth=2048)  # as train.py sets it (the unrolled sampling)
    train, points, labels = build(steps)
    np.random.seed(11)
    losses, times = [], []
    for step in range(steps):
        t0 = time.perf_counter()
        loss = train(Tensor(points[step]), Tensor(labels[step]))
        losses.extend(loss.asnumpy().ravel().tolist())  # NLLLoss gives one loss per sample
        times.append(time.perf_counter() - t0)
    print(f"{mode} first: {times[0]:.2f} s", flush=True)
    if steps > 1:
        print(f"{mode} steady: {float(np.median(times[1:])) * 1e3:.1f} ms", flush=True)
    print(f"{mode} losses: {' '.join(f'{v:.7g}' for v in losses)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 4)
