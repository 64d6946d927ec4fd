"""MindSpore's neural-network Primitive classes (`ops.operations.nn_ops`): activations, convolution, pooling,
normalisation, dropout, losses and the fused optimizer updates.
"""

from __future__ import annotations

import numbers

import numpy as np

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core import random_state
from kiln._core.random_state import next_key
from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import refuse_argument
from kiln._prims import image as prims_image
from kiln._prims.nn import activation as prims_activation
from kiln._prims.nn import conv as prims_conv
from kiln._prims.nn import dropout as prims_dropout
from kiln._prims.nn import loss as prims_loss
from kiln._prims.nn import norm as prims_norm
from kiln._prims.nn import pool as prims_pool
from kiln.ops import array, image, math
from kiln.ops import nn as nn_ops
from kiln.ops._args import (
    check_non_negative,
    check_positive,
    check_probability,
    check_reduction,
    ntuple,
    pad_mode_of,
    pad_pairs,
)
from kiln.ops._helpers import REGISTRY, apply, op_error, prim, write_back
from kiln.ops.ascend_rnn import DynamicGRUV2, DynamicRNN
from kiln.ops.faces import CLASSES
from kiln.ops.faces.custom import ConvPrimitive
from kiln.ops.lstm import LSTM
from kiln.ops.nn import activation, loss, normalization
from kiln.ops.nn.normalization import update_moving_stats
from kiln.ops.nn.pooling import adaptive_output_size
from kiln.ops.operations._build import as_ints, assign_if_parameter, attr_class, host_array, scalar_value, simple_class
from kiln.ops.primitive import Primitive, WithAttrs
from kiln.ops.random import _RandomPrimitive, _uniform01

__all__ = [
    "NthElement",
    "InTopK",
    "DynamicRNN",  # Ascend's fused LSTM and GRU: they build (MindSpore's nn_ops holds them), a call raises
    "DynamicGRUV2",
    "LSTM",  # the operations-level LSTM over a flat weight (kiln/ops/lstm.py)
    "Sigmoid",
    "ReLU",
    "ReLU6",
    "SiLU",
    "HSwish",
    "HSigmoid",
    "Mish",
    "SeLU",
    "Softsign",
    "Elu",
    "GeLU",
    "Softplus",
    "BiasAdd",
    "Softmax",
    "LogSoftmax",
    "LeakyReLU",
    "Flatten",
    "OneHot",
    "Pad",
    "L2Loss",
    "HShrink",
    "SoftShrink",
    "MaxPoolWithArgmax",
    "CeLU",
    "Dense",
    "FastGeLU",
    "FastGelu",
    "Gelu",
    "GLU",
    "LRN",
    "InstanceNorm",
    "LogSoftmaxExt",
    "MirrorPad",
    "Pdist",
    "SigmoidCrossEntropyWithLogits",
    "SoftMarginLoss",
    "MultiMarginLoss",
    "ChannelShuffle",
    "Dropout2D",
    "Dropout3D",
    "ApplyGradientDescent",
    "GridSampler2D",
    "ApplyAdaMax",
    "ApplyAdadelta",
    "ApplyAdagrad",
    "ApplyAdamWithAmsgrad",
    "ApplyAdamWithAmsgradV2",
    "ApplyRMSProp",
    "ApplyCenteredRMSProp",
    "AdamWeightDecay",
    "FusedAdaFactor",
    "PSROIPooling",
    "FusedAdaFactorWithGlobalNorm",
    "FusedWeightScaleApplyMomentum",
    "AdamNoUpdateParam",
    "FusedCastAdamWeightDecay",
    "FusedSparseAdam",
    "FusedSparseLazyAdam",
    "FusedSparseFtrl",
    "FusedSparseProximalAdagrad",
    "SparseApplyAdagrad",
    "SparseApplyAdagradV2",
    "ApplyAdagradV2",
    "ApplyProximalAdagrad",
    "ApplyAddSign",
    "ApplyPowerSign",
    "ApplyProximalGradientDescent",
    "ApplyFtrl",
    "SparseApplyRMSProp",
    "SparseApplyFtrl",
    "TripletMarginLoss",
    "MultilabelMarginLoss",
    "MaxUnpool2D",
    "MaxUnpool3D",
    "PadV3",
    "UpsampleNearest3D",
    "UpsampleTrilinear3D",
    "RmsNorm",
    "ctc_greedy_decoder",
    "CTCGreedyDecoder",
    "CTCLoss",
    "DropoutGenMask",
    "DropoutDoMask",
    "ROIAlign",
    "GridSampler3D",
    "MaxPool3DWithArgmax",
    "CTCLossV2",
    "fractional_max_pool2d",
    "fractional_max_pool3d",
    "FractionalMaxPoolWithFixedKsize",
    "FractionalMaxPool3DWithFixedKsize",
    "DeformableOffsets",
    "deformable_conv2d",
    "Conv3D",
    "Conv2DTranspose",
    "Conv2DBackpropInput",
    "Conv3DTranspose",
    "MaxPool",
    "AvgPool",
    "MaxPool3D",
    "AvgPool3D",
    "MaxPoolWithArgmaxV2",
    "AdaptiveAvgPool2D",
    "AdaptiveMaxPool2D",
    "AdaptiveAvgPool3D",
    "AdaptiveMaxPool3D",
    "BatchNorm",
    "LayerNorm",
    "Dropout",
    "PReLU",
    "L2Normalize",
    "SoftmaxCrossEntropyWithLogits",
    "SparseSoftmaxCrossEntropyWithLogits",
    "NLLLoss",
    "BinaryCrossEntropy",
    "BCEWithLogitsLoss",
    "KLDivLoss",
    "SmoothL1Loss",
    "Tanh",
    "Conv2D",
]


def _l2_loss(x):
    return math.mul(math.sum(math.square(x)), 0.5)


def _rows_update(var, indices, rows):
    return assign_if_parameter(var, array.tensor_scatter_update(var, array.expand_dims(indices, -1), rows))


def _state_update(name: str, state: tuple, inputs: tuple, attrs: tuple = ()) -> tuple:
    """Run the per-parameter optimizer update `name` (kiln/_prims/state.py: its state kept in its dtype inside a
    float16 Cell) and store each new value into its Parameter; the new values. (`write_back`, not an Assign: inside
    a float16 Cell an Assign would round the float32 value to float16 on its way in.)"""
    return _stored(state, apply(prim(name), (*state, *inputs), attrs))


def _stored(state: tuple, new: tuple) -> tuple:
    """`new`, each value written into the Parameter of `state` it replaces."""
    kept = [(t, v) for t, v in zip(state, new, strict=True) if isinstance(t, Parameter)]
    write_back([t for t, _ in kept], [v for _, v in kept])
    return new


