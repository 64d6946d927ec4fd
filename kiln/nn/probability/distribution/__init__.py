"""Probability distributions (`mindspore.nn.probability.distribution`): Cells whose methods (prob, cdf, mean,
entropy, kl_loss, sample ...) run in PyNative and inside a graph-mode `construct`."""

from kiln.nn.probability.distribution._continuous import (
    Beta,
    Cauchy,
    Exponential,
    Gamma,
    Gumbel,
    HalfNormal,
    Laplace,
    Logistic,
    LogNormal,
    Normal,
    StudentT,
    Uniform,
)
from kiln.nn.probability.distribution._discrete import Bernoulli, Categorical, Geometric, Poisson
from kiln.nn.probability.distribution.distribution import Distribution
from kiln.nn.probability.distribution.transformed_distribution import TransformedDistribution

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Cauchy",
    "Distribution",
    "Exponential",
    "Gamma",
    "Geometric",
    "Gumbel",
    "HalfNormal",
    "Laplace",
    "LogNormal",
    "Logistic",
    "Normal",
    "Poisson",
    "StudentT",
    "TransformedDistribution",
    "Uniform",
]
