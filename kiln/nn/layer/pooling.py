"""Pooling layers: MaxPool1d/2d/3d, AvgPool1d/2d/3d and the adaptive pools (MindSpore 2.x defaults), LP
pooling, max unpooling and fractional max pooling."""

from __future__ import annotations

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, touched
from kiln.nn.layer._variants import op_variants
from kiln.ops._args import check_non_negative, check_positive, ntuple, pad_mode_of, pad_pairs
from kiln.ops.nn.pooling import (  # noqa: I001
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_avg_pool3d,
    adaptive_max_pool1d,
    adaptive_max_pool2d,
    adaptive_max_pool3d,
    adaptive_output_size,
    avg_pool,
    max_pool,
)

__all__ = [
    "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "AdaptiveMaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "LPPool1d",
    "LPPool2d", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d", "FractionalMaxPool2d", "FractionalMaxPool3d",
]  # fmt: skip


def _check_nchw(op: str, data_format: str) -> None:
    if data_format != "NCHW":
        raise ValueError(f"For '{op}', only data_format 'NCHW' is supported, but got '{data_format}'.")


class _Pool(Cell):
    """Validated window attributes shared by the max and average pooling layers."""

    _nd = 2

    def _setup(self, kernel_size, stride, pad_mode, padding, ceil_mode) -> None:
        op, nd = type(self).__name__, self._nd
        # The public attributes hold the arguments as given (an int stays an int), as MindSpore's layers keep
        # them; the per-dimension tuples the pooling runs on are private.
        self.kernel_size, self.stride = kernel_size, stride
        self._kernel = ntuple(op, "kernel_size", kernel_size, nd)
        self._stride = ntuple(op, "stride", stride, nd)
        check_positive(op, "kernel_size", self._kernel)
        check_positive(op, "stride", self._stride)
        self.pad_mode = pad_mode_of(op, pad_mode)
        self.padding = padding
        self._pads = pad_pairs(op, padding, nd)
        check_non_negative(op, "padding", self._pads)
        self.ceil_mode = bool(ceil_mode)

    # MindSpore's attribute of the pooling primitive of the 2-D and 3-D layers outside pad mode (max_pool, avg_pool)
    _pool_attr = ""

    def _hold_pool(self, prim) -> None:
        """Hold `prim` as the layer's pooling primitive (kiln/nn/layer/_held.py) where MindSpore's layer has one;
        MindSpore's 1-D layers run a 2-D primitive over (N, C, 1, L) between `expand` and `squeeze`."""
        if self.pad_mode == "pad":
            return
        if self._nd == 1:
            hold(self, expand=ops.ExpandDims(), reduce_mean=ops.ReduceMean(keep_dims=True), squeeze=ops.Squeeze(2))
        hold(self, **{self._pool_attr: prim})

    def _run_held(self, x):
        """The held pooling primitive on `x` (once it was sharded or replaced: `touched`)."""
        attr = self._pool_attr
        if x.ndim == self._nd + 1:  # unbatched: the primitive takes a batch
            return ops.squeeze(self._run_held(ops.expand_dims(x, 0)), 0)
        if self._nd == 1:
            return self._run_held_1d(x)
        return getattr(self, attr)(x)

    def _run_held_1d(self, x):
        return self.squeeze(getattr(self, self._pool_attr)(self.expand(x, 2)))

    def extend_repr(self) -> str:
        shown = lambda t: t[0] if len(set(t)) == 1 else t
        s = f"kernel_size={shown(self._kernel)}, stride={shown(self._stride)}, pad_mode={self.pad_mode.upper()}"
        if self.pad_mode == "pad":
            s += f", padding={self.padding}, ceil_mode={self.ceil_mode}"
        return s


