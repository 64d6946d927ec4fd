"""Four steps of the zoo's ECAPA-TDNN speaker network (official/audio/EcapaTDNN/src: a TDNN block and SE-Res2Net blocks
of dilated 'same' Conv1d, ReLU and BatchNorm2d over an expanded axis, Split/Concat Res2Net branches, squeeze-excitation
gates, attentive statistics pooling (Softmax over time, Pow, Tensor.sum, clip(eps, None), Sqrt), the cosine
Classifier (L2Normalize of the embedding and of the weight Parameter, Tensor.transpose()), AdditiveAngularMargin
(mindspore.numpy.where), SoftmaxCrossEntropyWithLogits on ops.one_hot labels) trained as its train.py trains it:
train.py's BuildTrainNetwork (copied below: it writes the logits to a Parameter in construct), Adam with weight decay on
the triangular cyclic-lr list, the zoo's TrainOneStepWithLossScaleCellv2 (a FixedLossScaleUpdateCell of 2**14,
grad_scale HyperMap, ClipGradients by value 1.0), called step by step as train_net does.

MindSpore 2.10's CPU has no float-status kernels (its loss-scale cells' overflow check runs NPUGetFloatStatusV2 on
CPU and fails), so the driver's cell checks overflow with isfinite over the gradients instead: the zoo's construct is
unchanged. A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_ecapatdnn.py
MODE...; for each MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter of the network,
BatchNorm's moving statistics and the logits Parameter included, then the absolute sum of each Adam moment). The zoo's
config is 80 mel features, channels 1024 (x3 for the last), embedding 192, 5,994 speakers, batch 192 of 200 frames; here
8 features, channels 16 (48), attention and SE channels 8, Res2Net scale 4, embedding 6, 5 speakers, batch 4 of 20
frames, NumPy-seeded weights.
"""

import math
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops
from mindspore.nn.wrap.loss_scale import FixedLossScaleUpdateCell

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.ecapa_tdnn import ECAPA_TDNN, Classifier  # noqa: E402
from src.loss_scale import TrainOneStepWithLossScaleCellv2  # noqa: E402
from src.util import AdditiveAngularMargin  # noqa: E402

FEATURES, CHANNELS, EMB, CLASSES, BATCH, FRAMES, STEPS = 8, 16, 6, 5, 4, 20, 4


class BuildTrainNetwork(nn.Cell):
    """Build train network: train.py's, as written there but for its formatting."""

    def __init__(self, my_network, classifier, lossfunc, my_criterion, train_batch_size, class_num_):
        super().__init__()
        self.network = my_network
        self.classifier = classifier
        self.criterion = my_criterion
        self.lossfunc = lossfunc
        self.output = ms.Parameter(Tensor(np.ones((train_batch_size, class_num_)), ms.float32), requires_grad=False)
        self.depth = class_num_

    def construct(self, input_data, label):
        output = self.network(input_data)
        label_onehot = ops.one_hot(label, self.depth, 1.0, 0.0)
        logits = self.classifier(output)
        output = self.lossfunc(logits, label_onehot)
        self.output = output
        loss0 = self.criterion(output, label_onehot)
        return loss0


class TrainCell(TrainOneStepWithLossScaleCellv2):
    """The zoo's loss-scale cell with an overflow check MindSpore's CPU can run: not all gradients finite."""

    def get_overflow_status(self, status, compute_output):
        finite = ops.stack([ops.isfinite(g).all() for g in compute_output]).all()
        return ops.logical_not(finite)


def triangular_lr(step_size: int, max_lr: float, base_lr: float, iterations: int) -> float:
    """train.py's learning_rate_clr_triangle_function."""
    cycle = math.floor(1 + iterations / (2 * step_size))
    x = abs(iterations / step_size - 2 * cycle + 1)
    return base_lr + (max_lr - base_lr) * max(0, (1 - x))


def setup() -> tuple:
    """The zoo's network and classifier with NumPy-seeded weights, and STEPS batches of features and labels."""
    rng = np.random.RandomState(51)
    net = ECAPA_TDNN(FEATURES, lin_neurons=EMB, channels=(CHANNELS,) * 4 + (3 * CHANNELS,), attention_channels=8,
                     res2net_scale=4, se_channels=8)  # fmt: skip
    classifier = Classifier(1, 0, EMB, CLASSES)
    for p in sorted([*net.trainable_params(), *classifier.trainable_params()], key=lambda q: q.name):
        leaf = p.name.rsplit(".", 1)[-1]
        if leaf in ("gamma", "beta"):
            continue  # BatchNorm's ones and zeros
        fan_in = int(np.prod(p.shape[1:])) if len(p.shape) > 1 else 4
        p.set_data(Tensor(rng.uniform(-1, 1, size=p.shape).astype(np.float32) * np.float32(1 / np.sqrt(fan_in))))
    features = rng.standard_normal((STEPS, BATCH, FRAMES, FEATURES)).astype(np.float32)
    labels = rng.randint(0, CLASSES, size=(STEPS, BATCH)).astype(np.int32)
    features += labels[..., None, None].astype(np.float32) * 0.3  # something to learn
    return net, classifier, features, labels


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    net, classifier, features, labels = setup()
    aam = AdditiveAngularMargin(0.2, 30)
    lr = [triangular_lr(2, 2e-3, 2e-4, i) for i in range(STEPS)]
    loss = nn.loss.SoftmaxCrossEntropyWithLogits(sparse=False, reduction="mean")
    built = BuildTrainNetwork(net, classifier, aam, loss, BATCH, CLASSES)
    opt = nn.Adam(built.trainable_params(), learning_rate=lr, weight_decay=2e-6)
    model = TrainCell(built, opt, scale_sense=FixedLossScaleUpdateCell(loss_scale_value=2**14))
    losses = []
    for step in range(STEPS):
        model.set_train()
        batch_loss, overflow, _, _ = model(Tensor(features[step]), Tensor(labels[step]))
        assert not bool(overflow.asnumpy())
        losses.append(float(batch_loss.asnumpy()))
    # The attention conv's bias shifts each channel's scores over all frames alike, which the Softmax over frames
    # cancels: its gradient is rounding noise that Adam scales to a step. Left out, with its moments.
    keep = [i for i, p in enumerate(built.trainable_params()) if p.name != "network.asp.conv.bias"]
    state = [
        float(p.asnumpy().astype(np.float64).sum()) for p in built.get_parameters() if p.name != "network.asp.conv.bias"
    ]
    moments = [opt.moment1[i] for i in keep] + [opt.moment2[i] for i in keep]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in moments]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
