"""Four steps of the zoo's DeepLabV3 (official/cv/DeepLabv3/src: DeepLabV3, which runs its ResNet and ASPP and
resizes the logits back with bilinear align_corners=True resizing (on ResizeBilinearV2: MindSpore 2.10 has no
ResizeBilinear); ASPP's 1x1 and dilated 3x3 branches and
its image pooling branch, an nn.AvgPool2d built in construct from the feature map's size and
ResizeNearestNeighbor(align_corners=True), joined by Concat; Bottleneck blocks with dilated convolutions;
SoftmaxCrossEntropyLoss with OneHot and the NotEqual mask of the ignored label 255) through train.py's
BuildTrainNetwork, Momentum(weight_decay=1e-4, loss_scale) on a poly lr array and Model.train with
FixedLossScaleManager(drop_overflow_update=False) at amp_level O0, as its train.py wires them on CPU.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_deeplabv3.py MODE...; for
each MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter, the absolute sum of each
momentum and the sum of each BatchNorm moving statistic after the last step). The zoo's DeepLabV3 is a ResNet-101
with 2048 channels into ASPP; here its `resnet` is a stride-2 stem and two of the zoo's Bottleneck blocks (dilations
2 and 4, width 16) and its `aspp` the zoo's ASPP on 16 channels with rates 1, 2, 3, 4, in the 'eval' phase (the
'train' phase's Dropout(p=0.7) draws from MindSpore's generator). 8 images of 3x24x24, 3 classes, a few labels 255;
NumPy-seeded weights (the zoo's xavier_uniform draws from MindSpore's generator).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.ops import operations as P
from mindspore.train.loss_scale_manager import FixedLossScaleManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.loss.loss import SoftmaxCrossEntropyLoss  # noqa: E402
from src.nets.deeplab_v3.deeplab_v3 import ASPP, Bottleneck, DeepLabV3, conv3x3  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 8, 24, 3, 4


class BuildTrainNetwork(nn.Cell):
    """The zoo's train.py BuildTrainNetwork, copied (train.py parses arguments at import)."""

    def __init__(self, network, criterion):
        super().__init__()
        self.network = network
        self.criterion = criterion

    def construct(self, input_data, label):
        output = self.network(input_data)
        net_loss = self.criterion(output, label)
        return net_loss


class DeepLabV3Resized(DeepLabV3):
    """The zoo's DeepLabV3 with its last line on ResizeBilinearV2: MindSpore 2.10 has no P.ResizeBilinear (nor has
    Kiln), which the zoo's construct calls; ResizeBilinearV2(align_corners=True) is its successor, same values."""

    def construct(self, x):
        size = self.shape(x)
        out = self.resnet(x)
        out = self.aspp(out)
        out = P.ResizeBilinearV2(align_corners=True)(out, (size[2], size[3]))
        return out


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(3)
    images = rng.standard_normal((STEPS * BATCH, 3, SIZE, SIZE)).astype(np.float32)
    labels = rng.randint(0, CLASSES, (STEPS * BATCH, SIZE, SIZE)).astype(np.float32)
    labels[rng.uniform(size=labels.shape) < 0.1] = 255
    network = DeepLabV3Resized("train", CLASSES, 16, False)
    network.resnet = nn.SequentialCell(
        [
            conv3x3(3, 16, stride=2),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            Bottleneck(16, 4, dilation=2),
            Bottleneck(16, 4, dilation=4),
        ]
    )
    network.aspp = ASPP([1, 2, 3, 4], "eval", 16, CLASSES)
    rng = np.random.RandomState(7)
    for p in network.trainable_params():
        if not p.name.endswith(("gamma", "beta")):
            fan_in = int(np.prod(p.shape[1:])) if len(p.shape) > 1 else 16
            p.set_data(Tensor((rng.standard_normal(p.shape) / np.sqrt(fan_in)).astype(np.float32)))
    loss_ = SoftmaxCrossEntropyLoss(CLASSES, 255)
    train_net = BuildTrainNetwork(network, loss_)
    lr_iter = (0.02 * (1 - np.arange(STEPS) / STEPS) ** 0.9).astype(np.float32)  # learning_rates.poly_lr's curve
    opt = nn.Momentum(
        params=train_net.trainable_params(), learning_rate=lr_iter, momentum=0.9, weight_decay=0.0001, loss_scale=1024.0
    )
    manager_loss_scale = FixedLossScaleManager(1024.0, drop_overflow_update=False)
    model = ms.Model(train_net, optimizer=opt, amp_level="O0", loss_scale_manager=manager_loss_scale)
    loss_.add_flags_recursive(fp32=True)
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset({"data": images, "label": labels}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in opt.moments]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in network.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
