"""Bayesian neural-network layers (`mindspore.nn.probability.bnn_layers`)."""

from kiln.nn.probability.bnn_layers._variational import ConvReparam, DenseLocalReparam, DenseReparam
from kiln.nn.probability.bnn_layers.bnn_cell_wrapper import WithBNNLossCell
from kiln.nn.probability.bnn_layers.layer_distribution import NormalPosterior, NormalPrior

__all__ = ["ConvReparam", "DenseLocalReparam", "DenseReparam", "NormalPosterior", "NormalPrior", "WithBNNLossCell"]
