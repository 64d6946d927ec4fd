"""Three Momentum steps of the zoo's MobileNetV2 (backbone + head, three block stages) on a fixed tiny batch.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_mobilenetv2.py MODE...,
each MODE PYNATIVE_MODE or GRAPH_MODE (one process trains once per mode, from the same initial weights); for each
it prints `MODE losses: a b c` and `MODE state: ...` (sums of the BatchNorm moving statistics and the optimizer
moments after the last step). It imports the zoo's `src/mobilenetV2.py` as vendored for the zoo benchmark.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

# the zoo source vendored for the zoo benchmark: <repo>/benchmarks/zoo/mobilenetv2/src/mobilenetV2.py
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "benchmarks", "zoo", "mobilenetv2")
)
from src.mobilenetV2 import MobileNetV2Backbone, MobileNetV2Head, mobilenet_v2  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 4, 32, 10, 3
# every kind of block the full network has (no expansion, expansion 6, stride 2, residual), fewer of them, so
# that the last feature map keeps 4 x 4 values per image: BatchNorm over fewer values is chaotic in float32
SETTING = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 2, 2]]


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    np.random.seed(1)  # _initialize_weights draws from NumPy: the same weights on both frameworks
    backbone = MobileNetV2Backbone(inverted_residual_setting=SETTING, last_channel=256)
    head = MobileNetV2Head(input_channel=backbone.out_channels, num_classes=CLASSES)
    net = mobilenet_v2(backbone, head)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    rng = np.random.RandomState(0)
    x = Tensor(rng.randn(BATCH, 3, SIZE, SIZE).astype(np.float32))
    y = Tensor((np.arange(BATCH) * 3 % CLASSES).astype(np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(STEPS)]
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving" in p.name]
    state += [float(m.asnumpy().astype(np.float64).sum()) for m in opt.moments]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
