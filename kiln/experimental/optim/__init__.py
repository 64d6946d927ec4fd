"""`mindspore.experimental.optim`: PyTorch-style optimizers (parameter groups, `lr` per group) and schedulers."""

from kiln.experimental.optim import lr_scheduler
from kiln.experimental.optim.optimizer import (
    SGD,
    Adadelta,
    Adagrad,
    Adam,
    Adamax,
    AdamW,
    Optimizer,
    RMSprop,
)

__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "Optimizer", "RMSprop", "lr_scheduler"]
