"""Four steps of the zoo's StarGAN (research/cv/StarGAN/src: the Generator of 7x7/4x4 convolutions with GroupNorm
per channel, a residual block and Conv2dTranspose up-sampling with Tanh, the PatchGAN Discriminator; its
GeneratorLoss and DiscriminatorLoss with the WGAN-GP gradient penalty, a GradOperation of the Discriminator with
respect to its input inside the loss, at a point drawn by a @constexpr NumPy function; its TrainOneStepCellDis
and TrainOneStepCellGen, which differentiate the loss through a wrapper Cell) as train.py wires them.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_stargan.py MODE...; for each
MODE it prints `MODE losses: ...` (each D step's five losses and, every second step, G's four) and `MODE state: ...`
(the sum of each parameter of G and D after the last step). The zoo trains 128x128 images with conv_dim 64, six
residual blocks and six D layers; here conv_dim 8, one residual block, two D layers on 16x16 images, batch 2,
lr 1e-3, a G step after every second D step (the zoo's n_critic is 5). NumPy-seeded weights (the zoo's
init_weights draws from MindSpore's generator); train.py's np.random.shuffle of the target labels is a reversal.
"""

import os
import sys
import zlib
from types import SimpleNamespace

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from src.cell import TrainOneStepCellDis, TrainOneStepCellGen  # noqa: E402
from src.loss import DiscriminatorLoss, GeneratorLoss  # noqa: E402
from src.model import Discriminator, Generator  # noqa: E402

STEPS, LR = 4, 1e-3


def seed(net: nn.Cell, tag: str) -> None:
    """Every parameter from a NumPy generator seeded by its name: GroupNorm's gamma near 1, biases and betas small,
    weights He-normal."""
    for name, p in sorted(net.parameters_and_names()):
        rng = np.random.RandomState(zlib.crc32((tag + name).encode()))
        if name.endswith("gamma"):
            v = 1 + 0.1 * rng.standard_normal(p.shape)
        elif name.endswith(("beta", "bias")):
            v = 0.05 * rng.standard_normal(p.shape)
        else:
            v = rng.standard_normal(p.shape) * np.sqrt(2.0 / int(np.prod(p.shape[1:])))
        p.set_data(Tensor(v.astype(np.float32)))


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    config = SimpleNamespace(lambda_rec=10.0, lambda_cls=1.0, lambda_gp=10.0)
    generator = Generator(conv_dim=8, c_dim=5, repeat_num=1)
    discriminator = Discriminator(image_size=16, conv_dim=8, c_dim=5, repeat_num=2)
    seed(generator, "g")
    seed(discriminator, "d")
    g_loss_cell = GeneratorLoss(config, generator, discriminator)
    d_loss_cell = DiscriminatorLoss(config, generator, discriminator)
    opt_g = nn.Adam(generator.trainable_params(), learning_rate=LR, beta1=0.5, beta2=0.999)
    opt_d = nn.Adam(discriminator.trainable_params(), learning_rate=LR, beta1=0.5, beta2=0.999)
    g_step = TrainOneStepCellGen(g_loss_cell, opt_g)
    d_step = TrainOneStepCellDis(d_loss_cell, opt_d)
    g_step.set_train()
    d_step.set_train()
    rng = np.random.RandomState(4)
    images = rng.uniform(-1, 1, (STEPS, 2, 3, 16, 16)).astype(np.float32)
    labels = (rng.uniform(size=(STEPS, 2, 5)) > 0.5).astype(np.float32)
    np.random.seed(7)  # the penalty's interpolation weights are NumPy draws (loss.generate_tensor)
    losses = []
    for step in range(STEPS):
        x_real, c_org = Tensor(images[step]), Tensor(labels[step])
        c_trg = Tensor(labels[step][::-1].copy())
        losses += [float(v.asnumpy()) for v in d_step(x_real, c_org, c_trg)[1:]]
        if (step + 1) % 2 == 0:
            losses += [float(v.asnumpy()) for v in g_step(x_real, c_org, c_trg)[2:]]
    state = []
    for net in (generator, discriminator):
        state += [float(p.asnumpy().astype(np.float64).sum()) for _, p in sorted(net.parameters_and_names())]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
