"""Four steps of the zoo's SlowFast (research/cv/slowfast/src/models: a Slow and a Fast pathway of ResNet-50
bottleneck stages of Conv3d and BatchNorm3d, strided temporal Conv3d lateral fusions Fast->Slow, and the AVA
detection head: ReduceMean over time, ROIAlign per pathway, MaxPool2d, Dense, Sigmoid) trained as its train.py wires
it: NetWithLoss (BCELoss masked by the padded boxes, copied: train.py is a script), SGD with momentum over the
BatchNorm / other parameter groups of the zoo's construct_optimizer on its warm-up step lr list, and Model with a
loss-scale manager.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_slowfast.py [--perturb EPS]
MODE...; for each MODE it prints `MODE losses: ...` and `MODE state: ...` (each parameter's sum, each momentum's
absolute sum and each moving statistic's sum after the last step). `--perturb` multiplies every BatchNorm gamma by
1 + EPS, a measure of the network's own sensitivity.

The zoo trains 32-frame 224x224 AVA clips at width 64 and 80 classes; here width 8 (the Fast pathway's stem is one
channel wide: BETA_INV 8), ALPHA 4, 8 frames of 32x32, batch 2 of up to two boxes (the second of every other clip
is the dataset's zero padding, masked out of the loss), 5 classes, ROI_XFORM_RESOLUTION 2, dropout 0 (its mask comes
from the framework's generator), NumPy-seeded weights (the head's Dense draws from NumPy's global generator, seeded
here) and a config namespace in place of the zoo's fvcore CfgNode (absent from both environments).
train.py's DynamicLossScaleManager(1024, 1000) is refused by MindSpore on CPU; FixedLossScaleManager(1024) is used
(no step overflows, so the dynamic one's scale would stay 1024 too). dataset_sink_mode=False.
"""

import os
import sys
from types import SimpleNamespace as NS

import mindspore as ms
import numpy as np
from mindspore import FixedLossScaleManager, Tensor, dtype, nn
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.models import optimizer as optim  # noqa: E402
from src.models.video_model_builder import SlowFast  # noqa: E402

BATCH, BOXES, FRAMES, SIZE, CLASSES, STEPS = 2, 2, 8, 32, 5, 4

CFG = NS(
    MODEL=NS(ARCH="slowfast", NUM_CLASSES=CLASSES, DROPOUT_RATE=0.0, HEAD_ACT="sigmoid"),
    RESNET=NS(
        DEPTH=50,
        NUM_GROUPS=1,
        WIDTH_PER_GROUP=8,
        TRANS_FUNC="bottleneck_transform",
        NUM_BLOCK_TEMP_KERNEL=[[3, 3], [4, 4], [6, 6], [3, 3]],
        SPATIAL_DILATIONS=[[1, 1], [1, 1], [1, 1], [2, 2]],
        SPATIAL_STRIDES=[[1, 1], [2, 2], [2, 2], [1, 1]],
    ),
    SLOWFAST=NS(ALPHA=4, BETA_INV=8, FUSION_CONV_CHANNEL_RATIO=2, FUSION_KERNEL_SZ=7),
    NONLOCAL=NS(
        LOCATION=[[[], []], [[], []], [[], []], [[], []]],
        GROUP=[[1, 1], [1, 1], [1, 1], [1, 1]],
        INSTANTIATION="dot_product",
        POOL=[[[1, 2, 2], [1, 2, 2]]] * 4,
    ),
    DATA=NS(NUM_FRAMES=FRAMES, INPUT_CHANNEL_NUM=[3, 3], TRAIN_CROP_SIZE=SIZE),
    DETECTION=NS(ENABLE=True, ALIGNED=True, ROI_XFORM_RESOLUTION=2, SPATIAL_SCALE_FACTOR=16),
    MULTIGRID=NS(SHORT_CYCLE=False),
    BN=NS(WEIGHT_DECAY=0.0),
    SOLVER=NS(
        BASE_LR=1e-4,
        LR_POLICY="steps_with_relative_lrs",
        STEPS=[0],
        LRS=[1],
        MAX_EPOCH=1,
        MOMENTUM=0.9,
        WEIGHT_DECAY=1e-4,
        WARMUP_EPOCHS=0.5,
        WARMUP_START_LR=2e-5,
        OPTIMIZING_METHOD="sgd",
        DAMPENING=0.0,
        NESTEROV=False,
        COSINE_AFTER_WARMUP=False,
    ),
)


