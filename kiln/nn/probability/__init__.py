"""`mindspore.nn.probability`: distributions, bijectors and Bayesian layers on Kiln's ops."""

from kiln.nn.probability import bijector, bnn_layers, distribution

__all__ = ["bijector", "bnn_layers", "distribution"]
