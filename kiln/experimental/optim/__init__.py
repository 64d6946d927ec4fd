"""`mindspore.experimental.optim`: PyTorch-style optimizers (parameter groups, `lr` per group) and schedulers."""

from __future__ import absolute_import  # noqa: F404, UP010  (MindSpore's experimental.optim lists it among its names)

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
    "ASGD", "NAdam", "RAdam", "Rprop", "SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Optimizer", "RMSprop",
    "lr_scheduler",
]  # fmt: skip
