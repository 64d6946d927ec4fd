"""`mindspore.nn.probability`: distributions, bijectors and Bayesian layers on Kiln's ops."""

from kiln.nn.probability import bijector, distribution

__all__ = ["bijector", "distribution"]
