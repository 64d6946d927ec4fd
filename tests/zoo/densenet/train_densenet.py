"""Four steps of the zoo's DenseNet (research/cv/densenet/src: the Densenet backbone's 7x7 stem, max pool, dense blocks
whose layers (BatchNorm, ReLU, 1x1 and 3x3 convolutions) each concatenate their output to their input, the transition
(BatchNorm, ReLU, 1x1 convolution, 2x2 max pool), the final BatchNorm and CommonHead's mean over H and W) trained as
its train.py wires it: DenseNet121's initialisation (default_recurisive_init's KaimingUniform, then KaimingNormal
fan_out on every convolution, the zoo's own Initializer subclasses drawing from NumPy's global generator, seeded here),
CrossEntropy (OneHot, label smoothing 0.1 as label_smooth=1 sets it) with add_flags_recursive(fp32=True),
BuildTrainNetwork, Momentum over get_param_groups' two groups (BatchNorm and bias parameters without weight decay)
with loss_scale 1024 on CosineAnnealingLR's array, and Model.train with FixedLossScaleManager(1024,
drop_overflow_update=False) at amp_level O0 (train.py's CPU branch).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_densenet.py MODE...; for each
MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter, the absolute sum of each Momentum
accumulator and the sum of each BatchNorm moving statistic after the last step). The zoo trains DenseNet121 (growth
32, blocks 6, 12, 24, 16, 64 stem features) on 224x224 ImageNet; here growth 8, blocks 2 and 2, 16 stem features, on
32x32 images, batch 4, 5 classes: DenseNet121's own __init__ is copied below around a smaller backbone (its sizes are
fixed in _densenet121).
"""

import math
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.common import initializer as init
from mindspore.nn.optim import Momentum
from mindspore.train.loss_scale_manager import FixedLossScaleManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.losses.crossentropy import CrossEntropy  # noqa: E402
from src.lr_scheduler import CosineAnnealingLR  # noqa: E402
from src.network.densenet import CommonHead, Densenet  # noqa: E402
from src.optimizers import get_param_groups  # noqa: E402
from src.utils.var_init import KaimingNormal, default_recurisive_init  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 4, 32, 5, 4


class SmallDenseNet(nn.Cell):
    """DenseNet121's cell (src/network/densenet.py) around a small Densenet backbone."""

    def __init__(self, num_classes, include_top=True):
        super().__init__()
        self.backbone = Densenet(growth_rate=8, block_config=(2, 2), num_init_features=16)
        out_channels = self.backbone.get_out_channels()
        self.include_top = include_top
        if self.include_top:
            self.head = CommonHead(num_classes, out_channels)

        default_recurisive_init(self)
        for _, cell in self.cells_and_names():
            if isinstance(cell, nn.Conv2d):
                cell.weight.set_data(init.initializer(KaimingNormal(a=math.sqrt(5), mode="fan_out",
                                                                    nonlinearity="relu"),
                                                      cell.weight.shape,
                                                      cell.weight.dtype))  # fmt: skip
            elif isinstance(cell, nn.BatchNorm2d):
                cell.gamma.set_data(init.initializer("ones", cell.gamma.shape))
                cell.beta.set_data(init.initializer("zeros", cell.beta.shape))
            elif isinstance(cell, nn.Dense):
                cell.bias.set_data(init.initializer("zeros", cell.bias.shape))

    def construct(self, x):
        x = self.backbone(x)
        if not self.include_top:
            return x
        x = self.head(x)
        return x


class BuildTrainNetwork(nn.Cell):
    """train.py's network with its loss."""

    def __init__(self, net, crit):
        super().__init__()
        self.network = net
        self.criterion = crit

    def construct(self, input_data, label):
        output = self.network(input_data)
        loss = self.criterion(output, label)
        return loss


def main(mode: str, perturb: float) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(31)
    labels = rng.randint(0, CLASSES, STEPS * BATCH).astype(np.int32)
    signal = rng.standard_normal((CLASSES, 3, SIZE, SIZE)).astype(np.float32)
    images = (signal[labels] + rng.standard_normal((STEPS * BATCH, 3, SIZE, SIZE))).astype(np.float32)
    images = (images * np.float32(1 + perturb)).astype(np.float32)  # BatchNorm cancels the scale: rounding only
    np.random.seed(32)  # the zoo's Initializers draw from NumPy's global generator
    network = SmallDenseNet(CLASSES)
    print("initial sums:", sum(float(np.abs(p.asnumpy().astype(np.float64)).sum()) for p in network.trainable_params()))
    criterion = CrossEntropy(smooth_factor=0.1, num_classes=CLASSES)
    lr_schedule = CosineAnnealingLR(0.1, 2, 2, 2, warmup_epochs=0, eta_min=0).get_lr()
    opt = Momentum(params=get_param_groups(network), learning_rate=Tensor(lr_schedule), momentum=0.9,
                   weight_decay=1e-4, loss_scale=1024)  # fmt: skip
    criterion.add_flags_recursive(fp32=True)
    train_net = BuildTrainNetwork(network, criterion)
    loss_scale_manager = FixedLossScaleManager(1024, drop_overflow_update=False)
    model = ms.Model(train_net, optimizer=opt, metrics=None, loss_scale_manager=loss_scale_manager, amp_level="O0")
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in opt.moments]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in network.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    args, eps = sys.argv[1:], 0.0
    if args and args[0] == "--perturb":
        eps, args = float(args[1]), args[2:]
    for mode_name in args or ["PYNATIVE_MODE"]:
        main(mode_name, eps)
