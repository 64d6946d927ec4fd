"""Four steps of the zoo's EDSR (official/cv/EDSR/src/edsr.py: RgbNormal, the MeanShift of the paper, a Parameter-held
`x * weight + bias` with requires_grad=False; a 'same' Conv2d head; ResBlocks of Conv2d, ReLU, Conv2d scaled by
res_scale 0.1 and a residual Add; the body's long skip; the Upsampler's Conv2d to 4 * n_feats and its PixelShuffle,
ops.DepthToSpace(2); a tail Conv2d and the inverse RgbNormal) trained as train.py wires it: the zoo's
create_dataset_DIV2K (src/dataset.py: a GeneratorDataset over LrHrImages, PNG pairs matched by glob patterns and read
by PIL, mapped by RandomPatchCutter, flip_and_rotate (draws from Python's `random`), hwc2chw and uint8_to_float32,
batched), nn.L1Loss (mean), nn.Adam over `filter(lambda x: x.requires_grad, net.get_parameters())` on the Tensor lr
array of train.py's lr_steps_edsr (copied here: train.py reads the zoo's YAML config and command line at import),
weight decay 0 and init_opt's loss_scale (1.0 at amp_level O0, else the config's 1000), and Model.train at the given
amp_level (with no loss-scale manager, as train.py builds it); then eval.py's path: the validation image, whole, from
create_dataset_DIV2K, and utils.py's do_eval loop (copied: utils.py imports the YAML config too) of
`net.set_train(False)`, a forward and the zoo's PSNR metric (metric.py: the Quantizer's clip_by_value and Int32 cast,
the shaved MSE, at eval.py's DIV2K shave 6 + scale), directly and through SelfEnsembleWrapperNumpy (eval.py's
self_ensemble: eight flips and transposes of the image); then utils.py's init_net with `pre_trained`: the checkpoint
train.py's ModelCheckpoint wrote, loaded by load_checkpoint and EDSR.load_pre_trained_param_dict into a new x3 EDSR
(`load_into_x3`).

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_edsr.py AMP MODE... (AMP: O0,
or O3, DIV2K_config.yaml's). For each MODE it prints `MODE losses: ...`, `MODE state: ...` (after the last step: the
sum of each trainable parameter, the absolute sum of each Adam moment1 and the sum of each moment2) and `MODE eval
state: ...` (the sum of the super-resolved image, its sum weighted by a fixed random array, its PSNR, and the same
three for the self-ensemble) and `MODE pretrained state: ...` (`load_into_x3`'s sums). The zoo's DIV2K_config.yaml
trains x4 with 32 ResBlocks of 256 features at amp_level O3 on 192x192 HR patches, batch 2; here scale 2 (a single
Upsampler stage), 2 ResBlocks of 8 features, on 24x24 HR patches (12x12 LR) cut from eight synthetic 32x32 HR PNGs
(LR: their 2x2 means, rounded), batch 2, and a 20x20 LR image to evaluate (HR 40x40, shaved by 8), written to a
temporary folder in DIV2K's layout. The weights are NumPy-seeded: the zoo's TruncatedNormal(0.02) draws from
MindSpore's generator; the biases are given small random values, so that each matters. train.py sinks the dataset
(dataset_sink_mode=True: MindSpore's CPU build trains without sinking anyway, where Kiln's GRAPH_MODE sinks, its
callbacks seeing one step per chunk of steps, its state sums after the 4 steps within 3.8e-6 of MindSpore's, as
without sinking); here dataset_sink_mode=False, so that each step's loss is seen in both.
"""

import os
import random
import shutil
import sys
import tempfile

import mindspore as ms
import mindspore.nn as nn
import numpy as np
from mindspore import Tensor, load_checkpoint
from mindspore.train.callback import CheckpointConfig, ModelCheckpoint
from PIL import Image

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.dataset import create_dataset_DIV2K  # noqa: E402
from src.edsr import EDSR  # noqa: E402
from src.metric import PSNR, SelfEnsembleWrapperNumpy  # noqa: E402

BATCH, PATCH, TRAIN_SIZE, EVAL_SIZE, SCALE, STEPS = 2, 24, 16, 20, 2, 4
N_FEATS, N_RESBLOCKS = 8, 2
RGB_MEAN = [0.4488, 0.4371, 0.4040]  # DIV2K_config.yaml


