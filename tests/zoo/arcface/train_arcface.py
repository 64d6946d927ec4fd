"""Four steps of the zoo's ArcFace (official/cv/Arcface: src/iresnet.py's IResNet, IBasicBlocks of BatchNorm2d, 3x3
Conv2d, PReLU and a residual Add, with a 1x1 Conv2d/BatchNorm2d downsample where a stage begins, then BatchNorm2d,
Flatten, Dropout(0), Dense and a BatchNorm1d whose gamma is frozen; src/loss.py's PartialFC: L2Normalize of the
features and of its class weights, a float16 MatMul(transpose_b), the ArcFace margin (OneHot of the margin, ACos, add,
Cos, scale 64) and its own softmax cross-entropy of ReduceMax, Exp, Div, Log and a OneHot mask) trained as its
train.py wires it: MyNetWithLoss (the backbone to_float(float16), PartialFC to_float(float32), auto_prefix=False),
nn.SGD (momentum 0.9, weight decay 1e-4) on lr_generator's array scaled by batch / 512, and Model(train_net,
optimizer=...).train with ModelCheckpoint; then val.py's embedding extraction: the checkpoint loaded into a new
backbone (its parameter names are the checkpoint's, thanks to auto_prefix=False), which embeds each image and its
flip in float32 with the BatchNorms' moving statistics.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_arcface.py [--perturb EPS]
[--perturb-seed SEED] MODE...; for each MODE it prints `MODE losses: ...`, `MODE step1 state: ...` and `MODE state:
...` (after the first and the last step: the sum of each parameter, the absolute sum of each SGD momentum and the
sum of each BatchNorm moving statistic), and `MODE embedding state: ...` (for each image and flip, the embedding's
norm and its first 8 values, then val.py's squared distances of the pairs' normalised flip-summed embeddings).
`--perturb` scales each initial weight by 1 + EPS times a standard normal draw (from a NumPy generator seeded SEED,
default 7), a measure of the network's own sensitivity.

The zoo trains iresnet100 on 112x112 MS1M faces, batch 64, 85742 classes; here the zoo's IResNet built by its
`_iresnet` with 2, 1, 1, 1 IBasicBlocks per stage (iresnet18, the zoo's smallest, has 2, 2, 2, 2: some 20 s
more of Kiln's compilation for the same operations; the first stage's second block keeps the identity residual),
its widths fixed at 64-512 and num_features 512 (which PartialFC's weight requires), on 32x32 images: the four
stride-2 stages leave a 2x2 map, so the driver sets IResNet.fc_scale (the class attribute the zoo fixes at 7 * 7 for
112x112) to 2 * 2 before building it. Batch 4, 6 classes: at batch 2 the features' BatchNorm1d normalises two values
per channel to +-1 whatever they are, and the backbone's gradient is rounding noise. The images are synthetic, the
training ones already normalised as dataset.py's Normalize leaves them (its ImageFolderDataset shuffles and its
RandomHorizontalFlip flips from MindSpore's generator), fed by a NumpySlicesDataset without dataset sinking (train.py
sinks), so that each step's loss is seen. The weights are NumPy-seeded (the zoo's initializers draw from MindSpore's
generator). train.py's MyNetWithLoss and lr_generator are copied here: train.py parses its command line at import.
"""

import argparse
import os
import sys
import tempfile
from types import SimpleNamespace

import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import numpy as np
from mindspore import Tensor
from mindspore import dtype as mstype
from mindspore.train.callback import CheckpointConfig, ModelCheckpoint
from mindspore.train.serialization import load_checkpoint, load_param_into_net

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.iresnet import IBasicBlock, IResNet, _iresnet  # noqa: E402
from src.loss import PartialFC  # noqa: E402

