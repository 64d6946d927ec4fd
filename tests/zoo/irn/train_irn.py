"""Four steps of the zoo's IRN (research/cv/IRN/src: InvRescaleNet, two HaarDownsampling stages, each a grouped
Conv2D by a Haar filter Tensor the script marks `requires_grad = False` and a Conv2dTranspose for the way back, with
InvBlockExp affine coupling blocks of DenseBlocks (LeakyReLU, Concat, Sigmoid, Exp, Div); IRN_loss with its L2
forward-fit, latent z^2 and L1 (sqrt(d^2 + eps)) backward losses, Quantization's Round under stop_gradient and the
reverse pass through the same blocks) through AdamClipped (gradient-norm clipping at 10 inside the optimizer, on
every step here: the norm is near 600) and Model.train at amp_level O0, as train.py wires them on GPU.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_irn.py MODE... [NUDGE]; for
each MODE it prints `MODE losses: ...` and `MODE state: ...` (the sum of each parameter, then the absolute sum of
each first and each second Adam moment after the last step); NUDGE moves one input pixel by one float32 ulp (the
spread measurement). train_IRN_x4.yml's settings with block_num [1, 1] (the zoo's is [8, 8]), 8x8 images in batches
of 2; NumPy-seeded weights (the zoo's XavierUniform and HeNormal draw from MindSpore's generator) and IRN_loss's
StandardNormal latent sample drawn once by NumPy (the same reason). train.py imports IRN_loss from src.network, which
does not define it (both frameworks fail there): it is taken from src.network.net_with_loss. MindSpore 2.10's
GRAPH_MODE refuses the network: GroupTransConv keeps its Conv2dTranspose cells in a plain list, so their Parameters
all keep the name 'weight' ("its name 'weight' already exists"). Kiln runs it; its goldens are PyNative's.
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.append(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/zoo: LossRecorder
from loss_recorder import LossRecorder  # noqa: E402
from src.network import create_model  # noqa: E402
from src.network.net_with_loss import IRN_loss  # noqa: E402
from src.optim import warmup_step_lr  # noqa: E402
from src.optim.adam_clip import AdamClipped  # noqa: E402

BATCH, SIZE, STEPS = 2, 8, 4


class NumpyNoiseLoss(IRN_loss):
    """The zoo's IRN_loss with its latent sample drawn by NumPy (StandardNormal draws from MindSpore's generator)."""

    def __init__(self, net_g, opt, noise):
        super().__init__(net_g, opt)
        self.noise = Tensor(noise)

    def gaussian_batch(self, dims):
        return self.noise


def make_opt() -> dict:
    """train_IRN_x4.yml's fields that the network, the loss and the optimizer read (the zoo parses the YAML with
    PyYAML, absent from both environments), block_num [1, 1], one epoch of 4 steps, the lr halved after step 2."""
    train = {"lr_G": 2e-4, "beta1": 0.9, "beta2": 0.999, "epochs": 1, "lr_steps": [2], "lr_gamma": 0.5,
             "pixel_criterion_forw": "l2", "pixel_criterion_back": "l1", "lambda_fit_forw": 16.0,
             "lambda_rec_back": 1, "lambda_ce_forw": 1, "weight_decay_G": 1e-5}  # fmt: skip
    net = {"in_nc": 3, "out_nc": 3, "block_num": [1, 1], "scale": 4, "init": "xavier"}
    return {"model": "IRN", "scale": 4, "is_train": True, "train": train, "test": None, "network_G": net}


def main(mode: str, nudge: bool = False) -> None:
    ms.set_context(mode=getattr(ms, mode))
    ms.set_context(max_call_depth=4030)
    rng = np.random.RandomState(3)
    gt = rng.uniform(size=(STEPS * BATCH, 3, SIZE, SIZE)).astype(np.float32)
    if nudge:
        gt[0, 0, 0, 0] = np.nextafter(gt[0, 0, 0, 0], np.float32(np.inf))
    lq = gt.reshape(STEPS * BATCH, 3, SIZE // 4, 4, SIZE // 4, 4).mean(axis=(3, 5)).astype(np.float32)
    noise = rng.standard_normal((BATCH, 45, SIZE // 4, SIZE // 4)).astype(np.float32)
    opt = make_opt()
    train_opt = opt["train"]
    net = create_model(opt)
    rng = np.random.RandomState(7)
    for _, p in sorted((p.name, p) for p in net.get_parameters()):
        fan_in = int(np.prod(p.shape[1:])) if len(p.shape) > 1 else 32
        p.set_data(Tensor((rng.standard_normal(p.shape) * 0.5 / np.sqrt(fan_in)).astype(np.float32)))
    lr = warmup_step_lr(train_opt["lr_G"], train_opt["lr_steps"], STEPS, 0, train_opt["epochs"], train_opt["lr_gamma"])
    loss = NumpyNoiseLoss(net, opt, noise)
    optimizer = AdamClipped(
        loss.netG.trainable_params(),
        learning_rate=Tensor(lr),
        beta1=train_opt["beta1"],
        beta2=train_opt["beta2"],
        weight_decay=train_opt["weight_decay_G"],
    )
    model = ms.Model(network=loss, optimizer=optimizer, amp_level="O0")
    recorder = LossRecorder()
    dataset = ms.dataset.NumpySlicesDataset({"lq": lq, "gt": gt}, shuffle=False).batch(BATCH)
    model.train(1, dataset, callbacks=[recorder], dataset_sink_mode=False)
    state = [float(p.asnumpy().astype(np.float64).sum()) for p in optimizer.parameters]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moment1]
    state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in optimizer.moment2]
    tag = mode + (" nudged" if nudge else "")
    print(f"{tag} losses:", " ".join(repr(v) for v in recorder.losses))
    print(f"{tag} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    args = sys.argv[1:] or ["PYNATIVE_MODE"]
    for mode_name in args:
        if mode_name != "NUDGE":
            main(mode_name, nudge="NUDGE" in args)