def _apply_ada_max(s, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    return _state_update("ApplyAdaMax", (var, m, v), (beta1_power, lr, beta1, beta2, epsilon, grad))


def _apply_adadelta(s, var, accum, accum_update, lr, rho, epsilon, grad):
    return _state_update("ApplyAdadelta", (var, accum, accum_update), (lr, rho, epsilon, grad))


def _apply_adagrad(s, var, accum, lr, grad):
    return _state_update("ApplyAdagrad", (var, accum), (lr, grad), (bool(s.update_slots),))


def _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    inputs = (beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)
    return _state_update("ApplyAdamWithAmsgrad", (var, m, v, vhat), inputs)


def _apply_rms_prop(s, var, mean_square, moment, lr, grad, decay, momentum, epsilon):
    return _state_update("ApplyRMSProp", (var, mean_square, moment), (lr, grad, decay, momentum, epsilon))[0]


def _apply_centered_rms_prop(s, var, mean_grad, mean_square, moment, grad, lr, decay, momentum, epsilon):
    state = (var, mean_grad, mean_square, moment)
    return _state_update("ApplyCenteredRMSProp", state, (grad, lr, decay, momentum, epsilon))[0]


def _adam_weight_decay(s, var, m, v, lr, beta1, beta2, epsilon, decay, grad):
    return _state_update("AdamWeightDecay", (var, m, v), (lr, beta1, beta2, epsilon, decay, grad))


def _fused_weight_scale_apply_momentum(s, weight_decay, loss_scale, variable, accumulation, lr, gradient, momentum):
    # MindSpore's input order; the declaration takes the state first, then the gradient of the same shape
    inputs = (gradient, weight_decay, loss_scale, lr, momentum)
    return _state_update("FusedWeightScaleApplyMomentum", (variable, accumulation), inputs)[0]


def _float32(value, name: str, op: str, size: int = 1) -> Tensor:
    """A float32 hyperparameter of a fused optimizer as the kernel reads it: `size` values (a Tensor or numbers)."""
    t = value if isinstance(value, Tensor) else Tensor(np.asarray(value, np.float32))
    if t.size != size:
        raise op_error(op, f"'{name}' must hold {size} float value(s), but got shape {list(t.shape)}.")
    t = math.cast(t, mstype.float32)
    return array.reshape(t, (2,)) if size == 2 else array.reshape(t, ())


def _fused_ada_factor(s, epsilon, clip_threshold, beta1, beta2, weight_decay, learning_rate, grad, param, exp_avg,
                      exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq, global_norm=1.0):  # fmt: skip
    op = s.name
    if param.ndim >= 2:  # factored second moments: a row and a column average
        rows, cols = tuple(param.shape[:-1]), tuple(param.shape[:-2] + param.shape[-1:])
        if tuple(exp_avg_sq_row.shape) != rows or tuple(exp_avg_sq_col.shape) != cols:
            got = f"{list(exp_avg_sq_row.shape)} and {list(exp_avg_sq_col.shape)}"
            raise op_error(
                op, f"a parameter of shape {list(param.shape)} needs 'exp_avg_sq_row' {list(rows)} and "
                f"'exp_avg_sq_col' {list(cols)}, but got {got}.",
            )  # fmt: skip
    elif tuple(exp_avg_sq.shape) != tuple(param.shape):
        raise op_error(op, f"'exp_avg_sq' must have the parameter's shape {list(param.shape)}, "
                           f"but got {list(exp_avg_sq.shape)}.")  # fmt: skip
    if s.enable_first_moment and tuple(exp_avg.shape) != tuple(param.shape):
        raise op_error(op, f"'exp_avg' must have the parameter's shape {list(param.shape)}, "
                           f"but got {list(exp_avg.shape)}.")  # fmt: skip
    scalars = [_float32(epsilon, "epsilon", op, 2)] + [
        _float32(v, n, op)
        for v, n in ((clip_threshold, "clip_threshold"), (beta1, "beta1"), (beta2, "beta2"),
                     (weight_decay, "weight_decay"), (learning_rate, "learning_rate"), (global_norm, "global_norm"))
    ]  # fmt: skip
    state = (param, exp_avg, exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq)
    attrs = (bool(s.enable_scale_parameter), bool(s.enable_first_moment), bool(s.enable_weight_decay))
    _state_update("FusedAdaFactorUpdate", state, (grad, *scalars), attrs)
    # MindSpore 2.10's CPU kernel writes nothing to its one output (zeros, probed): the states are its result
    return (array.zeros(tuple(param.shape), param.dtype),)


def _adam_no_update_param(s, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
    inputs = (beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient)
    delta, *moments = apply(prim("AdamNoUpdateParam"), (m, v, *inputs), (bool(s.use_nesterov),))
    kept = [(t, x) for t, x in zip((m, v), moments, strict=True) if isinstance(t, Parameter)]
    write_back([t for t, _ in kept], [x for _, x in kept])
    return delta


def _fused_cast_adam_weight_decay(s, var, m, v, lr, beta1, beta2, epsilon, decay, gradient, global_norm):
    inputs = (lr, beta1, beta2, epsilon, decay, gradient, global_norm)
    return _state_update("FusedCastAdamWeightDecay", (var, m, v), inputs)


def _fused_sparse_adam(s, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices):
    inputs = (beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices)
    return _state_update("FusedSparseAdam", (var, m, v), inputs, (bool(s.use_nesterov),))


def _sparse_rows(how: str, rule: str, state: tuple, grad, indices, hyper: tuple, grad_at: int, rule_attrs=()) -> tuple:
    """The dense update `rule` (whose input `grad_at` is the gradient) on the rows `indices` of `state`, each new value
    stored into its Parameter. `how`: "in_order" visits one index after the other (a repeated index updates its row
    again); "summed" sums a repeated index's gradients and updates each named row once (the others keep theirs)."""
    primitive = prim("SparseRowsInOrder" if how == "in_order" else "SparseRowsSummed")
    return _stored(
        state, apply(primitive, (indices, *state, grad, *hyper), (rule, len(state), grad_at, tuple(rule_attrs)))
    )


def _fused_sparse_lazy_adam(s, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad, indices):
    hyper = (beta1_power, beta2_power, lr, beta1, beta2, epsilon)
    nesterov = (("use_nesterov", bool(s.use_nesterov)),)
    return _sparse_rows("summed", "LazyAdam", (var, m, v), grad, indices, hyper, 9, nesterov)


def _fused_sparse_proximal_adagrad(s, var, accum, lr, l1, l2, grad, indices):
    return _sparse_rows("summed", "ApplyProximalAdagrad", (var, accum), grad, indices, (lr, l1, l2), 5)


def _sparse_apply_adagrad(s, var, accum, grad, indices):
    # MindSpore's kernel sums the gradients of a repeated index first, then updates each row once
    idx = array.expand_dims(indices, -1)
    touched = array.tensor_scatter_update(array.zeros_like(var), idx, array.ones_like(grad)) > 0
    summed = array.tensor_scatter_add(array.zeros_like(var), idx, grad)
    new_accum = array.select(touched, accum + math.square(summed), accum) if s.update_slots else accum
    new_var = array.select(touched, var - s.lr * summed / math.sqrt(array.select(touched, new_accum, 1.0)), var)
    return assign_if_parameter(var, new_var), assign_if_parameter(accum, new_accum)


def _apply_adagrad_v2(s, var, accum, lr, grad):
    return _state_update("ApplyAdagradV2", (var, accum), (lr, grad), (float(s.epsilon), bool(s.update_slots)))


def _apply_proximal_adagrad(s, var, accum, lr, l1, l2, grad):
    return _state_update("ApplyProximalAdagrad", (var, accum), (lr, l1, l2, grad))


def _sparse_apply_rms_prop(s, var, mean_square, moment, lr, grad, indices):
    # each index's row in turn, as MindSpore 2.10's kernel visits them (kiln/_prims/state.py `_rms_prop_row`)
    rule_attrs = (("rho", float(s.rho)), ("momentum", float(s.momentum)), ("epsilon", float(s.epsilon)))
    return _sparse_rows("in_order", "RMSPropRow", (var, mean_square, moment), grad, indices, (lr,), 4, rule_attrs)


def _sparse_apply_adagrad_v2(s, var, accum, grad, indices):
    # ApplyAdagradV2's rule on each index's row in turn
    rule_attrs = (("epsilon", float(s.epsilon)), ("update_slots", bool(s.update_slots)))
    return _sparse_rows("in_order", "ApplyAdagradV2", (var, accum), grad, indices, (s.lr,), 3, rule_attrs)


class SparseApplyFtrl(Primitive):
    """FTRL-Proximal (McMahan et al. 2013) on the rows `indices` of `var`, `accum` and `linear`:
    n' = n + g^2; z += g - (n'^-p - n^-p) / lr * w; w = (sign(z) l1 - z) / (n'^-p / lr + 2 l2) where |z| > l1, else
    0 (p = lr_power). Returns the three updated tensors; Parameters are written in place. (`use_locking` guards
    concurrent writers; Kiln's updates are functional.)"""

    def __init__(self, lr: float, l1: float, l2: float, lr_power: float, use_locking: bool = False) -> None:
        super().__init__()
        for name, value in (("lr", lr), ("l1", l1), ("l2", l2), ("lr_power", lr_power)):
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise op_error(self.name, f"'{name}' must be a float, but got {type(value).__name__}.", TypeError)
        if not isinstance(use_locking, bool):
            raise op_error(self.name, f"'use_locking' must be a bool, but got {type(use_locking).__name__}.", TypeError)
        # The rate is > 0, the penalties >= 0 and the power <= 0 (the accumulator's root shrinks the step).
        bad = [(n, v, rule) for n, v, rule in (("lr", lr, "> 0"), ("l1", l1, ">= 0"), ("l2", l2, ">= 0"),
                                               ("lr_power", lr_power, "<= 0"))
               if not {"> 0": v > 0, ">= 0": v >= 0, "<= 0": v <= 0}[rule]]  # fmt: skip
        if bad:
            name, value, rule = bad[0]
            raise op_error(self.name, f"'{name}' must be {rule}, but got {value}.")
        for k, v in (("lr", lr), ("l1", l1), ("l2", l2), ("lr_power", lr_power), ("use_locking", use_locking)):
            self.add_prim_attr(k, v)

    def __call__(self, var, accum, linear, grad, indices):
        for name, other in (("accum", accum), ("linear", linear)):
            if tuple(other.shape) != tuple(var.shape):
                raise op_error(self.name, f"'{name}' must have the shape of 'var' {tuple(var.shape)}, but got "
                                          f"{tuple(other.shape)}.")  # fmt: skip
        if len(indices.shape) != 1:
            raise op_error(self.name, f"'indices' must be 1-D, but got shape {tuple(indices.shape)}.")
        if len(grad.shape) == 0 or grad.shape[0] != indices.shape[0] or tuple(grad.shape[1:]) != tuple(var.shape[1:]):
            raise op_error(self.name, f"'grad' must have one row per index and the row shape of 'var' "
                                      f"{tuple(var.shape[1:])}, but got {tuple(grad.shape)} for "
                                      f"{indices.shape[0]} indices.")  # fmt: skip
        return self._rows(var, accum, linear, grad, indices)

    def _rows(self, var, accum, linear, grad, indices):
        # ApplyFtrl's rule (kiln/_prims/state.py) on each index's row in turn, as MindSpore's kernel visits them
        hyper = (self.lr, self.l1, self.l2, self.lr_power)
        return _sparse_rows("in_order", "ApplyFtrl", (var, accum, linear), grad, indices, hyper, 3)


def _channel_dropout(fn, s, x):
    out = fn(x, 1.0 - s.keep_prob, True)
    mask = math.not_equal(out, 0) if s.keep_prob > 0 else array.zeros_like(x, dtype=mstype.bool_)
    return out, mask


def _pairs_to_flat(p):
    return p


def _rms_norm(x, gamma, eps):
    rstd = math.rsqrt(math.mean(math.square(x), -1, True) + eps)
    return x * rstd * gamma, rstd


def _fixed(op: str, name: str, value, nd: int) -> tuple[int, ...]:
    v = (int(value),) * nd if isinstance(value, numbers.Integral) else tuple(int(a) for a in value)
    if len(v) != nd or any(a <= 0 for a in v):
        raise op_error(op, f"'{name}' must be a positive int or {nd} positive ints, but got {value!r}.")
    return v


def _fractional(op: str, input, kernel_size, output_size, output_ratio, samples, return_indices: bool, nd: int):
    """Fractional max pooling over the last `nd` dims of a batched (or, one dim fewer, unbatched) input."""
    unbatched = input.ndim == nd + 1
    x = array.expand_dims(input, 0) if unbatched else input
    ksize = _fixed(op, "kernel_size", kernel_size, nd)
    if output_size is None:
        if output_ratio is None:
            raise op_error(op, "one of 'output_size' and 'output_ratio' must be given.")
        ratio = (float(output_ratio),) * nd if isinstance(output_ratio, numbers.Real) else tuple(output_ratio)
        if len(ratio) != nd or not all(0 < r < 1 for r in ratio):
            raise op_error(op, f"'output_ratio' must hold {nd} values in (0, 1), but got {output_ratio!r}.")
        out = tuple(int(x.shape[-nd + d] * ratio[d]) for d in range(nd))
    else:
        out = _fixed(op, "output_size", output_size, nd)
    if samples is None:
        samples = math.cast(_uniform01((x.shape[0], x.shape[1], nd), mstype.float32, random_state.next_key()),
                            x.dtype if x.dtype.is_floating else mstype.float32)  # fmt: skip
    y, index = apply(prims_pool.FractionalMaxPool, (x, samples), (ksize, out))
    if unbatched:
        y, index = array.squeeze(y, 0), array.squeeze(index, 0)
    return (y, index) if return_indices else y


def _nchw4(op: str, name: str, value) -> tuple[int, int]:
    v = tuple(int(a) for a in value)
    if len(v) != 4 or v[0] != 1 or v[1] != 1 or v[2] <= 0 or v[3] <= 0:
        raise op_error(op, f"'{name}' must be 4 ints (1, 1, h, w) with positive h, w, but got {value!r}.")
    return v[2], v[3]


class _NNPrimitive(Primitive):
    """A Primitive that records its (already normalised) attributes and keeps the dispatch tuple."""

    def _record(self, **attrs) -> None:
        for k, v in attrs.items():
            self.add_prim_attr(k, v)


# ---- pooling ---------------------------------------------------------------------------------------
class _Pool(_NNPrimitive):
    _nd = 2
    _kind = "max"

    def _setup(self, kernel_size, strides, pad_mode, pads=0, ceil=False, include_pad=True, divisor=0, **record) -> None:
        nd, name = self._nd, self.name
        kernel = ntuple(name, "kernel_size", kernel_size, nd)
        strides_t = ntuple(name, "strides", strides, nd)
        check_positive(name, "kernel_size", kernel)
        check_positive(name, "strides", strides_t)
        mode_ = pad_mode_of(name, pad_mode)
        pads = pad_pairs(name, pads, nd)
        check_non_negative(name, "pad", pads)
        self._record(kernel_size=kernel, strides=strides_t, pad_mode=mode_, **record)
        if self._kind == "max":
            self._attrs = (kernel, strides_t, mode_, pads, (1,) * nd, bool(ceil))
        else:
            self._attrs = (kernel, strides_t, mode_, pads, bool(ceil), bool(include_pad), int(divisor or 0))

    @property
    def _prim(self):
        # looked up, not kept on the instance: a declaration holds local functions, and a layer holding the
        # instance (nn.MaxPool2d's max_pool) pickles
        if self._kind == "max":
            return prims_pool.MaxPool3D if self._nd == 3 else prims_pool.MaxPool
        return prims_pool.AvgPool3D if self._nd == 3 else prims_pool.AvgPool

    def __call__(self, x):
        return apply(self._prim, (x,), self._attrs)


class _Adaptive(_NNPrimitive):
    _kind, _nd = "Avg", 2

    def __init__(self, output_size) -> None:
        super().__init__()
        self._prim = REGISTRY[f"Adaptive{self._kind}Pool{self._nd}D"]
        self._attrs = (adaptive_output_size(self.name, output_size, self._nd),)
        self._record(output_size=output_size)

    def __call__(self, x):
        return apply(self._prim, (x,), self._attrs)


class _ReducedLoss(_NNPrimitive):
    _prim = None

    def __init__(self, reduction: str = "mean") -> None:
        super().__init__()
        check_reduction(self.name, reduction)
        self._record(reduction=reduction)


Sigmoid = simple_class("Sigmoid", nn_ops.sigmoid)
ReLU = simple_class("ReLU", nn_ops.relu)
ReLU6 = simple_class("ReLU6", nn_ops.relu6)
SiLU = simple_class("SiLU", nn_ops.silu)
HSwish = simple_class("HSwish", nn_ops.hardswish)
HSigmoid = simple_class("HSigmoid", nn_ops.hardsigmoid)
Mish = simple_class("Mish", nn_ops.mish)
SeLU = simple_class("SeLU", nn_ops.selu)
Softsign = simple_class("Softsign", nn_ops.softsign)
Elu = attr_class("Elu", {"alpha": 1.0}, lambda self, x: nn_ops.elu(x, self.alpha))
# MindSpore's GeLU primitive computes the tanh form (its kernels on every backend); erf is ops.gelu's default
GeLU = simple_class("GeLU", lambda x: nn_ops.gelu(x, "tanh"))
Softplus = simple_class("Softplus", nn_ops.softplus)
BiasAdd = attr_class("BiasAdd", {"data_format": "NCHW"}, lambda self, x, b: math.bias_add(x, b, self.data_format))


class Softmax(WithAttrs):
    """Softmax along `axis`; the attribute is kept as a tuple of ints (an int axis becomes a 1-tuple), as
    MindSpore stores it, so code reading `Softmax(1).axis` sees `(1,)`."""

    _defaults = {"axis": -1}

    def __init__(self, axis=-1) -> None:
        if isinstance(axis, int):
            axis = (axis,)
        if not isinstance(axis, tuple) or not all(isinstance(a, int) for a in axis):
            raise op_error("Softmax", f"'axis' must be an int or a tuple of ints, but got {type(axis).__name__}.",
                           TypeError)  # fmt: skip
        super().__init__(axis)

    def __call__(self, x):
        return nn_ops.softmax(x, self.axis)


LogSoftmax = attr_class("LogSoftmax", {"axis": -1}, lambda self, x: nn_ops.log_softmax(x, self.axis))
LeakyReLU = attr_class("LeakyReLU", {"alpha": 0.2}, lambda self, x: nn_ops.leaky_relu(x, self.alpha))
Flatten = attr_class("Flatten", {}, lambda self, x: array.flatten(x))
OneHot = attr_class(
    "OneHot",
    {"axis": -1},
    lambda self, indices, depth, on_value, off_value: array.one_hot(indices, depth, on_value, off_value, self.axis),
)
Pad = attr_class(
    "Pad", {"paddings": ()}, lambda self, x: apply(prim("Pad"), (x,), (tuple(map(tuple, self.paddings)), "constant", 0))
)
L2Loss = simple_class("L2Loss", _l2_loss)
HShrink = attr_class("HShrink", {"lambd": 0.5}, lambda self, x: nn_ops.hardshrink(x, self.lambd))
SoftShrink = attr_class("SoftShrink", {"lambd": 0.5}, lambda self, x: nn_ops.softshrink(x, self.lambd))


class MaxPoolWithArgmax(WithAttrs):
    """2-D max pooling ('valid' or 'same' padding) that also returns the flat (H * W) index of each maximum."""

    _defaults = {"kernel_size": 1, "strides": 1, "pad_mode": "valid", "data_format": "NCHW"}

    def __call__(self, x):
        name = "MaxPoolWithArgmax"
        kernel = ntuple(name, "kernel_size", self.kernel_size, 2)
        strides = ntuple(name, "strides", self.strides, 2)
        mode = str(self.pad_mode).lower()
        if mode not in ("valid", "same"):
            raise op_error(name, f"'pad_mode' must be 'valid' or 'same', but got {self.pad_mode!r}.")
        if self.data_format != "NCHW":
            raise op_error(name, f"'data_format' must be 'NCHW', but got {self.data_format!r}.")
        out, index = apply(prim("MaxPoolWithArgmax"), (x,), (kernel, strides, mode, pad_pairs(name, 0, 2), (1, 1),
                                                             False))  # fmt: skip
        return out, math.cast(index, mstype.int32)


CeLU = attr_class("CeLU", {"alpha": 1.0}, lambda self, x: nn_ops.celu(x, self.alpha))
Dense = attr_class("Dense", {}, lambda s, x, w, b=None: nn_ops.dense(x, w, b))
FastGeLU = attr_class("FastGeLU", {}, lambda s, x: activation.fast_gelu(x))
FastGelu = attr_class("FastGelu", {}, lambda s, x: activation.fast_gelu(x))
Gelu = attr_class("Gelu", {}, lambda s, x: nn_ops.gelu(x, "tanh"))
GLU = attr_class("GLU", {"axis": -1}, lambda s, x: nn_ops.glu(x, s.axis))
LRN = attr_class(
    "LRN",
    {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5, "norm_region": "ACROSS_CHANNELS"},
    lambda s, x: normalization.lrn(x, s.depth_radius, s.bias, s.alpha, s.beta, s.norm_region),
)
LogSoftmaxExt = attr_class(
    "LogSoftmaxExt", {}, lambda s, x, dim=None, dtype=None: activation.log_softmax_ext(x, dim, dtype)
)
MirrorPad = attr_class("MirrorPad", {"mode": "REFLECT"}, lambda s, x, pads: array.mirror_pad(x, pads, s.mode))
Pdist = attr_class("Pdist", {"p": 2.0}, lambda s, x: math.pdist(x, s.p))
SigmoidCrossEntropyWithLogits = attr_class(
    "SigmoidCrossEntropyWithLogits", {}, lambda s, x, y: nn_ops.binary_cross_entropy_with_logits(x, y, reduction="none")
)
SoftMarginLoss = attr_class(
    "SoftMarginLoss", {"reduction": "mean"}, lambda s, x, y: nn_ops.soft_margin_loss(x, y, s.reduction)
)
MultiMarginLoss = attr_class(
    "MultiMarginLoss",
    {"p": 1, "margin": 1.0, "reduction": "mean"},
    lambda s, x, y, w=None: nn_ops.multi_margin_loss(x, y, s.p, s.margin, w, s.reduction),
)
ChannelShuffle = attr_class("ChannelShuffle", {"group": 1}, lambda s, x: nn_ops.channel_shuffle(x, s.group))
Dropout2D = attr_class("Dropout2D", {"keep_prob": 0.5}, lambda s, x: _channel_dropout(nn_ops.dropout2d, s, x))
Dropout3D = attr_class("Dropout3D", {"keep_prob": 0.5}, lambda s, x: _channel_dropout(nn_ops.dropout3d, s, x))
ApplyGradientDescent = attr_class(
    "ApplyGradientDescent",
    {},
    lambda s, var, alpha, delta: _state_update("ApplyGradientDescent", (var,), (alpha, delta))[0],
)
GridSampler2D = attr_class(
    "GridSampler2D",
    {"interpolation_mode": "bilinear", "padding_mode": "zeros", "align_corners": False},
    lambda s, x, grid: image.grid_sample(x, grid, s.interpolation_mode, s.padding_mode, s.align_corners),
)
ApplyAdaMax = attr_class("ApplyAdaMax", {}, _apply_ada_max)
ApplyAdadelta = attr_class("ApplyAdadelta", {"use_locking": False}, _apply_adadelta)
ApplyAdagrad = attr_class("ApplyAdagrad", {"update_slots": True, "use_locking": False}, _apply_adagrad)
ApplyAdamWithAmsgrad = attr_class(
    "ApplyAdamWithAmsgrad",
    {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-08, "use_locking": False},
    lambda s, var, m, v, vhat, b1p, b2p, lr, grad: _amsgrad(
        var, m, v, vhat, b1p, b2p, lr, s.beta1, s.beta2, s.epsilon, grad
    ),
)
ApplyAdamWithAmsgradV2 = attr_class(
    "ApplyAdamWithAmsgradV2",
    {"use_locking": False},
    lambda s, var, m, v, vhat, b1p, b2p, lr, b1, b2, eps, grad: _amsgrad(
        var, m, v, vhat, b1p, b2p, lr, b1, b2, eps, grad
    ),
)
ApplyRMSProp = attr_class("ApplyRMSProp", {"use_locking": False}, _apply_rms_prop)
ApplyCenteredRMSProp = attr_class("ApplyCenteredRMSProp", {"use_locking": False}, _apply_centered_rms_prop)
AdamWeightDecay = attr_class("AdamWeightDecay", {"use_locking": False}, _adam_weight_decay)
AdamNoUpdateParam = attr_class(
    "AdamNoUpdateParam",
    {"use_locking": False, "use_nesterov": False},
    _adam_no_update_param,
    doc="Adam's step without the parameter: m and v updated in place, the parameter's delta returned "
    "(-lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + epsilon); with use_nesterov m is replaced by "
    "beta1 * m + (1 - beta1) * gradient). Inputs: m, v (Parameters), beta1_power, beta2_power, lr, beta1, beta2, "
    "epsilon, gradient. Output: the delta, to be added to the parameter (nn.AdamOffload's host step).",
)
FusedCastAdamWeightDecay = attr_class(
    "FusedCastAdamWeightDecay",
    {"use_locking": False},
    _fused_cast_adam_weight_decay,
    doc="AdamWeightDecay over a gradient divided by the global norm, in place: g = gradient / global_norm (a norm "
    "under 1e-10 counts as 1); m += (g - m) * (1 - beta1); v += (g * g - v) * (1 - beta2); var -= lr * (m / "
    "(sqrt(v) + epsilon) + decay * var). Inputs: var (float32 or float16 Parameter), m, v (float32 Parameters), lr, "
    "beta1, beta2, epsilon, decay, gradient (float16 or float32), global_norm. Outputs: the new (var, m, v); "
    "MindSpore's CPU kernel leaves its outputs unwritten, so only the Parameters are its results.",
)
FusedSparseLazyAdam = attr_class(
    "FusedSparseLazyAdam", {"use_locking": False, "use_nesterov": False}, _fused_sparse_lazy_adam
)
FusedSparseProximalAdagrad = attr_class(
    "FusedSparseProximalAdagrad", {"use_locking": False}, _fused_sparse_proximal_adagrad
)
FusedSparseAdam = attr_class(
    "FusedSparseAdam",
    {"use_locking": False, "use_nesterov": False},
    _fused_sparse_adam,
    doc="Adam from a gradient given as rows at indices, in place: the rows summed per index; m = m * beta1 + (1 - "
    "beta1) * g and v = v * beta2 + (1 - beta2) * g * g over every row (g is 0 on rows not named); var -= lr * "
    "sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + epsilon) over every element. Inputs: var, m, v "
    "(Parameters), beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad (len(indices), *var.shape[1:]), indices "
    "(1-D int). Outputs: the new (var, m, v).",
)
_ADA_FACTOR_FLAGS = {"enable_scale_parameter": False, "enable_first_moment": False, "enable_weight_decay": False}
_ADA_FACTOR_DOC = (
    "One AdaFactor step in place (the kernel nn.AdaFactor runs on CPU): second moments factored into "
    "'exp_avg_sq_row' and 'exp_avg_sq_col' for a parameter of 2 or more axes, else kept whole in 'exp_avg_sq', each "
    "decayed by 'beta2' (the step's beta2t); the update clipped to RMS 'clip_threshold' and scaled by "
    "'learning_rate' (times max(epsilon[1], RMS(param)) with enable_scale_parameter); with enable_first_moment "
    "averaged into 'exp_avg' by 'beta1'; with enable_weight_decay param * weight_decay * learning_rate added. "
    "Inputs: epsilon (2 floats), clip_threshold, beta1, beta2, weight_decay, learning_rate, grad, param, exp_avg, "
    "exp_avg_sq_row, exp_avg_sq_col, exp_avg_sq (Parameters){}. Output: a 1-tuple of zeros of param's shape "
    "(MindSpore's CPU kernel leaves its output unwritten)."
)
FusedAdaFactor = attr_class("FusedAdaFactor", _ADA_FACTOR_FLAGS, _fused_ada_factor, doc=_ADA_FACTOR_DOC.format(""))
FusedAdaFactorWithGlobalNorm = attr_class(
    "FusedAdaFactorWithGlobalNorm",
    _ADA_FACTOR_FLAGS,
    _fused_ada_factor,
    doc=_ADA_FACTOR_DOC.format(", global_norm (the gradient is divided by it when it is at least 1e-30)"),
)
FusedWeightScaleApplyMomentum = attr_class(
    "FusedWeightScaleApplyMomentum",
    {},
    _fused_weight_scale_apply_momentum,
    doc="Momentum with weight decay and loss scale, in place: grad' = (variable * weight_decay + gradient) * "
    "loss_scale; accumulation = momentum * accumulation + grad'; variable -= learning_rate * accumulation. Inputs: "
    "weight_decay, loss_scale, variable (Parameter), accumulation (Parameter), learning_rate, gradient, momentum. "
    "Output: the new variable. (MindSpore runs it on GPU only; Kiln on every device.)",
)
SparseApplyAdagrad = attr_class(
    "SparseApplyAdagrad", {"lr": 0.01, "update_slots": True, "use_locking": False}, _sparse_apply_adagrad
)
SparseApplyAdagradV2 = attr_class(
    "SparseApplyAdagradV2",
    {"lr": 0.01, "epsilon": 1e-6, "use_locking": False, "update_slots": True},
    _sparse_apply_adagrad_v2,
)
ApplyAdagradV2 = attr_class("ApplyAdagradV2", {"epsilon": 1e-6, "update_slots": True}, _apply_adagrad_v2)
ApplyProximalAdagrad = attr_class("ApplyProximalAdagrad", {"use_locking": False}, _apply_proximal_adagrad)
ApplyAddSign = attr_class(
    "ApplyAddSign",
    {},
    lambda s, var, m, lr, alpha, sign_decay, beta, grad: _state_update(
        "ApplyAddSign", (var, m), (lr, alpha, sign_decay, beta, grad)
    ),
    doc="AddSign in place: m = beta m + (1 - beta) g; var -= lr (alpha + sign_decay sign(g) sign(m)) g. Inputs: var, "
    "m (Parameters), lr, alpha, sign_decay, beta, grad. Outputs: the new (var, m).",
)
ApplyPowerSign = attr_class(
    "ApplyPowerSign",
    {},
    lambda s, var, m, lr, logbase, sign_decay, beta, grad: _state_update(
        "ApplyPowerSign", (var, m), (lr, logbase, sign_decay, beta, grad)
    ),
    doc="PowerSign in place: m = beta m + (1 - beta) g; var -= lr exp(logbase sign_decay sign(g) sign(m)) g. Inputs: "
    "var, m (Parameters), lr, logbase, sign_decay, beta, grad. Outputs: the new (var, m).",
)
ApplyProximalGradientDescent = attr_class(
    "ApplyProximalGradientDescent",
    {},
    lambda s, var, alpha, l1, l2, delta: _state_update("ApplyProximalGradientDescent", (var,), (alpha, l1, l2, delta))[
        0
    ],
    doc="A gradient step then the l1/l2 proximal operator, in place: v = var - alpha delta; var = sign(v) max(|v| - "
    "alpha l1, 0) / (1 + alpha l2). Inputs: var (Parameter), alpha, l1, l2, delta. Output: the new var.",
)
ApplyFtrl = attr_class(
    "ApplyFtrl",
    {"use_locking": False},
    lambda s, var, accum, linear, grad, lr, l1, l2, lr_power: _state_update(
        "ApplyFtrl", (var, accum, linear), (grad, lr, l1, l2, lr_power)
    )[0],
    doc="FTRL-Proximal in place (SparseApplyFtrl's rule on every row). Inputs: var, accum, linear (Parameters), grad, "
    "lr, l1, l2, lr_power. Output: the new var (accum and linear are updated in place). Where z < 0 MindSpore 2.10's "
    "CPU kernel moves var away from 0 by l1 / quad; Kiln keeps the published rule, as MindSpore's SparseApplyFtrl.",
)
SparseApplyRMSProp = attr_class(
    "SparseApplyRMSProp", {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-10, "use_locking": False}, _sparse_apply_rms_prop
)
TripletMarginLoss = attr_class(
    "TripletMarginLoss",
    {"p": 2, "swap": False, "eps": 1e-06, "reduction": "mean"},
    lambda s, a, pos, neg, margin: nn_ops.triplet_margin_loss(
        a, pos, neg, float(scalar_value(margin)), s.p, s.eps, s.swap, s.reduction
    ),
)
MultilabelMarginLoss = attr_class(
    "MultilabelMarginLoss",
    {"reduction": "mean"},
    lambda s, x, t: (
        loss.multilabel_margin_loss(x, t, s.reduction),
        math.cast(math.greater_equal(t, 0), x.dtype),
    ),
)
MaxUnpool2D = attr_class(
    "MaxUnpool2D",
    {"ksize": 1, "strides": 0, "pads": 0, "output_shape": (), "data_format": "NCHW"},
    lambda s, x, idx: nn_ops.max_unpool2d(
        x, idx, s.ksize, s.strides or None, s.pads, tuple(s.output_shape)[-2:] or None
    ),
)
MaxUnpool3D = attr_class(
    "MaxUnpool3D",
    {"ksize": 1, "strides": 0, "pads": 0, "output_shape": (), "data_format": "NCDHW"},
    lambda s, x, idx: nn_ops.max_unpool3d(
        x, idx, s.ksize, s.strides or None, s.pads, tuple(s.output_shape)[-3:] or None
    ),
)
PadV3 = attr_class(
    "PadV3",
    {"mode": "constant", "paddings_contiguous": True},
    lambda s, x, paddings, value=None: array.pad(
        x,
        as_ints(paddings) if s.paddings_contiguous else _pairs_to_flat(as_ints(paddings)),
        "replicate" if s.mode == "edge" else s.mode,  # MindSpore's name of the mode
        None if value is None else scalar_value(value),
    ),
)
UpsampleNearest3D = attr_class(
    "UpsampleNearest3D",
    {},
    lambda s, x, output_size=None, scales=None: nn_ops.interpolate(
        x, None if output_size is None else as_ints(output_size), None if scales is None else tuple(scales)
    ),
)
UpsampleTrilinear3D = attr_class(
    "UpsampleTrilinear3D",
    {"align_corners": False},
    lambda s, x, output_size=None, scales=None: nn_ops.interpolate(
        x,
        None if output_size is None else as_ints(output_size),
        None if scales is None else tuple(scales),
        "trilinear",
        s.align_corners,
    ),
)
RmsNorm = attr_class("RmsNorm", {"epsilon": 1e-06}, lambda s, x, gamma: _rms_norm(x, gamma, s.epsilon))


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated: bool = True):
    """Greedy (best-path) CTC decoding of (T, B, C) logits; the blank is class C - 1.

    Returns:
        (decoded_indices (N, 2) int64, decoded_values (N,) int64, decoded_shape (2,) int64 = (B, longest),
        log_probability (B, 1): minus the sum over time of each step's largest logit).
    """
    op = "CTCGreedyDecoder"
    if not isinstance(inputs, Tensor) or inputs.ndim != 3:
        raise op_error(op, f"'inputs' must be a 3-D (T, B, C) Tensor, but got {getattr(inputs, 'shape', inputs)}.")
    x = host_array(inputs, op)
    steps, batch, classes = x.shape
    lengths = host_array(sequence_length, op).reshape(-1)
    if lengths.shape != (batch,):
        raise op_error(op, f"'sequence_length' must have shape ({batch},), but got {lengths.shape}.")
    if (lengths > steps).any() or (lengths < 0).any():
        raise op_error(op, f"'sequence_length' must be in [0, {steps}], but got {lengths.tolist()}.")
    best = x.argmax(axis=2)  # (T, B)
    blank = classes - 1
    indices, values, longest = [], [], 0
    log_prob = np.zeros((batch, 1), x.dtype)
    for b in range(batch):
        seq, prev = [], -1
        for t in range(int(lengths[b])):
            k = int(best[t, b])
            log_prob[b, 0] -= x[t, b, k]
            if k != blank and not (merge_repeated and k == prev):
                seq.append(k)
            prev = k
        indices += [(b, i) for i in range(len(seq))]
        values += seq
        longest = max(longest, len(seq))
    return (
        Tensor(np.asarray(indices, np.int64).reshape(-1, 2)),
        Tensor(np.asarray(values, np.int64)),
        Tensor(np.asarray([batch, longest], np.int64)),
        Tensor(log_prob),
    )


class CTCGreedyDecoder(WithAttrs):
    """`CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length)`: see `ops.ctc_greedy_decoder`."""

    _defaults = {"merge_repeated": True}

    def __call__(self, inputs, sequence_length):
        return ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)


