"""Optimizers (MindSpore's `mindspore.nn.optim`)."""

from kiln.nn.optim.adafactor import AdaFactor
from kiln.nn.optim.adam import Adam, AdamW, AdamWeightDecay
from kiln.nn.optim.extra import ASGD, Adadelta, Adagrad, AdaMax, RMSProp, Rprop
from kiln.nn.optim.extra2 import FTRL, AdamOffload, LazyAdam, ProximalAdagrad
from kiln.nn.optim.lamb import Lamb
from kiln.nn.optim.lars import LARS
from kiln.nn.optim.momentum import Momentum
from kiln.nn.optim.optimizer import Optimizer
from kiln.nn.optim.sgd import SGD
from kiln.nn.optim.thor import thor

__all__ = [
    "SGD", "Adam", "AdamW", "AdamWeightDecay", "Momentum", "Optimizer", "ASGD", "AdaMax", "Adadelta", "Adagrad",
    "RMSProp", "Rprop", "Lamb", "FTRL", "LazyAdam", "ProximalAdagrad", "AdaFactor", "AdamOffload", "LARS", "thor",
]  # fmt: skip
