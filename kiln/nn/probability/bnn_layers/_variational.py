"""Bayesian layers with weights sampled from trainable posteriors (the reparameterisation trick):
`DenseReparam`, `DenseLocalReparam`, `ConvReparam`; each has `compute_kl_loss()` (KL of posterior to prior)."""

from __future__ import annotations

from kiln import ops
from kiln.nn.cell import Cell
from kiln.nn.layer.activation import get_activation
from kiln.nn.probability.bnn_layers.layer_distribution import NormalPrior, normal_post_fn

__all__ = ["ConvReparam", "DenseLocalReparam", "DenseReparam"]


def _positive_int(name, v):
    if isinstance(v, bool) or not isinstance(v, int) or v <= 0:
        raise ValueError(f"'{name}' must be a positive int, but got {v!r}.")
    return v


def _prior(fn, arg_name):
    prior = fn if isinstance(fn, Cell) else fn()
    if not isinstance(prior, Cell) or not hasattr(prior, "normal"):
        raise TypeError(f"'{arg_name}' must give a Cell with a Normal distribution 'normal'.")
    return prior


def _posterior(fn, shape, param_name, arg_name):
    try:
        post = fn(name=param_name, shape=shape)
    except TypeError as e:
        raise TypeError(f"'{arg_name}' must be a function of (name, shape) that returns a posterior: {e}") from None
    if not isinstance(post, Cell):
        raise TypeError(f"'{arg_name}' must return a Cell.")
    return post


class _Variational(Cell):
    """Shared parts: priors/posteriors of the weight (and bias), the activation, the KL loss."""

    def _setup(self, weight_shape, out_channels, activation, has_bias, priors):
        """The posterior and prior Cells of the weight (and bias); `priors` holds the constructor's four
        (weight_prior_fn, weight_posterior_fn, bias_prior_fn, bias_posterior_fn)."""
        wprior, wpost, bprior, bpost = priors
        if not isinstance(has_bias, bool):
            raise TypeError(f"'has_bias' must be a bool, but got {type(has_bias).__name__}.")
        self.has_bias = has_bias
        self.weight_prior = _prior(wprior, "weight_prior_fn")
        self.weight_posterior = _posterior(wpost, list(weight_shape), "bnn_weight", "weight_posterior_fn")
        if has_bias:
            self.bias_prior = _prior(bprior, "bias_prior_fn")
            self.bias_posterior = _posterior(bpost, [out_channels], "bnn_bias", "bias_posterior_fn")
        self.activation_flag = bool(activation)
        if isinstance(activation, str):
            activation = get_activation(activation)
        elif activation and not isinstance(activation, Cell):
            raise ValueError(f"'activation' must be a str or a Cell, but got {type(activation).__name__}.")
        self.activation = activation if activation else None

    def construct(self, x):
        out = self._apply_variational_weight(x)
        if self.has_bias:
            out = self.apply_variational_bias(out)
        if self.activation_flag:
            out = self.activation(out)
        return out

    def apply_variational_bias(self, inputs):
        return ops.bias_add(inputs, self.bias_posterior("sample"))

    def compute_kl_loss(self):
        """sum KL(posterior || prior) over the weight (and bias)."""
        args = self.weight_posterior("get_dist_args")
        kl = ops.sum(self.weight_prior("kl_loss", self.weight_posterior("get_dist_type"), *args))
        if self.has_bias:
            args = self.bias_posterior("get_dist_args")
            kl = kl + ops.sum(self.bias_prior("kl_loss", self.bias_posterior("get_dist_type"), *args))
        return kl


class _DenseVariational(_Variational):
    def __init__(self, in_channels, out_channels, activation=None, has_bias=True, weight_prior_fn=NormalPrior,
                 weight_posterior_fn=normal_post_fn, bias_prior_fn=NormalPrior,
                 bias_posterior_fn=normal_post_fn):  # fmt: skip
        super().__init__()
        self.in_channels = _positive_int("in_channels", in_channels)
        self.out_channels = _positive_int("out_channels", out_channels)
        priors = (weight_prior_fn, weight_posterior_fn, bias_prior_fn, bias_posterior_fn)
        self._setup((out_channels, in_channels), out_channels, activation, has_bias, priors)

    def extend_repr(self):
        return f"in_channels={self.in_channels}, out_channels={self.out_channels}, has_bias={self.has_bias}"


class DenseReparam(_DenseVariational):
    """Dense layer whose weight (out, in) and bias are sampled from their posteriors at every call."""

    def _apply_variational_weight(self, inputs):
        return ops.matmul(inputs, ops.transpose(self.weight_posterior("sample"), (1, 0)))


class DenseLocalReparam(_DenseVariational):
    """Dense layer with the local reparameterisation: the pre-activations are sampled from their Gaussian."""

    def _apply_variational_weight(self, inputs):
        mean, sd = self.weight_posterior("get_dist_args")
        out_mean = ops.matmul(inputs, ops.transpose(mean, (1, 0)))
        out_var = ops.matmul(inputs * inputs, ops.transpose(sd * sd, (1, 0)))
        eps = ops.cast(ops.standard_normal(tuple(out_mean.shape)), out_mean.dtype)
        return out_mean + ops.sqrt(out_var) * eps


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


class ConvReparam(_Variational):
    """2-D convolution (NCHW) whose kernel (out, in / group, kh, kw) and bias are sampled from posteriors."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_prior_fn=NormalPrior, weight_posterior_fn=normal_post_fn,
                 bias_prior_fn=NormalPrior, bias_posterior_fn=normal_post_fn):  # fmt: skip
        super().__init__()
        if pad_mode not in ("valid", "same", "pad"):
            raise ValueError(f"'pad_mode' must be one of 'valid', 'same', 'pad', but got {pad_mode!r}.")
        self.in_channels = _positive_int("in_channels", in_channels)
        self.out_channels = _positive_int("out_channels", out_channels)
        self.group = _positive_int("group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(
                f"in_channels={in_channels} and out_channels={out_channels} do not split into group={group} "
                "equal groups; choose a group that divides both."
            )
        self.kernel_size = _pair(kernel_size)
        self.stride = _pair(stride)
        self.dilation = _pair(dilation)
        self.pad_mode = pad_mode
        self.padding = padding
        priors = (weight_prior_fn, weight_posterior_fn, bias_prior_fn, bias_posterior_fn)
        self._setup((out_channels, in_channels // group, *self.kernel_size), out_channels, None, has_bias, priors)

    def _apply_variational_weight(self, inputs):
        w = self.weight_posterior("sample")
        return ops.conv2d(inputs, w, None, self.stride, self.pad_mode, self.padding, self.dilation, self.group)

    def extend_repr(self):
        return (
            f"in_channels={self.in_channels}, out_channels={self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}, pad_mode={self.pad_mode}, has_bias={self.has_bias}"
        )