class CTCLoss(WithAttrs):
    """The TensorFlow-style CTC loss: `CTCLoss()(inputs, labels_indices, labels_values, sequence_length)` with
    (T, B, C) logits (softmax is applied inside; the blank is class C - 1) and sparse labels. Returns
    (loss (B,), gradient (T, B, C)): each sample's negative log-likelihood and its gradient w.r.t. the logits.

    As MindSpore 2.10's kernel, a label value outside [0, C - 1) (the blank included) ends its sample's labels: the
    zoo pads label rows with the blank. A sample that cannot be aligned (labels longer than its sequence, kept by
    ignore_longer_outputs_than_inputs=True) gets an infinite loss and a zero gradient."""

    _defaults = {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
                 "ignore_longer_outputs_than_inputs": False}  # fmt: skip

    def __call__(self, inputs, labels_indices, labels_values, sequence_length):
        op = "CTCLoss"
        if not self.ctc_merge_repeated:
            raise NotImplementedError("CTCLoss: ctc_merge_repeated=False is not supported by Kiln.")
        if not isinstance(inputs, Tensor) or inputs.ndim != 3:
            raise op_error(op, f"'inputs' must be a 3-D (T, B, C) Tensor, but got {getattr(inputs, 'shape', inputs)}.")
        steps, batch, classes = inputs.shape
        if self.preprocess_collapse_repeated:
            targets, target_lengths = self._collapsed(labels_indices, labels_values, batch, classes)
        else:  # static shapes (runs in graphs too): (B, n_labels) targets, scattered at their positions
            if not any(G.is_symbolic(getattr(t, "_data", None)) for t in (labels_indices, labels_values)):
                self._collapsed(labels_indices, labels_values, batch, classes)  # only its check of blanks
            n_labels = labels_values.shape[0]
            idx = math.cast(labels_indices, mstype.int32)
            vals = math.cast(labels_values, mstype.int32)
            is_label = math.logical_and(math.greater_equal(vals, 0), math.less(vals, classes - 1))
            kept = math.mul(vals, math.cast(is_label, mstype.int32))  # in range for the gather (unused past the end)
            targets = array.scatter_nd(idx, kept, (batch, max(n_labels, 1)))
            target_lengths = math.unsorted_segment_sum(
                math.cast(is_label, mstype.int32), array.gather(idx, Tensor(np.int32(0)), 1), batch
            )
        lengths = math.cast(sequence_length, mstype.int32)
        keep = math.less_equal(target_lengths, lengths)
        if not self.ignore_longer_outputs_than_inputs and not G.is_symbolic(keep._data):
            if not bool(math.all(keep).asnumpy()):
                raise op_error(op, "a label sequence is longer than its input sequence; set "
                               "ignore_longer_outputs_than_inputs=True to give those samples an infinite loss and "
                               "a zero gradient.")  # fmt: skip
        return apply(prims_loss.CTCLossTF, (inputs, targets, lengths, target_lengths, keep), (classes - 1,))

    @staticmethod
    def _collapsed(labels_indices, labels_values, batch, classes):
        """Dense targets (decided on the host: PyNative only), each sample's labels up to its first value outside
        [0, classes - 1), repeated labels merged; a label after such a value is refused, as MindSpore's kernel."""
        idx = host_array(labels_indices, "CTCLoss").reshape(-1, 2)
        vals = host_array(labels_values, "CTCLoss").reshape(-1)
        rows: list[list[int]] = [[] for _ in range(batch)]
        previous: list[int | None] = [None] * batch
        ended = [False] * batch
        for (b, _), v in sorted(zip(map(tuple, idx.tolist()), vals.tolist(), strict=True)):
            merged = previous[b] == int(v)
            previous[b] = int(v)
            if merged:
                continue
            if not 0 <= v < classes - 1:
                ended[b] = True
            elif ended[b]:
                raise op_error("CTCLoss", f"a label ({v}) of sample {b} follows a blank or out-of-range label "
                               f"(values outside [0, {classes - 1}) end a sample's labels).")  # fmt: skip
            else:
                rows[b].append(int(v))
        width = max(1, max(len(r) for r in rows))
        targets = np.zeros((batch, width), np.int32)
        for b, r in enumerate(rows):
            targets[b, : len(r)] = r
        return Tensor(targets), Tensor(np.asarray([len(r) for r in rows], np.int32))


