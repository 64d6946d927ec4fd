"""Four Momentum steps of the zoo's SSD head and loss (official/cv/SSD/src/ssd.py: MultiBox's depthwise-conv,
BatchNorm, ReLU6 and 1x1 heads over two feature levels joined by FlattenConcat; SSDWithLossCell's sigmoid focal
loss and SmoothL1 over matched boxes; TrainingWrapper) on a tiny two-convolution feature extractor and fixed
random targets, the way the zoo's train.py wires them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_ssd.py MODE...; for each
MODE (PYNATIVE_MODE or GRAPH_MODE) it trains twice, `globalnorm` (TrainingWrapper(use_global_norm=True): the
gradients unscaled through a MultitypeFuncGraph and clipped by global norm, Momentum's loss_scale 1) and
`lossscale` (Momentum's loss_scale equal to the sensitivity), printing `VARIANT MODE losses: ...`, `VARIANT MODE
state: ...` (the sum of each trainable parameter and the absolute sum of each momentum after the last step) and
`VARIANT MODE moving-statistics state: ...` (the sum of each BatchNorm moving mean and variance).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.ssd import MultiBox, SSDWithLossCell, TrainingWrapper  # noqa: E402

BATCH, SIZE, CLASSES, STEPS, SENS = 2, 8, 4, 4, 1024.0
FEATURES, DEFAULTS = [(4, 4), (2, 2)], [3, 3]


class Config:
    """The fields of the zoo's config that MultiBox and SSDWithLossCell read."""

    num_classes = CLASSES
    extras_out_channels = [8, 8]
    num_default = DEFAULTS
    num_ssd_boxes = sum(h * w * d for (h, w), d in zip(FEATURES, DEFAULTS, strict=True))
    gamma = 2.0
    alpha = 0.25


class TinySSD(nn.Cell):
    """Two stride-2 convolutions (8x8 -> 4x4 -> 2x2) feeding the zoo's MultiBox."""

    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, stride=2, pad_mode="same", has_bias=True)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2, pad_mode="same", has_bias=True)
        self.relu = nn.ReLU()
        self.multi_box = MultiBox(Config)

    def construct(self, x):
        f1 = self.relu(self.c1(x))
        return self.multi_box((f1, self.relu(self.c2(f1))))


class ScalarFirstLess(nn.Cell):
    """`0 < gt_label` as `gt_label > 0`: MindSpore 2.10 refuses the zoo's `ops.Less()(0, gt_label)` (a Python
    number first) in both modes."""

    def construct(self, x, y):
        return ms.ops.greater(y, x)


def main(variant: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    net = TinySSD()
    # every parameter from NumPy, the same on both frameworks (moving variances kept positive)
    rng = np.random.RandomState(11)
    for p in net.get_parameters():
        value = rng.standard_normal(p.shape) * 0.3
        p.set_data(Tensor((np.abs(value) + 0.5 if "moving_variance" in p.name else value).astype(np.float32)))
    loss_net = SSDWithLossCell(net, Config)
    loss_net.less = ScalarFirstLess()
    params = list(filter(lambda x: x.requires_grad, loss_net.get_parameters()))
    if variant == "globalnorm":
        optimizer = nn.Momentum(params, 0.05, 0.9, 1e-4, 1.0)
        train = TrainingWrapper(loss_net, optimizer, SENS, True)
    else:
        optimizer = nn.Momentum(params, 0.05, 0.9, 1e-4, SENS)
        train = TrainingWrapper(loss_net, optimizer, SENS)
    train.set_train()
    data = np.random.RandomState(0)
    boxes = Config.num_ssd_boxes
    losses = []
    for _ in range(STEPS):
        x = data.standard_normal((BATCH, 3, SIZE, SIZE)).astype(np.float32)
        matched = data.uniform(size=(BATCH, boxes)) < 0.2
        label = np.where(matched, data.randint(1, CLASSES, (BATCH, boxes)), 0).astype(np.int32)
        loc = data.standard_normal((BATCH, boxes, 4)).astype(np.float32)
        loss = train(Tensor(x), Tensor(loc), Tensor(label), Tensor(matched.sum(1).astype(np.int32)))
        losses.append(float(loss.asnumpy()))
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in params]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moments]
    moving = [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving" in p.name]
    print(f"{variant} {mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{variant} {mode} state:", " ".join(repr(v) for v in state))
    print(f"{variant} {mode} moving-statistics state:", " ".join(repr(v) for v in moving))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        for variant_name in ("globalnorm", "lossscale"):
            main(variant_name, mode_name)
