"""A two-block bottleneck ResNet (the zoo ResNet-50's ops at a well-conditioned size), three Momentum steps.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_bottleneck.py MODE.
Prints `losses: ...` and `state: ...` (sums of BatchNorm moving statistics and optimizer moments after the
last step), so that a wrong state update shows even where the loss does not.
"""

import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

RNG = np.random.RandomState(0)


def _weight(*shape):
    return Tensor((RNG.randn(*shape) * np.sqrt(2.0 / np.prod(shape[1:]))).astype(np.float32))


def _conv(cin, cout, k, stride=1):
    return nn.Conv2d(cin, cout, k, stride=stride, pad_mode="same", weight_init=_weight(cout, cin, k, k))


def _bn(channels):
    return nn.BatchNorm2d(channels, eps=1e-4, momentum=0.9)


class Bottleneck(nn.Cell):
    """1x1 -> 3x3 (strided) -> 1x1 with BatchNorm, plus a projected shortcut."""

    def __init__(self, cin, width, cout, stride):
        super().__init__()
        self.conv1, self.bn1 = _conv(cin, width, 1), _bn(width)
        self.conv2, self.bn2 = _conv(width, width, 3, stride), _bn(width)
        self.conv3, self.bn3 = _conv(width, cout, 1), _bn(cout)
        self.down = nn.SequentialCell([_conv(cin, cout, 1, stride), _bn(cout)])
        self.relu = nn.ReLU()

    def construct(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + self.down(x))


class Net(nn.Cell):
    """Stem (7x7 stride 2, BatchNorm, ReLU, 3x3 max pool) -> two bottlenecks -> mean -> Dense."""

    def __init__(self):
        super().__init__()
        self.conv1, self.bn1 = _conv(3, 8, 7, 2), _bn(8)
        self.relu = ops.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        self.layer1 = Bottleneck(8, 4, 16, 1)
        self.layer2 = Bottleneck(16, 8, 32, 2)
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.fc = nn.Dense(32, 10, weight_init=_weight(10, 32), bias_init=0)

    def construct(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer2(self.layer1(x))
        return self.fc(self.flatten(self.mean(x, (2, 3))))


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    net = Net()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    x = Tensor(RNG.randn(8, 3, 32, 32).astype(np.float32))
    y = Tensor((np.arange(8) * 3 % 10).astype(np.int32))
    losses = [float(step(x, y).asnumpy()) for _ in range(3)]
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving" in p.name]
    state += [float(m.asnumpy().astype(np.float64).sum()) for m in opt.moments]
    print("losses:", " ".join(repr(v) for v in losses))
    print("state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "PYNATIVE_MODE")
