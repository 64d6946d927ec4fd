"""Bijectors: invertible transformations with their log-Jacobians (`mindspore.nn.probability.bijector`)."""

from kiln.nn.probability.bijector._bijectors import Exp, GumbelCDF, Invert, PowerTransform, ScalarAffine, Softplus
from kiln.nn.probability.bijector.bijector import Bijector

__all__ = ["Bijector", "Exp", "GumbelCDF", "Invert", "PowerTransform", "ScalarAffine", "Softplus"]