class _MaxPool(_Pool):
    def __init__(
        self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False, ceil_mode=False
    ) -> None:
        super().__init__()
        op = type(self).__name__
        self._setup(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = ntuple(op, "dilation", dilation, self._nd)
        check_positive(op, "dilation", self.dilation)
        self.return_indices = bool(return_indices)
        default = not any(self._pads) and set(self.dilation) == {1} and not return_indices and not ceil_mode
        if self.pad_mode != "pad" and not default:
            raise ValueError(
                f"For '{op}', 'padding', 'dilation', 'return_indices' and 'ceil_mode' need pad_mode='pad', but got "
                f"pad_mode='{pad_mode}' with padding={padding!r}, dilation={dilation!r}, "
                f"return_indices={return_indices}, ceil_mode={ceil_mode}."
            )
        pool = ops.MaxPool3D if self._nd == 3 else ops.MaxPool
        window = ((1,) + self._kernel, (1,) + self._stride) if self._nd == 1 else (self._kernel, self._stride)
        self._hold_pool(pool(*window, self.pad_mode))

    _pool_attr = "max_pool"

    def construct(self, x):
        if touched(self):
            return self._run_held(x)
        return max_pool(
            x,
            self._nd,
            self._kernel,
            self._stride,
            self.pad_mode,
            self._pads,
            self.dilation,
            self.ceil_mode,
            self.return_indices,
            "MaxPool3D" if self._nd == 3 else "MaxPool",
        )


class MaxPool1d(_MaxPool):
    """1-D max pooling over (N, C, L) or (C, L).

    Args:
        kernel_size (Union[int, tuple[int]]): window size. Default: 1.
        stride (Union[int, tuple[int]]): window step. Default: 1.
        pad_mode (str): 'valid', 'same' or 'pad'. Default: 'valid'.
        padding (Union[int, tuple[int]]): padding for pad_mode 'pad' (at most half the window). Default: 0.
        dilation (Union[int, tuple[int]]): tap spacing ('pad' mode). Default: 1.
        return_indices (bool): also return the flat index of each maximum ('pad' mode). Default: False.
        ceil_mode (bool): round the output size up ('pad' mode). Default: False.

    Inputs:
        x (Tensor): (N, C, L) or (C, L).

    Outputs:
        Tensor, or (Tensor, indices) when `return_indices`.
    """

    _nd = 1


class MaxPool2d(_MaxPool):
    """2-D max pooling over (N, C, H, W) or (C, H, W); arguments as in MaxPool1d, per spatial dim.

    Args:
        data_format (str): 'NCHW' only.
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1, return_indices=False,
                 ceil_mode=False, data_format="NCHW") -> None:  # fmt: skip
        _check_nchw("MaxPool2d", data_format)
        super().__init__(kernel_size, stride, pad_mode, padding, dilation, return_indices, ceil_mode)
        self.data_format = data_format


class MaxPool3d(_MaxPool):
    """3-D max pooling over (N, C, D, H, W) or (C, D, H, W); arguments as in MaxPool1d, per spatial dim."""

    _nd = 3


class _AvgPool(_Pool):
    def __init__(
        self,
        kernel_size=1,
        stride=1,
        pad_mode="valid",
        padding=0,
        ceil_mode=False,
        count_include_pad=True,
        divisor_override=None,
    ) -> None:
        super().__init__()
        op = type(self).__name__
        self._setup(kernel_size, stride, pad_mode, padding, ceil_mode)
        if self.pad_mode != "pad" and any(self._pads):
            raise ValueError(f"For '{op}', 'padding' must be 0 unless pad_mode is 'pad', but got {padding!r}.")
        if divisor_override is not None and (not isinstance(divisor_override, int) or divisor_override < 0):
            raise ValueError(
                f"For '{op}', 'divisor_override' must be a non-negative int, but got {divisor_override!r}."
            )
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = divisor_override or 0
        if self._nd == 3:
            self._hold_pool(ops.AvgPool3D(self._kernel, self._stride, self.pad_mode, 0, self.ceil_mode,
                                          self.count_include_pad, self.divisor_override))  # fmt: skip
        elif self._nd == 1 and not self.ceil_mode and self.count_include_pad:
            self._hold_pool(ops.AvgPool((1,) + self._kernel, (1,) + self._stride, self.pad_mode))
            if self.pad_mode != "pad":
                hold(self, slice=ops.Slice())
        elif not self.ceil_mode and not self.divisor_override:
            self._hold_pool(ops.AvgPool(self._kernel, self._stride, self.pad_mode))

    _pool_attr = "avg_pool"

    def construct(self, x):
        if touched(self):
            return self._run_held(x)
        # MindSpore runs AvgPool1d/2d on its AvgPool (never counting 'same' padding) unless padding, ceil_mode,
        # count_include_pad=False or divisor_override asks for its AvgPool3D, which counts it as AvgPool3d does.
        plain = self._nd < 3 and self.pad_mode != "pad" and not self.ceil_mode
        return avg_pool(
            x,
            self._nd,
            self._kernel,
            self._stride,
            self.pad_mode,
            self._pads,
            self.ceil_mode,
            self.count_include_pad and not plain,
            self.divisor_override,
            "AvgPool3D" if self._nd == 3 else "AvgPool",
        )


class AvgPool1d(_AvgPool):
    """1-D average pooling over (N, C, L) or (C, L).

    Args:
        kernel_size (Union[int, tuple[int]]): window size. Default: 1.
        stride (Union[int, tuple[int]]): window step. Default: 1.
        pad_mode (str): 'valid', 'same' (padding never counted) or 'pad'. Default: 'valid'.
        padding (Union[int, tuple[int]]): padding for pad_mode 'pad'. Default: 0.
        ceil_mode (bool): round the output size up. Default: False.
        count_include_pad (bool): count explicit padding in the divisor. Default: True.

    Inputs:
        x (Tensor): (N, C, L) or (C, L).

    Outputs:
        Tensor (N, C, L_out).
    """

    _nd = 1

    def __init__(
        self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True
    ) -> None:
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad)

    def _run_held_1d(self, x):
        """MindSpore's AvgPool1d: one window covering the input is a `reduce_mean`, as is one whose next would not fit
        (over the first `kernel_size` entries, `slice`); otherwise the 2-D `avg_pool` over (N, C, 1, L)."""
        (k,), (s,) = self._kernel, self._stride
        n, c, width = x.shape
        if width == k:
            return self.reduce_mean(x, 2)
        if width - k < s:
            return self.reduce_mean(self.slice(x, (0, 0, 0), (n, c, k)), 2)
        return self.squeeze(self.avg_pool(self.expand(x, 2)))


class AvgPool2d(_AvgPool):
    """2-D average pooling over (N, C, H, W) or (C, H, W); arguments as in AvgPool1d, per spatial dim.

    Args:
        divisor_override (int, optional): divide by this instead of the window size.
        data_format (str): 'NCHW' only.
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None, data_format="NCHW") -> None:  # fmt: skip
        _check_nchw("AvgPool2d", data_format)
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode, count_include_pad, divisor_override)
        self.data_format = data_format


