"""`mindspore.experimental.optim`: PyTorch-style optimizers (parameter groups, `lr` per group) and schedulers."""

from kiln.experimental.optim import lr_scheduler
from kiln.experimental.optim.optimizer import (
    ASGD,
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    NAdam,
    Optimizer,
    RAdam,
    RMSprop,
    Rprop,
)

__all__ = [
    "ASGD",
    "NAdam",
    "RAdam",
    "Rprop",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "Optimizer",
    "RMSprop",
    "lr_scheduler",
]