BATCH, SIZE, CLASSES, STEPS, PAIRS = 4, 32, 6, 4, 2
LAYERS = [2, 1, 1, 1]  # IBasicBlocks per stage: iresnet18's [2, 2, 2, 2] less one block in each of the last three
IResNet.fc_scale = (SIZE // 16) * (SIZE // 16)  # the zoo's 7 * 7 is 112x112's map after four stride-2 stages
SCHEDULE, GAMMA, LR, MOMENTUM, WEIGHT_DECAY = [10, 16, 21], 0.1, 0.08, 0.9, 1e-4  # train.py's defaults


def lr_generator(lr_init, total_epochs, steps_per_epoch):
    """train.py's lr_generator (its schedule and gamma are train.py's argument defaults)."""
    lr_each_step = []
    for i in range(total_epochs):
        if i in SCHEDULE:
            lr_init *= GAMMA
        for _ in range(steps_per_epoch):
            lr_each_step.append(lr_init)
    lr_each_step = np.array(lr_each_step).astype(np.float32)
    return Tensor(lr_each_step)


class MyNetWithLoss(nn.Cell):
    """train.py's MyNetWithLoss, unchanged."""

    def __init__(self, backbone, cfg):
        super(MyNetWithLoss, self).__init__(auto_prefix=False)  # noqa: UP008 (train.py's code)
        self._backbone = backbone.to_float(mstype.float16)
        self._loss_fn = PartialFC(num_classes=cfg.num_classes, world_size=cfg.device_num).to_float(mstype.float32)
        self.L2Norm = ops.L2Normalize(axis=1)

    def construct(self, data, label):
        out = self._backbone(data)
        loss = self._loss_fn(out, label)
        return loss


def init_weights(train_net, perturb: float, perturb_seed: int) -> None:
    """NumPy-seeded weights in the zoo's kinds: uniform convolutions and Dense, BatchNorm gamma near 1 and beta near
    0, PReLU slopes near 0.25 (perturbed, so that every one of them matters), PartialFC's normal class weights."""
    rng, noise = np.random.RandomState(61), np.random.RandomState(perturb_seed)
    for p in train_net.get_parameters():
        shape, name = p.shape, p.name
        if "moving_" in name or name.endswith("features.gamma"):
            continue
        if len(shape) == 4:
            bound = np.sqrt(6.0 / (shape[1] * shape[2] * shape[3]))
            value = rng.uniform(-bound, bound, shape)
        elif name == "mp_weight":
            value = 0.01 * rng.standard_normal(shape)
        elif len(shape) == 2:
            value = rng.uniform(-1, 1, shape) / np.sqrt(shape[1])
        elif "gamma" in name:
            value = 1 + 0.1 * rng.standard_normal(shape)
        elif "prelu" in name:
            value = 0.25 + 0.05 * rng.standard_normal(shape)
        else:  # beta, the Dense's bias
            value = 0.1 * rng.standard_normal(shape)
        if perturb:
            value = value * (1 + perturb * noise.standard_normal(shape))
        p.set_data(Tensor(value.astype(np.float32)))


def state_sums(net, optimizer) -> list[float]:
    """The sum of each parameter, the absolute sum of each momentum and the sum of each BatchNorm moving statistic."""
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.accum]
    state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    return state


class StateRecorder(LossRecorder):
    """Keeps each step's loss (SoftMaxCE's ReduceMean leaves it of shape (1,)) and the state sums after the first
    step."""

    def __init__(self, net, optimizer):
        super().__init__()
        self.net, self.optimizer, self.first = net, optimizer, None

    def step_end(self, run_context):
        self.losses.append(float(run_context.original_args().net_outputs.asnumpy().reshape(())))
        if self.first is None:
            self.first = state_sums(self.net, self.optimizer)


