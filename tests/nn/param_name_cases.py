"""Parameter names and paths, and `Cell.phase`, run on MindSpore 2.10 and Kiln (`run(ms)`): a GAN's two train
cells sharing both networks (the zoo's DCGAN), a cell with auto_prefix=False in the middle, a ParameterTuple
attribute, a shared child, BatchNorm3d's parameters, and layers outside any parent (a Parameter keeps the name its
layer gave it: a lone BatchNorm's statistics are `mean` and `variance`, a lone PReLU's slope `a`).
make_param_name_goldens_mindspore.py writes param_name_goldens_mindspore.json."""

import numpy as np


def run(ms) -> dict:
    """What MindSpore (or Kiln, passed as `ms`) names each parameter, per case."""
    nn, Tensor, Parameter, ParameterTuple = ms.nn, ms.Tensor, ms.Parameter, ms.ParameterTuple
    out = {}

    def names(cell):
        return {
            "get_parameters": [p.name for p in cell.get_parameters()],
            "parameters_and_names": [n for n, _ in cell.parameters_and_names()],
            "parameters_dict": list(cell.parameters_dict()),
        }

    class Block(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3, has_bias=True)
            self.bn = nn.BatchNorm2d(2)

        def construct(self, x):
            return self.bn(self.conv(x))

    class WithLoss(nn.Cell):
        def __init__(self, d, g):
            super().__init__(auto_prefix=True)
            self.netD, self.netG = d, g

        def construct(self, x):
            return self.netD(self.netG(x)).mean()

    class Gan(nn.Cell):
        def __init__(self, step_d, step_g):
            super().__init__(auto_prefix=True)
            self.stepD, self.stepG = step_d, step_g

        def construct(self, x):
            return self.stepD(x), self.stepG(x)

    d, g = Block(), Block()
    loss_d, loss_g = WithLoss(d, g), WithLoss(d, g)
    step_d = nn.TrainOneStepCell(loss_d, nn.Adam(d.trainable_params(), learning_rate=0.1))
    step_g = nn.TrainOneStepCell(loss_g, nn.Momentum(g.trainable_params(), learning_rate=0.1, momentum=0.9))
    gan = Gan(step_d, step_g)
    out["gan"] = names(gan)
    out["gan netD"] = names(d)

    class NoPrefix(nn.Cell):
        def __init__(self):
            super().__init__(auto_prefix=False)
            self.inner = nn.Dense(2, 2)

        def construct(self, x):
            return self.inner(x)

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.body = NoPrefix()
            self.head = nn.Dense(2, 1)

        def construct(self, x):
            return self.head(self.body(x))

    out["auto_prefix=False inside"] = names(Outer())

    class Holder(nn.Cell):
        def __init__(self, params):
            super().__init__()
            self.params = ParameterTuple(params)
            self.w = Parameter(Tensor(np.ones(2, np.float32)), name="w")

        def construct(self, x):
            return x

    dense = nn.Dense(2, 2)
    out["ParameterTuple attribute"] = names(Holder(dense.trainable_params()))

    class Twice(nn.Cell):
        def __init__(self):
            super().__init__()
            shared = nn.Dense(2, 2)
            self.first = shared
            self.second = shared

        def construct(self, x):
            return self.second(self.first(x))

    out["shared child"] = names(Twice())

    net = Outer()
    phases = [net.phase, net.body.phase]
    net.set_train(False)
    phases += [net.phase, net.body.phase]
    net.set_train()
    phases += [net.phase, net.body.phase]
    net.body.phase = "eval"
    phases += [net.phase, net.body.phase]
    try:
        net.phase = 1
        phases.append("OK")
    except TypeError:
        phases.append("TypeError")
    out["phase"] = phases

    class Video(nn.Cell):  # BatchNorm3d keeps its parameters in a BatchNorm2d child (R(2+1)D's checkpoints)
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv3d(1, 2, 3)
            self.bn = nn.BatchNorm3d(2)

        def construct(self, x):
            return self.bn(self.conv(x))

    out["BatchNorm3d"] = names(Video())

    # a layer outside any parent keeps its Parameters' own names (its attribute names are only the paths); in a
    # parent each is renamed to its path (the zoo's ArcFace: IResNet's PReLUs and BatchNorms)
    lone = {"BatchNorm1d": nn.BatchNorm1d(2), "BatchNorm2d": nn.BatchNorm2d(2), "PReLU": nn.PReLU(2)}
    for name, layer in lone.items():
        out[f"lone {name}"] = names(layer)
    out["lone layers in a SequentialCell"] = names(nn.SequentialCell(list(lone.values())))
    return out
