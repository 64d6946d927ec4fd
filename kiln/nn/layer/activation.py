"""Activation layers (`nn.ReLU()`, `nn.GELU()`, GLU, RReLU, Threshold, ...) and `get_activation(name)`.

Each layer calls the matching functional op of `kiln.ops`; layers with
parameters (PReLU) or attributes (LeakyReLU, Softmax) keep them as MindSpore does.
"""

from __future__ import annotations

import numbers

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.common.initializer import initializer
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, touched
from kiln.nn.layer._variants import op_variants

__all__ = [
    "CELU", "ELU", "GELU", "HShrink", "HSigmoid", "HSwish", "Hardtanh", "LeakyReLU", "LogSigmoid", "LogSoftmax",
    "Mish", "PReLU", "ReLU", "ReLU6", "SeLU", "SiLU", "Sigmoid", "SoftShrink", "Softmax", "Softmin", "Softplus",
    "Softsign", "Tanh", "Tanhshrink", "get_activation", "GLU", "Threshold", "Softmax2d", "FastGelu", "RReLU",
]  # fmt: skip


def _simple(name: str, fn, doc: str) -> type:
    """A parameter-free activation Cell calling `fn`."""

    def construct(self, x):
        return fn(x)

    return type(name, (Cell,), {"construct": construct, "__doc__": doc, "__module__": __name__})


def _holding(name: str, attr: str, prim: type, doc: str) -> type:
    """A parameter-free activation Cell that holds an instance of the Primitive class `prim` as `attr` (MindSpore's
    attribute: `relu.relu.shard(...)`) and calls it."""

    def __init__(self) -> None:
        Cell.__init__(self)
        hold(self, **{attr: prim()})

    op = prim.__call__  # the class's static call: the functional op an untouched instance runs

    def construct(self, x):
        if touched(self):  # sharded or replaced: call the held one
            return getattr(self, attr)(x)
        return op(x)

    doc += f" It calls its Primitive `{attr}` ({prim.__name__})."
    return type(name, (Cell,), {"__init__": __init__, "construct": construct, "__doc__": doc, "__module__": __name__})


ReLU = _holding("ReLU", "relu", ops.ReLU, "max(x, 0), elementwise.")
ReLU6 = _holding("ReLU6", "relu6", ops.ReLU6, "min(max(x, 0), 6), elementwise.")
Sigmoid = _holding("Sigmoid", "sigmoid", ops.Sigmoid, "1 / (1 + exp(-x)), elementwise.")
Tanh = _holding("Tanh", "tanh", ops.Tanh, "Hyperbolic tangent, elementwise.")
SiLU = _simple("SiLU", ops.silu, "x * sigmoid(x), elementwise.")
HSwish = _holding("HSwish", "hswish", ops.HSwish, "Hard swish: x * relu6(x + 3) / 6, elementwise.")
HSigmoid = _holding("HSigmoid", "hsigmoid", ops.HSigmoid, "Hard sigmoid: relu6(x + 3) / 6, elementwise.")
Mish = _holding("Mish", "mish", ops.Mish, "x * tanh(softplus(x)), elementwise.")
Softsign = _holding("Softsign", "softsign", ops.Softsign, "x / (1 + |x|), elementwise.")
LogSigmoid = _simple("LogSigmoid", ops.logsigmoid, "log(sigmoid(x)), elementwise.")
SeLU = _holding("SeLU", "selu", ops.SeLU, "Scaled exponential linear unit, elementwise.")
Tanhshrink = _simple("Tanhshrink", ops.tanhshrink, "x - tanh(x), elementwise.")


class LeakyReLU(Cell):
    """x where x >= 0, alpha * x elsewhere.

    Args:
        alpha (float): slope of the negative part. Default: 0.2.
    """

    def __init__(self, alpha: float = 0.2) -> None:
        super().__init__()
        if not isinstance(alpha, numbers.Real) or isinstance(alpha, bool):
            raise TypeError(f"For 'LeakyReLU', 'alpha' must be a number, but got {type(alpha).__name__}.")
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class GELU(Cell):
    """Gaussian error linear unit.

    Args:
        approximate (bool): use the tanh approximation (MindSpore's default) instead of erf. Default: True.
    """

    def __init__(self, approximate: bool = True) -> None:
        super().__init__()
        self.approximate = approximate

    def construct(self, x):
        return ops.gelu(x, "tanh" if self.approximate else "none")


