"""Functional activations: relu, gelu, softmax, prelu, hardtanh, ..."""

from __future__ import annotations

from kiln._backend import jnp
from kiln._core.primitive import REGISTRY
from kiln._prims.nn import activation as prims_activation
from kiln.ops._helpers import apply, make_unary

__all__ = [
    "relu", "relu6", "sigmoid", "silu", "softsign", "hardswish", "hardsigmoid", "mish", "selu", "logsigmoid",
    "tanhshrink", "tanh", "softmax", "log_softmax", "softmin", "elu", "celu", "leaky_relu", "gelu", "softplus",
    "hardshrink", "softshrink", "prelu", "hardtanh",
]  # fmt: skip

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
tanh = make_unary("Tanh", "tanh")


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


def softmin(x, axis=-1):
    """softmax(-x) along `axis`."""
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