def lr_steps_edsr(lr, milestones, gamma, epoch_size, steps_per_epoch, last_epoch=None):
    """train.py's (only its slice formatted by ruff)."""
    lr_each_step = []
    step_begin_epoch = [0] + milestones[:-1]
    step_end_epoch = milestones[1:] + [epoch_size]
    for begin, end in zip(step_begin_epoch, step_end_epoch):
        lr_each_step += [lr] * (end - begin) * steps_per_epoch
        lr *= gamma
    if last_epoch is not None:
        lr_each_step = lr_each_step[last_epoch * steps_per_epoch :]
    return np.array(lr_each_step).astype(np.float32)


def init_weights(net) -> None:
    """NumPy-seeded weights: the zoo's TruncatedNormal(0.02) (redrawn beyond two standard deviations) for the
    convolutions, 0.01 * normal for their biases."""
    rng = np.random.RandomState(41)
    for p in net.trainable_params():
        if len(p.shape) == 4:
            value = rng.standard_normal(p.shape)
            while (outside := np.abs(value) > 2).any():
                value[outside] = rng.standard_normal(int(outside.sum()))
            value = 0.02 * value
        else:
            value = 0.01 * rng.standard_normal(p.shape)
        p.set_data(Tensor(value.astype(np.float32)))


def write_images(rng, root, kind, count, lr_size) -> None:
    """`count` synthetic PNG pairs in DIV2K's layout under `root` (`DIV2K_{kind}_HR/0001.png`,
    `DIV2K_{kind}_LR_bicubic/X2/0001x2.png`, ...): HR smooth RGB images, LR their 2x2 means, rounded."""
    hr_size = lr_size * SCALE
    base = rng.uniform(40, 215, (count, 1, 1, 3))
    yy, xx = np.meshgrid(np.arange(hr_size), np.arange(hr_size), indexing="ij")
    yy, xx = yy[None, :, :, None], xx[None, :, :, None]
    waves = 40 * np.sin(rng.uniform(0.1, 0.6, (count, 1, 1, 3)) * yy + rng.uniform(0.1, 0.6, (count, 1, 1, 3)) * xx)
    hr = np.clip(np.round(base + waves + rng.uniform(-20, 20, (count, hr_size, hr_size, 3))), 0, 255)
    lr = np.round(hr.reshape(count, lr_size, SCALE, lr_size, SCALE, 3).mean(axis=(2, 4)))
    hr_dir = os.path.join(root, f"DIV2K_{kind}_HR")
    lr_dir = os.path.join(root, f"DIV2K_{kind}_LR_bicubic", f"X{SCALE}")
    os.makedirs(hr_dir)
    os.makedirs(lr_dir)
    for i in range(count):
        Image.fromarray(hr[i].astype(np.uint8)).save(os.path.join(hr_dir, f"{i + 1:04d}.png"))
        Image.fromarray(lr[i].astype(np.uint8)).save(os.path.join(lr_dir, f"{i + 1:04d}x{SCALE}.png"))


def state_sums(optimizer) -> list[float]:
    """The sum of each trainable parameter, the absolute sum of each Adam moment1 and the sum of each moment2."""
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moment1]
    state += [float(m.asnumpy().astype(np.float64).sum()) for m in optimizer.moment2]
    return state


def evaluate(eval_network, ds_val, weights) -> list[float]:
    """utils.py's do_eval loop on the one validation image, with eval.py's DIV2K PSNR (shave 6 + scale): the
    super-resolved image's sum, its sum weighted by `weights`, and the PSNR."""
    metrics = {"psnr": PSNR(rgb_range=255, shave=6 + SCALE)}
    eval_network.set_train(False)
    sums = []
    for lr, hr in ds_val:
        sr = eval_network(lr)
        _ = [m.update(sr, hr) for m in metrics.values()]
        values = sr.asnumpy().astype(np.float64)
        sums += [float(values.sum()), float((values * weights).sum())]
    eval_network.set_train(True)
    return sums + [float(metrics["psnr"].eval(sync=False))]