class DropoutGenMask(_RandomPrimitive):
    """`DropoutGenMask(Seed0=0, Seed1=0)(shape, keep_prob)`: a random keep-mask for `shape`, packed eight
    elements a byte into a 1-D uint8 Tensor of ceil(size / 128) * 16 bytes (for `DropoutDoMask`)."""

    def __init__(self, Seed0: int = 0, Seed1: int = 0) -> None:  # noqa: N803
        super().__init__(Seed0, Seed1)

    def __call__(self, shape, keep_prob):
        size = int(np.prod([int(s) for s in shape]))
        padded = -(-size // 128) * 128
        p = keep_prob if isinstance(keep_prob, Tensor) else Tensor(np.float32(keep_prob))

        draws = _uniform01((padded,), mstype.float32, self._key())
        keep = math.cast(math.less(draws, math.cast(p, mstype.float32)), mstype.uint8)
        weights = Tensor(np.array([1, 2, 4, 8, 16, 32, 64, 128], np.uint8))
        return math.cast(math.sum(math.mul(array.reshape(keep, (-1, 8)), weights), 1), mstype.uint8)


class DropoutDoMask(Primitive):
    """`DropoutDoMask()(x, mask, keep_prob)`: x * kept / keep_prob, with the packed mask of `DropoutGenMask`."""

    def __init__(self) -> None:
        super().__init__("DropoutDoMask")

    def __call__(self, x, mask, keep_prob):
        if mask.dtype is not mstype.uint8 or mask.ndim != 1 or mask.shape[0] * 8 < x.size:
            raise op_error(self.name, f"'mask' must be the uint8 mask of DropoutGenMask for {x.size} elements.")
        bits = Tensor(np.array([1, 2, 4, 8, 16, 32, 64, 128], np.int32))
        flags = math.bitwise_and(array.expand_dims(math.cast(mask, mstype.int32), 1), bits)
        kept = array.reshape(math.cast(math.not_equal(flags, 0), x.dtype), (-1,))
        kept = array.reshape(array.slice(kept, (0,), (x.size,)), x.shape)
        p = keep_prob if isinstance(keep_prob, Tensor) else Tensor(np.asarray(keep_prob, x.dtype.np))
        return math.div(math.mul(x, kept), math.cast(p, x.dtype))


class ROIAlign(_NNPrimitive):
    """`ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)(features, rois)`:
    (R, C, pooled_height, pooled_width) features of each roi (batch index, x1, y1, x2, y2), each bin the mean of
    bilinear samples on a sample_num x sample_num lattice (sample_num <= 0: floor(roi size / pooled size)).
    roi_end_mode 1 takes a roi's size as it is, 0 widens one under a feature pixel to one; a roi whose x1 and x2 are
    both 0 is padding and gives zeros, as MindSpore's kernels do."""

    def __init__(self, pooled_height: int, pooled_width: int, spatial_scale: float, sample_num: int = 2,
                 roi_end_mode: int = 1) -> None:  # fmt: skip
        super().__init__("ROIAlign")
        if roi_end_mode not in (0, 1):
            raise op_error(self.name, f"'roi_end_mode' must be 0 or 1, but got {roi_end_mode!r}.")
        self._record(pooled_height=pooled_height, pooled_width=pooled_width, spatial_scale=spatial_scale,
                     sample_num=sample_num, roi_end_mode=roi_end_mode)  # fmt: skip

    def __call__(self, features, rois):
        n_rois = rois.shape[0]
        if self.sample_num > 0:
            grids = np.full((n_rois, 2), int(self.sample_num), np.int32)
        else:  # adaptive lattice: from each roi's size (read on the host)
            host = host_array(rois, self.name).astype(np.float64)
            mode, scale = self.roi_end_mode, float(self.spatial_scale)
            h = np.maximum((host[:, 4] + mode) * scale - host[:, 2] * scale, 1.0)
            w = np.maximum((host[:, 3] + mode) * scale - host[:, 1] * scale, 1.0)
            # MindSpore's CPU kernel takes floor(roi size / pooled size) samples per bin (at least one)
            grids = np.stack([np.floor(h / self.pooled_height), np.floor(w / self.pooled_width)], 1)
            grids = np.maximum(grids, 1).astype(np.int32)
        grid_max = int(grids.max()) if n_rois else 1
        attrs = (int(self.pooled_height), int(self.pooled_width), float(self.spatial_scale), grid_max,
                 int(self.roi_end_mode))  # fmt: skip
        return apply(prims_image.ROIAlign, (features, rois, Tensor(grids)), attrs)


class GridSampler3D(WithAttrs):
    """`GridSampler3D(interpolation_mode="bilinear", padding_mode="zeros", align_corners=False)(input_x, grid)`:
    sample (N, C, D, H, W) at the normalised (x, y, z) positions of grid (N, Do, Ho, Wo, 3)."""

    _defaults = {"interpolation_mode": "bilinear", "padding_mode": "zeros", "align_corners": False}

    def __call__(self, input_x, grid):
        attrs = (self.interpolation_mode, self.padding_mode, bool(self.align_corners))
        return apply(prims_image.GridSampler3D, (input_x, grid), attrs)


class MaxPool3DWithArgmax(WithAttrs):
    """`MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False, data_format="NCDHW",
    argmax_type=int64)(x)`: 3-D max pooling and, for each maximum, its flat index in the input's D*H*W."""

    _defaults = {"ksize": 1, "strides": 1, "pads": 0, "dilation": (1, 1, 1), "ceil_mode": False,
                 "data_format": "NCDHW", "argmax_type": mstype.int64}  # fmt: skip

    def __call__(self, x):

        if self.data_format != "NCDHW":
            raise op_error(self.name, f"'data_format' must be 'NCDHW', but got {self.data_format!r}.")
        if self.argmax_type not in (mstype.int32, mstype.int64):
            raise op_error(self.name, f"'argmax_type' must be int32 or int64, but got {self.argmax_type}.", TypeError)
        out, index = nn_ops.max_pool3d(x, self.ksize, self.strides, self.pads, self.dilation, self.ceil_mode,
                                       return_indices=True)  # fmt: skip
        return out, math.cast(index, self.argmax_type)


class CTCLossV2(WithAttrs):
    """`CTCLossV2(blank=0, reduction="none", zero_infinity=False)(log_probs, targets, input_lengths,
    target_lengths)`: per-sample negative log-likelihood (N,) and the forward variables log_alpha
    (N, T, 2S + 1) of (T, N, C) log-probabilities against padded (N, S) targets."""

    _defaults = {"blank": 0, "reduction": "none", "zero_infinity": False}

    def __call__(self, log_probs, targets, input_lengths, target_lengths):
        if self.reduction != "none":
            raise op_error(self.name, f"'reduction' must be 'none', but got {self.reduction!r}.")
        return apply(prim("CTCLoss"), (log_probs, targets, input_lengths, target_lengths),
                     (int(self.blank), bool(self.zero_infinity)))  # fmt: skip


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                          _random_samples=None):  # fmt: skip
    """2-D fractional max pooling of (N, C, H, W) (or (C, H, W)): `kernel_size` windows at pseudo-random steps
    reaching `output_size` (or input size * `output_ratio`). `_random_samples` (N, C, 2) in [0, 1) fixes the
    steps (drawn from the global generator when omitted). Returns the values (and int64 flat H*W indices)."""
    return _fractional(
        "FractionalMaxPool2d", input, kernel_size, output_size, output_ratio, _random_samples, return_indices, 2
    )


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                          _random_samples=None):  # fmt: skip
    """3-D fractional max pooling of (N, C, D, H, W) (or (C, D, H, W)); `_random_samples` (N, C, 3). See
    `fractional_max_pool2d`."""
    return _fractional(
        "FractionalMaxPool3d", input, kernel_size, output_size, output_ratio, _random_samples, return_indices, 3
    )


