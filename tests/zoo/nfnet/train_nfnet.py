"""Training of the zoo's NFNet (research/cv/NFNet/src: ScaledStdConv2d weight standardisation, grouped convolutions,
SE attention, GELU (tanh form) with the NF gain constants, a deep_quad stem) through the zoo's hand-written gradient
accumulation cell (TrainOneStepWithLossScaleCellAccumulation: AssignAdd into cloned accumulator Parameters, an int64
step-counter Parameter, `if not overflow` and `if step % accumulation_step == 0` in construct, Assign to clear) with
a DynamicLossScaleUpdateCell, the zoo's SGDAGC optimizer (adaptive gradient clipping per unit, ApplyMomentum) over
get_param_groups' two weight-decay groups (its constructor walks `group_params`) and get_optimizer's cosine lr array
sliced per accumulation step, and Model(metrics={"acc", "loss"}, eval_network=WithEvalCell, eval_indexes) with
model.train, a callback reading cb_params, and model.eval, as train.py and get_misc.get_train_one_step wire them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_nfnet.py MODE...; for each
MODE it prints `MODE losses: ...` (the loss of each of the six micro-steps) and `MODE state: ...` (the loss scale
after each micro-step, the step counter, the optimizer's global step, each parameter's sum and each momentum's
absolute sum, then model.eval's acc and loss). Two stages of one block (channels 16 and 32, group size 8,
num_features 64), 16x16 images of standard deviation 4, batches of 4, 5 classes, accumulation_step 2, three epochs
of two batches; weights from a seeded NumPy normal (the zoo draws them from MindSpore's generator); amp_level O0
(the config's O2 casts the network to float16). The loss scale starts at 3e38 with a scale factor of 1e34 and a
window of 2: the first micro-step's gradients overflow (skipped: no accumulation, no step count, the scale falls to
3e4), two clean micro-steps grow it back to 3e38, the fourth overflows again, so the optimizer runs twice.

Departures from the zoo, each forced by MindSpore 2.10 on the CPU: the overflow check uses isfinite (no float-status
kernels); SGDAGC gets the `ps_parameters` and `cache_enable` flags MindSpore 1.x's Optimizer had; use_nesterov is
False (the config's True): MindSpore 2.10's CPU ApplyMomentum ignores use_nesterov (its kernel has no Nesterov
branch, both modes), where Kiln's applies the documented rule, so the two would differ by design.
"""

import os
import sys
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import nn, ops
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.models.NFNet.nfnet import NfCfg, NormFreeNet  # noqa: E402
from src.tools import optimizer as zoo_optimizer  # noqa: E402
from src.tools.AGCSGD import SGDAGC  # noqa: E402
from src.tools.criterion import CrossEntropySmooth, NetWithLoss  # noqa: E402
from src.trainer.accu_grad_trainer import TrainOneStepWithLossScaleCellAccumulation  # noqa: E402

BATCH, CLASSES, SIZE, BATCHES, EPOCHS, ACCUMULATION = 4, 5, 16, 2, 3, 2
IMAGE_STD = 4.0  # large enough that a 3e38 loss scale overflows the gradients
ARGS = SimpleNamespace(
    accumulation_step=ACCUMULATION,
    base_lr=0.4,
    clipping=0.01,
    lr_scheduler="cosine_lr",
    min_lr=6e-7,
    use_nesterov=False,
    optimizer="SGDAGC",
    warmup_length=0,
    warmup_lr=7e-7,
    batch_size=BATCH,
    device_num=1,
    epochs=EPOCHS,
    start_epoch=0,
    eps=0.001,
    momentum=0.9,
    weight_decay=2e-5,
)


class TrainCell(TrainOneStepWithLossScaleCellAccumulation):
    """The zoo's accumulation cell with an overflow check MindSpore's CPU can run (it has no float-status kernels):
    not all gradients finite, as tests/zoo/convnext."""

    def get_overflow_status(self, status, compute_output):
        finite = ops.stack([ops.isfinite(g).all() for g in compute_output]).all()
        return ops.logical_not(finite)


