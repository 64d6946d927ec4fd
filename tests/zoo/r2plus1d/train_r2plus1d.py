"""Four steps of the zoo's R(2+1)D (research/cv/r2plus1d/src/models.py: a (1,7,7) then (3,1,1) Conv3d stem, BasicBlocks
of Conv2Plus1D factorised convolutions with BatchNorm3d, strided downsample shortcuts, ReduceMean over (T, H, W),
Dense head) trained as its train.py wires it: SGD (momentum 0.9, weight decay 5e-4, an lr Tensor per step),
SoftmaxCrossEntropyWithLogits(sparse=True, reduction='sum') and Model(amp_level="auto").

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_r2plus1d.py [--amp LEVEL]
[--perturb EPS] MODE...; for each MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter,
each momentum's absolute sum and each BatchNorm moving statistic's sum after the last step). `--amp` replaces
train.py's 'auto'. `--perturb` sets the stem BatchNorm's gamma to 1 + EPS, a measure of the network's own
sensitivity (under 'auto' a perturbation of the input below float16's resolution vanishes at the first
convolution's cast; BatchNorm runs in float32).

The zoo trains layer_num 18/34 on 16x112x112 clips; here layers [1, 1, 1, 1] on 4x16x16 clips, batch 8, 5
classes, lr 1e-3 (the config's), so the last stage's BatchNorm normalises 8 values per channel (at batch 2 it
normalised 2: a step amplified rounding noise there). NumPy-seeded weights (the zoo's initializers draw from
MindSpore's generator); the head's Dropout(p=0.5) is replaced by an Identity (its mask comes from the framework's
generator); dataset_sink_mode=False (train.py sinks; a CPU run of four steps does not need it).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.models import BasicBlock, R2Plus1D  # noqa: E402

BATCH, FRAMES, SIZE, CLASSES, STEPS = 8, 4, 16, 5, 4


def main(mode: str, amp_level: str, perturb: float) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(21)
    labels = rng.randint(0, CLASSES, STEPS * BATCH).astype(np.int32)
    signal = rng.standard_normal((CLASSES, 3, FRAMES, SIZE, SIZE)).astype(np.float32)
    clips = signal[labels] + rng.standard_normal((STEPS * BATCH, 3, FRAMES, SIZE, SIZE))
    clips = clips.astype(np.float32)
    net = R2Plus1D(num_classes=CLASSES, block=BasicBlock, layers=[1, 1, 1, 1], num_segment=1, num_crop=1,
                   feat_ext=False, partial_bn=False)  # fmt: skip
    net.dropout = nn.Identity()
    rng = np.random.RandomState(22)
    for p in net.trainable_params():
        if p.name.endswith("weight") and len(p.shape) > 1:
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) * np.sqrt(2 / fan_in)).astype(np.float32)))
        elif p.name.startswith("fc.") and p.name.endswith("bias"):
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    gamma = next(p for p in net.trainable_params() if p.name.startswith("bn1.") and p.name.endswith("gamma"))
    gamma.set_data(Tensor(np.full(gamma.shape, 1 + perturb, np.float32)))
    net.set_train()
    lr = Tensor([1e-3] * STEPS, ms.float32)
    opt = nn.SGD(params=net.trainable_params(), momentum=0.9, learning_rate=lr, weight_decay=5e-4)
    loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="sum")
    model = ms.Model(net, loss_fn, opt, amp_level=amp_level)
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset({"clip": clips, "label": labels}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in opt.accum]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    args, level, eps = sys.argv[1:], "auto", 0.0
    while args and args[0].startswith("--"):
        flag, value, args = args[0], args[1], args[2:]
        level, eps = (value, eps) if flag == "--amp" else (level, float(value))
    for mode_name in args or ["PYNATIVE_MODE"]:
        main(mode_name, level, eps)
