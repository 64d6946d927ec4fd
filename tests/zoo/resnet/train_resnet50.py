"""Three Momentum steps of the zoo's ResNet-50 on a fixed tiny batch; prints `losses: a b c`.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_resnet50.py MODE
where MODE is PYNATIVE_MODE or GRAPH_MODE; it imports the vendored `src.resnet` from its own folder.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.resnet import resnet50  # noqa: E402

BATCH, SIZE, STEPS = 4, 64, 3
LEARNING_RATE = 0.001


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    np.random.seed(1)  # the zoo's initialisers draw from NumPy: the same weights on both frameworks
    net = resnet50(class_num=10)
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=LEARNING_RATE, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    rng = np.random.RandomState(0)
    x = Tensor(rng.randn(BATCH, 3, SIZE, SIZE).astype(np.float32))
    y = Tensor((np.arange(BATCH) * 3 % 10).astype(np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(STEPS)]
    print("losses:", " ".join(repr(v) for v in losses))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "PYNATIVE_MODE")
