"""Five steps of the zoo's DBNet (official/cv/DBNet/src/modules) trained as train.py wires it: the backbone of
config_mobilenetv3_1p.yaml, MobileNetV3 (large, scale 0.5: ConvBNLayers with HSwish, ResidualUnits of expand,
depthwise and linear convolutions with SEModules of ops.mean, ReLU and HSigmoid) or of config_base.yaml, ResNet-18
(BasicBlocks of 3x3 convolutions, BatchNorms and residual adds, an nn.Pad and MaxPool2d stem), returning four stages;
the SegDetector neck (1x1 lateral convolutions, ResizeNearestNeighbor top-down adds, 3x3 outputs upsampled to one
size and concatenated); the binarize and threshold heads (a convolution, BatchNorms, ReLUs, two stride-2
Conv2dTransposes and a Sigmoid) and the differentiable binarisation 1 / (1 + exp(-k (P - T))); the zoo's
L1BalanceCELoss (BalanceCrossEntropyLoss's BCELoss with hard negatives mined by Sort and GatherNd, DiceLoss on the
binarised map, MaskL1Loss on the threshold map); Momentum 0.9 over init_group_params' groups (weight decay 1e-4 but
for BatchNorm and bias parameters, order_params) on the warmup_polydecay lr array; the zoo's TrainOneStepCell (a
TrainOneStepWithLossScaleCell with FixedLossScaleUpdateCell(1024), the overflow check, force_update); and
ms.Model(train_net).train. MindSpore 2.10's CPU has no float-status kernels (its loss-scale cells' overflow check
runs NPUGetFloatStatusV2 on CPU and fails), so the driver's subclass of the zoo's TrainOneStepCell checks overflow with
isfinite over the gradients instead: the zoo's construct is unchanged.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_dbnet.py BACKBONE MODE...
(BACKBONE: mobilenetv3 or resnet18); for each MODE it prints `MODE losses: ...` (each step's loss), `MODE overflow
state: ...` (each step's overflow flag and loss scale), `MODE step1 state: ...` and `MODE state: ...` (after the
first and the last step: the sum of each parameter, the absolute sum of each momentum and the sum of each BatchNorm
moving statistic). The zoo trains on 640x640 ICDAR2015 crops, batch 16, with pretrained backbones and mix_precision
(the backbone in float16 on Ascend; config_base.yaml: "set it to False on GPU/CPU"); here float32 on 64x64 synthetic
images, batch 2, with gt, gt_mask, thresh_map and thresh_mask maps of a few text boxes drawn by NumPy as the zoo's
pre_process shapes them, and NumPy-seeded weights in the zoo's kinds (its HeNormal draws from MindSpore's generator;
BatchNorm gamma and beta perturbed around the zoo's 1 and 1e-4 so that each matters). The rest of the config is
config_base.yaml's (inner_channels 256, k 50, base_lr 0.007 with 3 warm-up epochs, factor 0.9) with one step per
epoch, so the lr array's first entries are 0, 7e-3 / 3, 2 * 7e-3 / 3, 7e-3 and then the poly decay; the backbone is
not pretrained (no checkpoint). train.py sinks the dataset; here dataset_sink_mode=False, so that each step's outputs
are seen.
"""

import os
import sys
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops
from mindspore.train.callback import Callback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import src.modules.loss as loss  # noqa: E402
from src.modules.model import TrainOneStepCell, WithLossCell, get_dbnet  # noqa: E402
from src.utils.learning_rate import warmup_polydecay  # noqa: E402

BATCH, SIZE, STEPS = 2, 64, 5
IN_CHANNELS = {"mobilenetv3": [16, 24, 56, 480], "resnet18": [64, 128, 256, 512]}  # the configs' segdetector's
config = SimpleNamespace(
    net="DBnet",
    backbone=SimpleNamespace(initializer=None, pretrained=False, backbone_ckpt=None),  # initializer: set by main
    segdetector=SimpleNamespace(  # in_channels: set by main
        in_channels=None, inner_channels=256, k=50, bias=False, adaptive=True, serial=False
    ),
    loss=SimpleNamespace(eps=1e-6, l1_scale=10, bce_scale=5, bce_replace="bceloss"),
    optimizer=SimpleNamespace(
        type="momentum",
        momentum=0.9,
        weight_decay=1e-4,
        lr=SimpleNamespace(base_lr=0.007, target_lr=0.0, warmup_epoch=3, factor=0.9),
    ),
    train=SimpleNamespace(total_epochs=1200, start_epoch_num=0, clip_grad=False, force_update=True),
    mix_precision=False,
)


class TrainCell(TrainOneStepCell):
    """The zoo's train cell with an overflow check MindSpore's CPU can run: not all gradients finite."""

    def get_overflow_status(self, status, compute_output):
        finite = ops.stack([ops.isfinite(g).all() for g in compute_output]).all()
        return ops.logical_not(finite)


def init_group_params(net, weight_decay):  # train.py's
    decayed_params = []
    no_decayed_params = []
    for param in net.trainable_params():
        if "beta" not in param.name and "gamma" not in param.name and "bias" not in param.name:
            decayed_params.append(param)
        else:
            no_decayed_params.append(param)

    group_params = [{"params": decayed_params, "weight_decay": weight_decay},
                    {"params": no_decayed_params},
                    {"order_params": net.trainable_params()}]  # fmt: skip
    return group_params


