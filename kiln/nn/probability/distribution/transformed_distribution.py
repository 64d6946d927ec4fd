"""`TransformedDistribution`: the distribution of Y = g(X) for a bijector g and a base distribution of X."""

from __future__ import annotations

from kiln import ops
from kiln.nn.probability.distribution._utils.utils import read_only
from kiln.nn.probability.distribution.distribution import Distribution


class TransformedDistribution(Distribution):
    """Y = bijector(X), X ~ distribution (parameters given per call go to the base distribution).

    log p_Y(y) = log p_X(g^-1(y)) + log |d g^-1 / dy|; cdf_Y(y) = cdf_X(g^-1(y)) (g increasing); the mean is
    g(mean_X) when g is affine (constant Jacobian), and samples are g(samples of X).
    """

    def __init__(self, bijector, distribution, seed=None, name="transformed_distribution"):
        if not getattr(bijector, "_is_bijector", False):  # a Bijector (see Bijector._is_bijector)
            raise TypeError(f"'bijector' must be a Bijector, but got {type(bijector).__name__}.")
        if not isinstance(distribution, Distribution):
            raise TypeError(f"'distribution' must be a Distribution, but got {type(distribution).__name__}.")
        param = dict(locals())
        param["param_dict"] = {}
        super().__init__(seed if seed is not None else distribution.seed, distribution.dtype, name, param)
        self._bijector = bijector
        self._distribution = distribution
        self.parameter_type = distribution.parameter_type
        self._batch_shape = distribution.batch_shape
        self._broadcast_shape = self._batch_shape
        self._is_scalar_batch = distribution.is_scalar_batch
        self._is_linear_transformation = bijector.is_constant_jacobian
        self.default_parameters = distribution.default_parameters
        self.parameter_names = distribution.parameter_names

    bijector = read_only("_bijector")
    distribution = read_only("_distribution")
    is_linear_transformation = read_only("_is_linear_transformation")

    def _get_dist_type(self):
        return self._distribution.get_dist_type()

    def _get_dist_args(self, *args, **kwargs):
        return self._distribution.get_dist_args(*args, **kwargs)

    def _log_prob(self, value, *args, **kwargs):
        x = self._bijector.inverse(value)
        return self._distribution.log_prob(x, *args, **kwargs) + self._bijector.inverse_log_jacobian(value)

    def _prob(self, value, *args, **kwargs):
        return ops.exp(self._log_prob(value, *args, **kwargs))

    def _cdf(self, value, *args, **kwargs):
        return self._distribution.cdf(self._bijector.inverse(value), *args, **kwargs)

    def _log_cdf(self, value, *args, **kwargs):
        return self._distribution.log_cdf(self._bijector.inverse(value), *args, **kwargs)

    def _survival_function(self, value, *args, **kwargs):
        return self._distribution.survival_function(self._bijector.inverse(value), *args, **kwargs)

    def _log_survival(self, value, *args, **kwargs):
        return self._distribution.log_survival(self._bijector.inverse(value), *args, **kwargs)

    def _mean(self, *args, **kwargs):
        if not self._is_linear_transformation:
            raise NotImplementedError("the mean of a TransformedDistribution needs an affine bijector.")
        return self._bijector.forward(self._distribution.mean(*args, **kwargs))

    def _sample(self, *args, **kwargs):
        return self._bijector.forward(self._distribution.sample(*args, **kwargs))
