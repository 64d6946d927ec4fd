"""Kiln's `nn`: Cell, layers, losses and optimizers (MindSpore's `mindspore.nn`)."""

from kiln.nn import dynamic_lr, learning_rate_schedule
from kiln.nn.cell import Cell, CellDict, CellList, SequentialCell
from kiln.nn.dynamic_lr import (
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from kiln.nn.layer.dense import Dense
from kiln.nn.learning_rate_schedule import (
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    LearningRateSchedule,
    NaturalExpDecayLR,
    PolynomialDecayLR,
    WarmUpLR,
)
from kiln.nn.optim import SGD, Adam, AdamW, AdamWeightDecay, Momentum, Optimizer

__all__ = [
    "SGD", "Adam", "AdamW", "AdamWeightDecay", "Cell", "CellDict", "CellList", "CosineDecayLR", "Dense",
    "ExponentialDecayLR", "InverseDecayLR", "LearningRateSchedule", "Momentum", "NaturalExpDecayLR", "Optimizer",
    "PolynomialDecayLR", "SequentialCell", "WarmUpLR", "cosine_decay_lr", "dynamic_lr", "exponential_decay_lr",
    "inverse_decay_lr", "learning_rate_schedule", "natural_exp_decay_lr", "piecewise_constant_lr",
    "polynomial_decay_lr", "warmup_lr",
]  # fmt: skip
