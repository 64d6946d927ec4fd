"""Four steps of the zoo's SegFormer (research/cv/Segformer/src: the Mix Transformer backbone, with overlapping patch
embeddings, spatial-reduction attention (a strided convolution and LayerNorm on the keys and values) and Mix-FFN's
depthwise convolution, four stages; SegFormerHead's per-stage Dense projections, bilinear `ops.interpolate` to the
first stage's size, Concat, a 1x1 convolution with BatchNorm and ReLU and the 1x1 classifier; and the logits resized
bilinearly to the image) trained as its train.py wires it: CrossEntropy (the class-weighted
CrossEntropyWithLogitsAndWeights: a Python loop of Fill/Equal/Select over the classes, OneHot, ignore label 255),
WithLossCell, get_optimizer's AdamWeightDecay over two groups ('conv' parameters with weight decay 0.01, the rest with
the optimizer's) on its warm-up lr array, and TrainOneStepWithLossScaleCell with DynamicLossScaleUpdateCell(2**14, 2,
1000). MindSpore 2.10's CPU has no float-status kernels, so the driver's subclass checks overflow with isfinite.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_segformer.py [fp16] MODE...;
`fp16` applies train.py's `to_float(ms.float16)` to the network. For each MODE it prints `MODE losses: ...`,
`MODE loss-scale state: ...` (the loss scale after each step) and `MODE state: ...` (the sum of each parameter and
BatchNorm moving statistic, then the absolute sum of each Adam moment). The zoo trains mit_b0 (widths 32-256, two
blocks a stage) on 1024x1024 Cityscapes crops, 19 classes; here a Mix Transformer of widths 8, 16, 16, 24 (heads 1,
2, 2, 4, one block a stage, drop_path_rate 0: DropPath draws from MindSpore's generator), on 64x64 images, batch 2,
5 classes, labels with some 255s; the head's Dropout2d(0.1) (MindSpore's generator too) is an Identity. NumPy-seeded
weights.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import src.segformer  # noqa: E402
from src.loss import CrossEntropy  # noqa: E402
from src.mix_transformer import MixVisionTransformer  # noqa: E402
from src.optimizers import get_optimizer  # noqa: E402
from src.segformer import SegFormer  # noqa: E402

BATCH, SIZE, CLASSES, STEPS = 2, 64, 5, 4


def small_backbone(**kwargs):
    """The stand-in for MitB0 that SegFormer('mit_b0') builds: small widths, one block a stage, no DropPath."""
    return MixVisionTransformer(
        in_channel=3,
        embed_dims=[8, 16, 16, 24],
        num_heads=[1, 2, 2, 4],
        mlp_ratios=[2, 2, 2, 2],
        qkv_bias=True,
        drop_path_rate=0.0,
        depths=[1, 1, 1, 1],
        sr_ratios=[4, 2, 2, 1],
    )


class UnusedResize(nn.Cell):
    """Stands in for nn.ResizeBilinear, which MindSpore 2.10 (and Kiln) lack: the zoo's CrossEntropy builds one and
    calls it only when the logits' size differs from the labels' (SegFormer resizes them to the image first)."""

    def construct(self, x, size=None, align_corners=False):
        raise ValueError("the logits were expected at the labels' size")


class TrainCell(nn.TrainOneStepWithLossScaleCell):
    """The train cell with an overflow check MindSpore's CPU can run: not all gradients finite."""

    def get_overflow_status(self, status, compute_output):
        finite = ops.stack([ops.isfinite(g).all() for g in compute_output]).all()
        return ops.logical_not(finite)


def main(mode: str, fp16: bool) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(3)
    labels = rng.randint(0, CLASSES, (STEPS, BATCH, SIZE, SIZE))
    labels[rng.uniform(size=labels.shape) < 0.1] = 255
    labels = labels.astype(np.int32)
    signal = rng.standard_normal((CLASSES, 3)).astype(np.float32)
    images = signal[np.minimum(labels, CLASSES - 1)].transpose(0, 1, 4, 2, 3)
    images = (images + rng.standard_normal(images.shape)).astype(np.float32)
    src.segformer.MitB0 = small_backbone
    nn.ResizeBilinear = UnusedResize
    net = SegFormer("mit_b0", CLASSES)
    net.decode_head.dropout = nn.Identity()
    rng = np.random.RandomState(7)
    for p in net.trainable_params():
        if len(p.shape) > 1:
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) / np.sqrt(fan_in)).astype(np.float32)))
        elif p.name.endswith("gamma"):
            p.set_data(Tensor((1 + 0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
        else:
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    if fp16:
        net.to_float(ms.float16)
    loss_fn = CrossEntropy(num_classes=CLASSES, ignore_label=255)
    optimizer = get_optimizer(net, "adamw", lr=2e-3, epochs=1, weight_decay=0.05, step_per_epoch=STEPS, warmup_steps=2)
    net_with_loss = nn.WithLossCell(net, loss_fn)
    loss_scaler = nn.DynamicLossScaleUpdateCell(loss_scale_value=2**14, scale_factor=2, scale_window=1000)
    train = TrainCell(net_with_loss, optimizer, loss_scaler)
    train.set_train()
    losses, scales = [], []
    for step in range(STEPS):
        loss, _, scale = train(Tensor(images[step]), Tensor(labels[step]))
        losses.append(float(loss.asnumpy()))
        scales.append(float(scale.asnumpy()))
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters()]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moments1, *optimizer.moments2)]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} loss-scale state:", " ".join(repr(v) for v in scales))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    args = sys.argv[1:]
    half = bool(args) and args[0] == "fp16"
    for mode_name in args[half:] or ["PYNATIVE_MODE"]:
        main(mode_name, half)