class NetWithLoss(nn.Cell):
    """train.py's NetWithLoss (copied: train.py is a script, not a module)."""

    def __init__(self, net):
        super().__init__()
        self.loss = nn.BCELoss(reduction="none").to_float(dtype.float32)
        self.net = net.to_float(dtype.float32)

    def construct(self, slowpath, fastpath, boxes, labels, mask):
        preds = self.net(slowpath, fastpath, boxes)
        preds = preds.reshape(mask.shape + (-1,))
        mask = mask.reshape(mask.shape + (1,))
        loss = self.loss(preds, labels) * mask
        loss = loss.astype(dtype.float32).sum() / mask.astype(dtype.float32).sum() / preds.shape[2]
        return loss


class LossRecorder(Callback):
    """Keeps each step's loss."""

    def __init__(self):
        super().__init__()
        self.losses = []

    def step_end(self, run_context):
        out = run_context.original_args().net_outputs
        out = out[0] if isinstance(out, (tuple, list)) else out
        self.losses.append(float(out.asnumpy()))


def data():
    """STEPS batches of clips (slow: every ALPHA-th frame of the fast clip), boxes, labels and masks."""
    rng = np.random.RandomState(43)
    n = STEPS * BATCH
    fast = rng.standard_normal((n, 3, FRAMES, SIZE, SIZE)).astype(np.float32)
    slow = np.ascontiguousarray(fast[:, :, :: CFG.SLOWFAST.ALPHA])
    x1 = rng.uniform(0, SIZE / 2, (n, BOXES, 1))
    y1 = rng.uniform(0, SIZE / 2, (n, BOXES, 1))
    w = rng.uniform(SIZE / 4, SIZE / 2, (n, BOXES, 1))
    h = rng.uniform(SIZE / 4, SIZE / 2, (n, BOXES, 1))
    boxes = np.concatenate([x1, y1, x1 + w, y1 + h], axis=2).astype(np.float32)
    labels = (rng.uniform(size=(n, BOXES, CLASSES)) < 0.4).astype(np.float32)
    mask = np.ones((n, BOXES), np.float32)
    mask[::2, -1] = 0  # every other clip has one box; the dataset pads with a zero box
    boxes[::2, -1] = 0
    return {"slow": slow, "fast": fast, "boxes": boxes, "labels": labels, "mask": mask}


def main(mode: str, amp_level: str, perturb: float) -> None:
    ms.set_context(mode=getattr(ms, mode))
    np.random.seed(5)  # the head's Dense draws its init from NumPy's global generator
    network = SlowFast(CFG).set_train(True)
    rng = np.random.RandomState(44)
    for p in network.trainable_params():
        if len(p.shape) > 1:
            fan_in = int(np.prod(p.shape[1:]))
            p.set_data(Tensor((rng.standard_normal(p.shape) * np.sqrt(2 / fan_in)).astype(np.float32)))
        elif p.name.endswith(".gamma"):
            p.set_data(Tensor((1 + 0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
        else:
            p.set_data(Tensor((0.1 * rng.standard_normal(p.shape)).astype(np.float32)))
    for p in network.trainable_params():  # --perturb: every BatchNorm gamma times 1 + EPS (the network's sensitivity)
        if p.name.endswith(".gamma"):
            p.set_data(Tensor((p.asnumpy() * np.float32(1 + perturb)).astype(np.float32)))
    net_with_loss = NetWithLoss(network).to_float(dtype.float32)
    # train.py's DynamicLossScaleManager(1024, 1000) is refused by MindSpore on CPU; with no overflow in four steps
    # its scale stays 1024, which this fixed one (the kind CPU accepts) keeps too.
    loss_scale_manager = FixedLossScaleManager(1024, drop_overflow_update=False)
    optimizer = optim.construct_optimizer(net_with_loss, STEPS, CFG)
    kwargs = {} if amp_level is None else {"amp_level": amp_level}
    model = ms.Model(network=net_with_loss, optimizer=optimizer, loss_scale_manager=loss_scale_manager, **kwargs)
    recorder = LossRecorder()
    columns = ["slow", "fast", "boxes", "labels", "mask"]
    dataset = ms.dataset.NumpySlicesDataset(data(), column_names=columns, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.accum]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in network.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    args, level, eps = sys.argv[1:], None, 0.0
    while args and args[0].startswith("--"):
        flag, value, args = args[0], args[1], args[2:]
        level, eps = (value, eps) if flag == "--amp" else (level, float(value))
    for mode_name in args or ["PYNATIVE_MODE"]:
        main(mode_name, level, eps)