def init_weights(net) -> None:
    """NumPy-seeded weights in the zoo's kinds: He-normal convolutions and transposed convolutions, BatchNorm gamma
    near 1 and beta near 1e-4, the transposed convolutions' biases near 0 (perturbed, so that every one matters)."""
    rng = np.random.RandomState(5)
    for p in net.trainable_params():
        shape = p.shape
        if len(shape) == 4:
            fan_in = shape[1] * shape[2] * shape[3]
            value = rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
        elif "gamma" in p.name:
            value = 1 + 0.1 * rng.standard_normal(shape)
        else:  # beta, the transposed convolutions' biases
            value = 0.1 * rng.standard_normal(shape)
        p.set_data(Tensor(value.astype(np.float32)))


def make_data(rng):
    """One sample's image (normalised, CHW), gt (1, H, W), gt_mask, thresh_map and thresh_mask (H, W): a few
    axis-aligned text boxes whose shrunk interiors are the gt, their borders the threshold region (values in the
    zoo's thresh_min 0.3 to thresh_max 0.7, highest at the box edge), one box marked don't-care in gt_mask."""
    gt = np.zeros((1, SIZE, SIZE), np.float32)
    gt_mask = np.ones((SIZE, SIZE), np.float32)
    thresh_map = np.full((SIZE, SIZE), 0.3, np.float32)
    thresh_mask = np.zeros((SIZE, SIZE), np.float32)
    image = rng.standard_normal((3, SIZE, SIZE)).astype(np.float32)
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    for box in range(3):
        h, w = rng.randint(8, 16), rng.randint(16, 32)
        y, x = rng.randint(4, SIZE - h - 4), rng.randint(4, SIZE - w - 4)
        if box == 2:  # don't care
            gt_mask[y : y + h, x : x + w] = 0
            continue
        image[:, y : y + h, x : x + w] += 1.5
        gt[0, y + 2 : y + h - 2, x + 2 : x + w - 2] = 1
        dist = np.minimum.reduce([np.abs(yy - y), np.abs(yy - y - h), np.abs(xx - x), np.abs(xx - x - w)])
        ring = (yy >= y - 3) & (yy < y + h + 3) & (xx >= x - 3) & (xx < x + w + 3)
        thresh_mask[ring] = 1
        thresh_map[ring] = np.maximum(thresh_map[ring], 0.7 - 0.4 * np.minimum(dist[ring], 3) / 3)
    return image, gt, gt_mask, thresh_map, thresh_mask


def state_sums(net, optimizer) -> list[float]:
    """The sum of each parameter, the absolute sum of each momentum and the sum of each BatchNorm moving statistic."""
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moments]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    return state


class Recorder(Callback):
    """Keeps each step's loss, overflow flag and loss scale (the zoo's TrainOneStepCell returns all three), and the
    state sums after the first step."""

    def __init__(self, net, optimizer):
        super().__init__()
        self.net, self.optimizer = net, optimizer
        self.losses, self.overflow, self.first = [], [], None

    def step_end(self, run_context):
        loss_value, cond, scale = run_context.original_args().net_outputs
        self.losses.append(float(loss_value.asnumpy()))
        self.overflow += [float(cond.asnumpy()), float(scale.asnumpy())]
        if self.first is None:
            self.first = state_sums(self.net, self.optimizer)


def main(backbone: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    config.backbone.initializer, config.segdetector.in_channels = backbone, IN_CHANNELS[backbone]
    rng = np.random.RandomState(11)
    columns = list(zip(*[make_data(rng) for _ in range(STEPS * BATCH)]))
    names = ["img", "gts", "gt_masks", "thresh_maps", "thresh_masks"]
    dataset = ms.dataset.NumpySlicesDataset({n: np.stack(c) for n, c in zip(names, columns)}, column_names=names,
                                            shuffle=False).batch(BATCH, drop_remainder=True)  # fmt: skip
    net = get_dbnet(config.net, config, isTrain=True)
    init_weights(net)
    lr = Tensor(warmup_polydecay(base_lr=config.optimizer.lr.base_lr, target_lr=config.optimizer.lr.target_lr,
                                 warmup_epoch=config.optimizer.lr.warmup_epoch, total_epoch=config.train.total_epochs,
                                 start_epoch=config.train.start_epoch_num, steps_pre_epoch=1,
                                 factor=config.optimizer.lr.factor))  # fmt: skip
    opt = nn.Momentum(params=init_group_params(net, config.optimizer.weight_decay), learning_rate=lr,
                      momentum=config.optimizer.momentum)  # fmt: skip
    criterion = loss.L1BalanceCELoss(eps=config.loss.eps, l1_scale=config.loss.l1_scale,
                                     bce_scale=config.loss.bce_scale, bce_replace=config.loss.bce_replace)  # fmt: skip
    net_with_loss = WithLossCell(net, criterion)
    train_net = TrainCell(net_with_loss, optimizer=opt, scale_sense=nn.FixedLossScaleUpdateCell(1024.0),
                         clip_grad=config.train.clip_grad, force_update=config.train.force_update)  # fmt: skip
    recorder = Recorder(net, opt)
    model = ms.Model(train_net)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} overflow state:", " ".join(repr(v) for v in recorder.overflow))
    print(f"{mode} step1 state:", " ".join(repr(v) for v in recorder.first))
    print(f"{mode} state:", " ".join(repr(v) for v in state_sums(net, opt)))


if __name__ == "__main__":
    for mode_name in sys.argv[2:] or ["PYNATIVE_MODE"]:
        main(sys.argv[1], mode_name)
