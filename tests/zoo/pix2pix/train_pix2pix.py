"""Four steps of the zoo's Pix2Pix (research/cv/Pix2Pix/src/models: the U-Net generator of nested
UnetSkipConnectionBlocks, Conv2d(pad 1)/Conv2dTranspose(pad 1) with BatchNorm, LeakyReLU, ReLU, Tanh and Concat
skips; the PatchGAN Discriminator on the concatenated pair; D_Loss and G_Loss on SigmoidCrossEntropyWithLogits and
L1Loss; its TrainOneStepCell, which runs each loss cell forward and then GradOperation of it with a Fill
sensitivity, D's Adam step before G's) as train.py wires them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_pix2pix.py MODE...; for each
MODE it prints `MODE losses: ...` (D's and G's loss of each step, in turn) and `MODE state: ...` (the sum of each
parameter, the absolute sum of each Adam moment and the sum of each BatchNorm moving statistic after the last step).
The zoo's generator has ngf=64 and 8 levels on 256x256 images; here ngf=8 and 5 levels (the fewest its loop allows:
no Dropout block) on 32x32 images, the discriminator ndf=8, batch 2, lr 2e-3 (the zoo's 2e-4 moves too little in
four steps to test anything). NumPy-seeded weights (the zoo's init_weights draws from MindSpore's generator, at the
same normal(0, 0.02)).
"""

import os
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.models.discriminator_model import Discriminator  # noqa: E402
from src.models.generator_model import UnetGenerator  # noqa: E402
from src.models.loss import D_Loss, D_WithLossCell, G_Loss, G_WithLossCell, TrainOneStepCell  # noqa: E402
from src.models.pix2pix import Pix2Pix  # noqa: E402

BATCH, SIZE, STEPS, LR = 2, 32, 4, 2e-3


def init_weights(net: nn.Cell, rng: np.random.RandomState) -> None:
    """init_w.init_weights('normal', 0.02) from NumPy's generator; biases too (MindSpore's default bias init also
    draws from its own generator)."""
    for p in net.trainable_params():
        if p.name.endswith("gamma"):
            p.set_data(Tensor(np.ones(p.shape, np.float32)))
        elif p.name.endswith("beta"):
            p.set_data(Tensor(np.zeros(p.shape, np.float32)))
        else:
            p.set_data(Tensor((0.02 * rng.standard_normal(p.shape)).astype(np.float32)))


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    rng = np.random.RandomState(5)
    real_a = rng.uniform(-1, 1, (STEPS, BATCH, 3, SIZE, SIZE)).astype(np.float32)
    real_b = np.tanh(real_a[:, :, ::-1] * 1.5 + 0.2 * rng.standard_normal(real_a.shape)).astype(np.float32)
    net_g = UnetGenerator(in_planes=3, out_planes=3, ngf=8, n_layers=5)
    net_d = Discriminator(in_planes=6, ndf=8, n_layers=3)
    init_weights(net_g, np.random.RandomState(11))
    init_weights(net_d, np.random.RandomState(12))
    pix2pix = Pix2Pix(generator=net_g, discriminator=net_d)
    d_loss_net = D_WithLossCell(backbone=pix2pix, loss_fn=D_Loss())
    g_loss_net = G_WithLossCell(backbone=pix2pix, loss_fn=G_Loss())
    d_opt = nn.Adam(pix2pix.netD.trainable_params(), learning_rate=LR, beta1=0.5, beta2=0.999, loss_scale=1)
    g_opt = nn.Adam(pix2pix.netG.trainable_params(), learning_rate=LR, beta1=0.5, beta2=0.999, loss_scale=1)
    train_net = TrainOneStepCell(loss_netD=d_loss_net, loss_netG=g_loss_net, optimizerD=d_opt, optimizerG=g_opt, sens=1)
    train_net.set_train()
    losses = []
    for step in range(STEPS):
        d_loss, g_loss = train_net(Tensor(real_a[step]), Tensor(real_b[step]))
        losses += [float(d_loss.asnumpy()), float(g_loss.asnumpy())]
    state = []
    for opt in (d_opt, g_opt):
        state += [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
        state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*opt.moment1, *opt.moment2)]
    for net in (net_d, net_g):
        state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
