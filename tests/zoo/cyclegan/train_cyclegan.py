"""Four steps of the zoo's CycleGAN (official/cv/CycleGAN/src: two ResNetGenerators, whose residual blocks are one
ResidualBlock repeated, so shared; ConvNormReLU/ConvTransposeNormReLU with REFLECT nn.Pad and BatchNorm2d(affine=False)
as instance norm at batch 1; two PatchGAN Discriminators; GeneratorLoss (LSGAN on MSELoss, L1 cycle and identity
losses) and DiscriminatorLoss; its TrainOneStepG, GradOperation with a tuple sensitivity of ones and zeros over the
loss cell's nine outputs, and TrainOneStepD, Fill sensitivity; Adam on get_lr's linear-decay learning-rate Tensor;
the ImagePool feeding D) as train.py wires them, with the zoo's get_args parsing a command line.

A MindSpore script: run it with MindSpore (the golden) or with `kiln run`. Usage: train_cyclegan.py MODE...; for each
MODE it prints `MODE losses: ...` (per step, G's nine-output loss cell's losses: total, G_A, G_B, cycle A and B,
identity A and B; then D's loss) and `MODE state: ...` (the sum of each parameter and the absolute sum of each Adam
moment of both optimizers, then the sum of each norm's moving statistics after the last step).
The zoo's generator has ngf=64 and 9 residual blocks on 256x256 images; here ngf=4 and 2 blocks on 32x32 images, the
discriminators ndf=4 with 3 layers, batch 1 (the zoo's default, which selects instance norm), pool size 2 (so steps
3 and 4 draw from the pool with Python's seeded `random`), lr 2e-3 decaying linearly over the last two of four
epochs of one image. NumPy-seeded weights (the zoo's init_weights draws from MindSpore's generator).
"""

import os
import random
import sys

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ARGV = ["train.py", "--platform", "CPU", "--batch_size", "1", "--image_size", "32", "--ngf", "4", "--gl_num", "2"]
ARGV += ["--ndf", "4", "--dl_num", "3", "--pad_mode", "REFLECT", "--pool_size", "2", "--lr", "2e-3", "--max_epoch", "4"]
ARGV += ["--n_epochs", "2", "--dataroot", HERE]
sys.argv, _argv = ARGV, sys.argv  # src.utils.args parses the command line as it is imported
from src.models.cycle_gan import Generator, TrainOneStepD, TrainOneStepG, get_discriminator, get_generator  # noqa: E402
from src.models.losses import DiscriminatorLoss, GeneratorLoss  # noqa: E402
from src.utils.args import get_args  # noqa: E402
from src.utils.tools import ImagePool, get_lr  # noqa: E402

sys.argv = _argv
STEPS, SIZE = 4, 32


def init_weights(net: nn.Cell, rng: np.random.RandomState) -> None:
    """The zoo's init_weights('normal', 0.02) from NumPy's generator; the instance-norm convolutions' biases too
    (MindSpore's default bias init also draws from its own generator)."""
    for p in net.trainable_params():
        p.set_data(Tensor((0.02 * rng.standard_normal(p.shape)).astype(np.float32)))


def main(mode: str) -> None:
    ms.set_context(mode=getattr(ms, mode))
    random.seed(3)  # ImagePool's draws
    rng = np.random.RandomState(5)
    imgs_a = rng.uniform(-1, 1, (STEPS, 1, 3, SIZE, SIZE)).astype(np.float32)
    imgs_b = np.tanh(imgs_a[:, :, ::-1] * 1.5 + 0.3 * rng.standard_normal(imgs_a.shape)).astype(np.float32)
    args = get_args("train")
    args.dataset_size = 1  # create_dataset sets it: one image a epoch
    G_A, G_B = get_generator(args), get_generator(args)
    D_A, D_B = get_discriminator(args), get_discriminator(args)
    for seed, net in enumerate((G_A, G_B, D_A, D_B)):
        init_weights(net, np.random.RandomState(11 + seed))
    imgae_pool_A = ImagePool(args.pool_size)
    imgae_pool_B = ImagePool(args.pool_size)
    generator = Generator(G_A, G_B, args.lambda_idt > 0)
    loss_D = DiscriminatorLoss(args, D_A, D_B)
    loss_G = GeneratorLoss(args, generator, D_A, D_B)
    optimizer_G = nn.Adam(generator.trainable_params(), get_lr(args), beta1=args.beta1)
    optimizer_D = nn.Adam(loss_D.trainable_params(), get_lr(args), beta1=args.beta1)
    net_G = TrainOneStepG(loss_G, generator, optimizer_G)
    net_D = TrainOneStepD(loss_D, optimizer_D)
    losses = []
    for step in range(STEPS):
        img_A, img_B = Tensor(imgs_a[step]), Tensor(imgs_b[step])
        res_G = net_G(img_A, img_B)
        fake_A = res_G[0]
        fake_B = res_G[1]
        res_D = net_D(img_A, img_B, imgae_pool_A.query(fake_A), imgae_pool_B.query(fake_B))
        losses += [float(v.asnumpy()) for v in res_G[2:]] + [float(res_D.asnumpy())]
    state = []
    for opt in (optimizer_G, optimizer_D):
        state += [float(p.asnumpy().astype(np.float64).sum()) for p in opt.parameters]
        state += [float(np.abs(m.asnumpy().astype(np.float64)).sum()) for m in (*opt.moment1, *opt.moment2)]
    for net in (G_A, G_B, D_A, D_B):
        state += [float(p.asnumpy().astype(np.float64).sum()) for p in net.get_parameters() if "moving_" in p.name]
    print(f"{mode} losses:", " ".join(repr(v) for v in losses))
    print(f"{mode} state:", " ".join(repr(v) for v in state))


if __name__ == "__main__":
    for mode_name in sys.argv[1:] or ["PYNATIVE_MODE"]:
        main(mode_name)
