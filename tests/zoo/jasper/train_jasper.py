"""Four steps of the zoo's Jasper speech recogniser (research/audio/jasper/src/model.py: JasperEncoder's blocks of
MaskedConv1d (a length mask from an index Tensor, the output lengths computed with floor division), BatchNorm2d over
an expanded axis, ReLU and Dropout, with dense residuals (each block adds 1x1 convolutions of every earlier block's
output, a Python list grown in construct), JasperDecoderForCTC (a 1x1 Conv1d, LogSoftmax over the classes, transposes
to time-major) and NetWithLossClass (P.CTCLoss on sparse labels, ReduceMean)) trained as its train.py trains it on CPU:
the network `to_float(float16)`, init_weights, AdamWeightDecay (eps 1e-5, weight decay 1e-3) on get_lr's warm-up
array, Model with FixedLossScaleManager(128) (MindSpore refuses train.py's drop_overflow_update=True on CPU).

A MindSpore script: run it with MindSpore (the goldens) or with `kiln run`. Usage: train_jasper.py [fp32] [fp16]
MODE...; for each MODE and each precision it prints `MODE [fp16] losses: ...` and `MODE [fp16] state: ...` (the sum of
each parameter of the loss network, BatchNorm's moving statistics included, then the absolute sum of each Adam
moment). fp16 is train.py's `to_float(float16)`; fp32 leaves that out. The zoo's config is 64 filter-bank features,
blocks of 256-1024 filters with kernels 11-29, 29 symbols, batch 64 of up to 1,500 frames; here 8 features, a stride-2
block, two dense-residual blocks of two convolutions, a dilation-2 block and a 1x1 block (8-12 filters, kernels 5),
6 classes, batch 3 of 24 frames with labels of 4, dropout 0 (its Dropout draws from MindSpore's generator),
NumPy-seeded weights. Every sample keeps its 24 frames: MindSpore 2.10's CPU CTCLoss leaves the gradient rows past a
sample's length unwritten (its two modes then differ by 1.5% at step 4).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor
from mindspore.nn.optim import AdamWeightDecay
from mindspore.train.loss_scale_manager import FixedLossScaleManager

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.lr_generator import get_lr  # noqa: E402
from src.model import Jasper, NetWithLossClass, init_weights  # noqa: E402

FEATS, FILTERS, OUT_FILTERS, CLASSES, BATCH, FRAMES, LABEL_LEN, STEPS = 8, 8, 12, 6, 3, 24, 4, 4


def blocks() -> list[dict]:
    """The zoo's YAML block list, small: Conv1 (stride 2), two B1 (dense residual), Conv2 (dilation 2), Conv3 (1x1)."""
    common = dict(stride=1, dilation=1, dropout=0.0)
    dense = dict(common, filters=FILTERS, repeat=2, kernel_size=5, residual=True, residual_dense=True)
    return [
        dict(common, filters=FILTERS, repeat=1, kernel_size=5, stride=2, residual=False),
        dense,
        dict(dense),
        dict(common, filters=OUT_FILTERS, repeat=1, kernel_size=5, dilation=2, residual=False),
        dict(common, filters=OUT_FILTERS, repeat=1, kernel_size=1, residual=False),
    ]


def batches(rng: np.random.RandomState) -> list[tuple]:
    """STEPS batches of (features, lengths, sparse label indices, label values) as the zoo's dataset gives them."""
    indices = np.stack(np.meshgrid(np.arange(BATCH), np.arange(LABEL_LEN), indexing="ij"), -1).reshape(-1, 2)
    out = []
    for _ in range(STEPS):
        features = rng.standard_normal((BATCH, FEATS, FRAMES)).astype(np.float32)
        labels = rng.randint(0, CLASSES - 1, (BATCH * LABEL_LEN,)).astype(np.int32)  # CLASSES - 1 is the blank
        out.append((features, np.full((BATCH,), FRAMES, np.int32), indices.astype(np.int64), labels))
    return out


def main(precision: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(4)
    encoder_kw = dict(in_feats=FEATS, frame_splicing=1, activation="relu", weight_init="xavier_uniform",
                      use_conv_masks=True, blocks=blocks())  # fmt: skip
    jasper_net = Jasper(encoder_kw=encoder_kw, decoder_kw=dict(in_feats=OUT_FILTERS, n_classes=CLASSES))
    if precision == "fp16":
        jasper_net = jasper_net.to_float(ms.float16)
    loss_net = NetWithLossClass(jasper_net, ascend=False)
    init_weights(loss_net)  # its Xavier draws come from MindSpore's generator: replaced below
    for p in sorted(loss_net.trainable_params(), key=lambda q: q.name):
        if p.name.endswith("gamma"):
            continue
        fan_in = int(np.prod(p.shape[1:])) if len(p.shape) > 1 else 16
        p.set_data(Tensor((rng.uniform(-1, 1, p.shape) * np.sqrt(3 / fan_in)).astype(np.float32)))
    lr = Tensor(get_lr(lr_init=0.01, total_epochs=1, steps_per_epoch=STEPS))
    optimizer = AdamWeightDecay(ms.ParameterTuple(jasper_net.trainable_params()), learning_rate=lr, eps=1e-5,
                                weight_decay=1e-3)  # fmt: skip
    model = ms.Model(loss_net, optimizer=optimizer, loss_scale_manager=FixedLossScaleManager(128.0, False))
    data = batches(rng)
    dataset = ms.dataset.GeneratorDataset(lambda: iter(data), ["x", "x_len", "label_indices", "label_values"],
                                          shuffle=False)  # fmt: skip
    recorder = LossRecorder()
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in loss_net.get_parameters()]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*optimizer.moments1, *optimizer.moments2)]
    name = f"{mode} fp16" if precision == "fp16" else mode
    print(f"{name} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{name} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    precisions = [a for a in sys.argv[1:] if a in ("fp32", "fp16")] or ["fp32"]
    for mode_name in [a for a in sys.argv[1:] if a.endswith("_MODE")] or ["PYNATIVE_MODE"]:
        for precision_name in precisions:
            main(precision_name, mode_name)