def load_into_x3(root, lr_image, weights) -> list[float]:
    """utils.py's init_net with `pre_trained` (the zoo's x2, x3 and x4 models load into each other): train.py's
    checkpoint of the trained x2 network, loaded by load_checkpoint and EDSR.load_pre_trained_param_dict(...,
    strict=False) into a new x3 EDSR, whose Upsampler convolution (9 * n_feats outputs against the x2's 4 * n_feats)
    keeps its own weights. Returns the sum of each of its parameters, and of its output for `lr_image` and that
    output weighted by `weights`."""
    net = EDSR(scale=3, n_feats=N_FEATS, kernel_size=3, n_resblocks=N_RESBLOCKS, n_colors=3, res_scale=0.1,
               rgb_range=255, rgb_mean=RGB_MEAN, rgb_std=[1.0, 1.0, 1.0])  # fmt: skip
    init_weights(net)
    param_dict = load_checkpoint(os.path.join(root, f"EDSR_x{SCALE}_DIV2K-1_{STEPS}.ckpt"))
    net.load_pre_trained_param_dict(param_dict, strict=False)
    net.set_train(False)
    sr = net(lr_image).asnumpy().astype(np.float64)
    sums = [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters()]
    return sums + [float(sr.sum()), float((sr * weights).sum())]


def main(amp_level: str, mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(43)
    root = tempfile.mkdtemp()
    write_images(rng, root, "train", STEPS * BATCH, TRAIN_SIZE)
    write_images(rng, root, "valid", 1, EVAL_SIZE)
    weights = rng.uniform(-1, 1, (1, 3, EVAL_SIZE * SCALE, EVAL_SIZE * SCALE))
    weights_x3 = rng.uniform(-1, 1, (1, 3, EVAL_SIZE * 3, EVAL_SIZE * 3))
    # utils.py's init_dataset, at DIV2K_config.yaml's lr_type and batch size (eval.py's batch 1 and whole images to
    # evaluate), but one worker for the reads and the map: MindSpore refuses the zoo's 10 on a machine of fewer cores,
    # and with several map workers its patch cutter's and flips' draws from Python's `random` came in another order
    # each run. train.py's `shuffle=dataset_type == "Train"` is False for "train".
    ms.dataset.config.set_num_parallel_workers(1)
    config = {"dataset_path": root, "scale": SCALE, "lr_type": "bicubic", "eval_type": ""}
    ds_train = create_dataset_DIV2K(config={**config, "batch_size": BATCH, "patch_size": PATCH}, dataset_type="train",
                                    num_parallel_workers=1, shuffle=False)  # fmt: skip
    ds_val = create_dataset_DIV2K(config={**config, "batch_size": 1, "patch_size": -1}, dataset_type="valid",
                                  num_parallel_workers=1, shuffle=False)  # fmt: skip
    random.seed(2021)
    net = EDSR(scale=SCALE, n_feats=N_FEATS, kernel_size=3, n_resblocks=N_RESBLOCKS, n_colors=3, res_scale=0.1,
               rgb_range=255, rgb_mean=RGB_MEAN, rgb_std=[1.0, 1.0, 1.0])  # fmt: skip
    init_weights(net)
    lr = lr_steps_edsr(lr=0.0001, milestones=[4000], gamma=0.5, epoch_size=1000, steps_per_epoch=STEPS)
    loss_scale = 1.0 if amp_level == "O0" else 1000.0  # init_opt's, with DIV2K_config.yaml's loss_scale
    optimizer = nn.Adam(params=filter(lambda x: x.requires_grad, net.get_parameters()), learning_rate=Tensor(lr),
                        weight_decay=0.0, loss_scale=loss_scale)  # fmt: skip
    model = ms.Model(net, loss_fn=nn.L1Loss(reduction="mean"), optimizer=optimizer, amp_level=amp_level)
    recorder = LossRecorder()
    # train.py's checkpoints (at the end of its one epoch here)
    config_ck = CheckpointConfig(save_checkpoint_steps=STEPS, keep_checkpoint_max=60)
    checkpoints = ModelCheckpoint(prefix=f"EDSR_x{SCALE}_DIV2K", directory=root, config=config_ck)
    model.train(1, ds_train, callbacks=[recorder, checkpoints], dataset_sink_mode=False)
    evaluated = evaluate(net, ds_val, weights) + evaluate(SelfEnsembleWrapperNumpy(net), ds_val, weights)
    lr_image = next(ds_val.create_tuple_iterator())[0]
    pretrained = load_into_x3(root, lr_image, weights_x3)
    shutil.rmtree(root)
    print(f"{mode} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state_sums(optimizer)))
    print(f"{mode} eval state:", " ".join(repr(v) for v in evaluated))
    print(f"{mode} pretrained state:", " ".join(repr(v) for v in pretrained))


if __name__ == "__main__":
    for mode_name in sys.argv[2:] or ["PYNATIVE_MODE"]:
        main(sys.argv[1], mode_name)