class _AxisActivation(Cell):
    _fn = None

    def __init__(self, axis=-1) -> None:
        super().__init__()
        if not isinstance(axis, (int, tuple, list)) or isinstance(axis, bool):
            raise TypeError(
                f"For '{type(self).__name__}', 'axis' must be an int or a tuple of ints, but got {type(axis).__name__}."
            )
        self.axis = axis if isinstance(axis, int) else tuple(axis)

    def construct(self, x):
        return type(self)._fn(x, self.axis)


class Softmax(_AxisActivation):
    """exp(x) / sum(exp(x)) along `axis` (Default: -1), through its Primitive `self.softmax` (MindSpore's layer
    holds one, and code reads `layer.softmax.axis`)."""

    def __init__(self, axis=-1) -> None:
        super().__init__(axis)
        self.softmax = ops.Softmax(self.axis)

    def construct(self, x):
        return self.softmax(x)


class LogSoftmax(_AxisActivation):
    """log(softmax(x)) along `axis` (Default: -1), through its Primitive `self.log_softmax` (as MindSpore's
    layer)."""

    def __init__(self, axis=-1) -> None:
        super().__init__(axis)
        self.log_softmax = ops.LogSoftmax(self.axis)

    def construct(self, x):
        return self.log_softmax(x)


(Softmin,) = op_variants(_AxisActivation, ("Softmin", ops.softmin, "softmax(-x) along `axis` (Default: -1)."))


class ELU(Cell):
    """Exponential linear unit: x for x > 0, alpha * (exp(x) - 1) otherwise.

    Args:
        alpha (float): scale of the negative part. Default: 1.0.
    """

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        self.alpha = float(alpha)
        hold(self, elu=ops.Elu(self.alpha))

    def construct(self, x):
        if touched(self):  # sharded or replaced: call the held one
            return self.elu(x)
        return ops.elu(x, self.alpha)


class CELU(Cell):
    """Continuously differentiable ELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1)).

    Args:
        alpha (float): scale. Default: 1.0.
    """

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__()
        if alpha == 0:
            raise ValueError("For 'CELU', 'alpha' must not be 0.")
        self.alpha = float(alpha)
        hold(self, celu=ops.CeLU(self.alpha))

    def construct(self, x):
        return self.celu(x)


class Softplus(Cell):
    """log(1 + exp(beta * x)) / beta, and x itself where beta * x > threshold.

    Args:
        beta (float): sharpness. Default: 1.
        threshold (float): above this (in units of beta * x) the output is linear. Default: 20.
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta, self.threshold = float(beta), float(threshold)

    def construct(self, x):
        return ops.softplus(x, self.beta, self.threshold)


class Hardtanh(Cell):
    """Clamp to [min_val, max_val].

    Args:
        min_val (float): lower bound. Default: -1.0.
        max_val (float): upper bound. Default: 1.0.
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0) -> None:
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"For 'Hardtanh', 'min_val' must not exceed 'max_val', but got {min_val} > {max_val}.")
        self.min_val, self.max_val = float(min_val), float(max_val)

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class _Shrink(Cell):
    """A shrinkage activation with threshold `lambd`, run by its Primitive (`_held`: attribute name, class)."""

    _held = ("", None)  # MindSpore's attribute name and Primitive class

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__()
        self.lambd = float(lambd)
        attr, prim = self._held
        hold(self, **{attr: prim(self.lambd)})

    def construct(self, x):
        return getattr(self, self._held[0])(x)


class HShrink(_Shrink):
    """x where |x| > lambd, else 0.

    Args:
        lambd (float): threshold. Default: 0.5.
    """

    _held = ("hshrink", ops.HShrink)


class SoftShrink(_Shrink):
    """x - lambd above lambd, x + lambd below -lambd, 0 between.

    Args:
        lambd (float): threshold. Default: 0.5.
    """

    _held = ("softshrink", ops.SoftShrink)