class AvgPool3d(_AvgPool):
    """3-D average pooling over (N, C, D, H, W) or (C, D, H, W); arguments as in AvgPool2d."""

    _nd = 3


class _Adaptive(Cell):
    _nd = 2
    _fn = None
    # MindSpore's attribute and class of the layer's pooling primitive, where its layer holds one
    _held: tuple[str, type] | None = None

    def __init__(self, output_size, return_indices: bool = False) -> None:
        super().__init__()
        self.output_size = adaptive_output_size(type(self).__name__, output_size, self._nd)
        self.return_indices = return_indices
        if self._held is not None:
            attr, cls = self._held
            hold(self, **{attr: cls() if cls is ops.AdaptiveMaxPool3D else cls(self.output_size)})

    def extend_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    """Average over L bins [floor(i * L / out), ceil((i + 1) * L / out)) of (N, C, L) or (C, L).

    Args:
        output_size (int): number of bins.
    """

    _nd = 1

    def construct(self, x):
        return adaptive_avg_pool1d(x, self.output_size)


class AdaptiveAvgPool2d(_Adaptive):
    """Adaptive average pooling of (N, C, H, W) or (C, H, W).

    Args:
        output_size (Union[int, tuple]): (out_H, out_W); None keeps that input size.
    """

    _held = ("adaptive_avgpool2d", ops.AdaptiveAvgPool2D)

    def construct(self, x):
        if touched(self):  # sharded or replaced: MindSpore's layer calls its primitive
            return self.adaptive_avgpool2d(x)
        return adaptive_avg_pool2d(x, self.output_size)