class _FractionalMaxPoolWithFixedKsize(Primitive):
    """Fractional max pooling over the last `_nd` dims with given random samples (the layout is `_layout` only)."""

    _nd = 2
    _layout = "NCHW"

    def __init__(self, ksize, output_shape, data_format: str = "NCHW") -> None:
        super().__init__(type(self).__name__)
        if data_format != self._layout:
            raise op_error(self.name, f"'data_format' must be '{self._layout}', but got {data_format!r}.")
        nd = self._nd
        self._attrs = (_fixed(self.name, "ksize", ksize, nd), _fixed(self.name, "output_shape", output_shape, nd))
        for k, v in (("ksize", ksize), ("output_shape", output_shape), ("data_format", data_format)):
            self.add_prim_attr(k, v)

    def __call__(self, x, random_samples):
        return apply(prims_pool.FractionalMaxPool, (x, random_samples), self._attrs)


class FractionalMaxPoolWithFixedKsize(_FractionalMaxPoolWithFixedKsize):
    """`FractionalMaxPoolWithFixedKsize(ksize, output_shape, data_format="NCHW")(input_x, random_samples)`:
    (values, int64 flat indices); see `ops.fractional_max_pool2d`."""


class FractionalMaxPool3DWithFixedKsize(_FractionalMaxPoolWithFixedKsize):
    """`FractionalMaxPool3DWithFixedKsize(ksize, output_shape, data_format="NCDHW")(x, random_samples)`:
    (values, int64 flat indices); see `ops.fractional_max_pool3d`."""

    _nd = 3
    _layout = "NCDHW"

    def __init__(self, ksize, output_shape, data_format: str = "NCDHW") -> None:
        super().__init__(ksize, output_shape, data_format)


