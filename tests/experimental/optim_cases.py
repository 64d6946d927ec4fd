"""Cases shared by Kiln's test and the MindSpore 2.10 golden script: (name, optimizer class, kwargs, steps)."""

import numpy as np

SHAPES = {"w": (3, 4), "b": (4,)}

CASES = [
    ("asgd", "ASGD", {"lr": 0.05, "t0": 2.0, "lambd": 0.01, "weight_decay": 0.1}, 5),
    ("asgd_max", "ASGD", {"lr": 0.05, "maximize": True}, 3),
    ("nadam", "NAdam", {"lr": 0.01, "weight_decay": 0.1}, 5),
    ("nadam_psi", "NAdam", {"lr": 0.02, "momentum_decay": 0.1, "betas": (0.8, 0.99)}, 4),
    ("radam", "RAdam", {"lr": 0.01}, 8),
    ("radam_wd", "RAdam", {"lr": 0.01, "weight_decay": 0.2, "betas": (0.9, 0.9)}, 6),
    ("rprop", "Rprop", {"lr": 0.01}, 5),
    ("rprop_max", "Rprop", {"lr": 0.02, "etas": (0.3, 1.5), "step_sizes": (1e-3, 0.025), "maximize": True}, 5),
]


def params():
    rng = np.random.default_rng(0)
    return {n: rng.normal(size=s).astype(np.float32) for n, s in SHAPES.items()}


def grads(step):
    """Gradients of a step; a few elements change sign between steps (Rprop's etaminus branch)."""
    rng = np.random.default_rng(100 + step)
    return [rng.normal(size=s).astype(np.float32) for s in SHAPES.values()]
