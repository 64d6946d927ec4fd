"""Four steps of the zoo's SwinTransformer (official/cv/SwinTransformer/src: a patch-embedding convolution, window
attention with the relative position bias table gathered by a one-hot MatMul, the shifted windows' numpy.roll and
attention mask, PatchMerging, the mean over tokens and a Dense head) trained as its train.py wires it: cast_amp at
the config's amp_level O1 (the network to_float(float16), its GELU, Softmax, Conv2d and LayerNorm Cells back to
float32), SoftTargetCrossEntropy (its config's mixup gives soft labels) in NetWithLoss, AdamWeightDecay over
get_param_groups' two groups on a per-step lr array, and its TrainOneStepWithLossScaleCellGlobalNormClip with a
DynamicLossScaleUpdateCell (global-norm clip 5), through Model.train. MindSpore 2.10's CPU has no float-status
kernels, so the driver's subclass checks overflow with isfinite (as tests/zoo/convnext).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_swintransformer.py
[--amp O0|O1] MODE...; for each MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter
and the absolute sum of each Adam moment after the last step, the key projections' biases left out). The zoo trains
swin_tiny (embed_dim 96, depths 2, 2, 6, 2, window 7) on 224x224 ImageNet at batch 128; here embed_dim 8, depths 2, 2,
heads 2, 4, window 4 (the first stage's second block shifts by 2; the second stage's 4x4 tokens fit one window,
unshifted), patch 2 on 16x16 images, mlp_ratio 2, batch 4, 5 classes, drop_path_rate 0 (DropPath's Dropout draws from
MindSpore's generator), and an initial loss scale of 2**12 (the zoo's 2**24 overflows float16 every step here).
NumPy-seeded weights (the zoo's TruncatedNormal draws from MindSpore's generator; RelativeBias draws its table from
NumPy's global generator).
"""

import argparse
import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.args import args  # noqa: E402
from src.models.swintransformer.swin_transformer import SwinTransformer  # noqa: E402
from src.tools.cell import cast_amp  # noqa: E402
from src.tools.criterion import NetWithLoss, SoftTargetCrossEntropy  # noqa: E402
from src.trainers import TrainClipGrad  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 4, 16, 5, 4


class TrainCell(TrainClipGrad):
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


def main(mode: str, amp_level: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    args.amp_level = amp_level
    np.random.seed(2)
    net = SwinTransformer(
        image_size=SIZE,
        patch_size=2,
        in_chans=3,
        num_classes=CLASSES,
        embed_dim=8,
        depths=[2, 2],
        num_heads=[2, 4],
        window_size=4,
        mlp_ratio=2.0,
        drop_rate=0.0,
        drop_path_rate=0.0,
    )
    rng = np.random.RandomState(7)
    for p in net.trainable_params():
        if p.name.endswith("weight"):
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) / np.sqrt(fan_in)).astype(np.float32)))
        elif p.name.endswith("bias") or p.name.endswith("beta"):
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
        elif p.name.endswith("gamma"):
            p.set_data(Tensor((1 + 0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    cast_amp(net)
    net_with_loss = NetWithLoss(net, SoftTargetCrossEntropy())
    lr = np.array([5e-4, 1e-3, 1e-3, 5e-4], np.float32)
    opt = nn.AdamWeightDecay(
        get_param_groups(net), learning_rate=lr, beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.05
    )
    if amp_level == "O0":  # cast_amp's fixed loss scale of 1
        scale_sense = nn.wrap.FixedLossScaleUpdateCell(loss_scale_value=1.0)
    else:
        scale_sense = nn.wrap.loss_scale.DynamicLossScaleUpdateCell(
            loss_scale_value=2**12, scale_factor=2, scale_window=2000
        )
    train = TrainCell(net_with_loss, opt, scale_sense=scale_sense, use_global_norm=True, clip_global_norm_value=5.0)

    rng = np.random.RandomState(3)
    labels = rng.randint(0, CLASSES, size=(STEPS * BATCH,))
    signal = rng.standard_normal((CLASSES, 3, SIZE, SIZE)).astype(np.float32)
    images = (signal[labels] + rng.standard_normal((STEPS * BATCH, 3, SIZE, SIZE))).astype(np.float32)
    onehot = np.eye(CLASSES, dtype=np.float32)[labels]
    soft = (0.7 * onehot + 0.3 * np.roll(onehot, 1, axis=0)).astype(np.float32)  # mixup's blend with the next image
    dataset = ms.dataset.NumpySlicesDataset({"data": images, "label": soft}, shuffle=False).batch(BATCH)
    recorder = LossRecorder()
    ms.Model(train).train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    # the key projections' biases are left out: the Softmax over keys cancels them, so their gradients are rounding
    # noise that Adam scales to a full step (MindSpore's own two modes differ by 0.03 in their sums)
    kept = [i for i, p in enumerate(opt.parameters) if not p.name.endswith("attn.k.bias")]
    state = [float(opt.parameters[i].asnumpy().astype(np.float64).sum()) for i in kept]
    for moments in (opt.moments1, opt.moments2):
        state += [float(np.abs(moments[i].asnumpy().astype(np.float64)).sum()) for i in kept]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--amp", default="O1", choices=("O0", "O1"))
    parser.add_argument("modes", nargs="*", default=["PYNATIVE_MODE"])
    cli = parser.parse_args()
    for mode_name in cli.modes:
        main(mode_name, cli.amp)