class AdaptiveAvgPool3d(_Adaptive):
    """Adaptive average pooling of (N, C, D, H, W) or (C, D, H, W); see AdaptiveAvgPool2d."""

    _nd = 3
    _held = ("adaptive_avg_pool3d", ops.AdaptiveAvgPool3D)

    def construct(self, x):
        if touched(self):  # sharded or replaced: MindSpore's layer calls its primitive
            return self.adaptive_avg_pool3d(x)
        return adaptive_avg_pool3d(x, self.output_size)


class AdaptiveMaxPool1d(_Adaptive):
    """Adaptive max pooling of (N, C, L) or (C, L).

    Args:
        output_size (int): number of bins.
    """

    _nd = 1

    def __init__(self, output_size) -> None:
        super().__init__(output_size)

    def construct(self, x):
        return adaptive_max_pool1d(x, self.output_size)


class AdaptiveMaxPool2d(_Adaptive):
    """Adaptive max pooling of (N, C, H, W) or (C, H, W).

    Args:
        output_size (Union[int, tuple]): (out_H, out_W); None keeps that input size.
        return_indices (bool): also return the flat H * W index of each maximum. Default: False.
    """

    def construct(self, x):
        return adaptive_max_pool2d(x, self.output_size, self.return_indices)


class AdaptiveMaxPool3d(_Adaptive):
    """Adaptive max pooling of (N, C, D, H, W) or (C, D, H, W); see AdaptiveMaxPool2d."""

    _nd = 3
    _held = ("adaptive_max_pool3d", ops.AdaptiveMaxPool3D)  # MindSpore's takes the output size as an input

    def construct(self, x):
        if touched(self):  # sharded or replaced: MindSpore's layer calls its primitive, which returns both
            out = self.adaptive_max_pool3d(x, self.output_size)
            return out if self.return_indices else out[0]
        return adaptive_max_pool3d(x, self.output_size, self.return_indices)


class LPPool1d(Cell):
    """Power-average pooling over the last axis."""

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False) -> None:
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def construct(self, x):
        return ops.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """Power-average pooling over the last two axes."""

    def construct(self, x):
        return ops.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class _MaxUnpool(Cell):
    _fn = None

    def __init__(self, kernel_size, stride=None, padding=0) -> None:
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return type(self)._fn(x, indices, self.kernel_size, self.stride, self.padding, output_size)


MaxUnpool1d, MaxUnpool2d, MaxUnpool3d = op_variants(
    _MaxUnpool,
    ("MaxUnpool1d", ops.max_unpool1d, "The inverse of MaxPool1d with `return_indices`."),
    ("MaxUnpool2d", ops.max_unpool2d, "The inverse of MaxPool2d with `return_indices`."),
    ("MaxUnpool3d", ops.max_unpool3d, "The inverse of MaxPool3d with `return_indices`."),
)


def _fractional_starts(u, in_size: int, k: int, out: int):
    """Window starts (..., out) of fractional max pooling (Graham 2014) for uniform samples u (...): consecutive
    starts differ by floor or ceil of alpha = (in - k) / (out - 1); the last window ends at the input's end."""
    if out == 1:
        return ops.fill(mstype.int32, u.shape + (1,), in_size - k)
    alpha = (in_size - k) / (out - 1)
    i = ops.arange(0, out - 1, dtype=mstype.float32)
    u = ops.expand_dims(ops.cast(u, mstype.float32), -1)
    starts = ops.floor((i + u) * alpha) - ops.floor(u * alpha)
    last = ops.fill(mstype.float32, u.shape[:-1] + (1,), float(in_size - k))
    return ops.cast(ops.concat((starts, last), -1), mstype.int32)


def _tuple(value, n: int, name: str, cls: str) -> tuple:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (value,) * n
    if isinstance(value, (tuple, list)) and len(value) == n:
        return tuple(value)
    raise TypeError(f"For '{cls}', '{name}' must be a number or a tuple of {n}, but got {value!r}.")