def embed(backbone, data: np.ndarray, batch_size: int) -> np.ndarray:
    """val.py's test() loop for one flip of the data: batches of raw 0-255 images, normalised, through the backbone."""
    embeddings = None
    ba = 0
    while ba < data.shape[0]:
        bb = min(ba + batch_size, data.shape[0])
        count = bb - ba
        _data = data[bb - batch_size : bb]
        img = ((_data / 255) - 0.5) / 0.5
        net_out = backbone(ms.Tensor(img, ms.float32))
        _embeddings = net_out.asnumpy()
        if embeddings is None:
            embeddings = np.zeros((data.shape[0], _embeddings.shape[1]))
        embeddings[ba:bb, :] = _embeddings[(batch_size - count) :, :]
        ba = bb
    return embeddings


def main(mode: str, perturb: float, perturb_seed: int) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(67)
    labels = rng.randint(0, CLASSES, STEPS * BATCH).astype(np.int32)
    signal = rng.uniform(0, 255, (CLASSES, 3, SIZE, SIZE))
    raw = np.clip(signal[labels] + 60 * rng.standard_normal((STEPS * BATCH, 3, SIZE, SIZE)), 0, 255)
    images = ((raw - 127.5) / 127.5).astype(np.float32)  # dataset.py's Normalize(mean 0.5*255, std 0.5*255)
    eval_signal = signal[rng.randint(0, CLASSES, 2 * PAIRS)]
    eval_raw = np.clip(np.round(eval_signal + 60 * rng.standard_normal((2 * PAIRS, 3, SIZE, SIZE))), 0, 255)

    net = _iresnet("iresnet", IBasicBlock, LAYERS, False, True)
    cfg = SimpleNamespace(num_classes=CLASSES, device_num=1)
    train_net = MyNetWithLoss(net, cfg)
    init_weights(train_net, perturb, perturb_seed)
    lr = lr_generator(LR, 1, steps_per_epoch=STEPS)
    optimizer = nn.SGD(params=train_net.trainable_params(), learning_rate=lr / 512 * BATCH * cfg.device_num,
                       momentum=MOMENTUM, weight_decay=WEIGHT_DECAY)  # fmt: skip
    model = ms.Model(train_net, optimizer=optimizer)
    recorder = StateRecorder(train_net, optimizer)
    with tempfile.TemporaryDirectory() as directory:
        config_ck = CheckpointConfig(save_checkpoint_steps=STEPS, keep_checkpoint_max=20)
        ckpt_cb = ModelCheckpoint(prefix="ArcFace-", config=config_ck, directory=directory)
        dataset = ms.dataset.NumpySlicesDataset({"image": images, "label": labels}, shuffle=False).batch(BATCH)
        model.train(1, dataset, callbacks=[ckpt_cb, recorder], dataset_sink_mode=False)
        print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
        print(f"{mode} step1 state:", " ".join(repr(v) for v in recorder.first))
        print(f"{mode} state:", " ".join(repr(v) for v in state_sums(train_net, optimizer)))

        model = _iresnet("iresnet", IBasicBlock, LAYERS, False, True)  # val.py: a new backbone, the checkpoint
        param_dict = load_checkpoint(os.path.join(directory, f"ArcFace--1_{STEPS}.ckpt"))
        load_param_into_net(model, param_dict)
    flips = [embed(model, data, PAIRS) for data in (eval_raw, np.flip(eval_raw, axis=3))]
    values = [v for e in flips for row in e for v in (np.linalg.norm(row), *row[:8])]
    both = flips[0] + flips[1]
    both = both / np.linalg.norm(both, axis=1, keepdims=True)  # sklearn.preprocessing.normalize
    values += list(np.sum(np.square(both[0::2] - both[1::2]), 1))  # evaluate()'s dist
    print(f"{mode} embedding state:", " ".join(repr(float(v)) for v in values))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--perturb", type=float, default=0.0)
    parser.add_argument("--perturb-seed", type=int, default=7)
    parser.add_argument("modes", nargs="*", default=["PYNATIVE_MODE"])
    args = parser.parse_args()
    for mode_name in args.modes:
        main(mode_name, args.perturb, args.perturb_seed)
