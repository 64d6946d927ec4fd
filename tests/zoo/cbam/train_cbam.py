"""Four steps of the zoo's CBAM (research/cv/CBAM/src/model.py: ResNet Bottlenecks with ChannelAttention, a shared
1x1-convolution MLP over ReduceMean and ReduceMax of the feature map's last axis, and SpatialAttention, a 7x7
convolution over the Concat of the channel-wise ReduceMean and ReduceMax, each a Sigmoid gate multiplied in; the
head's ReduceMean, view(32, 256), Dense and Softmax) trained with BCEWithLogitsLoss on multi-hot labels through Adam
(eps 1e-7) and Model, as its train.py wires them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_cbam.py MODE...; for each MODE
it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter, the absolute sum of each Adam moment
and the sum of each BatchNorm moving statistic after the last step). The zoo trains resnet50_cbam (blocks 3, 4, 6,
3); here the zoo's ResNet with one Bottleneck per stage, at its fixed batch of 32 (construct views the features
as (32, 256)) on 1x32x8 inputs, 11 classes, lr 1e-3 (get_lr's peak). NumPy-seeded weights (the zoo's initializers
draw from MindSpore's generator).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.nn import BCEWithLogitsLoss

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.model import Bottleneck, ResNet  # noqa: E402

BATCH, HEIGHT, WIDTH, CLASSES, STEPS = 32, 32, 8, 11, 4


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(10)
    labels = (rng.uniform(size=(STEPS * BATCH, CLASSES)) < 0.3).astype(np.float32)
    signal = rng.standard_normal((CLASSES, 1, HEIGHT, WIDTH)).astype(np.float32)
    images = np.einsum("nc,c...->n...", labels, signal) + rng.standard_normal((STEPS * BATCH, 1, HEIGHT, WIDTH))
    images = images.astype(np.float32)
    net = ResNet(Bottleneck, [1, 1, 1, 1], phase="train")
    rng = np.random.RandomState(12)
    for p in net.trainable_params():
        if p.name.endswith("weight"):
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) * np.sqrt(2 / fan_in)).astype(np.float32)))
        elif p.name.endswith("bias"):
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    loss = BCEWithLogitsLoss()
    opt = nn.Adam(
        net.trainable_params(), learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-7, weight_decay=0.0, loss_scale=1.0
    )
    model = ms.Model(net, loss_fn=loss, optimizer=opt)
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*opt.moment1, *opt.moment2)]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