class DeformableOffsets(_NNPrimitive):
    """`DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW", deformable_groups=1,
    modulated=True)(x, offsets)`: the input sampled at the deformed kernel positions, (N, C, out_h * kh,
    out_w * kw), ready for a convolution with stride (kh, kw) (see `ops.deformable_conv2d`)."""

    def __init__(self, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format: str = "NCHW",
                 deformable_groups: int = 1, modulated: bool = True) -> None:  # fmt: skip
        super().__init__("DeformableOffsets")
        op = self.name
        if data_format != "NCHW":
            raise op_error(op, f"'data_format' must be 'NCHW', but got {data_format!r}.")
        pads = tuple(int(p) for p in pads)
        if len(pads) != 4 or min(pads) < 0:
            raise op_error(op, f"'pads' must be 4 non-negative ints (top, bottom, left, right), but got {pads!r}.")
        ksize = _fixed(op, "ksize", ksize, 2)
        if not isinstance(modulated, bool):
            raise op_error(op, f"'modulated' must be a bool, but got {modulated!r}.", TypeError)
        self._attrs = (_nchw4(op, "strides", strides), pads, ksize, _nchw4(op, "dilations", dilations),
                       int(deformable_groups), modulated)  # fmt: skip
        self._record(strides=strides, pads=pads, ksize=ksize, dilations=dilations, data_format=data_format,
                     deformable_groups=deformable_groups, modulated=modulated)  # fmt: skip

    def __call__(self, x, offsets):
        return apply(prims_conv.DeformableOffsets, (x, offsets), self._attrs)


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1),
                      groups: int = 1, deformable_groups: int = 1, modulated: bool = True):  # fmt: skip
    """Deformable convolution (v2 when `modulated`): `weight` (C_out, C_in / groups, kh, kw) applied at the
    kernel positions moved by `offsets` (N, 3 * deformable_groups * kh * kw, H_out, W_out) = (x offsets,
    y offsets, masks), plus `bias`. `strides`/`dilations` are (1, 1, h, w); `padding` (top, bottom, left, right).
    """

    kh, kw = _fixed("deformable_conv2d", "kernel_size", kernel_size, 2)
    sampled = DeformableOffsets(strides, padding, (kh, kw), dilations, "NCHW", deformable_groups, modulated)(x, offsets)
    out = nn_ops.conv2d(sampled, weight, None, (kh, kw), "valid", 0, 1, groups)
    if bias is not None:
        out = math.add(out, array.reshape(bias, (1, -1, 1, 1)))
    return out


# ---- convolution ---------------------------------------------------------------------------------
class Conv3D(ConvPrimitive):
    """3-D convolution primitive: `Conv3D(out_channel, kernel_size, ...)(x, weight)`; see Conv2D."""

    _nd = 3
    _prim = prims_conv.Conv3D


class _ConvTranspose(_NNPrimitive):
    """A transposed convolution over `_nd` spatial dims; `_geometry` checks and records the constructor's window
    arguments."""

    _nd = 2

    def _geometry(self, mode, kernel_size, stride, dilation, pad, pad_mode, group: int) -> tuple:
        """(strides, dilations, pad pairs, pad mode), each checked; recorded as attributes with kernel and group."""
        name, nd = self.name, self._nd
        refuse_argument(name, "mode", mode, 1, reason="mode 1 (a plain convolution) is the only mode")
        kernel = ntuple(name, "kernel_size", kernel_size, nd)
        check_positive(name, "kernel_size", kernel)
        stride_t, dilation_t = ntuple(name, "stride", stride, nd), ntuple(name, "dilation", dilation, nd)
        check_positive(name, "stride", stride_t)
        check_positive(name, "dilation", dilation_t)
        pads = pad_pairs(name, pad, nd)
        check_non_negative(name, "pad", pads)
        mode_ = pad_mode_of(name, pad_mode)
        self._record(kernel_size=kernel, pad_mode=mode_, pad=pads, stride=stride_t, dilation=dilation_t, group=group)
        return stride_t, dilation_t, pads, mode_


class Conv2DTranspose(_ConvTranspose):
    """Gradient of Conv2D with respect to its input: `Conv2DTranspose(...)(dout, weight, input_size)`.

    Args:
        out_channel (int): channels of the result (weight.shape[1] * group).
        kernel_size (Union[int, tuple[int]]): kernel height and width.
        pad_mode (str): 'valid', 'same' or 'pad' of the forward convolution. Default: 'valid'.
        pad (Union[int, tuple[int]]): (top, bottom, left, right) padding for pad_mode 'pad'.
        pad_list: alias of `pad` (MindSpore compatibility).
        mode (int): unused.
        stride, dilation (Union[int, tuple[int]]): of the forward convolution.
        group (int): channel groups. Default: 1.
        data_format (str): 'NCHW' or 'NHWC'.
    """

    def __init__(
        self,
        out_channel: int,
        kernel_size,
        pad_mode: str = "valid",
        pad=0,
        pad_list=None,
        mode: int = 1,
        stride=1,
        dilation=1,
        group: int = 1,
        data_format: str = "NCHW",
    ) -> None:
        super().__init__()
        self._record(out_channel=out_channel)
        stride_t, dilation_t, pads, mode_ = self._geometry(
            mode, kernel_size, stride, dilation, pad_list if pad_list is not None else pad, pad_mode, group
        )
        self._record(data_format=data_format)
        self._fixed = (stride_t, mode_, pads, dilation_t, group, (0, 0))

    def __call__(self, dout, weight, input_size):
        size = tuple(int(s) for s in (input_size.asnumpy() if isinstance(input_size, Tensor) else input_size))
        spatial = size[1:-1] if self.data_format == "NHWC" else size[2:]
        return apply(prims_conv.Conv2DTranspose, (dout, weight, None), (*self._fixed, spatial, self.data_format))


Conv2DBackpropInput = type("Conv2DBackpropInput", (Conv2DTranspose,), {"__doc__": "Alias of Conv2DTranspose."})


class Conv3DTranspose(_ConvTranspose):
    """3-D transposed convolution: `Conv3DTranspose(in_channel, out_channel, kernel_size, ...)(dout, weight)`.

    Args:
        in_channel, out_channel (int): channels of the input and of the result.
        kernel_size (Union[int, tuple[int]]): kernel depth, height and width.
        mode (int): unused.
        pad_mode (str): 'valid', 'same' or 'pad'. Default: 'valid'.
        pad (Union[int, tuple[int]]): 6 values (front, back, top, bottom, left, right) for 'pad'.
        stride, dilation (Union[int, tuple[int]]): of the forward convolution.
        group (int): channel groups. Default: 1.
        output_padding (Union[int, tuple[int]]): extra output size at the end (pad_mode 'pad').
        data_format (str): 'NCDHW'.
    """

    _nd = 3

    def __init__(
        self,
        in_channel: int,
        out_channel: int,
        kernel_size,
        mode: int = 1,
        pad_mode: str = "valid",
        pad=0,
        stride=1,
        dilation=1,
        group: int = 1,
        output_padding=0,
        data_format: str = "NCDHW",
    ) -> None:
        super().__init__()
        self._record(in_channel=in_channel, out_channel=out_channel)
        stride_t, dilation_t, pads, mode_ = self._geometry(mode, kernel_size, stride, dilation, pad, pad_mode, group)
        out_pad = ntuple(self.name, "output_padding", output_padding, 3)
        self._record(output_padding=out_pad)
        self._attrs = (stride_t, mode_, pads, dilation_t, group, out_pad, None, data_format)

    def __call__(self, dout, weight):
        return apply(prims_conv.Conv3DTranspose, (dout, weight, None), self._attrs)


class MaxPool(_Pool):
    """2-D max pooling primitive: `MaxPool(kernel_size=1, strides=1, pad_mode='valid')(x)`.

    Args:
        kernel_size (Union[int, tuple[int]]): window size.
        strides (Union[int, tuple[int]]): window step.
        pad_mode (str): 'valid' or 'same'.
        data_format (str): 'NCHW'.
    """

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", data_format: str = "NCHW") -> None:
        super().__init__()
        self._setup(kernel_size, strides, pad_mode, data_format=data_format)


class AvgPool(_Pool):
    """2-D average pooling primitive: `AvgPool(kernel_size=1, strides=1, pad_mode='valid')(x)`; see MaxPool."""

    _kind = "avg"

    def __init__(self, kernel_size=1, strides=1, pad_mode: str = "valid", data_format: str = "NCHW") -> None:
        super().__init__()
        # MindSpore's AvgPool never counts 'same' padding in the divisor (AvgPool3D does, by default)
        self._setup(kernel_size, strides, pad_mode, include_pad=False, data_format=data_format)


class MaxPool3D(_Pool):
    """3-D max pooling primitive.

    Args:
        kernel_size, strides (Union[int, tuple[int]]): window size and step.
        pad_mode (str): 'valid', 'same' or 'pad'.
        pad_list (Union[int, tuple[int]]): padding for 'pad' (1, 3 or 6 values).
        ceil_mode (bool): round the output size up.
        data_format (str): 'NCDHW'.
    """

    _nd = 3

    def __init__(
        self, kernel_size=1, strides=1, pad_mode: str = "VALID", pad_list=0, ceil_mode=None, data_format: str = "NCDHW"
    ) -> None:
        super().__init__()
        self._setup(
            kernel_size,
            strides,
            pad_mode,
            pad_list,
            bool(ceil_mode),
            pad_list=pad_list,
            ceil_mode=ceil_mode,
            data_format=data_format,
        )


class AvgPool3D(_Pool):
    """3-D average pooling primitive.

    Args:
        kernel_size, strides (Union[int, tuple[int]]): window size and step.
        pad_mode (str): 'valid', 'same' or 'pad'.
        pad (Union[int, tuple[int]]): padding for 'pad'.
        ceil_mode (bool): round the output size up.
        count_include_pad (bool): count padding in the divisor.
        divisor_override (int): fixed divisor when non-zero.
        data_format (str): 'NCDHW'.
    """

    _nd = 3
    _kind = "avg"

    def __init__(
        self,
        kernel_size=1,
        strides=1,
        pad_mode: str = "valid",
        pad=0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int = 0,
        data_format: str = "NCDHW",
    ) -> None:
        refuse_argument("AvgPool3D", "data_format", data_format, "NCDHW", reason="inputs are (N, C, D, H, W)")
        super().__init__()
        self._setup(
            kernel_size,
            strides,
            pad_mode,
            pad,
            ceil_mode,
            count_include_pad,
            divisor_override,
            pad=pad,
            ceil_mode=ceil_mode,
            count_include_pad=count_include_pad,
            divisor_override=divisor_override,
        )


