"""Record MindSpore 2.10's weights after `Model.train` with loss-scaling recipes into
model_loss_scale_goldens_mindspore.json (run with MindSpore's interpreter):

    /work/msvenv/bin/python tests/train/make_model_loss_scale_goldens_mindspore.py

Each recipe trains a small two-layer Dense network from fixed weights on fixed data for two epochs, with the
optimizer's `loss_scale` matched by a `FixedLossScaleManager(drop_overflow_update=False)` (the loss-scaled
recipe MindSpore's CPU build runs) or with an amp level. tests/train/test_model_loss_scale.py replays them on Kiln
in PyNative and GRAPH_MODE.
"""

import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn
from mindspore.dataset import NumpySlicesDataset
from mindspore.train import FixedLossScaleManager, Model

# name -> (optimizer, optimizer loss_scale, manager scale or None, amp_level, loss)
RECIPES = {
    "momentum_fixed_1024": ("momentum", 1024.0, 1024.0, "O0", "mse"),
    "momentum_fixed_128_softmax": ("momentum", 128.0, 128.0, "O0", "softmax"),
    "adam_fixed_64": ("adam", 64.0, 64.0, "O0", "mse"),
    "sgd_no_manager": ("sgd", 1.0, None, "O0", "mse"),
    "momentum_fixed_1024_o1": ("momentum", 1024.0, 1024.0, "O1", "mse"),
    "momentum_fixed_1024_o2": ("momentum", 1024.0, 1024.0, "O2", "mse"),
    "momentum_o3_softmax": ("momentum", 1.0, None, "O3", "softmax"),
    "momentum_fixed_1024_o2_batchnorm": ("momentum", 1024.0, 1024.0, "O2", "mse"),
}


def data():
    """Inputs, regression targets and class labels, fixed by a seed."""
    rng = np.random.default_rng(7)
    x = rng.normal(size=(16, 4)).astype(np.float32)
    y = rng.normal(size=(16, 2)).astype(np.float32)
    labels = rng.integers(0, 2, size=16).astype(np.int32)
    w1 = (rng.normal(size=(3, 4)) * 0.5).astype(np.float32)
    b1 = np.zeros(3, np.float32)
    w2 = (rng.normal(size=(2, 3)) * 0.5).astype(np.float32)
    b2 = np.full(2, 0.1, np.float32)
    return x, y, labels, (w1, b1, w2, b2)


class Net(nn.Cell):
    """Dense -> (BatchNorm1d) -> ReLU -> Dense."""

    def __init__(self, weights, batchnorm: bool = False) -> None:
        super().__init__()
        w1, b1, w2, b2 = weights
        self.fc1 = nn.Dense(4, 3, weight_init=Tensor(w1), bias_init=Tensor(b1))
        self.bn = nn.BatchNorm1d(3) if batchnorm else None
        self.act = nn.ReLU()
        self.fc2 = nn.Dense(3, 2, weight_init=Tensor(w2), bias_init=Tensor(b2))

    def construct(self, x):
        h = self.fc1(x)
        if self.bn is not None:
            h = self.bn(h)
        return self.fc2(self.act(h))


def run(recipe, mode) -> dict:
    ms.set_context(mode=mode)
    opt_name, opt_scale, manager_scale, amp_level, loss_name = RECIPES[recipe]
    x, y, labels, weights = data()
    net = Net(weights, batchnorm=recipe.endswith("_batchnorm"))
    params = net.trainable_params()
    if opt_name == "momentum":
        opt = nn.Momentum(params, learning_rate=0.05, momentum=0.9, loss_scale=opt_scale)
    elif opt_name == "adam":
        opt = nn.Adam(params, learning_rate=0.01, loss_scale=opt_scale)
    else:
        opt = nn.SGD(params, learning_rate=0.1)
    if loss_name == "mse":
        loss, target = nn.MSELoss(), y
    else:
        loss, target = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"), labels
    kwargs = {}
    if manager_scale is not None:
        kwargs["loss_scale_manager"] = FixedLossScaleManager(manager_scale, drop_overflow_update=False)
    model = Model(net, loss, opt, amp_level=amp_level, **kwargs)
    dataset = NumpySlicesDataset({"x": x, "y": target}, shuffle=False).batch(4)
    model.train(2, dataset, dataset_sink_mode=False)
    return {p.name: p.asnumpy().tolist() for p in net.trainable_params()}


def record() -> dict:
    out = {"mindspore": ms.__version__, "recipes": {}}
    for recipe in RECIPES:
        out["recipes"][recipe] = {
            "amp_level": RECIPES[recipe][3],
            "pynative": run(recipe, ms.PYNATIVE_MODE),
            "graph": run(recipe, ms.GRAPH_MODE),
        }
    return out


if __name__ == "__main__":
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_loss_scale_goldens_mindspore.json")
    with open(path, "w") as f:
        json.dump(record(), f, indent=1)
        f.write("\n")
