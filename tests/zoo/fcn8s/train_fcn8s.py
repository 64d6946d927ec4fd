"""Four steps of the zoo's FCN8s (research/cv/FCN8s/src: VGG-16 with BatchNorm, the 7x7 fc6 and 1x1 fc7 convolutions,
the score layers and three Conv2dTranspose upsamplings with the pool4/pool3 skips) trained as its train.py wires it on
CPU: SoftmaxCrossEntropyLoss (OneHot, ignore label 255, its ops' shard strategies) and nn.Momentum (weight decay 1e-4)
on a per-step lr Tensor through Model(net, loss_fn, optimizer).

Usage: train_fcn8s.py MODE...; prints `MODE losses: ...` and `MODE state: ...`. The zoo trains 512x512 VOC crops with
21 classes, batch 8; here 64x64 images (fc6 on 2x2), 5 classes, batch 2, labels with some 255s. NumPy-seeded weights.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.loss.loss import SoftmaxCrossEntropyLoss  # noqa: E402
from src.nets.FCN8s import FCN8s  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 2, 64, 5, 4


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(3)
    images = rng.standard_normal((STEPS * BATCH, 3, SIZE, SIZE)).astype(np.float32)
    labels = rng.randint(0, CLASSES, (STEPS * BATCH, SIZE, SIZE))
    labels[rng.uniform(size=labels.shape) < 0.1] = 255
    labels = labels.astype(np.int32)
    net = FCN8s(n_class=CLASSES)
    rng = np.random.RandomState(7)
    for p in net.trainable_params():
        if p.name.endswith("weight"):
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) * np.sqrt(2 / fan_in)).astype(np.float32)))
        elif p.name.endswith("gamma"):
            p.set_data(Tensor((1 + 0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
        else:
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    loss_ = SoftmaxCrossEntropyLoss(CLASSES, 255, device_num=1)
    lr = Tensor(np.array([1e-3, 2e-3, 3e-3, 2e-3], np.float32))
    optimizer = nn.Momentum(params=net.trainable_params(), learning_rate=lr, momentum=0.9, weight_decay=0.0001)
    model = ms.Model(net, loss_fn=loss_, optimizer=optimizer)
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset({"data": images, "label": labels}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters()]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moments]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