class SGDAGCWithPsFlags(SGDAGC):
    """The zoo's SGDAGC with the two per-parameter flags its construct reads from MindSpore 1.x's Optimizer
    (parameter-server placement and embedding cache; MindSpore 2.10 has neither): all False, the zoo's own path."""

    def __init__(self, params, **kwargs):
        super().__init__(params, **kwargs)
        self.ps_parameters = tuple(False for _ in self.parameters)
        self.cache_enable = tuple(False for _ in self.parameters)


zoo_optimizer.SGDAGC = SGDAGCWithPsFlags  # get_optimizer builds its optimizer by this module-level name


class ScaleRecorder(Callback):
    """Keeps each micro-step's loss and the train cell's loss scale after it (read from cb_params)."""

    def __init__(self, losses: list, scales: list):
        super().__init__()
        self.losses, self.scales = losses, scales

    def step_end(self, run_context):
        cb_params = run_context.original_args()
        self.losses.append(float(cb_params.net_outputs.asnumpy()))
        self.scales.append(float(cb_params.train_network.scale_sense.asnumpy()))


def set_weights(net: nn.Cell, rng: np.random.RandomState) -> None:
    """NumPy-drawn weights: convolution and dense weights N(0, 1/fan_in), gains 1 + N(0, 0.1) (the zoo's
    zero-initialised last gain of a block would hide its residual branch from a short run), biases N(0, 0.05)."""
    for p in net.trainable_params():
        if "gain" in p.name:
            value = 1.0 + 0.1 * rng.standard_normal(p.shape)
        elif "bias" in p.name:
            value = 0.05 * rng.standard_normal(p.shape)
        else:
            value = rng.standard_normal(p.shape) / np.sqrt(np.prod(p.shape[1:]))
        p.set_data(ms.Tensor(value.astype(np.float32)))


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(11)
    cfg = NfCfg(
        depths=(1, 1),
        channels=(16, 32),
        stem_type="deep_quad",
        stem_chs=16,
        group_size=8,
        bottle_ratio=0.5,
        extra_conv=True,
        num_features=64,
        act_layer="gelu",
        attn_layer="se",
        attn_kwargs=dict(rd_ratio=0.5),
    )
    net = NormFreeNet(cfg, num_classes=CLASSES, in_channel=3)
    set_weights(net, rng)
    criterion = CrossEntropySmooth(sparse=True, reduction="mean", smooth_factor=0.1, num_classes=CLASSES)
    net_with_loss = NetWithLoss(net, criterion)
    optimizer = zoo_optimizer.get_optimizer(ARGS, net, BATCHES)
    scale_sense = nn.wrap.loss_scale.DynamicLossScaleUpdateCell(
        loss_scale_value=3e38, scale_factor=1e34, scale_window=2
    )
    train_net = TrainCell(net_with_loss, optimizer, scale_sense=scale_sense, accumulation_step=ACCUMULATION)
    eval_network = nn.WithEvalCell(net, criterion, False)
    model = ms.Model(train_net, metrics={"acc", "loss"}, eval_network=eval_network, eval_indexes=[0, 1, 2])
    images = (IMAGE_STD * rng.standard_normal((BATCH * BATCHES, 3, SIZE, SIZE))).astype(np.float32)
    labels = rng.randint(0, CLASSES, BATCH * BATCHES).astype(np.int32)
    data = ms.dataset.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(BATCH)
    losses, scales = [], []
    model.train(EPOCHS, data, callbacks=[ScaleRecorder(losses, scales)], dataset_sink_mode=False)
    metrics = model.eval(data, dataset_sink_mode=False)
    counters = (train_net.cur_step_num, optimizer.global_step)
    state = scales + [float(c.asnumpy().reshape(-1)[0]) for c in counters]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moments]
    state += [float(metrics["acc"]), float(metrics["loss"])]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
