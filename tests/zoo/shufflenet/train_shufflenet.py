"""Four steps of the zoo's ShuffleNetV1 (official/cv/ShuffleNet/shufflenetv1/src/shufflenetv1.py: a stride-2 stem
convolution, BatchNorm and ReLU, a 'same' MaxPool2d, then ShuffleV1Blocks: a GroupConv (P.Split into groups, a Cast
and an nn.Conv2d per group, P.Concat) whose output is channel-shuffled by Reshape/Transpose/Reshape, a depthwise 3x3
convolution, a second GroupConv, BatchNorms, and a residual Add, or where a stage begins an AvgPool2d('same') shortcut
Concat'ed beside the branch; a global AvgPool2d(7), a Reshape and the Dense classifier) trained as its train.py wires
it: CrossEntropySmooth (sparse, mean, label smoothing 0.1), Momentum (0.9, weight decay 4e-5, loss_scale 1024) on the
cosine warm-up lr array of lr_generator.get_lr, and Model.train with FixedLossScaleManager(1024,
drop_overflow_update=False) at the config's amp_level.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_shufflenet.py AMP MODE...
(AMP: O0, gpu_default_config.yaml's, or O3, default_config.yaml's). For each MODE it prints `MODE losses: ...`,
`MODE step1 state: ...` and `MODE state: ...` (after the first and the last step: the sum of each parameter, the
absolute sum of each momentum and the sum of each BatchNorm moving statistic). The zoo trains model_size 2.0x (group
3) on 224x224 ImageNet, batch 128; here 0.5x (stage widths 120, 240, 480, the stage repeats the zoo fixes at 4, 8, 4)
on 193x193 images, the smallest for which the five stride-2 layers leave the 7x7 map the global AvgPool2d(7) reduces
to 1x1, batch 2, 5 classes. The weights are NumPy-seeded (the zoo's xavier_uniform and the Dense's defaults draw from
MindSpore's generator). The lr array is get_lr's for one step per epoch (warm-up 0.125, 0.25, 0.375, 0.5 at the
config's lr_max 0.5) scaled by LR_SCALE = 0.01: at the full lr batch 2 diverges (losses 2.97, 184, 200, 52), and
at 0.1 it still jumps to 16.8 at step 2. train.py sinks the dataset (dataset_sink_mode=True); here
dataset_sink_mode=False, so that each step's loss is seen.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor
from mindspore.nn.optim.momentum import Momentum
from mindspore.train.loss_scale_manager import FixedLossScaleManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.crossentropysmooth import CrossEntropySmooth  # noqa: E402
from src.lr_generator import get_lr  # noqa: E402
from src.shufflenetv1 import ShuffleNetV1  # noqa: E402

BATCH, SIZE, CLASSES, STEPS, LR_SCALE = 2, 193, 5, 4, 0.01


def init_weights(net) -> None:
    """NumPy-seeded weights in the zoo's kinds: xavier_uniform convolutions, BatchNorm gamma near 1 and beta near 0
    (perturbed, so that every one of them matters), a uniform Dense."""
    rng = np.random.RandomState(71)
    for p in net.trainable_params():
        shape = p.shape
        if len(shape) == 4:  # (out, in / group, kh, kw)
            fan_in, fan_out = shape[1] * shape[2] * shape[3], shape[0] * shape[2] * shape[3]
            bound = np.sqrt(6.0 / (fan_in + fan_out))
            value = rng.uniform(-bound, bound, shape)
        elif len(shape) == 2:
            value = rng.uniform(-1, 1, shape) / np.sqrt(shape[1])
        elif "gamma" in p.name:
            value = 1 + 0.1 * rng.standard_normal(shape)
        else:  # beta, the Dense's bias
            value = 0.1 * rng.standard_normal(shape)
        p.set_data(Tensor(value.astype(np.float32)))


def state_sums(net, optimizer) -> list[float]:
    """The sum of each parameter, the absolute sum of each momentum and the sum of each BatchNorm moving statistic."""
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moments]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    return state


class StateRecorder(LossRecorder):
    """Keeps each step's loss and the state sums after the first step (later steps amplify rounding: see the test)."""

    def __init__(self, net, optimizer):
        super().__init__()
        self.net, self.optimizer, self.first = net, optimizer, None

    def step_end(self, run_context):
        super().step_end(run_context)
        if self.first is None:
            self.first = state_sums(self.net, self.optimizer)


def main(amp_level: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(73)
    labels = rng.randint(0, CLASSES, STEPS * BATCH).astype(np.int32)
    signal = rng.standard_normal((CLASSES, 3, SIZE, SIZE)).astype(np.float32)
    images = (signal[labels] + rng.standard_normal((STEPS * BATCH, 3, SIZE, SIZE))).astype(np.float32)
    net = ShuffleNetV1(model_size="0.5x", n_class=CLASSES)
    init_weights(net)
    loss = CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1, num_classes=CLASSES)
    lr = get_lr(lr_init=0.0, lr_end=0.0, lr_max=0.5, warmup_epochs=4, total_epochs=250, steps_per_epoch=1,
                lr_decay_mode="cosine")  # fmt: skip
    lr = Tensor(lr * np.float32(LR_SCALE))
    optimizer = Momentum(params=net.trainable_params(), learning_rate=lr, momentum=0.9, weight_decay=4e-5,
                         loss_scale=1024)  # fmt: skip
    loss_scale_manager = FixedLossScaleManager(1024, drop_overflow_update=False)
    model = ms.Model(net, loss_fn=loss, optimizer=optimizer, amp_level=amp_level,
                     loss_scale_manager=loss_scale_manager)  # fmt: skip
    recorder = StateRecorder(net, optimizer)
    dataset = ms.dataset.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} step1 state:", " ".join(repr(v) for v in recorder.first))
    print(f"{mode} state:", " ".join(repr(v) for v in state_sums(net, optimizer)))


if __name__ == "__main__":
    for mode_name in sys.argv[2:] or ["PYNATIVE_MODE"]:
        main(sys.argv[1], mode_name)
