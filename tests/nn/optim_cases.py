"""Cases of test_optim_goldens.py and make_optim_goldens_mindspore.py: parameters, gradients, optimizer arguments."""

import numpy as np

SHAPES = {"fc.weight": (3, 4), "fc.bias": (3,), "bn.gamma": (4,)}
CASES = {
    "prox": ("ProximalAdagrad", dict(learning_rate=0.1)),
    "prox_l1l2": ("ProximalAdagrad", dict(accum=0.2, learning_rate=0.05, l1=0.05, l2=0.1, weight_decay=0.01)),
    "ftrl": ("FTRL", dict(learning_rate=0.1)),
    "ftrl_l2": ("FTRL", dict(initial_accum=0.2, learning_rate=0.05, lr_power=-0.7, l2=0.1, weight_decay=0.01)),
    "lazyadam": ("LazyAdam", dict(learning_rate=0.01, weight_decay=0.1)),
    "adamoffload": ("AdamOffload", dict(learning_rate=0.01, weight_decay=0.1)),
    "adafactor": ("AdaFactor", dict()),
    "adafactor_lr": (
        "AdaFactor",
        dict(
            learning_rate=0.05,
            relative_step=False,
            scale_parameter=False,
            beta1=0.0,
            weight_decay=0.1,
            decay_rate=0.7,
            clip_threshold=0.5,
        ),
    ),
    "adafactor_warmup": ("AdaFactor", dict(warmup_init=True, beta1=None)),
}


def params():
    rng = np.random.default_rng(0)
    return {n: rng.normal(size=s).astype(np.float32) for n, s in SHAPES.items()}


def grads(t):
    rng = np.random.default_rng(100 + t)
    return [rng.normal(size=s).astype(np.float32) for s in SHAPES.values()]
