"""Convolutions: Conv1D/2D/3D and their transposes (channels-first, grouped, dilated),
and deformable convolution offsets.

Attributes are per-spatial-dimension tuples: `stride`, `dilation`, and `pad`
as (lo0, hi0, lo1, hi1, ...) — MindSpore's (top, bottom, left, right) order.
MindSpore's Conv1d layers store a (C_out, C_in/group, 1, K) weight; the 1-D
primitives accept that layout as well as (C_out, C_in/group, K).
"""

from __future__ import annotations

import numpy as np

from kiln._backend import default_platform, jnp, lax, precision, vjp
from kiln._core.primitive import PrimitiveDef
from kiln._prims._checks import same_float_dtype
from kiln._prims.nn._common import (
    declare,
    non_negative_ints,
    one_of,
    op_error,
    positive_ints,
    require_float,
    shape_of,
    spatial_name,
)

PAD_MODES = ("same", "valid", "pad")
_CHANNELS_LAST = ("NHWC", "NWC", "NDHWC")


def same_pads(size: int, k: int, s: int, d: int) -> tuple[int, int]:
    """TensorFlow/MindSpore 'same' padding: output ceil(size / s), extra padding at the end."""
    out = -(-size // s)
    total = max((out - 1) * s + d * (k - 1) + 1 - size, 0)
    return total // 2, total - total // 2


def _axis_pads(pad_mode: str, pad, i: int, n: int, k: int, s: int, d: int) -> tuple[int, int]:
    """(low, high) padding of spatial axis `i` (size n, kernel k, stride s, dilation d) for `pad_mode`."""
    if pad_mode == "same":
        return same_pads(n, k, s, d)
    if pad_mode == "valid":
        return 0, 0
    return pad[2 * i], pad[2 * i + 1]


def conv_geometry(sizes, kernel, stride, dilation, pad_mode, pad) -> tuple[list, list]:
    """(padding pairs, output sizes) of a forward convolution."""
    pads, outs = [], []
    for i, (n, k, s, d) in enumerate(zip(sizes, kernel, stride, dilation)):
        lo, hi = _axis_pads(pad_mode, pad, i, n, k, s, d)
        pads.append((lo, hi))
        outs.append((n + lo + hi - d * (k - 1) - 1) // s + 1)
    return pads, outs


def _kernel_shape(op: str, w_shape: tuple, nd: int) -> tuple:
    """The weight shape without MindSpore's extra unit axis of 1-D kernels."""
    if nd == 1 and len(w_shape) == 4 and w_shape[2] == 1:
        return w_shape[:2] + w_shape[3:]
    if len(w_shape) != nd + 2:
        want = "(C_out, C_in / group, K) or (C_out, C_in / group, 1, K)" if nd == 1 else f"{nd + 2}-D"
        raise op_error(op, f"'weight' must be {want}, but got shape {list(w_shape)}.")
    return w_shape


def _check_common(op, nd, stride, pad_mode, pad, dilation, group):
    positive_ints(op, "stride", stride)
    positive_ints(op, "dilation", dilation)
    positive_ints(op, "group", (group,))
    one_of(op, "pad_mode", pad_mode, PAD_MODES)
    non_negative_ints(op, "pad", pad)
    if len(pad) != 2 * nd or len(stride) != nd or len(dilation) != nd:
        raise op_error(
            op, f"'stride' and 'dilation' need {nd} entries and 'pad' {2 * nd}, but got {stride}, {dilation} and {pad}."
        )
    if pad_mode != "pad" and any(pad):
        raise op_error(
            op, f"'pad' must be all zero unless pad_mode is 'pad', but got pad={pad} with pad_mode={pad_mode!r}."
        )


def _layout(op, x, nd, data_format):
    xs = shape_of(x)
    if len(xs) != nd + 2:
        raise op_error(op, f"the input 'x' must be {nd + 2}-D {spatial_name(nd)}, but got shape {list(xs)}.")
    if data_format in _CHANNELS_LAST:
        return xs[-1], xs[1:-1]
    return xs[1], xs[2:]


def _check_bias(op, b, channels, w_shape):
    if b is not None and tuple(shape_of(b)) != (channels,):
        raise op_error(
            op,
            f"'bias' must have shape [{channels}] (one value per output channel of weight "
            f"{list(w_shape)}), but got {list(shape_of(b))}.",
        )


def _check_conv(op, nd):
    def check(x, w, b, *, stride, pad_mode, pad, dilation, group, data_format):
        _check_common(op, nd, stride, pad_mode, pad, dilation, group)
        require_float(op, "x", x)
        same_float_dtype(op, x=x, weight=w, bias=b)
        channels, sizes = _layout(op, x, nd, data_format)
        ws = _kernel_shape(op, tuple(shape_of(w)), nd)
        if channels % group or channels // group != ws[1]:
            raise op_error(
                op,
                f"the input channels of 'x' divided by 'group' must equal the weight's input channels: 'x' shape "
                f"{list(shape_of(x))} has {channels} channels and group={group}, but 'weight' shape "
                f"{list(shape_of(w))} expects {ws[1] * group}.",
            )
        if ws[0] % group:
            raise op_error(
                op,
                f"the output channels of 'weight' ({ws[0]}, shape {list(shape_of(w))}) must be "
                f"divisible by group={group}.",
            )
        _check_bias(op, b, ws[0], shape_of(w))
        _, outs = conv_geometry(sizes, ws[2:], stride, dilation, pad_mode, pad)
        if any(o <= 0 for o in outs):
            raise op_error(
                op,
                f"the output spatial size {outs} is not positive: input {list(shape_of(x))}, kernel "
                f"{list(ws[2:])}, stride {list(stride)}, dilation {list(dilation)}, pad_mode {pad_mode!r}, "
                f"pad {list(pad)}.",
            )

    return check


def _specs(nd: int, data_format: str) -> tuple[str, str, str]:
    sp = "DHW"[3 - nd :]
    lhs = f"N{sp}C" if data_format in _CHANNELS_LAST else f"NC{sp}"
    return lhs, f"OI{sp}", lhs


def _add_bias(y, b, nd, data_format):
    if b is None:
        return y
    if data_format in _CHANNELS_LAST:
        return y + b
    return y + b.reshape((1, -1) + (1,) * nd)


def _spatial(x, data_format):
    return x.shape[1:-1] if data_format in _CHANNELS_LAST else x.shape[2:]


def _squeeze_1d(w, nd):
    return w.reshape(w.shape[:2] + w.shape[3:]) if w.ndim == nd + 3 else w


def _forward(x, w, stride, pads, dilation, group, data_format):
    nd = len(stride)
    return lax.conv_general_dilated(
        x,
        w.astype(x.dtype),
        stride,
        pads,
        rhs_dilation=dilation,
        feature_group_count=group,
        dimension_numbers=_specs(nd, data_format),
        precision=precision.conv_precision(),
    )


# ---- CPU lowering of thin convolutions ---------------------------------------------------
# XLA's CPU convolution runs grouped layers with one or a few input channels per group (depthwise layers) at
# 0-1% of the machine's matmul speed: no GEMM has enough work per output. Written as a sum of shifted input
# slices times per-offset weights, XLA fuses the forward into one elementwise loop, 5-25x faster on depthwise
# 3x3/5x5 (`python -m benchmarks.bench_conv --layers thin`). The rule, measured:
#   - groups of one: XLA's convolution. LeNet5's first layer (1 -> 6, 5x5) alone is 4-5x faster shifted, but
#     in the train step XLA fuses the 25-term sum into its consumers (ReLU, the pool and the pool's gradient
#     mask) and computes it again in each: the step, tiled pooling in both, took 1.3-2x the time shifted
#     (`python -m benchmarks.bench_conv --step`; Kiln's GRAPH_MODE LeNet5 step 1.35-1.42x jax.jit's shifted
#     against 0.65-0.71x with XLA's convolution).
#   - grouped layers with at most SHIFTED_MAX_TERMS input-channel x kernel-tap terms per output: shifted. Past
#     ~75 terms XLA's convolution wins again (RGB 7x7 stems at 147).
# For kernels larger than 1x1, im2col + one dot (bench_conv's `patches` and `im2col` columns: strided slices
# stacked into columns, their gradients a scatter-add of the columns) was at best level with XLA's convolution
# on LeNet5's and ResNet-50's layers, and slower in LeNet5's step: its second layer's input gradient as a dot +
# col2im took the step 1.31-1.45x, its weight gradient as patches^T @ dout 1.10x, NHWC convolutions between
# transposes 1.04-1.13x (an interleaved experiment, session 8 of issue 22). So those gradients stayed XLA's; autodiff
# of the shifted sum is slower still. A shifted layer's own gradients are shifted sums and per-tap reductions since
# session 17 (`shifted_input_grad`, `shifted_weight_grad`). (Session 10: the forward as im2col + a batched
# dot in NCHW was 0.3-0.6x XLA's on ResNet-50's 3x3 layers and LeNet5's second layer; only the weight gradient of
# large layers moved to dots, `dot_directions` below.)
SHIFTED_MAX_TERMS = 75  # input channels per group x kernel taps
_REWRITTEN_DTYPES = ("float32", "float64")  # half precision keeps XLA's wider accumulation


def _rewritable_on_cpu(x, outs, dilation, group: int, data_format: str) -> bool:
    """Whether the CPU's convolution rules may rewrite this layer: an ungrouped, undilated float32/float64 NCHW 2-D
    convolution on the CPU (the GPU keeps XLA's convolution; half precision keeps its wider accumulation)."""
    return (
        default_platform() == "cpu"
        and group == 1
        and data_format == "NCHW"
        and len(outs) == 2
        and all(d == 1 for d in dilation)
        and x.dtype.name in _REWRITTEN_DTYPES
    )


def use_shifted_conv(x, w, group: int, data_format: str) -> bool:
    """Whether a forward convolution lowers to `shifted_conv` on this platform.

    Args:
        x: the input (or its abstract value).
        w: the weight (C_out, C_in / group, *kernel).
        group: the number of channel groups.
        data_format: the input's layout; only channels-first layouts are rewritten.

    Returns:
        True on the CPU for a grouped (group > 1) float32/float64 channels-first convolution of at most
        `SHIFTED_MAX_TERMS` input-channel x kernel-tap terms per output; False elsewhere (the GPU keeps XLA's
        convolution).
    """
    kernel_taps = int(np.prod(w.shape[2:]))
    return (
        default_platform() == "cpu"
        and group > 1
        and data_format not in _CHANNELS_LAST
        and x.dtype.name in _REWRITTEN_DTYPES
        and w.shape[1] * kernel_taps <= SHIFTED_MAX_TERMS
    )


def _pad_spatial(x, pads):
    """`x` (N, C, *spatial) zero-padded by (lo, hi) per spatial dimension (as is when every pad is 0)."""
    if not any(lo or hi for lo, hi in pads):
        return x
    return lax.pad(x, jnp.zeros((), x.dtype), [(0, 0, 0), (0, 0, 0)] + [(lo, hi, 0) for lo, hi in pads])


def shifted_conv(x, w, stride, pads, dilation, group):
    """A channels-first convolution as a sum over input channels and kernel offsets of scaled input slices.

    Args:
        x: input (N, C, *spatial).
        w: weight (C_out, C / group, *kernel).
        stride, dilation: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.
        group: the number of channel groups.

    Returns:
        The convolution (N, C_out, *out), equal to `lax.conv_general_dilated` with the same arguments.
    """
    n, c = x.shape[:2]
    c_out, c_group = w.shape[:2]
    kernel = w.shape[2:]
    x = _pad_spatial(x, pads)
    sizes = x.shape[2:]
    outs = [(size - d * (k - 1) - 1) // s + 1 for size, k, s, d in zip(sizes, kernel, stride, dilation)]
    # (N, group, 1, C / group, *spatial) against (1, group, C_out / group, C / group, *1): every term of
    # the sum broadcasts one input channel of a group over that group's output channels.
    x = x.reshape((n, group, 1, c_group, *sizes))
    w = w.astype(x.dtype).reshape((1, group, c_out // group, c_group, *kernel))
    total = None
    for ci, offset, term in _tap_windows_by_channel(x, kernel, stride, dilation, outs):
        tap = lax.slice(w, [0, 0, 0, ci, *offset], [1, group, c_out // group, ci + 1, *(i + 1 for i in offset)])
        term = term * tap
        total = term if total is None else total + term
    return total.reshape((n, c_out, *outs))


def _tap_windows_by_channel(x, kernel, stride, dilation, outs):
    """Per input channel of a group and kernel offset, in that order: (channel, offset, the strided window of `x`
    that tap reads for every output), `x` being the padded input as (N, group, 1, C / group, *spatial)."""
    n, group = x.shape[:2]
    for ci in range(x.shape[3]):
        for offset in np.ndindex(*kernel):
            start = [0, 0, 0, ci] + [i * d for i, d in zip(offset, dilation, strict=True)]
            limit = [n, group, 1, ci + 1] + [
                i * d + s * (o - 1) + 1 for i, d, s, o in zip(offset, dilation, stride, outs, strict=True)
            ]
            yield ci, offset, lax.slice(x, start, limit, [1, 1, 1, 1, *stride])


# The gradients of a shifted layer (session 17, issue 21). XLA's own gradients of a depthwise convolution were most of
# MobileNetV2's GRAPH_MODE step (w0.5, 64x64, batch 8; jax.profiler, load 8): the input gradients (grouped
# convolutions that YNNPACK or Eigen run at ~0.5 GFLOP/s, between NCHW <-> NHWC transposes) 46% of the kernel time, the
# weight gradients 18% (XLA expands batch_group_count into a full C x C convolution and keeps its diagonal, C times the
# work), their transposes most of another 24%. Written as shifted sums (the input gradient: the phases of dout times
# per-offset weights, one fused loop each) and per-tap reductions (the weight gradient: one window x dout reduction per
# input channel and tap), MobileNetV2's 17 depthwise layers, batch 8, XLA's time against these (/tmp probe, two copies
# of XLA's 0.95-1.10x apart, 5 shuffled rounds, load 9): input gradients 0.01-0.04x at 32x32 and 16x16, 0.02-0.04x
# below, all layers 65.9 -> 1.9 ms; weight gradients 0.77-0.83x at 32x32, 0.26-0.40x at 16x16 and 8x8, 0.05-0.10x at
# 4x4 and 2x2, all layers 29.3 -> 4.9 ms. One stacked reduction for the weight gradient (7.4 ms) and a dot with the
# channel as batch (6.8 ms) were slower; the input gradient as one shifted sum over the stride-dilated dout (2.4 ms) did
# at stride 2 up to 8x the phases' work.
def uses_shifted_input_grad(x, w, group: int, data_format: str) -> bool:
    """Whether a convolution's input gradient lowers to `shifted_input_grad` on this platform.

    Args:
        x: the input (or its abstract value).
        w: the weight (C_out, C_in / group, *kernel).
        group: the number of channel groups.
        data_format: the input's layout.

    Returns:
        True where the forward is shifted (`use_shifted_conv`) and the gradient's sum has at most SHIFTED_MAX_TERMS
        output-channel x kernel-tap terms per input entry (C_out / group x taps); the weight gradient of every
        shifted layer is `shifted_weight_grad`.
    """
    taps = int(np.prod(w.shape[2:]))
    return use_shifted_conv(x, w, group, data_format) and w.shape[0] // group * taps <= SHIFTED_MAX_TERMS


def _phase_input_grad_shifted(dout, wt, stride, pads, sizes, group):
    """The input gradient of an undilated grouped convolution from its stride phases, each a stride-1 shifted sum.

    The padded input's entries at q = s x Q + r (per spatial dimension, phase r < s) see the kernel taps r + s x a
    applied to dout[Q - a], so phase r is a stride-1 correlation of dout, zero-padded by A - 1 in front, with those taps
    reversed; the phases are interleaved and the padding cropped.

    Args:
        dout: the output's cotangent (N, C_out, *outs).
        wt: the weight with each group's channels swapped, (C, C_out / group, *kernel).
        stride: one int per spatial dimension.
        pads: the forward's (lo, hi) per spatial dimension.
        sizes: the input's spatial sizes.
        group: the number of channel groups.

    Returns:
        (N, C, *sizes).
    """
    n = dout.shape[0]
    outs = dout.shape[2:]
    kernel = wt.shape[2:]
    nd = len(stride)
    phase_sizes = [-(-(size + lo + hi) // s) for size, (lo, hi), s in zip(sizes, pads, stride, strict=True)]
    reach = [-(-k // s) for k, s in zip(kernel, stride, strict=True)]  # taps per phase, at most
    zero = jnp.zeros((), dout.dtype)
    config = [(0, 0, 0), (0, 0, 0)]
    config += [(a - 1, max(p - o, 0), 0) for a, p, o in zip(reach, phase_sizes, outs, strict=True)]
    dpad = lax.pad(dout, zero, config)
    phases = []
    for phase in np.ndindex(*stride):
        index = tuple(slice(r, None, s) for r, s in zip(phase, stride, strict=True))
        taps = wt[(slice(None), slice(None), *index)]
        if 0 in taps.shape[2:]:  # a kernel smaller than the stride leaves this phase without taps
            phases.append(jnp.zeros((n, wt.shape[0], *phase_sizes), dout.dtype))
            continue
        taps = jnp.flip(taps, tuple(range(2, 2 + nd)))
        start = [0, 0] + [a - t for a, t in zip(reach, taps.shape[2:], strict=True)]
        limit = [n, dpad.shape[1]] + [b + p + t - 1 for b, p, t in zip(start[2:], phase_sizes, taps.shape[2:])]
        part = lax.slice(dpad, start, limit)
        phases.append(shifted_conv(part, taps, (1,) * nd, [(0, 0)] * nd, (1,) * nd, group))
    # (N, C, *phase sizes, *stride) -> (N, C, P0, s0, P1, s1, ...) -> (N, C, s0 x P0, ...), then the padding cropped
    stacked = jnp.stack(phases, -1).reshape(n, wt.shape[0], *phase_sizes, *stride)
    order = [0, 1] + [a for i in range(nd) for a in (2 + i, 2 + nd + i)]
    padded = stacked.transpose(order).reshape(n, wt.shape[0], *(p * s for p, s in zip(phase_sizes, stride)))
    crop = [(-lo, lo + size - p * s, 0) for (lo, _), size, p, s in zip(pads, sizes, phase_sizes, stride, strict=True)]
    return lax.pad(padded, zero, [(0, 0, 0), (0, 0, 0), *crop])


def shifted_input_grad(dout, w, stride, pads, dilation, group, sizes):
    """The input gradient of a grouped channels-first convolution as shifted sums of dout times per-offset weights.

    Args:
        dout: the output's cotangent (N, C_out, *outs).
        w: weight (C_out, C / group, *kernel).
        stride, dilation: one int per spatial dimension.
        pads: the forward's (lo, hi) per spatial dimension.
        group: the number of channel groups.
        sizes: the input's spatial sizes.

    Returns:
        (N, C, *sizes), equal to the vjp of `lax.conv_general_dilated` up to float rounding. Undilated layers sum each
        stride phase on its own (`_phase_input_grad_shifted`); dilated ones correlate the stride-dilated dout.
    """
    c_out, c_group = w.shape[:2]
    kernel = w.shape[2:]
    wt = w.astype(dout.dtype).reshape((group, c_out // group, c_group, *kernel))
    wt = jnp.swapaxes(wt, 1, 2).reshape((group * c_group, c_out // group, *kernel))
    if all(d == 1 for d in dilation):
        return _phase_input_grad_shifted(dout, wt, stride, pads, sizes, group)
    wf = jnp.flip(wt, tuple(range(2, wt.ndim)))
    outs = dout.shape[2:]
    config = [(0, 0, 0), (0, 0, 0)]
    config += [
        (d * (k - 1) - lo, size - (o - 1) * s - 1 + lo, s - 1)
        for size, k, s, d, (lo, _), o in zip(sizes, kernel, stride, dilation, pads, outs, strict=True)
    ]
    dpad = lax.pad(dout, jnp.zeros((), dout.dtype), config)
    return shifted_conv(dpad, wf, (1,) * len(stride), [(0, 0)] * len(stride), dilation, group)


def shifted_weight_grad(x, dout, kernel, stride, pads, dilation, group):
    """The weight gradient of a grouped channels-first convolution as one reduction per input channel and kernel tap:
    that tap's strided input window times dout, summed over the batch and the pixels.

    Args:
        x: input (N, C, *spatial).
        dout: the output's cotangent (N, C_out, *outs).
        kernel, stride, dilation: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.
        group: the number of channel groups.

    Returns:
        (C_out, C / group, *kernel).
    """
    n, c = x.shape[:2]
    c_out = dout.shape[1]
    c_group, outs = c // group, dout.shape[2:]
    x = _pad_spatial(x, pads)
    x = x.reshape((n, group, 1, c_group, *x.shape[2:]))
    rows = dout.astype(x.dtype).reshape((n, group, c_out // group, *outs))
    axes = (0, *range(3, 3 + len(outs)))
    sums = []
    for _, _, window in _tap_windows_by_channel(x, kernel, stride, dilation, outs):
        sums.append(jnp.sum(window.reshape((n, group, 1, *outs)) * rows, axis=axes))  # (group, C_out / group)
    return jnp.stack(sums, -1).reshape((c_out, c_group, *kernel))


# ---- CPU lowering of ungrouped channels-first 2-D convolutions as dots ------------------------------------
# This XLA (jaxlib 0.10.2) hands a convolution to YNNPACK in NHWC: a channels-first one is transposed in and out
# around it on every call, and its weight gradient (a convolution whose window is the whole image) runs at 2-8% of
# the matmul GFLOP/s on ResNet-50's 56x56 layers. Written as dots over the channels, in NCHW, with the batch as
# the dot's batch dimension (the weight broadcast over it), none of them needs a transpose. Measured at batch 32,
# interleaved with a 512^3 matmul, as fractions of its GFLOP/s (load 14-16, 2026-11-28; /tmp probes of session 10
# that `python -m benchmarks.bench_conv --layers resnet` repeats per layer):
#   - 1x1, per-image output pixels P >= DOT_MIN_PIXELS (56x56, and 28x28 after a stride of 2): forward 41-60%
#     against XLA's 12-26%, input gradient 31-74% against 14-24%, weight gradient 34-145% against 4-6%.
#   - 1x1, P < DOT_MIN_PIXELS (14x14, 7x7): the batched dots fall to 5-48% (short rows); the forward and input
#     gradient stay XLA's (43-59%). The weight gradient is one dot contracting batch and pixels
#     (`pointwise_weight_grad`): ResNet-50's 1x1 layers at 14x14 and 7x7, batch 32, 0.20-0.29x the time of XLA's
#     (34-49% of the matmul against 9-12%; two copies of each, 6 shuffled rounds, load 12-14, session 13), and
#     MobileNetV2's at batch 4 0.42-0.70x. Session 8 had kept it out because it moved tests/zoo/mobilenetv2's state
#     [32] from 0.2395 to 0.2665: a ReLU6 input within 1e-6 of 0 changing sign, as far as MindSpore's own run moves
#     it under a relative 1e-6 perturbation; that test now bounds each state sum by MindSpore's measured move.
#   - kxk weight gradient, P >= DOT_MIN_PIXELS: one batched dot per kernel tap over that tap's strided window,
#     summed over the batch: 3x3 at 56x56 13% against 3%, 128 /2 45% against 22%, 28x28 81% against 38%. Below it
#     XLA's (3x3 at 14x14 and 7x7 within noise of it), and with fewer than TAP_MIN_CHANNELS input channels
#     (LeNet5's first layer, 1 channel: 10% against 13%); kxk forward and input gradient stay XLA's (YNNPACK).
#     Strided ones are XLA's since session 14 (see `tap_weight_grad`): at 128 /2 the taps took 1.31-1.37x its time.
#     The taps cost compile time: a slice and a dot per tap, and their (N, C, pixels) reshapes pin activations to
#     NCHW in memory. Zoo UNet++ (batch 2, 32x32) with its small kxk weight gradients left to XLA compiled 728
#     kernels instead of 833 (first-step CPU about 0.9x) but its steady step was 1.01-1.24x slower (interleaved,
#     session 11): kept as it is.
#   - kxk forward with at most PATCH_MAX_CHANNELS input channel (LeNet5's first layer, 1 -> 6 5x5 @32): the
#     kernel taps' windows stacked into (N, taps, P) patches and one batched dot. XLA's own convolution (Eigen: no
#     GEMM depth with one channel) took 1.59-1.65 ms of one core per batch of 32 against 0.63 ms for PyTorch's;
#     the patches (0.18-0.28 ms) and dot (0.14-0.17 ms) replace it (`python -m benchmarks.bench_conv --step
#     --profile` under `taskset -c 0`, session 11, load 10-15). With 6 channels (LeNet5's second layer) XLA's stays:
#     0.11-0.14 ms on two cores against 0.22 ms of patches + 0.23 ms of dot.
#     Its weight gradient from the same patches (`patch_weight_grad`: a batched dot with dout, summed over the
#     batch) replaces XLA's convolution and the transpose it needed (0.33-0.37 ms); ReLU/pool's gradient mask is
#     then written out (0.31 ms). Interleaved in one process against XLA's weight gradient (6 rounds, one core,
#     load 5-8): kernel sum 0.90-0.94x (one round 1.31x under load), step 0.82-1.03x (median 0.93x). The dot takes
#     the patches as its left operand, (taps, P) x (P, C_out) per image (session 12, load 5-13): YNNPACK ran the
#     (C_out, P) x (P, taps) order alone at 2.5x the time on one core (4.94 against 1.94 ms, 25 interleaved rounds)
#     and 1.9-2.0x on two (0.90-1.27 against 0.46-0.67 ms); in the step (`python -m benchmarks.bench_conv --step`)
#     the kernel 872 -> 260 us, the step 0.90x pinned to one core and 0.86x on two (means of two copies of each,
#     15 rounds). Kiln's own @jit step, old and new side by side in one process, gave 0.83x on one core and
#     1.05-1.07x on two, but two identical programs in that harness differed by 1.26x at load 8: noise. Rejected
#     then: the batch folded into the dot's columns, (C_out, N x P) x (N x P, taps) in one dot (the ReLU/pool mask
#     then written transposed, 1.7 ms, and the one dot no faster), pixel-major (N x P, taps) patches with dout
#     (N x P, C_out) for a K-major dot (the dot 0.44 ms, but the taps stacked along the minor axis 1.2 ms and dout's
#     transpose 0.7 ms), and LeNet5's second layer's forward and weight gradient from shared patches
#     (PATCH_MAX_CHANNELS = 6: step 1.09x, its patches one stack of 25 slices; taken since: PATCH_SMALL_MAX_CHANNELS).
#     Rejected:
#     contracting batch and pixels in one dot (XLA transposed the patches first: 1.03 ms), (C x taps, N x P)
#     patches with single GEMMs for the forward and weight gradient (dout's transpose to (C_out, N x P) 1.21 ms),
#     and the second layer's input gradient as patches of the padded dout + one dot (patches 1.29 ms against
#     XLA's whole convolution's 1.03 ms).
# The GPU keeps XLA's convolution in every direction; float16/bfloat16 keep XLA's wider accumulation.
DOT_MIN_PIXELS = 784  # per-image output pixels from which the batched dots beat XLA's convolution
TAP_MIN_CHANNELS = 16  # input channels from which a kxk weight gradient's per-tap dots beat XLA's
PATCH_MAX_CHANNELS = 1  # input channels up to which a kxk forward (and its weight gradient) runs as patches + one dot
# With the patches built in two stacks (`_patches`: 2 loops where one stack of 25 slices was 25 kernels and a copy),
# LeNet5's second layer (6 -> 16, 5x5, 14x14 -> 10x10) also runs its forward and weight gradient as patches + dots:
# XLA's convolution (252 us of one core), its NHWC transposes and its weight-gradient convolution (200 us) against
# the patches (94-134 us), the forward dot (65-71 us) and the weight-gradient dot (99 us); Kiln's @jit step's kernel
# sum 2,001 -> 1,594-1,678 us (10th-percentile profile, `taskset -c 0`, load 12). Step A/B in one process, two copies
# of each rule, rounds interleaved, pinned to one core (10 rounds of 20 steps, load 10-12): process CPU per step
# 2.52 and 2.50 -> 2.37 and 2.42 ms (0.94x, 0.97x), wall 6.27 and 6.13 -> 5.92 and 5.96 ms (0.95x, 0.97x); against
# one stack of 25 slices and XLA's second layer (before both) 0.91x and 0.93x CPU. Unpinned on two cores, where issue
# 22's line is measured (load 12-15, 40 rounds, two copies of each rule): the two-stack patches alone 0.98x process CPU
# (wall 0.92-1.04x, two copies of one rule up to 1.07x apart), this rule on top of them 0.95-0.97x CPU and 0.95-0.99x
# wall; isolated (bench_conv --layers lenet, load 12) XLA's two-threaded convolution is faster on this layer than the
# patches + dots, so the win is the step's: no NHWC transposes. Measured at stride 1 and LeNet5's sizes only, so
# bounded to them: a stride of 1 and at most PATCH_MAX_ENTRIES patch entries (C x taps x P) per image (a 3-channel
# 3x3 /2 stem, MobileNetV2's, keeps XLA's; a 224-pixel RGB stem would build hundreds of MB of patches).
PATCH_SMALL_MAX_CHANNELS = 6  # input channels up to which a small stride-1 kxk layer runs as patches + dots
PATCH_MAX_ENTRIES = 19_600  # per-image patch entries up to which it does (LeNet5's layers: 25 x 784 and 150 x 100)
# A kxk stride-1 input gradient with 2 to BANDED_MAX_CHANNELS input channels (LeNet5's second layer, 16 -> 6, 5x5,
# 10x10 -> 14x14; XLA's Eigen convolution, no GEMM depth) as one dot with a banded weight (`banded_input_grad`):
# dout's rows (N x oh, C_out x ow) times the weight laid along the padded input's columns, the kh kernel rows' results
# shifted into place and summed (XLA fuses the sum into its consumer, c1's ReLU/pool gradient mask). Isolated, one
# core (batch 32, load 5, session 11): 0.57-0.60 ms against XLA's padded-first convolution's 1.09-1.19 ms. Rejected:
# the columns (C x taps, P) of one dot per image then col2im by 25 zero-padded adds (0.69-0.76 ms alone, but the 25
# adds fused into the mask took it from 0.30 to 1.15 ms: step 1.19x slower), 25 per-tap dots summed (0.82-0.87 ms
# alone), the band along the rows instead (dout used as is, (C x kw x ph, C_out x oh) x (C_out x oh, ow) per image:
# 8-12 ms, the 10-column dot's slow path). In the step, interleaved (`taskset -c 0 python -m benchmarks.bench_conv
# --step --profile`, 5 and 7 rounds, load 5): XLA's convolution.1 1,020-1,078 us -> the dot 301-304 us + the row
# shifts fused into c1's mask (+135 us) + the banded weight's transpose copy (118-126 us) + c2's ReLU/pool mask now
# written in the dot's (N, oh, C_out, ow) row order (121-126 us); kernel sum 3,796 -> 3,488 and 3,909 -> 3,457 us
# (0.92x, 0.88x), step 4.41 -> 4.20 and 4.45 -> 3.90 ms (0.95x, 0.88x). Building the banded weight as kw broadcast
# products (142 us) or contracting dout's (C_out, ow) in place (XLA copies it the same) did not remove a copy.
# Session 13: that col2im in two stages (kw then kh shifted adds, each one loop) still had its second stage fused into
# c1's mask (157 -> 464 us): step 1.11x and 1.16x process CPU, pinned to one core, load 12 (two copies of each rule).
# 16+ channels (ResNet's) stay XLA's (YNNPACK).
# The banded dot does (ow + kw - 1) / kw times the convolution's multiply-adds and its weight grows with ow^2
# (a 3-channel 3x3 stem at 224 columns would build a 350 MB weight), so only narrow outputs take it: measured at
# LeNet5's 10 columns only.
BANDED_MAX_CHANNELS = 15  # input channels up to which a kxk stride-1 input gradient runs as one banded dot
BANDED_MAX_COLUMNS = 16  # output columns up to which it does
# Session 18: one input channel too (1 -> 6 5x5 at 10 and 16 columns, 1 -> 6 3x3 at 16, 1 -> 16 5x5 at 16: 0.06-0.27x
# the time of XLA's convolution, 3 rounds, load 11), and up to BANDED_WIDE_MAX_COLUMNS output columns for kernels at
# least BANDED_WIDE_MIN_KERNEL wide (the dot's extra multiply-adds, (ow + kw - 1) / kw, at most 6.4x there) with at most
# BANDED_WIDE_MAX_ENTRIES banded weight entries. XLA's convolution of a few-channel input gradient at 28 columns has no
# GEMM depth (its output has 1-3 channels): LeNet5's first layer (1 -> 6, 5x5, 28 columns: band 26,880 entries) 2.2-6.2
# -> 0.35-0.99 ms (0.06-0.34x, 7 rounds in 3 runs), 2 -> 6 5x5 0.16-0.24x, 3 -> 6 5x5 0.36-0.55x (batch 32, 2 cores,
# interleaved with XLA's, load 10-11, /tmp probes). Training never computes a first layer's input gradient (its input is
# data: XLA drops it from the step), so this is for layers behind a generator or an input gradient. Slower or mixed,
# hence the bounds: 3x3 kernels at 28-32 columns (8 -> 8 0.64-2.80x, 1 -> 32 0.41-1.56x, 3 -> 16 0.76-0.88x: 10-11x the
# multiply-adds) and 15 -> 64 5x5 at 24 columns, padded (3.2 M entries, 3.1-4.2x).
BANDED_WIDE_MAX_COLUMNS = 28  # output columns up to which a kernel BANDED_WIDE_MIN_KERNEL wide runs as a banded dot
BANDED_WIDE_MIN_KERNEL = 5  # kernel columns from which wider outputs do
BANDED_WIDE_MAX_ENTRIES = 100_000  # banded weight entries (C_out x ow by C x kh x (ow + kw - 1)) up to which they do
# A stride-2 kxk input gradient (ResNet-50's 3x3 / 2 layers) as the gradients of the four stride-1 convolutions of the
# padded input's stride-2 phases with that phase's kernel taps (`phase_input_grad`), interleaved back: the same FLOPs,
# no lhs_dilation, and XLA runs them itself (each full correlation's output is larger than its input, which its
# YNNPACK rule refuses). Kiln's input gradient under this rule against `_dilated_conv`'s lhs-dilated convolution,
# batch 32, two copies of each rule, rounds interleaved in one process (`python -m benchmarks.bench_conv --phases`
# and /tmp probes before it, session 14, 2 cores): 128 channels 56 -> 28 0.64/0.71x the time (load 9), 0.61/0.62x
# (load 6), 0.42/0.51x (load 4.5), 0.74/0.79x (load 5-6), 0.63/0.62x and 0.55/0.53x (--phases, load 7-8). Below
# PHASE_MIN_PIXELS no clear win: 256 28 -> 14 0.66/0.67x (load 9), 0.88/0.94x (load 6) but 1.10/1.12x and 1.11/1.05x
# (--phases, load 7-8); 64 5x5 32 -> 16 0.67-1.16x, 0.94/0.78x, 0.38/0.75x (copies 0.54x apart); 512 14 -> 7 1.16x
# as phases, 1.01/1.03x and 0.94/1.05x under the rule's earlier bound; 32 16 -> 8 1.16x; a 3-channel stem 2.1-2.6x.
PHASE_MIN_CHANNELS = 64  # input channels from which a stride-2 kxk input gradient runs as four phase convolutions
PHASE_MIN_PIXELS = 784  # per-image output pixels from which it does


def uses_phase_input_grad(x, w, outs, stride, dilation, group: int, data_format: str) -> bool:
    """Whether a convolution's input gradient lowers to `phase_input_grad` on this platform.

    Args:
        x: the input (or its abstract value).
        w: the weight (C_out, C_in / group, *kernel).
        outs: the output's spatial sizes.
        stride, dilation: one int per spatial dimension.
        group: the number of channel groups.
        data_format: the input's layout.

    Returns:
        True on the CPU for an ungrouped, undilated float32/float64 NCHW 2-D convolution of stride 2 with a kernel
        larger than 1 on both sides, at least PHASE_MIN_CHANNELS input channels and PHASE_MIN_PIXELS output pixels.
    """
    return (
        _rewritable_on_cpu(x, outs, dilation, group, data_format)
        and tuple(stride) == (2, 2)
        and min(w.shape[2:]) > 1
        and w.shape[1] >= PHASE_MIN_CHANNELS
        and int(np.prod(outs)) >= PHASE_MIN_PIXELS
    )


def uses_patches(w, outs, stride) -> bool:
    """Whether an ungrouped kxk layer's forward and weight gradient run as patches + dots on the CPU.

    Args:
        w: the weight (C_out, C_in, *kernel).
        outs: the output's spatial sizes.
        stride: one int per spatial dimension.

    Returns:
        True for at most PATCH_MAX_CHANNELS input channels, or at most PATCH_SMALL_MAX_CHANNELS at stride 1 with at
        most PATCH_MAX_ENTRIES patch entries per image (see the rule above); `dot_directions` decides the platform.
    """
    channels = w.shape[1]
    if channels <= PATCH_MAX_CHANNELS:
        return True
    entries = channels * int(np.prod(w.shape[2:])) * int(np.prod(outs))
    return channels <= PATCH_SMALL_MAX_CHANNELS and all(s == 1 for s in stride) and entries <= PATCH_MAX_ENTRIES


# XLA's CPU weight gradient of a kxk convolution contracts the batch as its convolution's feature dimension, and below
# 8 images it takes a slow path whatever the size: a 3x3 64 -> 16 layer at 16x16 took 1.1-1.5 ms at batch 1-7 but
# 0.80 ms at batch 8. UNet++'s layers at batch 2 (32x32 and 16x16, 8-64 channels) spent 7 of the step's 30 ms of
# kernels there. Patches + one batched dot (`patch_weight_grad`), interleaved with XLA's (/tmp probe, 7 rounds of 20
# calls, 2 cores, AVX2, session 38), batch 2: 64 -> 16 @16 1,112 -> 360 us, 16 -> 16 @16 462 -> 142 us, 8 -> 8 @32
# 815 -> 204 us, 40 -> 8 @32 2,873 -> 631 us (per-tap dots 1,070 us); batch 1, 3, 4, 6, 7: 0.24-0.84x; batch 8 and
# 32: 1.1-2.1x (XLA's faster path), so the rule stops below 8. At 8x8 and 4x4 outputs XLA's was as fast or faster
# (64 -> 32 @8 195 against 533 us), hence the pixels; the patches (C x taps x P per image) are bounded in size.
SMALL_BATCH_MAX_IMAGES = 7  # images up to which a stride-1 kxk weight gradient runs as patches + one dot
SMALL_BATCH_MIN_PIXELS = 256  # per-image output pixels from which it does
SMALL_BATCH_MAX_ENTRIES = 1 << 21  # per-image patch entries up to which it does


def uses_small_batch_weight_grad(x, w, outs, stride, dilation, group: int, data_format: str) -> bool:
    """Whether a convolution's weight gradient runs as patches + one dot (`patch_weight_grad`) because its batch is
    small (see the rule above).

    Args:
        x: the input (or its abstract value): its batch is the contraction XLA's weight gradient would run short.
        w: the weight (C_out, C_in / group, *kernel).
        outs: the output's spatial sizes.
        stride, dilation: one int per spatial dimension.
        group: the number of channel groups.
        data_format: the input's layout.

    Returns:
        True on the CPU for an ungrouped, undilated float32/float64 NCHW 2-D stride-1 convolution with a kernel
        larger than 1x1, at most SMALL_BATCH_MAX_IMAGES images, at least SMALL_BATCH_MIN_PIXELS output pixels and
        at most SMALL_BATCH_MAX_ENTRIES patch entries per image.
    """
    pixels = int(np.prod(outs))
    return (
        _rewritable_on_cpu(x, outs, dilation, group, data_format)
        and all(s == 1 for s in stride)
        and any(k > 1 for k in w.shape[2:])
        and x.shape[0] <= SMALL_BATCH_MAX_IMAGES
        and pixels >= SMALL_BATCH_MIN_PIXELS
        and w.shape[1] * int(np.prod(w.shape[2:])) * pixels <= SMALL_BATCH_MAX_ENTRIES
    )


def uses_banded_input_grad(w, outs, stride) -> bool:
    """Whether an ungrouped kxk layer's input gradient runs as one banded dot on the CPU (`banded_input_grad`).

    Args:
        w: the weight (C_out, C_in, *kernel).
        outs: the output's spatial sizes.
        stride: one int per spatial dimension.

    Returns:
        True at stride 1 for 1 to BANDED_MAX_CHANNELS input channels and at most BANDED_MAX_COLUMNS output columns,
        or up to BANDED_WIDE_MAX_COLUMNS with a kernel at least BANDED_WIDE_MIN_KERNEL wide and at most
        BANDED_WIDE_MAX_ENTRIES banded weight entries (see the rule above); `dot_directions` decides the platform.
    """
    if not (w.shape[1] <= BANDED_MAX_CHANNELS and all(s == 1 for s in stride)):
        return False
    c_out, c, kh, kw = w.shape
    ow = outs[-1]
    entries = c_out * ow * c * kh * (ow + kw - 1)
    return ow <= BANDED_MAX_COLUMNS or (
        ow <= BANDED_WIDE_MAX_COLUMNS and kw >= BANDED_WIDE_MIN_KERNEL and entries <= BANDED_WIDE_MAX_ENTRIES
    )


def dot_directions(x, w, outs, stride, dilation, group: int, data_format: str) -> frozenset[str]:
    """Which directions of a convolution lower to dots on this platform (see the measured rule above).

    Args:
        x: the input (or its abstract value).
        w: the weight (C_out, C_in / group, *kernel).
        outs: the output's spatial sizes.
        stride, dilation: one int per spatial dimension.
        group: the number of channel groups.
        data_format: the input's layout.

    Returns:
        A subset of {"forward", "input", "weight"}: empty off the CPU, for grouped, dilated, channels-last, 1-D,
        3-D or half-precision convolutions.
    """
    if not _rewritable_on_cpu(x, outs, dilation, group, data_format):
        return frozenset()
    large = int(np.prod(outs)) >= DOT_MIN_PIXELS
    if all(k == 1 for k in w.shape[2:]):
        return frozenset(("forward", "input", "weight") if large else ("weight",))
    directions = {"forward", "weight"} if uses_patches(w, outs, stride) else set()
    if uses_banded_input_grad(w, outs, stride):
        directions.add("input")
    if large and w.shape[1] >= TAP_MIN_CHANNELS and all(s == 1 for s in stride):
        directions.add("weight")
    return frozenset(directions)


def _tap_windows(x, kernel, stride, pads, outs):
    """Each kernel tap's strided window of the zero-padded input (N, C, *outs), taps in row-major order."""
    x = _pad_spatial(x, pads)
    n, c = x.shape[:2]
    for offset in np.ndindex(*kernel):
        limit = [n, c] + [i + s * (o - 1) + 1 for i, s, o in zip(offset, stride, outs, strict=True)]
        yield lax.slice(x, [0, 0, *offset], limit, [1, 1, *stride])


def _strided_windows(x, axis: int, k: int, s: int, o: int):
    """The k windows of `x` along `axis` (offsets 0 to k - 1, o entries at stride s each), stacked as axis 2."""
    return jnp.stack([lax.slice_in_dim(x, i, i + s * (o - 1) + 1, s, axis) for i in range(k)], axis=2)


def _patches(x, kernel, stride, pads, outs):
    """The kernel taps' strided windows of `x` (N, C, H, W) as patches (N, C x taps, P), channel-major, taps in
    row-major order; a 1x1 kernel's one window as is.

    A kxk kernel's patches are two stacks, the kernel columns' windows (N, C, kw, H, ow), then the kernel rows'
    windows of those (N, C, kh, kw, oh, ow): XLA's CPU fusion makes each stack of k slices one loop, but left one
    stack of LeNet5's 25 slices as 25 slice kernels and a copy (see PATCH_MAX_CHANNELS). With one channel and
    row stride 1, each kernel row's windows are one contiguous slice of the flat column windows (`_row_windows`).
    """
    if len(kernel) == 2 and min(kernel) > 1:
        x = _pad_spatial(x, pads)
        (kh, kw), (sh, sw), (oh, ow) = kernel, stride, outs
        columns = _strided_windows(x, 3, kw, sw, ow)  # (N, C, kw, H, ow)
        if x.shape[1] == 1 and sh == 1:
            return _row_windows(columns.reshape(x.shape[0], kw, -1), kh, oh * ow, ow)
        patches = _strided_windows(columns, 3, kh, sh, oh)  # (N, C, kh, kw, oh, ow)
        return patches.reshape(x.shape[0], -1, oh * ow)
    windows = list(_tap_windows(x, kernel, stride, pads, outs))
    patches = windows[0] if len(windows) == 1 else jnp.stack(windows, axis=2)  # (N, C[, taps], *outs)
    return patches.reshape(x.shape[0], -1, int(np.prod(outs)))


def _row_windows(columns, kh: int, pixels: int, ow: int):
    """A one-channel image's patches (N, kh x kw, P) from its flat column windows `columns` (N, kw, H x ow): kernel
    row i's windows are the contiguous pixels [i x ow, i x ow + P) of each, concatenated along the taps.

    XLA's CPU fusion emitters (the optimised tier's) write a concatenate of such slices as one vectorised loop, but
    the same values as a stack of (N, 1, kw, oh, ow) row windows reshaped to (N, taps, P) as an element-by-element
    one: LeNet5's c1 patches 64-86 -> 44 us, the step's kernel sum 1,122-1,291 -> 1,090-1,116 us (pinned to one
    core, load 5-7, session 14). Kiln's @jit step, two copies of each rule, 40 interleaved rounds of 20 steps on two
    cores: process CPU 0.965x and 0.971x against 1.000x and 0.999x (load 5), 0.975x and 0.960x against 1.000x and
    1.017x (load 7); pinned to one core within noise (1.008x and 1.018x against 1.000x and 1.020x).
    `python -m benchmarks.bench_conv --step` compiles with Kiln's PyNative options (the classic emitters, which write
    both forms alike: there the old form took 22-28 us), hence its c1 patches' 22-28 us against the step's 65-99.
    """
    return lax.concatenate([lax.slice_in_dim(columns, i * ow, i * ow + pixels, 1, 2) for i in range(kh)], 1)


def _batched_weight_dot(w2, rows):
    """(C_a, C_b) weight times rows (N, C_b, P) per image: (N, C_a, P), the weight broadcast over the batch."""
    wb = jnp.broadcast_to(w2.astype(rows.dtype), (rows.shape[0], *w2.shape))
    return lax.dot_general(wb, rows, (((2,), (1,)), ((0,), (0,))))


def patch_conv(x, w, stride, pads, outs):
    """An ungrouped channels-first 2-D convolution as one dot per image: the weight (C_out, C x taps) times the
    kernel taps' strided windows stacked into patches (C x taps, P); a 1x1 kernel's one window is used as is.

    Args:
        x: input (N, C, H, W).
        w: weight (C_out, C, *kernel).
        stride: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.
        outs: the output's spatial sizes.

    Returns:
        (N, C_out, *outs), equal to `lax.conv_general_dilated` with the same arguments.
    """
    rows = _patches(x, w.shape[2:], stride, pads, outs)
    return _batched_weight_dot(w.reshape(w.shape[0], -1), rows).reshape(x.shape[0], w.shape[0], *outs)


def pointwise_conv_input_grad(dout, w, stride, pads, sizes):
    """The input gradient of a 1x1 `patch_conv`: the weight's transpose times dout per image, put back at the
    strided positions of the padded input.

    Args:
        dout: the output's cotangent (N, C_out, *outs).
        w: weight (C_out, C, 1, 1).
        stride: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.
        sizes: the input's spatial sizes.

    Returns:
        (N, C, *sizes).
    """
    n, c_out = dout.shape[:2]
    outs = dout.shape[2:]
    grad = _batched_weight_dot(w.reshape(w.shape[:2]).T, dout.reshape(n, c_out, -1)).reshape(n, -1, *outs)
    if any(s > 1 for s in stride) or any(lo or hi for lo, hi in pads):
        padded = [size + lo + hi for size, (lo, hi) in zip(sizes, pads, strict=True)]
        config = [(0, 0, 0), (0, 0, 0)]
        config += [(0, p - s * (o - 1) - 1, s - 1) for p, s, o in zip(padded, stride, outs, strict=True)]
        grad = lax.pad(grad, jnp.zeros((), grad.dtype), config)
        grad = lax.slice(
            grad,
            [0, 0, *(lo for lo, _ in pads)],
            [n, grad.shape[1], *(lo + size for (lo, _), size in zip(pads, sizes, strict=True))],
        )
    return grad


def banded_input_grad(dout, w, pads, sizes):
    """The input gradient of a stride-1 kxk 2-D convolution as one dot with a banded weight: dout's rows
    (N x out rows, C_out x out columns) times the weight laid out along the padded input's columns
    (C_out x out columns, C x kernel rows x padded columns), then the kernel rows' results shifted into place and
    summed; the padding is then sliced off.

    Args:
        dout: the output's cotangent (N, C_out, oh, ow).
        w: weight (C_out, C, kh, kw).
        pads: (lo, hi) per spatial dimension.
        sizes: the input's spatial sizes.

    Returns:
        (N, C, *sizes).
    """
    n, c_out, oh, ow = dout.shape
    c, kh, kw = w.shape[1:]
    width = ow + kw - 1  # the padded input's columns
    band = np.zeros((kw, ow, width))
    for j in range(kw):
        band[j, np.arange(ow), np.arange(ow) + j] = 1  # kernel column j maps output column p to input column p + j
    banded = jnp.einsum("ocij,jpx->opcix", w, jnp.asarray(band, w.dtype)).reshape(c_out * ow, c * kh * width)
    rows = dout.transpose(0, 2, 1, 3).reshape(n * oh, c_out * ow)
    per_row = (rows @ banded).reshape(n, oh, c, kh, width)
    zero = jnp.zeros((), per_row.dtype)
    total = None
    for i in range(kh):  # kernel row i maps output row y to input row y + i
        term = lax.pad(per_row[:, :, :, i], zero, [(0, 0, 0), (i, kh - 1 - i, 0), (0, 0, 0), (0, 0, 0)])
        total = term if total is None else total + term
    (top, _), (left, _) = pads
    return total.transpose(0, 2, 1, 3)[:, :, top : top + sizes[0], left : left + sizes[1]]


def phase_input_grad(dout, w, pads, sizes):
    """The input gradient of a stride-2 2-D convolution from its four stride-2 phases: the padded input's rows and
    columns of parity (i, j) see only the kernel taps of that parity, at stride 1, so each phase's gradient is a
    stride-1 transposed convolution of dout with those taps; the phases are then interleaved and the padding cropped.

    Args:
        dout: the output's cotangent (N, C_out, oh, ow).
        w: weight (C_out, C, kh, kw), kh and kw at least 2.
        pads: (lo, hi) per spatial dimension.
        sizes: the input's spatial sizes.

    Returns:
        (N, C, *sizes).
    """
    oh, ow = dout.shape[2:]
    kh, kw = w.shape[2:]
    ph, pw = oh + (kh + 1) // 2 - 1, ow + (kw + 1) // 2 - 1  # the phases' sizes: every tap's window fits
    dn = ("NCHW", "OIHW", "NCHW")
    rows = []
    for i in (0, 1):
        row = []
        for j in (0, 1):
            taps = jnp.flip(w[:, :, i::2, j::2], (2, 3)).transpose(1, 0, 2, 3)  # (C, C_out, taps of parity i, j)
            th, tw = taps.shape[2:]
            padding = [(th - 1, ph - oh), (tw - 1, pw - ow)]  # a full correlation, zero rows up to the phase size
            row.append(
                lax.conv_general_dilated(
                    dout, taps, (1, 1), padding, dimension_numbers=dn, precision=precision.conv_precision()
                )
            )
        rows.append(jnp.stack(row, axis=-1))  # (N, C, ph, pw, 2)
    padded = jnp.stack(rows, axis=3).reshape(dout.shape[0], w.shape[1], 2 * ph, 2 * pw)  # (N, C, ph, 2, pw, 2)
    # Crop the padding; input rows past the last window (2 x phase size) get no gradient.
    crop = [(-lo, lo + n - 2 * p, 0) for (lo, _), n, p in zip(pads, sizes, (ph, pw), strict=True)]
    return lax.pad(padded, jnp.zeros((), padded.dtype), [(0, 0, 0), (0, 0, 0), *crop])


def patch_weight_grad(x, dout, kernel, stride, pads):
    """The weight gradient of a kxk `patch_conv`: dout (N, C_out, P) times the patches (N, C x taps, P) in one
    batched dot contracting the pixels, summed over the batch.

    Args:
        x: input (N, C, H, W).
        dout: the output's cotangent (N, C_out, *outs).
        kernel, stride: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.

    Returns:
        (C_out, C, *kernel).
    """
    n, c_out = dout.shape[:2]
    patches = _patches(x, kernel, stride, pads, dout.shape[2:])
    rows = dout.reshape(n, c_out, -1).astype(x.dtype)
    # The patches as the dot's left operand, (C x taps, P) x (P, C_out) per image, the small sum transposed after:
    # YNNPACK runs the other order at about twice the time (see PATCH_MAX_CHANNELS).
    per_image = lax.dot_general(patches, rows, (((2,), (2,)), ((0,), (0,))))  # (N, C x taps, C_out)
    return per_image.sum(0).T.reshape(c_out, x.shape[1], *kernel)


def pointwise_weight_grad(x, dout, stride, pads):
    """The weight gradient of a 1x1 convolution as one dot contracting the batch and the pixels together.

    Args:
        x: input (N, C, H, W).
        dout: the output's cotangent (N, C_out, *outs).
        stride: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.

    Returns:
        (C_out, C, 1, 1).
    """
    n, c_out = dout.shape[:2]
    (window,) = _tap_windows(x, (1, 1), stride, pads, dout.shape[2:])
    rows = dout.reshape(n, c_out, -1).astype(x.dtype)
    dw = lax.dot_general(rows, window.reshape(n, x.shape[1], -1), (((0, 2), (0, 2)), ((), ())))
    return dw.reshape(c_out, x.shape[1], 1, 1)


def tap_weight_grad(x, dout, kernel, stride, pads):
    """The weight gradient of an ungrouped channels-first 2-D convolution as one dot per kernel tap.

    Args:
        x: input (N, C, H, W).
        dout: the output's cotangent (N, C_out, *outs).
        kernel, stride: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.

    Returns:
        (C_out, C, *kernel): for each tap, dout times that tap's strided input window, contracted over the
        pixels per image and summed over the batch.

    Used at stride 1 only. Session 14, ResNet-50's 3x3 / 2 (128 channels, 56 -> 28, batch 32, 2 cores): against XLA's
    weight gradient these taps were 0.94x, 1.03x, 1.12-1.18x and 0.86-0.93x the time in four interleaved runs at load
    7-9 (/tmp probes, 7-15 rounds, two copies of one rule up to 1.08x apart), then 1.12-1.16x (12 rounds, copies
    1.11-1.16x apart) and, with bench_conv's own thunks, 1.31-1.37x (16 rounds, order alternated, 29 of 32 round
    ratios above 1) at load 6.4; every three-round bench_conv run had XLA's ahead (1.2-1.3x). So XLA's. Slower:
    one dot per tap contracting batch and pixels (1.04x), per-tap NHWC dots (1.17x), phase-split windows (1.19x),
    patches + one dot (1.43x), XLA's 2x2 weight gradient on the space-to-depth input (2.71x) or its four stride-1
    phase sub-convolutions' (1.37x). Its forward stays XLA's (YNNPACK's strided convolution is 75% of it): per-tap
    dots 1.97x, patches 2.05x, NHWC taps 1.97x, NHWC patches 2.31x, the four phase sub-convolutions 1.37-1.40x,
    space-to-depth (a 2x2 convolution over 4 x 128 channels) 3.3-4.3x.
    """
    n, c_out = dout.shape[:2]
    outs = dout.shape[2:]
    rows = dout.reshape(n, c_out, -1).astype(x.dtype)
    taps = []
    for window in _tap_windows(x, kernel, stride, pads, outs):
        window = window.reshape(n, x.shape[1], -1)
        taps.append(lax.dot_general(rows, window, (((2,), (2,)), ((0,), (0,)))).sum(0))
    return jnp.stack(taps, axis=-1).reshape(c_out, x.shape[1], *kernel)


# ---- Dots on the stored weight on the CPU ---------------------------------------------------------------------------
# A stride-1 kxk layer with a large weight and patches that fit in memory bandwidth's favour (CRNN's and VGG's deep
# layers at a small batch, ResNet-50's 7 x 7 stage) runs all three directions as dots on the weight as stored,
# (C_out, C x taps), against the input's patches laid out (C x taps, N x P). XLA's convolutions want the kernel
# channels-last: each step copied the weight to HWIO for the forward, flipped and copied it again for the input
# gradient, and its weight gradient came out OHWI, read back transposed by the optimizer's update (the zoo's CRNN, batch
# 4 at 32 x 100, spent 5.1 ms of one core on each of two copies of one 512 -> 512 weight and 5.3 ms on each of two
# update loops reading its gradient: `jax.profiler` kernels, session 36). Here only activations move: the padded input
# transposed to channel-major before its taps are stacked, dout to (C_out, N x P) (shared by both gradients), the
# forward's (C_out, N x P) product back to NCHW, and the input gradient's columns added back tap by tap (col2im).
# Kiln's GRAPH_MODE train step of a stack of such layers with ReLU and Momentum, the rule on against Kiln before it
# (which gave 3x3 weight gradients from 196 pixels up to Winograd), two copies of each in one process, 12 rounds
# alternating in order (2 cores, AVX-512, quiet, session 36), by (C -> C_out, batch x H x W: patch entries, weight):
#   - wins: 256 -> 512 + 512 -> 512 at 4 x 4 x 25 (CRNN's) 0.73-0.76x; 512 -> 512 at 4 x 8 x 25 0.68-0.70x, 16 x 7 x 7
#     0.68-0.70x, 32 x 7 x 7 (7.2 M patch entries) 0.66x, 64 x 7 x 7 (14.5 M) 0.96-0.98x; 256 -> 256 at 4 x 8 x 25
#     0.79-0.80x, 8 x 8 x 8 0.72x, 8 x 14 x 14 0.88-0.89x, 16 x 14 x 14 (7.2 M) 0.95-0.96x; 128 -> 256 at 4 x 8 x 25
#     0.74-0.75x; 128 -> 128 at 4 x 28 x 28 0.87-0.88x, 8 x 28 x 28 (7.2 M) 0.91x, 2 x 4 x 4 0.70-0.73x, 2 x 8 x 8
#     0.82-0.83x; 64 -> 128 at 4 x 16 x 50 0.72x, 2 x 2 x 2 0.51-0.53x;
#   - losses, hence the bounds: 256 -> 256 at 32 x 14 x 14 (14.5 M patch entries, 58 MB) 1.67-1.68x; 64 -> 64 (36,864
#     weight entries) at 2 x 8 x 8 1.32-1.41x (0.87-0.91x at 1 x 4 x 4).
STORED_WEIGHT_MIN_ENTRIES = 65_536  # weight entries from which a stride-1 kxk layer runs as dots on its stored weight
STORED_WEIGHT_MAX_PATCHES = 1 << 23  # patch entries (C x taps x N x P) up to which it does


def uses_stored_weight_dots(x, w, outs, stride, dilation, group: int, data_format: str) -> bool:
    """Whether a convolution runs forward and both gradients as dots on its stored weight (the rule above).

    Args:
        x: the input (or its abstract value).
        w: the weight (C_out, C_in / group, *kernel).
        outs: the output's spatial sizes.
        stride, dilation: one int per spatial dimension.
        group: the number of channel groups.
        data_format: the input's layout.

    Returns:
        True on the CPU for an ungrouped, undilated, stride-1 float32/float64 NCHW 2-D convolution with a kernel larger
        than 1 on both sides, at least STORED_WEIGHT_MIN_ENTRIES weight entries and at most STORED_WEIGHT_MAX_PATCHES
        patch entries; False elsewhere (the GPU keeps XLA's convolution).
    """
    if not (
        _rewritable_on_cpu(x, outs, dilation, group, data_format)
        and all(s == 1 for s in stride)
        and min(w.shape[2:]) > 1
    ):
        return False
    patches = int(np.prod(w.shape[1:])) * x.shape[0] * int(np.prod(outs))
    return int(np.prod(w.shape)) >= STORED_WEIGHT_MIN_ENTRIES and patches <= STORED_WEIGHT_MAX_PATCHES


def _channel_major_patches(x, kernel, stride, pads, outs):
    """The kernel taps' strided windows of `x` (N, C, H, W) as (C x taps, N x P): channel-major rows, taps in
    row-major order, the batch's pixels along each row (the dot's canonical right operand, no copy before it)."""
    n, c = x.shape[:2]
    # the taps' windows of the input transposed to (C, N, H, W): the small operand moves, not the weight
    windows = list(_tap_windows(jnp.transpose(x, (1, 0, 2, 3)), kernel, stride, pads, outs))
    return jnp.stack(windows, axis=1).reshape(c * len(windows), n * int(np.prod(outs)))


def _channel_major_rows(dout):
    """dout (N, C_out, *outs) as (C_out, N x P)."""
    n, c_out = dout.shape[:2]
    return jnp.transpose(dout.reshape(n, c_out, -1), (1, 0, 2)).reshape(c_out, -1)


def stored_weight_conv(x, w, stride, pads, outs):
    """A 2-D convolution as one dot of the weight (C_out, C x taps) with the input's patches (C x taps, N x P).

    Args:
        x: input (N, C, H, W).
        w: weight (C_out, C, *kernel).
        stride: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.
        outs: the output's spatial sizes.

    Returns:
        (N, C_out, *outs), equal to `lax.conv_general_dilated` with the same arguments.
    """
    n, c_out = x.shape[0], w.shape[0]
    patches = _channel_major_patches(x, w.shape[2:], stride, pads, outs)
    y = lax.dot_general(w.reshape(c_out, -1).astype(x.dtype), patches, (((1,), (0,)), ((), ())))  # (C_out, N x P)
    return jnp.transpose(y.reshape(c_out, n, -1), (1, 0, 2)).reshape(n, c_out, *outs)


def stored_weight_input_grad(dout, w, stride, pads, sizes):
    """The input gradient of `stored_weight_conv`: the weight's columns times dout, each tap's columns added back at
    its strided window of the input (col2im).

    Args:
        dout: the output's cotangent (N, C_out, *outs).
        w: weight (C_out, C, *kernel).
        stride: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.
        sizes: the input's spatial sizes.

    Returns:
        (N, C, *sizes).
    """
    n, c_out = dout.shape[:2]
    c, kernel, outs = w.shape[1], w.shape[2:], dout.shape[2:]
    rows = _channel_major_rows(dout)  # the same (C_out, N x P) as the weight gradient's: XLA computes it once
    columns = lax.dot_general(w.reshape(c_out, -1).astype(dout.dtype), rows, (((0,), (0,)), ((), ())))
    columns = columns.reshape(c, *kernel, n, *outs)  # (C, kh, kw, N, oh, ow)
    total = None
    for offset in np.ndindex(*kernel):
        # the tap's output pixels land at lo_pad + offset + s * i of the padded input; pad straight to the unpadded one
        config = [(0, 0, 0), (0, 0, 0)]
        for i, s, o, size, (lo, _) in zip(offset, stride, outs, sizes, pads, strict=True):
            start = i - lo
            config.append((start, size - start - s * (o - 1) - 1, s - 1))
        term = lax.pad(columns[(slice(None), *offset)], jnp.zeros((), dout.dtype), config)
        total = term if total is None else total + term
    return jnp.transpose(total, (1, 0, 2, 3))


def stored_weight_weight_grad(x, dout, kernel, stride, pads):
    """The weight gradient of `stored_weight_conv`: dout (C_out, N x P) times the patches (C x taps, N x P),
    contracting the batch's pixels, laid out as the weight is stored.

    Args:
        x: input (N, C, H, W).
        dout: the output's cotangent (N, C_out, *outs).
        kernel, stride: one int per spatial dimension.
        pads: (lo, hi) per spatial dimension.

    Returns:
        (C_out, C, *kernel).
    """
    c_out = dout.shape[1]
    patches = _channel_major_patches(x, kernel, stride, pads, dout.shape[2:])
    rows = _channel_major_rows(dout).astype(x.dtype)
    return lax.dot_general(rows, patches, (((1,), (1,)), ((), ()))).reshape(c_out, x.shape[1], *kernel)


# ---- Winograd F(m x m, 3x3) on the CPU ----------------------------------------------------------------------------
# A 3x3 stride-1 convolution over m x m output tiles: each (m + 2) x (m + 2) input tile and each kernel transformed by
# small constant matrices (B^T d B, G g G^T), one batched dot per tile position ((m + 2)^2 products of (tiles x C) by
# (C x C_out)), and the output transform A^T M A; F(2x2, 3x3) does 16 multiplies per 4 outputs where the direct
# convolution does 36 (2.25x fewer). Its weight gradient is the same algorithm's adjoint: dout's tiles transformed
# by A, one dot contracting the tiles against the input's transformed tiles, then G^T dU G.
# The transformed tiles are (m + 2)^2 / m^2 times the input (4x for F(2x2)): over a whole batch of 32 at 64 x 56 x 56
# they are 100 MB, and this machine writes such a buffer at 1-2 GB/s (a stack of four 27 MB slices took 106-140 ms
# against 10 ms for one 27 MB elementwise op, load 14): the unblocked algorithm took 2.7x XLA's forward time and
# 2.7x the per-tap weight gradient's. So it runs over the batch in chunks (`lax.map` / `lax.scan`) whose transformed
# tiles stay within WINOGRAD_CHUNK_BYTES, in cache. ResNet-50's 3x3 stride-1 layers at batch 32, 2 cores (session 15):
#   - weight gradient, F(2x2) against Kiln's before (per-tap dots at 56x56, XLA's below DOT_MIN_PIXELS), two copies of
#     each rule, 10 rounds alternating in order, load 23-26: 64@56 0.38x and 0.60x the time (copies of the old rule
#     0.96x apart), 128@28 0.22x and 0.29x (1.06x), 256@14 0.63x and 0.69x (0.96x), 512@7 0.80x and 0.96x (copies
#     0.88x apart: within noise, so 7x7 keeps XLA's: WINOGRAD_MIN_PIXELS).
#   - forward and input gradient: no clear win over XLA's (YNNPACK) convolution. Chunked F(2x2) forward against it
#     0.54-1.71x at 64@56 (four probes), 0.86x at 128@28, 1.18x at 256@14, 1.47x at 512@7; input gradient 1.09-1.70x,
#     0.62x, 1.17x, 1.68x (load 14-16); `python -m benchmarks.bench_conv --layers resnet --match 3x3` (load 24) gave
#     81-191% of XLA's GFLOP/s by layer and direction. F(4x4) (36 products per 16 outputs) was faster only in the
#     forward at 28 and 56 in one run (3.7x and 1.7x XLA's GFLOP/s) and 2-3x slower in the others, with 10x F(2x2)'s
#     float32 error (see tests/_prims/nn/test_conv.py's WINOGRAD_F32_BOUND). They stay XLA's; `winograd_conv` and
#     `winograd_input_grad` are kept for bench_conv's candidates.
#   - unchunked (the whole batch at once): forward 2.7x XLA's time, weight gradient 2.7x the per-tap dots' (load 13).
WINOGRAD_CHUNK_BYTES = 4 << 20  # transformed tiles per chunk of the batch
WINOGRAD_MIN_CHANNELS = 64  # input and output channels from which a 3x3 stride-1 weight gradient runs as Winograd
WINOGRAD_MIN_PIXELS = 196  # per-image output pixels from which it does (14x14; 7x7 within noise)
# (B^T, G, A^T) of F(m x m, 3x3), m = 2 and 4 (Lavin and Gray's points 0, +-1, +-2 for m = 4).
WINOGRAD_MATRICES = {
    2: (
        np.array([[1, 0, -1, 0], [0, 1, 1, 0], [0, -1, 1, 0], [0, 1, 0, -1]], np.float64),
        np.array([[1, 0, 0], [0.5, 0.5, 0.5], [0.5, -0.5, 0.5], [0, 0, 1]], np.float64),
        np.array([[1, 1, 1, 0], [0, 1, -1, -1]], np.float64),
    ),
    4: (
        np.array(
            [
                [4, 0, -5, 0, 1, 0],
                [0, -4, -4, 1, 1, 0],
                [0, 4, -4, -1, 1, 0],
                [0, -2, -1, 2, 1, 0],
                [0, 2, -1, -2, 1, 0],
                [0, 4, 0, -5, 0, 1],
            ],
            np.float64,
        ),
        np.array(
            [
                [1 / 4, 0, 0],
                [-1 / 6, -1 / 6, -1 / 6],
                [-1 / 6, 1 / 6, -1 / 6],
                [1 / 24, 1 / 12, 1 / 6],
                [1 / 24, -1 / 12, 1 / 6],
                [0, 0, 1],
            ],
            np.float64,
        ),
        np.array([[1, 1, 1, 1, 1, 0], [0, 1, -1, 2, -2, 0], [0, 1, 1, 4, 4, 0], [0, 1, -1, 8, -8, 1]], np.float64),
    ),
}


def winograd_directions(x, w, outs, stride, dilation, group: int, data_format: str) -> frozenset[str]:
    """Which directions of a convolution lower to Winograd F(2x2, 3x3) on this platform.

    Args:
        x: the input (or its abstract value).
        w: the weight (C_out, C_in / group, *kernel).
        outs: the output's spatial sizes.
        stride, dilation: one int per spatial dimension.
        group: the number of channel groups.
        data_format: the input's layout.

    Returns:
        {"weight"} on the CPU for an ungrouped, undilated, stride-1 float32/float64 NCHW 3x3 convolution with at least
        WINOGRAD_MIN_CHANNELS input and output channels and WINOGRAD_MIN_PIXELS output pixels; empty elsewhere (the
        GPU keeps XLA's convolution).
    """
    if not (
        _rewritable_on_cpu(x, outs, dilation, group, data_format)
        and tuple(w.shape[2:]) == (3, 3)
        and tuple(stride) == (1, 1)
        and min(w.shape[:2]) >= WINOGRAD_MIN_CHANNELS
        and int(np.prod(outs)) >= WINOGRAD_MIN_PIXELS
    ):
        return frozenset()
    return frozenset(("weight",))


def _combine(coefficients, terms):
    """The sum of `terms` scaled by constant `coefficients`, zero terms left out and +-1 as an add or subtract."""
    total = None
    for coefficient, term in zip(coefficients, terms, strict=True):
        if coefficient == 0:
            continue
        if coefficient == -1:
            term = -term
        elif coefficient != 1:
            term = term * float(coefficient)  # a Python float keeps the term's dtype (weak typing)
        total = term if total is None else total + term
    return total


def _winograd_tiles(x, pads, tile: int, grid):
    """The transformed input tiles B^T d B of `x` (n, C, H, W) zero-padded by `pads` and up to the tile grid's
    (tile x rows + 2, tile x columns + 2): ((tile + 2)^2, n x rows x columns, C), channels last for the dot."""
    bt = WINOGRAD_MATRICES[tile][0]
    size = tile + 2
    (rows, columns), (h, w) = grid, x.shape[2:]
    (top, _), (left, _) = pads
    zero = jnp.zeros((), x.dtype)
    x = lax.pad(
        x, zero, [(0, 0, 0), (0, 0, 0), (top, tile * rows + 2 - h - top, 0), (left, tile * columns + 2 - w - left, 0)]
    )
    row_windows = [lax.slice_in_dim(x, i, i + tile * (rows - 1) + 1, tile, 2) for i in range(size)]
    transformed = []
    for k in range(size):  # rows first, then each row combination's column windows
        combined = _combine(bt[k], row_windows)
        column_windows = [lax.slice_in_dim(combined, j, j + tile * (columns - 1) + 1, tile, 3) for j in range(size)]
        transformed += [_combine(bt[q], column_windows) for q in range(size)]
    v = jnp.stack(transformed, 0)  # (size^2, n, C, rows, columns)
    return v.transpose(0, 1, 3, 4, 2).reshape(size * size, -1, x.shape[1])


def _batch_chunk(n: int, tile_bytes: int) -> int:
    """The largest divisor of the batch `n` whose transformed tiles (`tile_bytes` per image) fit
    WINOGRAD_CHUNK_BYTES (1 when none does)."""
    return max(d for d in range(1, n + 1) if n % d == 0 and (d == 1 or d * tile_bytes <= WINOGRAD_CHUNK_BYTES))


def _tile_grid(outs, tile: int) -> tuple[int, int]:
    return -(-outs[0] // tile), -(-outs[1] // tile)


def winograd_conv(x, w, pads, tile: int = 2):
    """A stride-1 3x3 channels-first convolution by Winograd F(tile x tile, 3x3), over the batch in chunks.

    Args:
        x: input (N, C, H, W).
        w: weight (C_out, C, 3, 3).
        pads: (lo, hi) per spatial dimension.
        tile: the output tile's side, 2 or 4.

    Returns:
        (N, C_out, out_h, out_w), equal to `lax.conv_general_dilated` with the same arguments up to rounding.
    """
    _, g, at = WINOGRAD_MATRICES[tile]
    size = tile + 2
    n, c, h, wd = x.shape
    c_out = w.shape[0]
    outs = [s + lo + hi - 2 for s, (lo, hi) in zip((h, wd), pads, strict=True)]
    grid = _tile_grid(outs, tile)
    gm = jnp.asarray(g, w.dtype)
    u = jnp.einsum("kr,ocrs,qs->kqoc", gm, w, gm).reshape(size * size, c_out, c).astype(x.dtype)
    chunk = _batch_chunk(n, size * size * grid[0] * grid[1] * max(c, c_out) * x.dtype.itemsize)

    def one_chunk(xc):
        products = lax.dot_general(_winograd_tiles(xc, pads, tile, grid), u, (((2,), (2,)), ((0,), (0,))))
        products = products.reshape(size, size, chunk, *grid, c_out)
        out_rows = []
        for i in range(tile):
            row = [_combine(at[i], [products[k, q] for k in range(size)]) for q in range(size)]
            out_rows.append(jnp.stack([_combine(at[j], row) for j in range(tile)], -1))  # (chunk, rows, cols, C_out, j)
        y = jnp.stack(out_rows, -2).transpose(0, 3, 1, 4, 2, 5)  # (chunk, C_out, rows, i, cols, j)
        return y.reshape(chunk, c_out, grid[0] * tile, grid[1] * tile)[:, :, : outs[0], : outs[1]]

    return lax.map(one_chunk, x.reshape(n // chunk, chunk, c, h, wd)).reshape(n, c_out, *outs)


def winograd_input_grad(dout, w, pads, sizes, tile: int = 2):
    """The input gradient of a stride-1 3x3 convolution: `winograd_conv` of dout with the flipped, transposed kernel.

    Args:
        dout: the output's cotangent (N, C_out, oh, ow).
        w: weight (C_out, C, 3, 3).
        pads: the forward's (lo, hi) per spatial dimension.
        sizes: the input's spatial sizes.
        tile: the output tile's side, 2 or 4.

    Returns:
        (N, C, *sizes).
    """
    flipped = jnp.flip(w, (2, 3)).transpose(1, 0, 2, 3)
    padding = [(2 - lo, size - o + lo) for (lo, _), size, o in zip(pads, sizes, dout.shape[2:], strict=True)]
    return winograd_conv(dout, flipped, padding, tile)


def winograd_weight_grad(x, dout, pads, tile: int = 2):
    """The weight gradient of a stride-1 3x3 convolution by Winograd's adjoint, summed over the batch in chunks:
    G^T (sum over tiles of (A dY A^T) x (B^T d B)) G, the sum one dot contracting the tiles.

    Args:
        x: input (N, C, H, W).
        dout: the output's cotangent (N, C_out, oh, ow).
        pads: (lo, hi) per spatial dimension.
        tile: the output tile's side, 2 or 4.

    Returns:
        (C_out, C, 3, 3).
    """
    _, g, at = WINOGRAD_MATRICES[tile]
    size = tile + 2
    n, c = x.shape[:2]
    c_out, oh, ow = dout.shape[1:]
    grid = _tile_grid((oh, ow), tile)
    chunk = _batch_chunk(n, size * size * grid[0] * grid[1] * max(c, c_out) * x.dtype.itemsize)
    fill = [(0, 0, 0), (0, 0, 0), (0, grid[0] * tile - oh, 0), (0, grid[1] * tile - ow, 0)]

    def add_chunk(total, chunk_args):
        xc, dc = chunk_args
        dc = lax.pad(dc, jnp.zeros((), dc.dtype), fill).reshape(chunk, c_out, grid[0], tile, grid[1], tile)
        parts = [[dc[:, :, :, i, :, j] for j in range(tile)] for i in range(tile)]
        rows = [[_combine(at[:, k], [parts[i][j] for i in range(tile)]) for j in range(tile)] for k in range(size)]
        dm = jnp.stack([_combine(at[:, q], rows[k]) for k in range(size) for q in range(size)], 0)
        dm = dm.transpose(0, 1, 3, 4, 2).reshape(size * size, -1, c_out)  # (size^2, tiles, C_out)
        v = _winograd_tiles(xc, pads, tile, grid)
        return total + lax.dot_general(dm, v, (((1,), (1,)), ((0,), (0,)))), None  # (size^2, C_out, C)

    split = (n // chunk, chunk)
    total, _ = lax.scan(
        add_chunk,
        jnp.zeros((size * size, c_out, c), x.dtype),
        (x.reshape(*split, *x.shape[1:]), dout.astype(x.dtype).reshape(*split, *dout.shape[1:])),
    )
    gm = jnp.asarray(g, x.dtype)
    return jnp.einsum("kr,kqoc,qs->ocrs", gm, total.reshape(size, size, c_out, c), gm)


def _conv_impl(nd):
    def impl(x, w, b, *, stride, pad_mode, pad, dilation, group, data_format):
        w = _squeeze_1d(w, nd)
        pads, outs = conv_geometry(_spatial(x, data_format), w.shape[2:], stride, dilation, pad_mode, pad)
        if uses_stored_weight_dots(x, w, outs, stride, dilation, group, data_format):
            y = stored_weight_conv(x, w, stride, pads, outs)
        elif "forward" in dot_directions(x, w, outs, stride, dilation, group, data_format):
            y = patch_conv(x, w, stride, pads, outs)
        elif use_shifted_conv(x, w, group, data_format):
            y = shifted_conv(x, w, stride, pads, dilation, group)
        else:
            y = _forward(x, w, stride, pads, dilation, group, data_format)
        return _add_bias(y, b, nd, data_format)

    return impl


def conv_weight_grad(x, dout, w, stride, pads, outs, dilation, group: int, data_format: str):
    """The weight gradient of a convolution of `x` by `w` (only its shape and dtype are read) with output gradient
    `dout`, as the CPU's rules choose for the layer: dots on the stored weight (`uses_stored_weight_dots`), per-tap
    reductions for a shifted (thin grouped) layer, patches, pointwise or per-tap dots (`dot_directions`), Winograd
    (`winograd_directions`), patches for a small batch (`uses_small_batch_weight_grad`); otherwise XLA's (the GPU's
    always).

    Args:
        x: the convolution's input, channels-first or as `data_format` says.
        dout: the gradient of its output.
        w: its weight (C_out, C_in / group, *kernel), the 1-D layer's extra axis squeezed.
        stride, dilation: one int per spatial dimension.
        pads: the padding pairs; outs: the output's spatial sizes (`conv_geometry`).
        group, data_format: as the primitive's attributes.

    Returns:
        The gradient, shaped as `w`.
    """
    kernel = w.shape[2:]
    dots = dot_directions(x, w, outs, stride, dilation, group, data_format)
    if uses_stored_weight_dots(x, w, outs, stride, dilation, group, data_format):
        return stored_weight_weight_grad(x, dout, kernel, stride, pads)
    if use_shifted_conv(x, w, group, data_format):
        return shifted_weight_grad(x, dout, kernel, stride, pads, dilation, group)
    if "weight" in dots and uses_patches(w, outs, stride) and any(k > 1 for k in kernel):
        return patch_weight_grad(x, dout, kernel, stride, pads)
    if "weight" in dots and int(np.prod(outs)) < DOT_MIN_PIXELS and all(k == 1 for k in kernel):
        return pointwise_weight_grad(x, dout, stride, pads)
    if "weight" in winograd_directions(x, w, outs, stride, dilation, group, data_format):
        return winograd_weight_grad(x, dout, pads)
    if uses_small_batch_weight_grad(x, w, outs, stride, dilation, group, data_format):
        return patch_weight_grad(x, dout, kernel, stride, pads)
    if "weight" in dots:
        return tap_weight_grad(x, dout, kernel, stride, pads)
    _, pull = vjp(lambda w_: _forward(x, w_, stride, pads, dilation, group, data_format), w)
    return pull(dout)[0]


def _bias_grad(dout, b, data_format: str):
    if b is None:
        return None
    ch = dout.ndim - 1 if data_format in _CHANNELS_LAST else 1
    return jnp.sum(dout, axis=tuple(i for i in range(dout.ndim) if i != ch)).astype(b.dtype)


def _conv_vjp(nd):
    """Gradients of a convolution on the CPU: dots on the stored weight where `uses_stored_weight_dots` says so,
    shifted sums and per-tap reductions for a shifted (thin grouped) layer, as dots where `dot_directions` says so, a
    stride-2 input gradient as four phase convolutions where `uses_phase_input_grad` says so; otherwise the input
    gradient is a transposed convolution (see `_dilated_conv`); the weight gradient as `conv_weight_grad` chooses."""

    def rule(x, w, b, *, out, dout, stride, pad_mode, pad, dilation, group, data_format):
        w_full, w = w, _squeeze_1d(w, nd)
        sizes = _spatial(x, data_format)
        pads, outs = conv_geometry(sizes, w.shape[2:], stride, dilation, pad_mode, pad)
        dots = dot_directions(x, w, outs, stride, dilation, group, data_format)
        if uses_stored_weight_dots(x, w, outs, stride, dilation, group, data_format):
            dx = stored_weight_input_grad(dout, w.astype(dout.dtype), stride, pads, tuple(sizes))
        elif uses_shifted_input_grad(x, w, group, data_format):
            dx = shifted_input_grad(dout, w, stride, pads, dilation, group, tuple(sizes))
        elif uses_phase_input_grad(x, w, outs, stride, dilation, group, data_format):
            dx = phase_input_grad(dout, w.astype(dout.dtype), pads, tuple(sizes))
        elif "input" in dots and any(k > 1 for k in w.shape[2:]):
            dx = banded_input_grad(dout, w.astype(dout.dtype), pads, tuple(sizes))
        elif "input" in dots:
            dx = pointwise_conv_input_grad(dout, w.astype(dout.dtype), stride, pads, tuple(sizes))
        else:
            dx = _transpose(dout, w, stride, pads, dilation, group, tuple(sizes), data_format)
        dw = conv_weight_grad(x, dout, w, stride, pads, outs, dilation, group, data_format)
        dx = dx.astype(x.dtype)
        dw = dw.reshape(w_full.shape).astype(w_full.dtype)
        return dx, dw, _bias_grad(dout, b, data_format)

    return rule


_CONV_ATTRS = {"stride": (1,), "pad_mode": "valid", "pad": (0, 0), "dilation": (1,), "group": 1, "data_format": "NCHW"}
Conv1D = declare("Conv1D", _conv_impl(1), _check_conv("Conv1D", 1), attrs=_CONV_ATTRS, vjp=_conv_vjp(1))
Conv2D = declare("Conv2D", _conv_impl(2), _check_conv("Conv2D", 2), attrs=_CONV_ATTRS, vjp=_conv_vjp(2))
Conv3D = declare("Conv3D", _conv_impl(3), _check_conv("Conv3D", 3), attrs=_CONV_ATTRS, vjp=_conv_vjp(3))


# ---- transposed convolution ----------------------------------------------------------
def transpose_geometry(sizes, kernel, stride, dilation, pad_mode, pad, output_padding, output_size):
    """(forward padding pairs, output sizes) of a transposed convolution.

    The transpose is the gradient of a forward convolution whose input has the
    output size: that forward convolution's padding decides the result.
    """
    pads, outs = [], []
    for i, (n, k, s, d) in enumerate(zip(sizes, kernel, stride, dilation)):
        ke = d * (k - 1) + 1
        if output_size is not None:
            out = output_size[i]
        elif pad_mode == "same":
            out = n * s
        elif pad_mode == "valid":  # every input step covers `s` outputs, the last window its whole extent
            out = n * s + max(ke - s, 0)
        else:
            out = (n - 1) * s - pad[2 * i] - pad[2 * i + 1] + ke + output_padding[i]
        lo, hi = _axis_pads(pad_mode, pad, i, out, k, s, d)
        pads.append((lo, hi))
        outs.append(out)
    return pads, outs


def _check_transpose(op, nd):
    def check(x, w, b, *, stride, pad_mode, pad, dilation, group, output_padding, output_size, data_format):
        _check_common(op, nd, stride, pad_mode, pad, dilation, group)
        non_negative_ints(op, "output_padding", output_padding)
        require_float(op, "x", x)
        channels, sizes = _layout(op, x, nd, data_format)
        ws = _kernel_shape(op, tuple(shape_of(w)), nd)
        if channels != ws[0] or channels % group:
            raise op_error(
                op,
                f"the channels of 'x' must equal the weight's first dimension and be divisible by group={group}, "
                f"but got 'x' shape {list(shape_of(x))} and 'weight' shape {list(shape_of(w))}.",
            )
        _check_bias(op, b, ws[1] * group, shape_of(w))
        if any(output_padding) and pad_mode != "pad":
            raise op_error(op, f"'output_padding' must be zero unless pad_mode is 'pad', but got {output_padding}.")
        for op_, s, d in zip(output_padding, stride, dilation):
            if op_ >= s and op_ >= d:
                raise op_error(
                    op,
                    f"'output_padding' must be smaller than either stride or dilation, but got "
                    f"output_padding={output_padding}, stride={stride}, dilation={dilation}.",
                )
        _, outs = transpose_geometry(sizes, ws[2:], stride, dilation, pad_mode, pad, output_padding, output_size)
        if any(o <= 0 for o in outs):
            raise op_error(
                op,
                f"the output spatial size {outs} is not positive for input {list(shape_of(x))}, "
                f"weight {list(shape_of(w))}, pad {list(pad)}.",
            )

    return check


EXPLICIT_PAD_MIN = 4  # spatial padding from which the CPU's input gradient pads with lax.pad first (`_dilated_conv`)


def kernel_fits(sizes, kernel, dilation) -> bool:
    """Whether a (dilated) kernel is no larger than the undilated input in every spatial dimension.

    Args:
        sizes: the input's spatial sizes, before any lhs_dilation.
        kernel, dilation: one int per spatial dimension.

    Returns:
        True when d * (k - 1) + 1 <= n everywhere: XLA's CPU simplifier then handles lhs_dilation (see `_dilated_conv`).
    """
    return all(d * (k - 1) + 1 <= n for n, k, d in zip(sizes, kernel, dilation, strict=True))


def _dilated_conv(x, w, lhs_dilation, padding, rhs_dilation, group, data_format):
    """A stride-1 convolution of `x` dilated by `lhs_dilation` (zeros between entries).

    On the CPU, for one group where the (undilated) kernel fits in `x`, the convolution keeps lhs_dilation: written
    out as an interior pad, the convolution also multiplies the zeros (ResNet-50's 3x3 / 2 input gradient at batch 32:
    0.16x and 0.15x the time, two copies of each rule, 8 interleaved rounds, load 7-8, session 13). Grouped
    (depthwise) ones keep the interior pad: MobileNetV2's 3x3 / 2 x96 at 16x16 ran 2.2-2.5x slower with lhs_dilation
    in the same run. Elsewhere the dilation is written out: XLA's CPU simplifier aborts the process on some
    convolutions that combine lhs_dilation with a kernel larger than the input (jax 0.10 / XLA 2026), which jax's own
    transpose rules produce for strided convolutions; the GPU keeps what it was measured with. Either way only the
    summation order differs (session 12's move of tests/zoo/mobilenetv2's state [32] was one ReLU6 input near 0
    changing sign: see that test).
    On the CPU a padding of at least EXPLICIT_PAD_MIN on a side is also written out: XLA's convolution pads inside
    its loop (Eigen), and LeNet5's second layer's input gradient (16 -> 6, 5x5, padding 4) took 1.03-1.10 ms of one
    core padded first against 1.41-1.65 ms (0.58 against 0.67-0.81 ms on two; per-kernel profiles of the train step,
    `python -m benchmarks.bench_conv --step --profile`, session 11, load 10-15).
    """
    nd = len(lhs_dilation)
    cpu = default_platform() == "cpu"
    wide_pad = cpu and any(max(lo, hi) >= EXPLICIT_PAD_MIN for lo, hi in padding)
    strided = any(s > 1 for s in lhs_dilation)
    dilate_in_conv = cpu and group == 1 and kernel_fits(_spatial(x, data_format), w.shape[2:], rhs_dilation)
    if wide_pad or (strided and not dilate_in_conv):
        first = 1 if data_format in _CHANNELS_LAST else 2
        config = [(0, 0, 0)] * x.ndim
        for i, (s, (lo, hi)) in enumerate(zip(lhs_dilation, padding)):
            config[first + i] = (lo, hi, s - 1)
        x = lax.pad(x, jnp.zeros((), x.dtype), config)
        padding = [(0, 0)] * nd
        lhs_dilation = (1,) * nd
    return lax.conv_general_dilated(
        x,
        w.astype(x.dtype),
        (1,) * nd,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        feature_group_count=group,
        dimension_numbers=_specs(nd, data_format),
        precision=precision.conv_precision(),
    )


def _transpose(x, w, stride, pads, dilation, group, outs, data_format):
    """Transposed convolution with weight (C_in, C_out / group, *k), forward padding `pads`, output sizes `outs`."""
    nd = len(stride)
    sizes = _spatial(x, data_format)
    kernel = w.shape[2:]
    # The equivalent forward kernel: (C_out, C_in / group, *k), spatially flipped.
    c_in, c_out_g = w.shape[:2]
    wf = w.reshape((group, c_in // group, c_out_g) + kernel)
    wf = jnp.swapaxes(wf, 1, 2).reshape((group * c_out_g, c_in // group) + kernel)
    wf = jnp.flip(wf, axis=tuple(range(2, 2 + nd)))
    padding = [
        (d * (k - 1) - lo, out - (n - 1) * s - 1 + lo)
        for n, k, s, d, (lo, _), out in zip(sizes, kernel, stride, dilation, pads, outs)
    ]
    return _dilated_conv(x, wf, stride, padding, dilation, group, data_format)


def is_tiling_transpose(sizes, kernel, stride, dilation, pads, outs, group: int) -> bool:
    """Whether a transposed convolution's kernels tile its output without overlap or gaps.

    Args:
        sizes: the input's spatial sizes.
        kernel, stride, dilation: one int per spatial dimension.
        pads: the forward padding pairs (`transpose_geometry`).
        outs: the output's spatial sizes.
        group: the number of channel groups.

    Returns:
        True when kernel == stride, no dilation, no padding and output = input x stride in every dimension, for
        one group: each output pixel is then one input pixel times one kernel tap (UNet's 2x2 / 2 upsampling).
    """
    return group == 1 and all(
        k == s and d == 1 and lo == hi == 0 and out == n * s
        for n, k, s, d, (lo, hi), out in zip(sizes, kernel, stride, dilation, pads, outs)
    )


def tiling_transpose(x, w, data_format):
    """A transposed convolution whose kernels tile the output (`is_tiling_transpose`) as one dot.

    Every input pixel's channels times the (C_in, C_out x kernel) weight give that pixel's block of the output;
    the blocks are then put in place by a transpose and a reshape. On the CPU, XLA runs the dilated convolution
    and its weight gradient (a convolution it cannot hand to its convolution library: a generated loop nest) at
    a fraction of the dot's speed: UNet++'s four up-convolutions, forward and both gradients, 3-5x faster as a
    dot, compiled in the same time (`python -m benchmarks.bench_conv --transpose`). The GPU keeps XLA's.

    Args:
        x: input (N, C_in, *spatial), or (N, *spatial, C_in) channels-last.
        w: weight (C_in, C_out, *kernel).
        data_format: the input's layout.

    Returns:
        (N, C_out, *(spatial x kernel)), or channels-last.
    """
    nd = w.ndim - 2
    last = data_format in _CHANNELS_LAST
    sizes = x.shape[1:-1] if last else x.shape[2:]
    y = jnp.tensordot(x, w.astype(x.dtype), axes=((x.ndim - 1 if last else 1,), (0,)))  # (N, *sp, C_out, *k)
    sp = list(range(1, 1 + nd))
    ks = list(range(2 + nd, 2 + 2 * nd))
    interleaved = [a for pair in zip(sp, ks, strict=True) for a in pair]
    order = [0, *interleaved, 1 + nd] if last else [0, 1 + nd, *interleaved]
    y = jnp.transpose(y, order)
    outs = [n * k for n, k in zip(sizes, w.shape[2:], strict=True)]
    return y.reshape((x.shape[0], *outs, w.shape[1]) if last else (x.shape[0], w.shape[1], *outs))


def _transpose_impl(nd):
    def impl(x, w, b, *, stride, pad_mode, pad, dilation, group, output_padding, output_size, data_format):
        w = _squeeze_1d(w, nd)
        sizes = _spatial(x, data_format)
        pads, outs = transpose_geometry(
            sizes, w.shape[2:], stride, dilation, pad_mode, pad, output_padding, output_size
        )
        if default_platform() == "cpu" and is_tiling_transpose(sizes, w.shape[2:], stride, dilation, pads, outs, group):
            return _add_bias(tiling_transpose(x, w, data_format), b, nd, data_format)
        return _add_bias(_transpose(x, w, stride, pads, dilation, group, outs, data_format), b, nd, data_format)

    return impl


def _transpose_vjp(nd):
    """Gradients of a transposed convolution. On the CPU they are those of the convolution it transposes: the input
    gradient is that convolution of the output gradient, and the weight gradient that convolution's, with the output
    gradient as its input and the transpose's input as its output gradient, each through the CPU's convolution
    rules (`conv_weight_grad`). Autodiff of the input-dilated convolution would give a window-dilated weight
    gradient, which XLA's CPU runs as a generated loop nest: WGAN's three 4x4 / 2 generator layers (batch 8, forward
    and both gradients) took 4.4x the time (7.8-8.2 against 1.7-1.8 ms, `python -m benchmarks.bench_conv
    --transpose`). A transpose that tiles its output (one dot), a convolution of another output size, and the GPU keep
    autodiff's gradients."""
    impl = _transpose_impl(nd)
    convolve = _conv_impl(nd)

    def rule(x, w, b, *, out, dout, stride, pad_mode, pad, dilation, group, output_padding, output_size, data_format):
        attrs = {"stride": stride, "dilation": dilation, "group": group, "data_format": data_format}
        w_full, w = w, _squeeze_1d(w, nd)
        sizes = tuple(_spatial(x, data_format))
        pads, outs = transpose_geometry(
            sizes, w.shape[2:], stride, dilation, pad_mode, pad, output_padding, output_size
        )
        flat_pads = tuple(p for pair in pads for p in pair)
        _, forward_sizes = conv_geometry(outs, w.shape[2:], stride, dilation, "pad", flat_pads)
        if (
            default_platform() != "cpu"
            or is_tiling_transpose(sizes, w.shape[2:], stride, dilation, pads, outs, group)
            or tuple(forward_sizes) != sizes
        ):
            kw = {**attrs, "pad_mode": pad_mode, "pad": pad, "output_padding": output_padding}
            _, pull = vjp(lambda x_, w_: impl(x_, w_, None, **kw, output_size=output_size), x, w_full)
            dx, dw = pull(dout.astype(x.dtype))
        else:
            dx = convolve(dout, w_full.astype(dout.dtype), None, pad_mode="pad", pad=flat_pads, **attrs)
            dw = conv_weight_grad(dout, x, w, stride, pads, sizes, dilation, group, data_format)
        return dx.astype(x.dtype), dw.reshape(w_full.shape).astype(w_full.dtype), _bias_grad(dout, b, data_format)

    return rule


_T_ATTRS = {**_CONV_ATTRS, "output_padding": (0,), "output_size": None}
_T_ATTRS = {
    k: _T_ATTRS[k]
    for k in ("stride", "pad_mode", "pad", "dilation", "group", "output_padding", "output_size", "data_format")
}
Conv1DTranspose = declare(
    "Conv1DTranspose", _transpose_impl(1), _check_transpose("Conv1DTranspose", 1), attrs=_T_ATTRS, vjp=_transpose_vjp(1)
)
Conv2DTranspose = declare(
    "Conv2DTranspose", _transpose_impl(2), _check_transpose("Conv2DTranspose", 2), attrs=_T_ATTRS, vjp=_transpose_vjp(2)
)
Conv3DTranspose = declare(
    "Conv3DTranspose", _transpose_impl(3), _check_transpose("Conv3DTranspose", 3), attrs=_T_ATTRS, vjp=_transpose_vjp(3)
)


def _deformable_offsets(x, offsets, strides, pads, ksize, dilations, deformable_groups, modulated):
    """Sample x (N, C, H, W) at the deformed kernel positions: (N, C, out_h * kh, out_w * kw), element
    (i * kh + a, j * kw + b) read at (i * s_h - pad_top + a * d_h + dy, j * s_w - pad_left + b * d_w + dx)
    bilinearly (zero outside) and scaled by the mask; offsets (N, 3 * groups * kh * kw, out_h, out_w) hold the
    x offsets, then the y offsets, then the masks, each ordered (group, kernel row, kernel column)."""
    n, c, h, w = x.shape
    kh, kw = ksize
    oh, ow = offsets.shape[2:]
    g = deformable_groups
    off = offsets.reshape(n, 3, g, kh, kw, oh, ow)
    dx, dy, mask = off[:, 0], off[:, 1], off[:, 2]  # (N, G, kh, kw, oh, ow)
    base_y = (jnp.arange(oh) * strides[0] - pads[0])[None, None, None, None, :, None] + (jnp.arange(kh) * dilations[0])[
        None, None, :, None, None, None
    ]
    base_x = (jnp.arange(ow) * strides[1] - pads[2])[None, None, None, None, None, :] + (jnp.arange(kw) * dilations[1])[
        None, None, None, :, None, None
    ]
    ys = base_y.astype(x.dtype) + dy
    xs = base_x.astype(x.dtype) + dx
    y0, x0 = jnp.floor(ys), jnp.floor(xs)
    planes = x.reshape(n, g, c // g, h * w)
    out = 0
    for oy in (0, 1):
        for ox in (0, 1):
            yi, xi = y0 + oy, x0 + ox
            weight = (1 - jnp.abs(ys - yi)) * (1 - jnp.abs(xs - xi))
            inside = (yi >= 0) & (yi <= h - 1) & (xi >= 0) & (xi <= w - 1)
            flat = (jnp.clip(yi, 0, h - 1) * w + jnp.clip(xi, 0, w - 1)).astype(jnp.int32)  # (N, G, kh, kw, oh, ow)
            idx = flat.reshape(n, g, 1, -1)
            vals = jnp.take_along_axis(planes, jnp.broadcast_to(idx, (n, g, c // g, idx.shape[-1])), axis=3)
            vals = vals.reshape(n, g, c // g, kh, kw, oh, ow)
            out = out + vals * jnp.where(inside, weight, 0)[:, :, None]
    if modulated:
        out = out * mask[:, :, None]
    out = out.reshape(n, c, kh, kw, oh, ow).transpose(0, 1, 4, 2, 5, 3)  # (N, C, oh, kh, ow, kw)
    return out.reshape(n, c, oh * kh, ow * kw)


def _check_deformable(x, offsets, strides, pads, ksize, dilations, deformable_groups, modulated):
    op = "DeformableOffsets"
    if len(x.shape) != 4 or len(offsets.shape) != 4:
        raise op_error(op, f"'x' and 'offsets' must be 4-D, but got {tuple(x.shape)} and {tuple(offsets.shape)}.")
    n, c, h, w = x.shape
    kh, kw = ksize
    if c % deformable_groups:
        raise op_error(op, f"the channels {c} must be divisible by 'deformable_groups' {deformable_groups}.")
    oh = (h + pads[0] + pads[1] - (kh - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (w + pads[2] + pads[3] - (kw - 1) * dilations[1] - 1) // strides[1] + 1
    want = (n, 3 * deformable_groups * kh * kw, oh, ow)
    if tuple(offsets.shape) != want:
        raise op_error(op, f"'offsets' must have shape {want}, but got {tuple(offsets.shape)}.")


DeformableOffsets = PrimitiveDef(
    "DeformableOffsets",
    _deformable_offsets,
    attrs={
        "strides": (1, 1),
        "pads": (0, 0, 0, 0),
        "ksize": (1, 1),
        "dilations": (1, 1),
        "deformable_groups": 1,
        "modulated": True,
    },  # fmt: skip
    check=_check_deformable,
)
