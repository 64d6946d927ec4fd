"""Four steps of the zoo's ConvNeXt (research/cv/convnext/src: a 4x4 stride-4 stem, ConvNextLayerNorm over the
channel axis by Transpose, Blocks of a depthwise 7x7 convolution, LayerNorm over the last axis, Dense/GELU/Dense and
the layer-scale gamma, 2x2 stride-2 downsampling, the mean over H and W and a Dense head) trained as its train.py
wires it: CrossEntropySmooth (label smoothing 0.1 through OneHot) in NetWithLoss, AdamWeightDecay over get_param_groups'
two groups (weights decayed, the rest not) on a per-step lr array, and TrainOneStepWithEMA (a FixedLossScaleUpdateCell
of 1, as amp_level O0 sets it, and the EMA copy of the weights updated by AssignAdd after each step). MindSpore
2.10's CPU has no float-status kernels, so the driver's subclass checks overflow with isfinite (as tests/zoo/ecapatdnn).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_convnext.py MODE...; for each
MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter, the absolute sum of each Adam
moment and the sum of each EMA weight after the last step). The zoo trains convnext_tiny (depths 3, 3, 9, 3, dims
96-768) on 224x224 ImageNet; here depths 1, 2, 1, 1, dims 8, 16, 16, 24 on 32x32 images, batch 4, 5 classes,
drop_path_rate 0 (DropPath's Dropout draws from MindSpore's generator). NumPy-seeded weights (the zoo's
TruncatedNormal draws from MindSpore's generator).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.models.convnext import ConvNeXt  # noqa: E402
from src.tools.criterion import CrossEntropySmooth, NetWithLoss  # noqa: E402
from src.trainer.train_one_step_with_ema import TrainOneStepWithEMA  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 4, 32, 5, 4


class TrainCell(TrainOneStepWithEMA):
    """The zoo's cell with an overflow check MindSpore's CPU can run: not all gradients finite."""

    def get_overflow_status(self, status, compute_output):
        finite = ops.stack([ops.isfinite(g).all() for g in compute_output]).all()
        return ops.logical_not(finite)


def get_param_groups(network):
    """get_optimizer's groups (src/tools/optimizer.py, which imports the zoo's scheduler and args modules)."""
    decay_params = []
    no_decay_params = []
    for x in network.trainable_params():
        if x.name.endswith(".weight"):
            decay_params.append(x)
        else:
            no_decay_params.append(x)
    return [{"params": no_decay_params, "weight_decay": 0.0}, {"params": decay_params}]


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(3)
    labels = rng.randint(0, CLASSES, size=(STEPS, BATCH)).astype(np.int32)
    signal = rng.standard_normal((CLASSES, 3, SIZE, SIZE)).astype(np.float32)
    images = (signal[labels] + rng.standard_normal((STEPS, BATCH, 3, SIZE, SIZE))).astype(np.float32)
    net = ConvNeXt(in_chans=3, num_classes=CLASSES, depths=[1, 2, 1, 1], dims=[8, 16, 16, 24], drop_path_rate=0.0)
    rng = np.random.RandomState(7)
    for p in net.trainable_params():
        if p.name.endswith("weight"):
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) / np.sqrt(fan_in)).astype(np.float32)))
        elif p.name.endswith("bias") or p.name.endswith("beta"):
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
        else:  # the LayerNorm gammas and the blocks' layer-scale gamma
            p.set_data(Tensor((1 + 0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    criterion = CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1, num_classes=CLASSES)
    net_with_loss = NetWithLoss(net, criterion)
    lr = np.array([1e-3, 2e-3, 3e-3, 2e-3], np.float32)
    opt = nn.AdamWeightDecay(
        get_param_groups(net), learning_rate=lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.05
    )
    scale_sense = nn.wrap.FixedLossScaleUpdateCell(loss_scale_value=1.0)
    train = TrainCell(net_with_loss, opt, scale_sense=scale_sense, with_ema=True, ema_decay=0.9)
    train.set_train()
    losses = []
    for step in range(STEPS):
        loss = train((Tensor(images[step]), Tensor(labels[step])))
        losses.append(float(loss.asnumpy()))
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*opt.moments1, *opt.moments2)]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in train.ema_model.ema_weights]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
