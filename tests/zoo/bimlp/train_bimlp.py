"""Four Momentum steps of the zoo's BiMLP (research/cv/BiMLP/src: the binary WaveNet: QuanConv layers whose XNOR
weights and DoReFa activations go through Cells with their own bprop (straight-through sign) and Rint, RPReLU's
x.copy() and boolean-mask setitem, PATM's cos/sin-modulated tokens, Downsample's BatchNorm followed by the sum of
2x2, 3x3, 5x5 and 7x7 'same' max pools, BatchNorm in training mode), on a two-stage net (one block each, widths 8
and 16, 24x24 images, 5 classes, batch 4, NumPy-seeded weights). The zoo has no train.py (its eval.py only): the
driver trains it through nn.WithLossCell, SoftmaxCrossEntropyWithLogits and nn.TrainOneStepCell.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_bimlp.py MODE...; MODE is
PYNATIVE_MODE or GRAPH_MODE (four train steps), or MODE:forward (the loss of one forward pass in training mode,
which updates BatchNorm's moving statistics). It prints `MODE losses: ...` and `MODE state: ...` (the sum of every
parameter, moving statistics included, afterwards). MindSpore 2.10 cannot train it on the CPU (Rint has no
gradient there, in both modes): its goldens are the forward pass's; the train steps compare Kiln's two modes.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "src"))  # bimlp.py imports quan_conv
from bimlp import WaveNet  # noqa: E402

BATCH, CLASSES, STEPS = 4, 5, 4


def main(mode: str) -> None:
    mode, _, kind = mode.partition(":")
    ms.set_context(mode=getattr(ms, mode))
    net = WaveNet([1, 1], embed_dims=[8, 16], patch_size=7, transitions=[True, True], mlp_ratios=[4, 4],
                  num_classes=CLASSES)  # fmt: skip
    rng = np.random.RandomState(7)
    for p in sorted(net.get_parameters(), key=lambda p: p.name):
        if not p.name.endswith(("gamma", "beta", "moving_mean", "moving_variance")):
            fan_in = int(np.prod(p.shape[1:])) if p.ndim > 1 else 4
            p.set_data(Tensor((rng.standard_normal(p.shape) / np.sqrt(fan_in)).astype(np.float32)))
    loss_net = nn.WithLossCell(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"))
    train_net = nn.TrainOneStepCell(loss_net, nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    train_net.set_train(True)
    data = np.random.RandomState(3)
    x = Tensor(data.standard_normal((BATCH, 3, 24, 24)).astype(np.float32))
    y = Tensor(data.randint(0, CLASSES, BATCH).astype(np.int32))
    if kind == "forward":
        losses = [float(loss_net(x, y).asnumpy())]
    else:
        losses = [float(train_net(x, y).asnumpy()) for _ in range(STEPS)]
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in sorted(net.get_parameters(), key=lambda p: p.name)]
    name = f"{mode}:{kind}" if kind else mode
    print(f"{name} losses:", " ".join(repr(v) for v in losses))
    print(f"{name} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
