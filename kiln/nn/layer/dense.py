"""Fully connected layers: `nn.Dense` (y = activation(x @ W^T + b)), `nn.Linear` and the bilinear `nn.BiDense`."""

from __future__ import annotations

import math
import numbers

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.common.initializer import HeUniform, Uniform, initializer
from kiln.nn.cell import Cell
from kiln.nn.layer._bias import bias_of
from kiln.nn.layer._held import hold, touched
from kiln.nn.layer.activation import get_activation
from kiln.ops.primitive import Primitive

__all__ = ["Dense", "Linear", "BiDense"]


class Dense(Cell):
    """Fully connected layer: `activation(x @ weight.T + bias)` over the last axis of `x`.

    Args:
        in_channels (int): size of the last input dimension.
        out_channels (int): size of the last output dimension.
        weight_init (Union[Tensor, str, Initializer, numbers.Number]): weight initializer, shape
            (out_channels, in_channels). Default: None, i.e. HeUniform(negative_slope=sqrt(5)).
        bias_init (Union[Tensor, str, Initializer, numbers.Number]): bias initializer, shape (out_channels,).
            Default: None, i.e. Uniform(1 / sqrt(in_channels)).
        has_bias (bool): add a bias. Default: True.
        activation (Union[str, Cell, Primitive, None]): applied to the output. Default: None.
        dtype (mindspore.dtype): parameter dtype. Default: float32.

    Inputs:
        x (Tensor): shape (*, in_channels).

    Outputs:
        Tensor of shape (*, out_channels).

    It holds MindSpore's primitives `matmul` (MatMul, transpose_b=True), `bias_add` (with a bias), `reshape` and
    `shape_op`; while `matmul` and `bias_add` are untouched it runs Kiln's fused dense op, which computes the same.
    """

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        weight_init=None,
        bias_init=None,
        has_bias: bool = True,
        activation=None,
        dtype=mstype.float32,
    ) -> None:
        super().__init__()
        for name, v in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"For 'Dense', '{name}' must be a positive int, but got {v!r}.")
        if not isinstance(has_bias, bool):
            raise TypeError(f"For 'Dense', 'has_bias' must be a bool, but got {type(has_bias).__name__}.")
        self.in_channels, self.out_channels, self.has_bias = int(in_channels), int(out_channels), has_bias
        if isinstance(weight_init, Tensor) and tuple(weight_init.shape) != (out_channels, in_channels):
            raise ValueError(
                f"For 'Dense', 'weight_init' must have shape [out_channels, in_channels] = "
                f"{[out_channels, in_channels]}, but got {list(weight_init.shape)}."
            )
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, [out_channels, in_channels], dtype), name="weight")
        if has_bias:
            if isinstance(bias_init, Tensor) and tuple(bias_init.shape) != (out_channels,):
                raise ValueError(
                    f"For 'Dense', 'bias_init' must have shape [out_channels] = {[out_channels]}, "
                    f"but got {list(bias_init.shape)}."
                )
            if bias_init is None:
                bias_init = Uniform(1 / math.sqrt(in_channels))
            self.bias = Parameter(initializer(bias_init, [out_channels], dtype), name="bias")
        else:
            # Set only here: a plain `self.bias = None` first would shadow the Parameter registered later.
            self.bias = None
        self.activation = get_activation(activation, "Dense") if isinstance(activation, str) else activation
        if activation is not None and not isinstance(self.activation, (Cell, Primitive)):
            raise TypeError(
                f"For 'Dense', 'activation' must be a str, Cell or Primitive, but got {type(activation).__name__}."
            )
        self.activation_flag = self.activation is not None
        hold(self, matmul=ops.MatMul(transpose_b=True), reshape=ops.Reshape(), shape_op=ops.Shape())
        if has_bias:
            hold(self, bias_add=ops.BiasAdd())

    def construct(self, x: Tensor) -> Tensor:
        if not isinstance(x, Tensor):
            given = type(x).__name__
            raise TypeError(f"Dense takes a Tensor of shape (..., {self.in_channels}); it was given a {given}.")
        if x.ndim < 1 or x.shape[-1] != self.in_channels:
            raise ValueError(
                f"For 'Dense', the last dimension of the input must be in_channels={self.in_channels}, "
                f"but got input shape {list(x.shape)}."
            )
        if touched(self):
            return self._run_held(x)
        bias, apart = bias_of(self, x.ndim >= 2)
        y = ops.dense(x, self.weight, bias)  # one fused primitive, any number of leading dims
        if apart:
            y = ops.bias_add(y, self.bias, "NHWC")  # the channels last
        if self.activation_flag:
            y = self.activation(y)
        return y

    def _run_held(self, x: Tensor) -> Tensor:
        """MindSpore's Dense: the input flattened to 2-D, `matmul`, `bias_add`, the activation, the shape back."""
        shape = self.shape_op(x)
        if len(shape) != 2:
            x = self.reshape(x, (-1, shape[-1]))
        y = self.matmul(x, self.weight)
        if self.has_bias:
            y = self.bias_add(y, self.bias)
        if self.activation_flag:
            y = self.activation(y)
        if len(shape) != 2:
            y = self.reshape(y, tuple(shape[:-1]) + (y.shape[-1],))
        return y

    def extend_repr(self) -> str:
        # The constructor's own argument names, so that the repr reads as the call that rebuilds the layer.
        s = f"in_channels={self.in_channels}, out_channels={self.out_channels}"
        if self.has_bias:
            s += f", has_bias={self.has_bias}"
        if self.activation_flag:
            s += f", activation={self.activation}"
        return s