class _FractionalMaxPool(Cell):
    _dims = 2
    _sample_of_axis = (1, 0)  # which random sample drives each spatial axis (MindSpore's kernels: 2-D W, H)

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):  # fmt: skip
        super().__init__()
        cls, n = type(self).__name__, self._dims
        self.kernel_size = _tuple(kernel_size, n, "kernel_size", cls)
        if any(not isinstance(k, int) or k <= 0 for k in self.kernel_size):
            raise ValueError(f"For '{cls}', 'kernel_size' must hold positive ints, but got {kernel_size!r}.")
        if output_size is None and output_ratio is None:
            raise ValueError(f"{cls} needs the output size: pass output_size or output_ratio.")
        self.output_size = None if output_size is None else _tuple(output_size, n, "output_size", cls)
        self.output_ratio = None if output_ratio is None else _tuple(output_ratio, n, "output_ratio", cls)
        if self.output_ratio is not None and any(not 0 < r < 1 for r in self.output_ratio):
            raise ValueError(f"For '{cls}', 'output_ratio' must be in (0, 1), but got {output_ratio!r}.")
        self.return_indices = return_indices
        self._random_samples = _random_samples

    def construct(self, x):
        cls, n = type(self).__name__, self._dims
        batched = x.ndim == n + 2
        if x.ndim not in (n + 1, n + 2):
            raise ValueError(f"For '{cls}', the input must be {n + 1}-D or {n + 2}-D, but got {x.ndim}-D.")
        if not batched:
            x = ops.expand_dims(x, 0)
        lead, spatial = x.shape[:2], x.shape[2:]
        if self.output_size is not None:
            out = self.output_size
        else:
            out = tuple(int(s * r) for s, r in zip(spatial, self.output_ratio))
        for s, k, o in zip(spatial, self.kernel_size, out):
            if o + k - 1 > s:
                raise ValueError(f"For '{cls}', output_size + kernel_size - 1 must be <= the input size, but got "
                                 f"output {out}, kernel {self.kernel_size}, input {spatial}.")  # fmt: skip
        samples = self._random_samples
        if samples is None:
            samples = ops.uniform(lead + (n,), Tensor(0.0, mstype.float32), Tensor(1.0, mstype.float32))
        index = None
        for d in range(n):
            starts = _fractional_starts(samples[..., self._sample_of_axis[d]], spatial[d], self.kernel_size[d], out[d])
            pos = ops.expand_dims(starts, -1) + ops.arange(0, self.kernel_size[d], dtype=mstype.int32)  # (N, C, o, k)
            stride = int(np.prod(spatial[d + 1 :], dtype=np.int64))
            pos = pos * stride
            if index is None:
                index = pos
            else:  # (N, C, o_0, k_0, ..., o_d-1, k_d-1) + (o_d, k_d)
                index = ops.expand_dims(ops.expand_dims(index, -1), -1) + ops.reshape(
                    pos, lead + (1,) * (2 * d) + (out[d], self.kernel_size[d]))  # fmt: skip
        perm = (0, 1) + tuple(2 + 2 * d for d in range(n)) + tuple(3 + 2 * d for d in range(n))
        index = ops.reshape(ops.transpose(index, perm), lead + out + (-1,))  # (N, C, *out, prod(k))
        flat = ops.reshape(x, lead + (-1,))
        windows = ops.gather_elements(flat, 2, ops.reshape(index, lead + (-1,)))
        windows = ops.reshape(windows, index.shape)
        y = ops.amax(windows, -1)
        if not batched:
            y = ops.squeeze(y, 0)
        if not self.return_indices:
            return y
        arg = ops.argmax(windows, -1, keepdim=True)
        idx = ops.cast(ops.squeeze(ops.gather_elements(index, index.ndim - 1, ops.cast(arg, mstype.int32)), -1),
                       mstype.int64)  # fmt: skip
        return y, (idx if batched else ops.squeeze(idx, 0))


class FractionalMaxPool2d(_FractionalMaxPool):
    """Fractional max pooling over (N, C, H, W) or (C, H, W) (Graham 2014): kernel_size windows at pseudo-random
    strides chosen from `_random_samples` (N, C, 2) in [0, 1) (drawn when None) so that the output is
    `output_size` or input * `output_ratio`; `return_indices` adds the flat H*W index of each maximum."""

    _dims = 2


class FractionalMaxPool3d(_FractionalMaxPool):
    """Fractional max pooling over (N, C, D, H, W) or (C, D, H, W); `_random_samples` is (N, C, 3)."""

    _dims = 3
    _sample_of_axis = (0, 1, 2)  # D, H, W
