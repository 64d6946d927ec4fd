"""Functional activations: relu, gelu, softmax, prelu, hardtanh, glu, threshold, rrelu, gumbel_softmax, ..."""

from __future__ import annotations

import numpy as np

from kiln._backend import jnp
from kiln._core.tensor import Tensor
from kiln._prims.nn import activation as prims_activation
from kiln.ops import _indexing, array, math
from kiln.ops._helpers import REGISTRY, apply, make_unary, op_error
from kiln.ops.faces import functional
from kiln.ops.random import _unit_uniform

__all__ = [
    "soft_shrink",
    "fast_gelu",
    "inplace_sigmoid",
    "gumbel_softmax",
    "rrelu",
    "relu",
    "relu6",
    "sigmoid",
    "silu",
    "softsign",
    "hardswish",
    "hardsigmoid",
    "mish",
    "selu",
    "logsigmoid",
    "tanhshrink",
    "tanh",
    "softmax",
    "log_softmax",
    "softmin",
    "elu",
    "celu",
    "leaky_relu",
    "gelu",
    "softplus",
    "hardshrink",
    "softshrink",
    "prelu",
    "hardtanh",
    "glu",
    "threshold",
]


def soft_shrink(input, lambd=0.5) -> Tensor:
    """Soft shrinkage (`ops.softshrink`)."""
    return softshrink(input, lambd)


def fast_gelu(x) -> Tensor:
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))."""
    a = math.abs(x)
    return x / (1 + math.exp(-1.702 * a)) * math.exp(0.851 * (x - a))


def inplace_sigmoid(input) -> Tensor:
    """sigmoid of `input` in place."""
    return input.assign_value(sigmoid(_indexing.snapshot(input)))


sigmoid_ = inplace_sigmoid


def log_softmax_ext(input, dim=None, dtype=None) -> Tensor:
    """log_softmax over `dim` (None: the last), computed after casting to `dtype`."""
    x = input if dtype is None else math.cast(input, dtype)
    return log_softmax(x, -1 if dim is None else dim)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1) -> Tensor:
    """Samples of the Gumbel-softmax distribution: softmax((logits + Gumbel noise) / tau) along `dim`; `hard`
    gives one-hot samples whose gradient is the soft sample's."""
    u = _unit_uniform(logits.shape, logits.dtype)
    eps = float(np.finfo(logits.dtype.np).tiny)
    g = math.neg(math.log(math.neg(math.log(u + eps)) + eps))
    soft = softmax((logits + g) / tau, dim)
    if not hard:
        return soft
    index = math.argmax(soft, dim, True)
    one = array.zeros_like(soft)
    one = array.scatter(one, dim % soft.ndim, index, array.ones_like(index, dtype=soft.dtype))
    return one - math.stop_gradient(soft) + soft


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3) -> Tensor:
    """Randomised leaky ReLU: negative inputs scaled by a slope drawn from U[lower, upper) per element."""
    slope = _unit_uniform(input.shape, input.dtype) * (upper - lower) + lower
    return array.select(math.greater_equal(input, 0), input, input * slope)


relu = make_unary("ReLU", "relu")

relu6 = make_unary("ReLU6", "relu6")

sigmoid = make_unary("Sigmoid", "sigmoid")

silu = make_unary("SiLU", "silu")

softsign = make_unary("Softsign", "softsign")

hardswish = make_unary("HSwish", "hardswish")

hardsigmoid = make_unary("HSigmoid", "hardsigmoid")

mish = make_unary("Mish", "mish")

selu = make_unary("SeLU", "selu")

logsigmoid = make_unary("LogSigmoid", "logsigmoid")

tanhshrink = make_unary("Tanhshrink", "tanhshrink")

tanh = functional("tanh")  # the elementwise face (faces table)


def _axes(axis):
    return (axis,) if isinstance(axis, int) else tuple(axis)


def softmax(input, axis=-1, *, dtype=None):
    """exp(x) / sum(exp(x)) along `axis`.

    Args:
        input (Tensor): floating-point input.
        axis (int | tuple[int]): the axis (or axes) to normalise over.

    Returns:
        Tensor of the input's shape.
    """
    if dtype is not None:
        input = apply(REGISTRY["Cast"], (input,), (jnp.dtype(getattr(dtype, "np", dtype)),))
    return apply(prims_activation.Softmax, (input,), (_axes(axis),))


def log_softmax(logits, axis=-1):
    """log(softmax(logits)) along `axis`, computed stably."""
    return apply(prims_activation.LogSoftmax, (logits,), (_axes(axis),))


def softmin(x, axis=-1, *, dtype=None):
    """softmax(-x) along `axis`; with `dtype`, of the input cast to it (an integer input needs one)."""
    if dtype is not None:
        x = math.cast(x, dtype)
    return apply(prims_activation.Softmin, (x,), (_axes(axis),))


def elu(input_x, alpha: float = 1.0):
    """Exponential linear unit."""
    return apply(REGISTRY["Elu"], (input_x,), (float(alpha),))


def celu(x, alpha: float = 1.0):
    """Continuously differentiable ELU."""
    return apply(REGISTRY["CeLU"], (x,), (float(alpha),))


def leaky_relu(input, alpha: float = 0.2):
    """max(x, alpha * x) for alpha < 1."""
    return apply(REGISTRY["LeakyReLU"], (input,), (float(alpha),))


def gelu(input_x, approximate: str = "none"):
    """Gaussian error linear unit; `approximate="tanh"` uses the tanh formula."""
    return apply(REGISTRY["GeLU"], (input_x,), (approximate == "tanh",))


def softplus(input, beta: float = 1, threshold: float = 20):
    """log(1 + exp(beta * x)) / beta, linear above `threshold`."""
    return apply(REGISTRY["Softplus"], (input,), (float(beta), float(threshold)))


def hardshrink(x, lambd: float = 0.5):
    """x where |x| > lambd, else 0."""
    return apply(REGISTRY["HShrink"], (x,), (float(lambd),))


def softshrink(x, lambd: float = 0.5):
    """Soft thresholding by `lambd`."""
    return apply(REGISTRY["SoftShrink"], (x,), (float(lambd),))


def prelu(x, weight):
    """max(0, x) + weight * min(0, x), with one weight per channel (axis 1) or a single shared one.

    Args:
        x (Tensor): input of shape (N, C, ...) or (C,).
        weight (Tensor): shape (C,) or (1,).

    Returns:
        Tensor of the input's shape.
    """
    return apply(prims_activation.PReLU, (x, weight))


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0):
    """Clamp `input` to [min_val, max_val].

    Args:
        input (Tensor): the input.
        min_val (float): lower bound. Default: -1.0.
        max_val (float): upper bound. Default: 1.0.

    Returns:
        Tensor of the input's shape and dtype.
    """
    return apply(prims_activation.Hardtanh, (input,), (float(min_val), float(max_val)))


def glu(x, axis=-1) -> Tensor:
    """Gated linear unit: a * sigmoid(b) for the two halves (a, b) of `x` along `axis`."""
    if x.shape[axis] % 2:
        raise op_error("GLU", f"the size of axis {axis} of {tuple(x.shape)} must be even.")
    a, b = array.split(x, x.shape[axis] // 2, axis)
    return math.mul(a, sigmoid(b))


def threshold(input, thr, value) -> Tensor:
    """`input` where it is greater than `thr`, else `value`."""
    return array.select(math.greater(input, thr), input, array.full_like(input, value))
