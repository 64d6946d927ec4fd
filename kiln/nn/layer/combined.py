"""Combined layers: Conv2dBnAct and DenseBnAct (a convolution or dense layer, optional BatchNorm, optional
activation)."""

from __future__ import annotations

from kiln.nn.cell import Cell
from kiln.nn.layer.activation import LeakyReLU, get_activation
from kiln.nn.layer.conv import Conv2d
from kiln.nn.layer.dense import Dense
from kiln.nn.layer.normalization import BatchNorm1d, BatchNorm2d

__all__ = ["Conv2dBnAct", "DenseBnAct"]


def _activation(cls: str, activation, alpha):
    if activation == "leakyrelu":
        return LeakyReLU(alpha)
    act = get_activation(activation) if isinstance(activation, str) else activation
    if activation is not None and not (isinstance(act, Cell) or callable(act)):
        raise TypeError(f"{cls}: activation is a {type(activation).__name__}; name one ('relu') or pass a Cell "
                        "or a callable.")  # fmt: skip
    return act


def _bool(cls: str, name: str, v) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(v).__name__}.")
    return v


class _BnAct(Cell):
    """The tail that Conv2dBnAct and DenseBnAct share: the optional BatchNorm and activation."""

    def _set_bn_act(self, cls_name, batchnorm_cls, out_channels, has_bn, momentum, eps, activation, alpha,
                    after_fake) -> None:  # fmt: skip
        self.has_bn = _bool(cls_name, "has_bn", has_bn)
        self.has_act = activation is not None
        self.after_fake = _bool(cls_name, "after_fake", after_fake)
        if has_bn:
            self.batchnorm = batchnorm_cls(out_channels, eps, momentum)
        self.activation = _activation(cls_name, activation, alpha)

    def _bn_act(self, x):
        if self.has_bn:
            x = self.batchnorm(x)
        if self.has_act:
            x = self.activation(x)
        return x


class Conv2dBnAct(_BnAct):
    """Conv2d, then (has_bn) BatchNorm2d(out_channels, eps, momentum), then the activation (a name, a Cell, or
    'leakyrelu' with slope `alpha`); sub-cells `conv`, `batchnorm`, `activation` as MindSpore names them."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0, dilation=1,
                 group=1, has_bias=False, weight_init="normal", bias_init="zeros", has_bn=False, momentum=0.997,
                 eps=1e-5, activation=None, alpha=0.2, after_fake=True):  # fmt: skip
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, pad_mode=pad_mode,
                           padding=padding, dilation=dilation, group=group, has_bias=has_bias,
                           weight_init=weight_init, bias_init=bias_init)  # fmt: skip
        self._set_bn_act("Conv2dBnAct", BatchNorm2d, out_channels, has_bn, momentum, eps, activation, alpha, after_fake)

    def construct(self, x):
        return self._bn_act(self.conv(x))


class DenseBnAct(_BnAct):
    """Dense, then (has_bn) BatchNorm1d(out_channels, eps, momentum), then the activation; sub-cells `dense`,
    `batchnorm`, `activation`."""

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros", has_bias=True,
                 has_bn=False, momentum=0.9, eps=1e-5, activation=None, alpha=0.2, after_fake=True):  # fmt: skip
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self._set_bn_act("DenseBnAct", BatchNorm1d, out_channels, has_bn, momentum, eps, activation, alpha, after_fake)

    def construct(self, x):
        return self._bn_act(self.dense(x))