class PReLU(Cell):
    """Parametric ReLU with a learnable slope `w` per channel (axis 1) or shared.

    Args:
        channel (int): number of slopes: 1 (shared) or the channel count. Default: 1.
        w (Union[float, Tensor]): initial slope(s). Default: 0.25.

    Inputs:
        x (Tensor): (N, C, ...) or any shape when channel is 1.

    Outputs:
        Tensor of the input's shape.
    """

    def __init__(self, channel: int = 1, w=0.25) -> None:
        super().__init__()
        if not isinstance(channel, numbers.Integral) or isinstance(channel, bool) or channel <= 0:
            raise ValueError(f"For 'PReLU', 'channel' must be a positive int, but got {channel!r}.")
        if isinstance(w, Tensor):
            if tuple(w.shape) not in ((channel,), (1,), ()):
                raise ValueError(f"For 'PReLU', 'w' must have shape [{channel}], but got {list(w.shape)}.")
            value = ops.broadcast_to(w.astype(mstype.float32), (channel,))
        elif isinstance(w, numbers.Real) and not isinstance(w, bool):
            value = initializer(float(w), [channel], mstype.float32)
        else:
            raise TypeError(f"For 'PReLU', 'w' must be a float or a Tensor, but got {type(w).__name__}.")
        self.channel = int(channel)
        self.w = Parameter(value, name="a")  # a standalone layer's weight is named "a" (in a network: "<cell>.w")
        hold(self, prelu=ops.PReLU())

    def construct(self, x):
        return self.prelu(x, self.w)


_BY_NAME = {
    "relu": ReLU, "relu6": ReLU6, "sigmoid": Sigmoid, "tanh": Tanh, "silu": SiLU, "swish": SiLU, "hswish": HSwish,
    "hsigmoid": HSigmoid, "mish": Mish, "softsign": Softsign, "logsigmoid": LogSigmoid, "selu": SeLU,
    "tanhshrink": Tanhshrink, "leakyrelu": LeakyReLU, "gelu": GELU, "softmax": Softmax, "logsoftmax": LogSoftmax,
    "softmin": Softmin, "elu": ELU, "celu": CELU, "softplus": Softplus, "hardtanh": Hardtanh, "hshrink": HShrink,
    "softshrink": SoftShrink, "prelu": PReLU,
}  # fmt: skip


def get_activation(name, prim_name: str | None = None):
    """The activation layer called `name` ('relu', 'gelu', 'leakyrelu', ...), or None for None.

    Args:
        name (str): the activation's name (case-insensitive).
        prim_name (str, optional): the caller, named in the error message.

    Returns:
        Cell, or None when `name` is None.
    """
    if name is None:
        return None
    if not isinstance(name, str):
        raise TypeError(
            f"For '{prim_name or 'get_activation'}', the activation name must be a str, but got {type(name).__name__}."
        )
    cls = _BY_NAME.get(name.lower())
    if cls is None:
        raise KeyError(
            f"For '{prim_name or 'get_activation'}', the activation '{name}' is not supported; known: "
            f"{sorted(_BY_NAME)}."
        )
    return cls()


class GLU(Cell):
    """Gated linear unit along `axis`."""

    def __init__(self, axis=-1) -> None:
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.glu(x, self.axis)


class Threshold(Cell):
    """`input_x` where greater than `threshold`, else `value`."""

    def __init__(self, threshold, value) -> None:
        super().__init__()
        self.threshold, self.value = threshold, value

    def construct(self, input_x):
        return ops.threshold(input_x, self.threshold, self.value)


class Softmax2d(Cell):
    """Softmax over the channels of (N, C, H, W) / (C, H, W), by its Primitive `softmax` (Softmax(axis=-3))."""

    def __init__(self) -> None:
        super().__init__()
        hold(self, softmax=ops.Softmax(-3), shape=ops.Shape())

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"For 'Softmax2d', the input must be 3-D or 4-D, but got {x.ndim}-D.")
        return self.softmax(x)


class FastGelu(Cell):
    """x * sigmoid(1.702 x), MindSpore's fast GELU approximation, by its Primitive `fast_gelu` (FastGeLU)."""

    def __init__(self) -> None:
        super().__init__()
        hold(self, fast_gelu=ops.FastGeLU())

    def construct(self, x):
        return self.fast_gelu(x)


class RReLU(Cell):
    """Randomized leaky ReLU: x where x >= 0, else x times a slope drawn uniformly from [lower, upper] per element."""

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        for name, v in (("upper", upper), ("lower", lower)):
            if not isinstance(v, (int, float)) or isinstance(v, bool):
                raise TypeError(f"For 'RReLU', '{name}' must be an int or a float, but got {type(v).__name__}.")
        if lower > upper:
            raise ValueError(f"RReLU: lower={lower} is above upper={upper}; the slope is drawn from [lower, upper], "
                             "so pass lower <= upper.")  # fmt: skip
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        if not isinstance(x, Tensor):
            raise TypeError(f"RReLU got a {type(x).__name__}; call it on a Tensor.")
        return ops.rrelu(x, self.lower, self.upper)