class MaxPoolWithArgmaxV2(_NNPrimitive):
    """2-D max pooling that also returns the flat (H * W) index of each maximum.

    Args:
        kernel_size (Union[int, tuple[int]]): window size.
        strides (Union[int, tuple[int]], optional): window step; defaults to `kernel_size`.
        pads (Union[int, tuple[int]]): symmetric padding.
        dilation (Union[int, tuple[int]]): tap spacing.
        ceil_mode (bool): round the output size up.
        argmax_type: dtype of the indices (int64 or int32).
    """

    def __init__(
        self, kernel_size, strides=None, pads=0, dilation=(1, 1), ceil_mode: bool = False, argmax_type=None
    ) -> None:
        super().__init__()
        name = self.name
        kernel = ntuple(name, "kernel_size", kernel_size, 2)
        strides_t = kernel if strides is None else ntuple(name, "strides", strides, 2)
        dilation_t = ntuple(name, "dilation", dilation, 2)
        for n, v in (("kernel_size", kernel), ("strides", strides_t), ("dilation", dilation_t)):
            check_positive(name, n, v)
        self._record(kernel_size=kernel, strides=strides_t, pads=pads, dilation=dilation_t, ceil_mode=ceil_mode)
        self.argmax_type = argmax_type
        self._attrs = (kernel, strides_t, "pad", pad_pairs(name, pads, 2), dilation_t, bool(ceil_mode))

    def __call__(self, x):
        out, index = apply(prims_pool.MaxPoolWithArgmax, (x,), self._attrs)
        if self.argmax_type is not None:
            index = index.astype(self.argmax_type)
        return out, index


class AdaptiveAvgPool2D(_Adaptive):
    """Adaptive 2-D average pooling: `AdaptiveAvgPool2D(output_size)(x)`; None entries keep the input size."""


class AdaptiveMaxPool2D(_Adaptive):
    """Adaptive 2-D max pooling: returns (output, argmax) with flat H * W indices."""

    _kind = "Max"


class AdaptiveAvgPool3D(_Adaptive):
    """Adaptive 3-D average pooling: `AdaptiveAvgPool3D(output_size)(x)`."""

    _nd = 3


class AdaptiveMaxPool3D(_Adaptive):
    """Adaptive 3-D max pooling: returns (output, argmax) with flat D * H * W indices.

    MindSpore's takes the output size as its second input (`AdaptiveMaxPool3D()(x, output_size)`, a tuple or an
    int Tensor); Kiln's also takes it at construction (`AdaptiveMaxPool3D(output_size)(x)`).
    """

    _kind, _nd = "Max", 3

    def __init__(self, output_size=None) -> None:
        if output_size is None:  # given with each call
            _NNPrimitive.__init__(self)
            self._prim, self._attrs = REGISTRY["AdaptiveMaxPool3D"], None
        else:
            super().__init__(output_size)

    def __call__(self, x, output_size=None):
        if output_size is None:
            if self._attrs is None:
                raise op_error(self.name, "the output size must be given, at construction or as the second input.")
            return apply(self._prim, (x,), self._attrs)
        if isinstance(output_size, Tensor):  # MindSpore's layer hands it over as an int Tensor
            output_size = as_ints(output_size)
            output_size = output_size[0] if len(output_size) == 1 else output_size
        return apply(self._prim, (x,), (adaptive_output_size(self.name, output_size, 3),))


# ---- normalisation, dropout, activations -----------------------------------------------------------
class BatchNorm(_NNPrimitive):
    """Batch normalisation: `BatchNorm(is_training, epsilon, momentum)(x, scale, bias, mean, variance)`.

    In training the batch statistics are used and `mean` / `variance` (Parameters) are
    updated in place: new = (1 - momentum) * old + momentum * batch (unbiased variance).

    Args:
        is_training (bool): use batch statistics. Default: False.
        epsilon (float): added to the variance. Default: 1e-5.
        momentum (float): weight of the batch statistics. Default: 0.1.
        data_format (str): 'NCHW' or 'NHWC'.

    Returns:
        (y, batch_mean, batch_variance, reserve_space_1, reserve_space_2): the reserve spaces hold
        the updated moving mean and variance.
    """

    _written_inputs = (3, 4)  # the moving mean and variance, updated in training

    def __init__(
        self, is_training: bool = False, epsilon: float = 1e-5, momentum: float = 0.1, data_format: str = "NCHW"
    ) -> None:
        super().__init__()
        check_probability(self.name, "momentum", momentum)
        if epsilon <= 0 or epsilon > 1:
            raise op_error(self.name, f"'epsilon' must be in (0, 1], but got {epsilon}.")
        self._record(is_training=is_training, epsilon=epsilon, momentum=momentum, data_format=data_format)
        self._attrs = (bool(is_training), float(epsilon), float(momentum), data_format)

    def __call__(self, x, scale, bias, mean, variance):
        outs = apply(prims_norm.BatchNorm, (x, scale, bias, mean, variance), self._attrs)
        if self.is_training:
            update_moving_stats(mean, variance, outs[3], outs[4])
        return outs


class InstanceNorm(_NNPrimitive):
    """Instance normalisation: `InstanceNorm(epsilon, momentum)(x, gamma, beta, mean, variance)`.

    Each (sample, channel) of x (N, C, ...) is normalised over its spatial axes in float32 and scaled and shifted by
    the float32 gamma and beta (C,). MindSpore's GPU kernel leaves `mean` and `variance` unchanged (it updates a
    scratch copy), and so does this.

    Args:
        epsilon (float): added to the variance, in (0, 1]. Default: 1e-5.
        momentum (float): in [0, 1]; kept as an attribute. Default: 0.1.

    Returns:
        (y, save_mean, save_variance): y in x's dtype; the (N * C,) batch means and 1 / sqrt(variance + epsilon).
    """

    def __init__(self, epsilon: float = 1e-5, momentum: float = 0.1) -> None:
        super().__init__()
        if not 0 < epsilon <= 1:
            raise op_error(self.name, f"'epsilon' must be in (0, 1], but got {epsilon}.")
        check_probability(self.name, "momentum", momentum)
        self._record(epsilon=epsilon, momentum=momentum)
        self._attrs = (float(epsilon), float(momentum))

    def __call__(self, x, gamma, beta, mean, variance):
        return apply(prims_norm.InstanceNorm, (x, gamma, beta, mean, variance), self._attrs)


class LayerNorm(_NNPrimitive):
    """Layer normalisation: `LayerNorm(begin_norm_axis, begin_params_axis, epsilon)(x, gamma, beta)`.

    Args:
        begin_norm_axis (int): first axis normalised over. Default: 1.
        begin_params_axis (int): first axis of gamma / beta's shape. Default: 1.
        epsilon (float): added to the variance. Default: 1e-7.

    Returns:
        (y, mean, variance), the statistics with the normalised axes kept as size 1.
    """

    def __init__(self, begin_norm_axis: int = 1, begin_params_axis: int = 1, epsilon: float = 1e-7) -> None:
        super().__init__()
        self._record(begin_norm_axis=begin_norm_axis, begin_params_axis=begin_params_axis, epsilon=epsilon)
        self._attrs = (int(begin_norm_axis), int(begin_params_axis), float(epsilon))

    def __call__(self, x, gamma, beta):
        return apply(prims_norm.LayerNorm, (x, gamma, beta), self._attrs)


class Dropout(_NNPrimitive):
    """Dropout: `Dropout(keep_prob)(x)` returns (x * mask / keep_prob, mask).

    Args:
        keep_prob (float): probability of keeping an element, in (0, 1]. Default: 0.5.
        Seed0, Seed1 (int): accepted for compatibility; draws come from Kiln's global generator.
    """

    def __init__(self, keep_prob: float = 0.5, Seed0: int = 0, Seed1: int = 0) -> None:  # noqa: N803
        super().__init__()
        check_probability(self.name, "keep_prob", keep_prob, low_open=True)
        self._record(keep_prob=keep_prob, Seed0=Seed0, Seed1=Seed1)
        self._attrs = (float(keep_prob),)

    def __call__(self, x):
        return apply(prims_dropout.Dropout, (next_key(), x), self._attrs)


class PReLU(_NNPrimitive):
    """Parametric ReLU: `PReLU()(x, weight)` with one weight per channel (axis 1)."""

    def __call__(self, x, weight):
        return apply(prims_activation.PReLU, (x, weight))


class L2Normalize(_NNPrimitive):
    """x / sqrt(max(sum(x ** 2, axis), epsilon)).

    Args:
        axis (Union[int, tuple[int]]): axes of the norm. Default: 0.
        epsilon (float): lower bound of the squared norm. Default: 1e-4.
    """

    def __init__(self, axis=0, epsilon: float = 1e-4) -> None:
        super().__init__()
        self._record(axis=axis, epsilon=epsilon)
        self._attrs = ((axis,) if isinstance(axis, int) else tuple(axis), float(epsilon))

    def __call__(self, x):
        return apply(prims_norm.L2Normalize, (x,), self._attrs)


# ---- losses ----------------------------------------------------------------------------------------
class SoftmaxCrossEntropyWithLogits(_NNPrimitive):
    """Softmax cross-entropy with dense labels: returns (loss per row, gradient w.r.t. the logits)."""

    def __call__(self, logits, labels):
        return apply(prims_loss.SoftmaxCrossEntropyWithLogits, (logits, labels))


class SparseSoftmaxCrossEntropyWithLogits(_NNPrimitive):
    """Softmax cross-entropy with class-index labels: the mean loss, or its gradient when `is_grad`.

    Args:
        is_grad (bool): return the gradient with respect to the logits instead. Default: False.
    """

    def __init__(self, is_grad: bool = False) -> None:
        super().__init__()
        self._record(is_grad=is_grad)

    def __call__(self, logits, labels):
        return apply(prims_loss.SparseSoftmaxCrossEntropyWithLogits, (logits, labels), (bool(self.is_grad),))


class NLLLoss(_NNPrimitive):
    """Negative log-likelihood: `NLLLoss(reduction, ignore_index)(logits, labels, weight)` -> (loss, total_weight).

    Args:
        reduction (str): 'mean', 'sum' or 'none'. Default: 'mean'.
        ignore_index (int): label that contributes nothing. Default: -100.
    """

    def __init__(self, reduction: str = "mean", ignore_index: int = -100) -> None:
        super().__init__()
        check_reduction(self.name, reduction)
        self._record(reduction=reduction, ignore_index=ignore_index)

    def __call__(self, logits, labels, weight):
        return apply(prims_loss.NLLLoss, (logits, labels, weight), (self.reduction, int(self.ignore_index), 0.0))


class BinaryCrossEntropy(_ReducedLoss):
    """Binary cross-entropy of probabilities: `BinaryCrossEntropy(reduction)(logits, labels, weight=None)`."""

    def __call__(self, logits, labels, weight=None):
        return apply(prims_loss.BinaryCrossEntropy, (logits, labels, weight), (self.reduction,))


class BCEWithLogitsLoss(_ReducedLoss):
    """Binary cross-entropy of logits: `BCEWithLogitsLoss(reduction)(logits, label, weight, pos_weight)`."""

    def __call__(self, logits, label, weight=None, pos_weight=None):
        return apply(prims_loss.BCEWithLogitsLoss, (logits, label, weight, pos_weight), (self.reduction,))


