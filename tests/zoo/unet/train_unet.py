"""Four steps of the zoo's plain U-Net (official/cv/Unet/src, model_name unet_simple: unet_nested's UNet, UnetConv2d
blocks of Conv2d/BatchNorm2d/ReLU, MaxPool2d(pad_mode="same"), UnetUp's Conv2dTranspose(stride 2, pad "same") and
Concat skip connections, a 1x1 head) trained as its train.py wires it: CrossEntropyWithLogits (NCHW->NHWC Transpose,
SoftmaxCrossEntropyWithLogits on one-hot labels, ReduceMean, the MyLoss get_loss Cast/Mul/ReduceMean over
make_range axes), Adam(weight_decay=5e-4, loss_scale=1024) and Model.train with FixedLossScaleManager(1024, False)
at amp_level AMP (train.py's "O0" on GPU; "O3" elsewhere).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_unet.py MODE... [O3]; for
each MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter, the absolute sum of each
Adam moment and the sum of each BatchNorm moving statistic after the last step). The zoo trains feature_scale 2
(widths 32-512) on 576x576 images, batch 16; here feature_scale 16 (widths 4-64) on 1x64x64 images, batch 2,
2 classes, NumPy-seeded weights (the zoo's "normal" init draws from MindSpore's generator).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.train.loss_scale_manager import FixedLossScaleManager

HERE = os.path.dirname(os.path.abspath(__file__))
# the zoo source vendored for the zoo benchmark: <repo>/benchmarks/zoo/unet/src (the same files at the same commit)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(HERE))), "benchmarks", "zoo", "unet"))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.loss import CrossEntropyWithLogits  # noqa: E402
from src.unet_nested import UNet  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 2, 64, 2, 4


def main(mode: str, amp_level: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(3)
    masks = (rng.standard_normal((STEPS * BATCH, 1, SIZE, SIZE)) > 0.3).astype(np.float32)
    images = (2 * masks - 1 + rng.standard_normal(masks.shape)).astype(np.float32)
    labels = np.concatenate([1 - masks, masks], axis=1).astype(np.float32)  # the data loader's one-hot NCHW mask
    net = UNet(in_channel=1, n_class=CLASSES, feature_scale=16)
    rng = np.random.RandomState(7)
    for p in net.trainable_params():
        if p.name.endswith("weight"):
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) / np.sqrt(fan_in)).astype(np.float32)))
        elif p.name.endswith(("bias", "beta")):
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
        else:
            p.set_data(Tensor((1 + 0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    criterion = CrossEntropyWithLogits()
    optimizer = nn.Adam(params=net.trainable_params(), learning_rate=1e-3, weight_decay=0.0005, loss_scale=1024.0)
    loss_scale_manager = FixedLossScaleManager(1024.0, False)
    model = ms.Model(
        net, loss_fn=criterion, loss_scale_manager=loss_scale_manager, optimizer=optimizer, amp_level=amp_level
    )
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset({"image": images, "mask": labels}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moment1, *optimizer.moment2)]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    args = sys.argv[1:]
    amp = "O3" if "O3" in args else "O0"
    for mode_name in [a for a in args if a != "O3"] or ["PYNATIVE_MODE"]:
        main(mode_name, amp)