class Linear(Dense):
    """MindSpore's PyTorch-style fully connected layer: `Linear(in_features, out_features, bias=True)`."""

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None, dtype=None) -> None:
        super().__init__(in_features, out_features, weight_init, bias_init, bias, None, dtype or mstype.float32)


class BiDense(Cell):
    """Bilinear layer: y_k = x1^T W_k x2 + b_k, weight (out_channels, in1_channels, in2_channels)."""

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None, bias_init=None, has_bias=True,
                 dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__()
        for name, v in (("in1_channels", in1_channels), ("in2_channels", in2_channels),
                        ("out_channels", out_channels)):  # fmt: skip
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"For 'BiDense', '{name}' must be a positive int, but got {v!r}.")
        self.in1_channels, self.in2_channels, self.out_channels = in1_channels, in2_channels, out_channels
        self.has_bias = has_bias
        bound = 1 / math.sqrt(in1_channels)
        shape = (out_channels, in1_channels, in2_channels)
        self.weight = Parameter(initializer(weight_init or Uniform(bound), shape, dtype), name="weight")
        if has_bias:
            self.bias = Parameter(initializer(bias_init or Uniform(bound), (out_channels,), dtype), name="bias")
            hold(self, bias_add=ops.BiasAdd())
        else:
            self.bias = None
        hold(self, matmul=ops.MatMul())

    def construct(self, input1, input2):
        if touched(self):
            return self._run_held(input1, input2)
        lead = input1.shape[:-1]
        a = ops.reshape(input1, (-1, self.in1_channels))
        b = ops.reshape(input2, (-1, self.in2_channels))
        out = ops.einsum("bi,oij,bj->bo", a, self.weight, b)
        if self.bias is not None:
            out = out + self.bias
        return ops.reshape(out, tuple(lead) + (self.out_channels,))

    def _run_held(self, input1: Tensor, input2: Tensor) -> Tensor:
        """MindSpore's BiDense: `matmul` of the flattened input1 with the weight laid out (in1, in2 * out), the
        product with input2 summed over in2, then `bias_add`."""
        lead = input1.shape[:-1]
        a = ops.reshape(input1, (-1, self.in1_channels))
        b = ops.reshape(input2, (-1, self.in2_channels))
        w = ops.reshape(ops.transpose(self.weight, (1, 2, 0)), (self.in1_channels, -1))
        y = ops.reshape(self.matmul(a, w), (-1, self.in2_channels, self.out_channels))
        y = ops.sum(ops.transpose(y, (2, 0, 1)) * b, 2)  # (out, batch)
        y = ops.swapaxes(y, 0, 1)
        if self.has_bias:
            y = self.bias_add(y, self.bias)
        return ops.reshape(y, tuple(lead) + (self.out_channels,))