class KLDivLoss(_ReducedLoss):
    """KL divergence `KLDivLoss(reduction)(logits, labels)` with log-probability logits ('batchmean' allowed)."""

    def __init__(self, reduction: str = "mean") -> None:
        _NNPrimitive.__init__(self)
        check_reduction(self.name, reduction, ("mean", "sum", "none", "batchmean"))
        self._record(reduction=reduction)

    def __call__(self, logits, labels):
        return apply(prims_loss.KLDivLoss, (logits, labels), (self.reduction,))


class SmoothL1Loss(_NNPrimitive):
    """Smooth L1 loss: `SmoothL1Loss(beta=1.0, reduction='none')(logits, labels)`.

    Args:
        beta (float): where the loss turns from quadratic to linear. Default: 1.0.
        reduction (str): 'none', 'mean' or 'sum'. Default: 'none'.
    """

    def __init__(self, beta: float = 1.0, reduction: str = "none") -> None:
        super().__init__()
        check_reduction(self.name, reduction)
        if beta < 0:
            raise op_error(self.name, f"'beta' must be non-negative, but got {beta}.")
        self._record(beta=beta, reduction=reduction)

    def __call__(self, logits, labels):
        return apply(prims_loss.SmoothL1Loss, (logits, labels), (float(self.beta), self.reduction))


Tanh = CLASSES["Tanh"]
Conv2D = CLASSES["Conv2D"]


def _ps_roi_windows(rois: np.ndarray, spatial_scale: float, group: int, height: int, width: int):
    """Each pooled bin's rows [h0, h1) and columns [w0, w1) of the feature map, per roi (rows of 5 values read in
    the order MindSpore 2.10's CPU and GPU kernels read them: batch index, x1, y1, x2, y2), computed in the rois'
    float type as they are: corners scaled and rounded half away from zero, a roi at least 0.1 wide, each bin's
    start floored and end ceiled, both clamped to [0, size - 1]."""
    f = rois.dtype.type
    boxes = rois.reshape(-1, 5)
    scaled = boxes[:, 1:] * f(spatial_scale)
    corner = np.trunc(scaled.astype(np.float64) + np.copysign(0.5, scaled)).astype(rois.dtype)
    x1, y1, x2, y2 = corner.T
    bin_w = np.maximum(x2 - x1, f(0.1)) / f(group)
    bin_h = np.maximum(y2 - y1, f(0.1)) / f(group)
    steps = np.arange(group + 1, dtype=rois.dtype)
    rows = np.stack([np.floor(steps[:-1] * bin_h[:, None]), np.ceil(steps[1:] * bin_h[:, None])]).astype(np.int64)
    cols = np.stack([np.floor(steps[:-1] * bin_w[:, None]), np.ceil(steps[1:] * bin_w[:, None])]).astype(np.int64)
    rows = np.clip(rows + y1.astype(np.int64)[None, :, None], 0, height - 1)  # (2, R, group)
    cols = np.clip(cols + x1.astype(np.int64)[None, :, None], 0, width - 1)
    return boxes[:, 0].astype(np.int64), rows, cols


class PSROIPooling(Primitive):
    """`PSROIPooling(spatial_scale, group_size, output_dim)(features, rois)`: position-sensitive average pooling of
    R-FCN. `features` (N, output_dim * group_size ** 2, H, W); `rois` (N, 5, rois_n) float boxes (batch index,
    x1, y1, x2, y2 in input pixels, scaled by `spatial_scale`). Output (N * rois_n, output_dim, group_size,
    group_size): bin (i, j) of output channel c averages input channel (c * group_size + i) * group_size + j over the
    bin's window of the roi; an empty window gives 0. The rois buffer is read as consecutive rows of 5 values, and
    windows are clamped to [0, size - 1], as MindSpore 2.10's CPU and GPU kernels do (the two agree; for rois_n = 1
    the rows are the documented columns). The windows come from the rois' values, read on the host."""

    def __init__(self, spatial_scale, group_size, output_dim) -> None:
        super().__init__()
        if not isinstance(spatial_scale, numbers.Real) or isinstance(spatial_scale, bool):
            raise op_error(self.name, f"'spatial_scale' must be a float, but got {type(spatial_scale).__name__}.",
                           TypeError)  # fmt: skip
        if not spatial_scale > 0:
            raise op_error(self.name, f"'spatial_scale' must be positive, but got {spatial_scale}.")
        for name, v in (("group_size", group_size), ("output_dim", output_dim)):
            if not isinstance(v, numbers.Integral) or isinstance(v, bool):
                raise op_error(self.name, f"'{name}' must be an int, but got {type(v).__name__}.", TypeError)
            if v <= 0:
                raise op_error(self.name, f"'{name}' must be positive, but got {v}.")
        self.add_prim_attr("spatial_scale", float(spatial_scale))
        self.add_prim_attr("group_size", int(group_size))
        self.add_prim_attr("output_dim", int(output_dim))

    def __call__(self, features, rois):
        for name, v in (("features", features), ("rois", rois)):
            if not isinstance(v, Tensor):
                raise op_error(self.name, f"'{name}' must be a Tensor, but got {type(v).__name__}.", TypeError)
            if v.dtype not in (mstype.float16, mstype.float32):
                raise op_error(self.name, f"'{name}' must be float16 or float32, but got {v.dtype}.", TypeError)
        g, od = self.group_size, self.output_dim
        if features.ndim != 4 or rois.ndim != 3 or rois.shape[1] != 5:
            raise op_error(
                self.name, f"'features' must be (N, C, H, W) and 'rois' (N, 5, rois_n), but got shapes "
                f"{list(features.shape)} and {list(rois.shape)}.",
            )  # fmt: skip
        if features.shape[1] != od * g * g or features.shape[0] != rois.shape[0]:
            raise op_error(
                self.name, f"'features' must have output_dim * group_size ** 2 = {od * g * g} channels and the batch "
                f"of 'rois' ({rois.shape[0]}), but has shape {list(features.shape)}.",
            )  # fmt: skip
        height, width = features.shape[2], features.shape[3]
        batch, rows, cols = _ps_roi_windows(np.asarray(rois.asnumpy()), self.spatial_scale, g, height, width)
        if ((batch < 0) | (batch >= features.shape[0])).any():
            raise op_error(self.name, f"the batch indices of 'rois' must be in [0, {features.shape[0]}), but got "
                           f"{batch.tolist()}.", IndexError)  # fmt: skip
        # each bin's sum from a summed-area table (float64, so that the four-corner difference keeps float32's
        # precision): four gathers of R * output_dim * group ** 2 values, however large the feature map
        table = array.pad(math.cast(features, mstype.float64), (1, 0, 1, 0))  # a zero row and column first
        table = array.reshape(math.cumsum(math.cumsum(table, 2), 3), (-1,))
        c = np.arange(od)[None, :, None, None]
        i, j = np.arange(g)[None, None, :, None], np.arange(g)[None, None, None, :]
        r = np.arange(batch.size)[:, None, None, None]
        plane = (batch[:, None, None, None] * features.shape[1] + (c * g + i) * g + j) * (height + 1)
        h0, h1 = rows[0][r, i], rows[1][r, i]
        w0, w1 = cols[0][r, j], cols[1][r, j]

        def corner(hh, ww):
            flat = np.broadcast_to((plane + hh) * (width + 1) + ww, (batch.size, od, g, g)).reshape(-1)
            return array.gather(table, Tensor(flat.astype(np.int64)), 0)

        sums = corner(h1, w1) - corner(h0, w1) - corner(h1, w0) + corner(h0, w0)
        empty = np.broadcast_to((h1 <= h0) | (w1 <= w0), (batch.size, od, g, g)).reshape(-1)
        area = np.broadcast_to((h1 - h0) * (w1 - w0), (batch.size, od, g, g)).reshape(-1)
        scale = np.where(empty, 0.0, 1.0 / np.maximum(area, 1))
        out = math.cast(sums * Tensor(scale), features.dtype)
        return array.reshape(out, (batch.size, od, g, g))


class FusedSparseFtrl(SparseApplyFtrl):
    """SparseApplyFtrl's update with a repeated index's gradient rows summed first, each named row updated once (as
    MindSpore's fused kernel does); rows no index names keep their values."""

    def _rows(self, var, accum, linear, grad, indices):
        hyper = (self.lr, self.l1, self.l2, self.lr_power)
        return _sparse_rows("summed", "ApplyFtrl", (var, accum, linear), grad, indices, hyper, 3)


class InTopK(Primitive):
    """`InTopK(k)(x1, x2)`: whether each row's target class `x2` is among the `k` largest predictions of its row
    of `x1` (`ops.intopk`)."""

    def __init__(self, k: int) -> None:
        super().__init__("InTopK")
        if isinstance(k, bool) or not isinstance(k, int):
            raise op_error("InTopK", f"k must be an int, got {type(k).__name__}.", TypeError)
        self.add_prim_attr("k", k)

    def __call__(self, x1, x2):
        return math.intopk(x1, x2, self.k)


_NTH_ELEMENT_DTYPES = (
    mstype.float16, mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32, mstype.int64,
    mstype.uint8, mstype.uint16,
)  # fmt: skip


class NthElement(Primitive):
    """`NthElement(reverse=False)(input, n)`: the n-th smallest (0-based; the n-th largest if `reverse`) value along
    the last axis of `input`, that axis removed. `n` is an int or a 0-d int32 Tensor in [0, input.shape[-1]). Its
    gradient is shared by the entries equal to the value."""

    def __init__(self, reverse: bool = False) -> None:
        super().__init__("NthElement")
        if not isinstance(reverse, bool):
            raise op_error("NthElement", f"reverse must be a bool, got {type(reverse).__name__}.", TypeError)
        self.add_prim_attr("reverse", reverse)

    def __call__(self, input, n):  # noqa: A002  (MindSpore's argument name)
        if not isinstance(input, Tensor) or input.dtype not in _NTH_ELEMENT_DTYPES:
            raise op_error("NthElement", f"input must be a real, non-bool Tensor, got "
                           f"{getattr(input, 'dtype', type(input).__name__)}.", TypeError)  # fmt: skip
        if input.ndim < 1:
            raise op_error("NthElement", "input must have at least 1 dimension, got a 0-d Tensor.")
        if isinstance(n, Tensor):
            if n.dtype != mstype.int32:
                raise op_error("NthElement", f"n must be an int or an int32 Tensor, got {n.dtype}.", TypeError)
            if n.ndim != 0:
                raise op_error("NthElement", f"n must be a 0-d Tensor, got shape {tuple(n.shape)}.")
            n = int(n.asnumpy())
        elif isinstance(n, bool) or not isinstance(n, int):
            raise op_error("NthElement", f"n must be an int or an int32 Tensor, got {type(n).__name__}.", TypeError)
        if not 0 <= n < input.shape[-1]:
            raise op_error("NthElement", f"n must be in [0, {input.shape[-1]}) (input's last dimension), got {n}.")
        ordered = math.sort(input, -1, self.reverse)[0]
        value = array.squeeze(array.slice(ordered, (0,) * (input.ndim - 1) + (n,), (*input.shape[:-1], 1)), -1)
        if not input.dtype.is_floating:
            return value
        # the value as computed, with the gradient of the mean of the entries equal to it (MindSpore shares it)
        held = math.stop_gradient(value)
        ties = math.cast(math.equal(input, array.expand_dims(held, -1)), input.dtype)
        share = math.sum(input * ties, -1) / math.sum(ties, -1)
        return held + (share - math.stop_gradient(share))
