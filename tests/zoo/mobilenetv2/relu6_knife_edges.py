"""Where train_mobilenetv2.py's state sums are knife edges: ReLU6 inputs within ~1e-6 of the kink at 0, whose sign float
rounding can flip (the unit's gradient then switches on or off). A MindSpore script: run it under `kiln run` or
MindSpore's Python, in PyNative mode.

    relu6_knife_edges.py list                      each ReLU6 call of each step: its two inputs nearest 0
    relu6_knife_edges.py flip STEP CELL N,C,H,W    the state sums with that one input's sign flipped (its gradient
                                                   path kept), minus those of the plain run

Found with Kiln and MindSpore (session 13; the same units in both): in step 1 (from 0) backbone.features.5.conv.0's
ReLU6 input (2, 68, 2, 3) is 7e-8 from 0 under MindSpore and 8e-7 to 1e-6 under Kiln (its sign and size change with
how a run is split into programs); flipped, state [32] (the stem weight's momentum sum) moves by +0.0270 and [35] by
-0.0064: MindSpore's own move when its input is perturbed by a relative 1e-6 (seeds 2 and 4 of
sensitivity_mobilenetv2_mindspore.py: +0.02701, -0.00642) and the 0.2395 -> 0.2665 that two unrelated Kiln rewrites
gave (sessions 8 and 12). Others: step 2's backbone.features.1.conv.0 (2, 3, 3, 13) at 5.6e-7 (MindSpore 6.1e-7;
[32] +0.0136, [35] +0.0028: MindSpore's seed 1), step 1's backbone.features.3.conv.1 (0, 126, 4, 0) at 5.6e-7 ([32]
-0.0253), step 0's backbone.features.3.conv.0 (3, 61, 7, 5) at 3.7e-6 ([44] -0.0381, [32] -0.0152:
MindSpore's weight perturbation's largest moves).
"""

import sys

import mindspore as ms
import numpy as np
from mindspore import nn, ops
from train_mobilenetv2 import BATCH, CLASSES, SETTING, SIZE, STEPS, MobileNetV2Backbone, MobileNetV2Head, mobilenet_v2

_relu6 = nn.ReLU6.construct


def train(watch) -> tuple[list[float], list[float]]:
    """train_mobilenetv2.py's run in PyNative mode with nn.ReLU6's input passed through `watch(step, cell name, x)`."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    np.random.seed(1)
    backbone = MobileNetV2Backbone(inverted_residual_setting=SETTING, last_channel=256)
    head = MobileNetV2Head(input_channel=backbone.out_channels, num_classes=CLASSES)
    net = mobilenet_v2(backbone, head)
    names = {id(cell): name for name, cell in net.cells_and_names()}
    current = {"step": 0}
    nn.ReLU6.construct = lambda self, x: _relu6(self, watch(current["step"], names.get(id(self), "?"), x))
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    step.set_train()
    rng = np.random.RandomState(0)
    x = ms.Tensor(rng.randn(BATCH, 3, SIZE, SIZE).astype(np.float32))
    y = ms.Tensor((np.arange(BATCH) * 3 % CLASSES).astype(np.int32))
    losses = []
    for i in range(STEPS):
        current["step"] = i
        losses.append(float(step(x, y).asnumpy()))
    nn.ReLU6.construct = _relu6
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving" in p.name]
    state += [float(m.asnumpy().astype(np.float64).sum()) for m in opt.moments]
    return losses, state


def list_nearest() -> None:
    def watch(step, name, x):
        v = np.abs(x.asnumpy()).ravel()
        i, j = np.argsort(v)[:2]
        print(f"step {step} {name:40s} |x| {v[i]:.2e} at {np.unravel_index(i, x.shape)}, next {v[j]:.2e}")
        return x

    train(watch)


def flip(step: int, cell: str, unit: tuple) -> None:
    def watch(s, name, x):
        if s != step or name != cell:
            return x
        mask = np.zeros(x.shape, np.float32)
        mask[unit] = 1
        print("input", x.asnumpy()[unit])
        return x + ops.stop_gradient(-2 * x * ms.Tensor(mask))  # its sign flipped, its gradient path kept

    _, plain = train(lambda s, name, x: x)
    _, flipped = train(watch)
    moves = np.subtract(flipped, plain)
    for i in np.argsort(-np.abs(moves))[:6]:
        print(f"state [{i}] {plain[i]:.6g} moves {moves[i]:+.5f}")


if __name__ == "__main__":
    if sys.argv[1] == "list":
        list_nearest()
    else:
        flip(int(sys.argv[2]), sys.argv[3], tuple(int(v) for v in sys.argv[4].split(",")))
