"""Optimizers (MindSpore's `mindspore.nn.optim`), one file per family."""

from kiln.nn.optim.adafactor import AdaFactor
from kiln.nn.optim.adagrad import Adadelta, Adagrad, ProximalAdagrad
from kiln.nn.optim.adam import Adam, AdaMax, AdamOffload, AdamW, AdamWeightDecay, LazyAdam
from kiln.nn.optim.adasum import AdaSumByDeltaWeightWrapCell, AdaSumByGradWrapCell
from kiln.nn.optim.ftrl import FTRL
from kiln.nn.optim.lamb import Lamb
from kiln.nn.optim.lars import LARS
from kiln.nn.optim.momentum import Momentum
from kiln.nn.optim.optimizer import Optimizer
from kiln.nn.optim.rmsprop import RMSProp
from kiln.nn.optim.rprop import Rprop
from kiln.nn.optim.sgd import ASGD, SGD
from kiln.nn.optim.thor import thor

__all__ = [
    "SGD", "Adam", "AdamW", "AdamWeightDecay", "Momentum", "Optimizer", "ASGD", "AdaMax", "Adadelta", "Adagrad",
    "RMSProp", "Rprop", "Lamb", "FTRL", "LazyAdam", "ProximalAdagrad", "AdaFactor", "AdamOffload", "LARS", "thor",
    "AdaSumByGradWrapCell", "AdaSumByDeltaWeightWrapCell",
]  # fmt: skip
