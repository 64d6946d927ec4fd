"""Four steps of the zoo's Res2Net (research/cv/res2net/src/res2net.py: a three-convolution stem, Residual2Blocks that
Split the 1x1 convolution's output into 4 scales, run a 3x3 convolution per scale on the running sum of the previous
one, Concat them back (an AvgPool2d on the last scale where a stage begins) and add the MaxPool/1x1 down-sampled
shortcut; SE blocks in layers 3 and 4 of se-res2net50) trained as its train.py wires it: the network's own NumPy
initialisation (kaiming_normal / kaiming_uniform, and for se-res2net50 scipy's truncnorm), Momentum over the
decayed / not-decayed / order_params groups with loss_scale 1024 on an lr array, optionally wrapped in nn.LARS
(epsilon 0, coefficient 0.001, the zoo's lars_filter), CrossEntropySmooth (label smoothing 0.1), and Model.train: at
amp_level O2 with keep_batchnorm_fp32=False and FixedLossScaleManager(1024, drop_overflow_update=False) (train.py's
GPU/Ascend branch), or O0 without a loss-scale manager (its CPU branch: the optimizer's loss_scale still divides the
gradients).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_res2net.py NET AMP OPT MODE...
(NET: res2net or se-res2net; AMP: O0 or O2; OPT: Momentum, the config's, or LARS). For each MODE it prints
`MODE losses: ...` and `MODE state: ...` (the sum of each parameter, the absolute sum of each momentum and the sum of
each BatchNorm moving statistic after the last step). The zoo trains res2net50 (blocks 3, 4, 6, 3, widths 256-2048)
on 224x224 ImageNet; here one block per layer, widths 64, 96, 128, 160 (scale 4, base width 26) on 32x32 images,
batch 4, 5 classes. train.py's init_weight, which redraws the weights from MindSpore's generator, is left out.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor
from mindspore.nn.optim import LARS, Momentum
from mindspore.train.loss_scale_manager import FixedLossScaleManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.CrossEntropySmooth import CrossEntropySmooth  # noqa: E402
from src.res2net import Res2Net, Residual2Block  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 4, 32, 5, 4


def main(net_name: str, amp_level: str, optimizer: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(53)
    labels = rng.randint(0, CLASSES, STEPS * BATCH).astype(np.int32)
    signal = rng.standard_normal((CLASSES, 3, SIZE, SIZE)).astype(np.float32)
    images = (signal[labels] + rng.standard_normal((STEPS * BATCH, 3, SIZE, SIZE))).astype(np.float32)
    np.random.seed(59)  # the network draws its weights from NumPy's global generator
    net = Res2Net(
        Residual2Block, [1, 1, 1, 1], [64, 64, 96, 128], [64, 96, 128, 160], [1, 2, 2, 2], CLASSES,
        use_se=net_name == "se-res2net",
    )  # fmt: skip
    lr = Tensor(np.array([0.2, 0.4, 0.6, 0.8], np.float32))
    decayed_params = []
    no_decayed_params = []
    for param in net.trainable_params():
        if "beta" not in param.name and "gamma" not in param.name and "bias" not in param.name:
            decayed_params.append(param)
        else:
            no_decayed_params.append(param)
    group_params = [
        {"params": decayed_params, "weight_decay": 1e-4},
        {"params": no_decayed_params},
        {"order_params": net.trainable_params()},
    ]
    momentum = Momentum(group_params, lr, 0.9, loss_scale=1024)
    opt = momentum
    if optimizer == "LARS":  # MindSpore 2.10's CPU has no LARSUpdate kernel (refused in both modes)
        opt = LARS(
            momentum, epsilon=0.0, coefficient=0.001,
            lars_filter=lambda x: "beta" not in x.name and "gamma" not in x.name and "bias" not in x.name,
        )  # fmt: skip
    loss = CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1, num_classes=CLASSES)
    if amp_level == "O0":
        model = ms.Model(net, loss_fn=loss, optimizer=opt)
    else:
        loss_scale = FixedLossScaleManager(1024, drop_overflow_update=False)
        model = ms.Model(
            net, loss_fn=loss, optimizer=opt, loss_scale_manager=loss_scale, amp_level=amp_level,
            keep_batchnorm_fp32=False,
        )  # fmt: skip
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in momentum.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in momentum.moments]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[4:] or ["PYNATIVE_MODE"]:
        main(sys.argv[1], sys.argv[2], sys.argv[3], mode_name)
