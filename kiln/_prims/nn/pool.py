"""Pooling: max / average pooling over 1-3 spatial dims, with indices, adaptive and
fractional pooling, and max unpooling.

Inputs are (N, C, *spatial) or unbatched (C, *spatial); the number of spatial
dims is the length of `kernel_size` (or of `output_size` for adaptive pools).
Window geometry follows MindSpore / PyTorch: 'same' pads to ceil(L / stride)
outputs, 'pad' uses explicit padding, `ceil_mode` adds a last partial window
only when it starts inside the input or the left padding.
"""

from __future__ import annotations

import numpy as np

from kiln._backend import default_platform, jax, jnp, lax, vjp
from kiln._core.primitive import PrimitiveDef
from kiln._prims._division import true_divide
from kiln._prims._low_precision import HALF_DTYPES, rounds_once_from_float32
from kiln._prims.nn._common import (
    declare,
    dtype_of,
    non_negative_ints,
    one_of,
    op_error,
    positive_ints,
    require_float,
    shape_of,
)
from kiln._prims.nn.conv import same_pads
from kiln._prims.reduction import first_extreme

POOL_MODES = ("same", "valid", "pad")


def pool_dim(n: int, k: int, s: int, d: int, mode: str, lo: int, hi: int, ceil: bool) -> tuple[int, int, int, int]:
    """(output size, left pad, right pad actually needed, explicit right pad) along one dim."""
    ke = d * (k - 1) + 1
    if mode == "same":
        lo, hi = same_pads(n, k, s, d)
        return -(-n // s), lo, hi, hi
    if mode == "valid":
        lo = hi = 0
    span = n + lo + hi - ke
    if ceil:
        out = -(-span // s) + 1
        if (out - 1) * s >= n + lo:  # the last window would start in the right padding
            out -= 1
    else:
        out = span // s + 1
    return out, lo, max((out - 1) * s + ke - n - lo, 0), hi


def pool_geometry(sizes, kernel, strides, dilation, mode, pad, ceil):
    return [
        pool_dim(n, k, s, d, mode, pad[2 * i], pad[2 * i + 1], ceil)
        for i, (n, k, s, d) in enumerate(zip(sizes, kernel, strides, dilation))
    ]


def _check_pool_rank(op: str, x, nd: int) -> tuple:
    """Check that `x` is a pooling input with `nd` spatial dims, batched or not; its shape."""
    xs = shape_of(x)
    if len(xs) not in (nd + 1, nd + 2):
        raise op_error(
            op,
            f"the input must be {nd + 1}-D or {nd + 2}-D (batch, channels and {nd} spatial "
            f"dims), but got shape {list(xs)}.",
        )
    return xs


def _check_pool(op):
    def check(x, *, kernel_size, strides, pad_mode, pad, ceil_mode, dilation=None, **_):
        nd = len(kernel_size)
        dilation = dilation or (1,) * nd
        positive_ints(op, "kernel_size", kernel_size)
        positive_ints(op, "strides", strides)
        positive_ints(op, "dilation", dilation)
        one_of(op, "pad_mode", pad_mode, POOL_MODES)
        non_negative_ints(op, "pad", pad)
        if pad_mode != "pad" and any(pad):
            raise op_error(op, f"'pad' must be all zero unless pad_mode is 'pad', but got {pad}.")
        xs = _check_pool_rank(op, x, nd)
        for i, (k, d) in enumerate(zip(kernel_size, dilation)):
            if max(pad[2 * i], pad[2 * i + 1]) > (d * (k - 1) + 1) // 2:
                raise op_error(
                    op, f"the padding {pad} must be at most half of the (dilated) kernel size {kernel_size}."
                )
        geo = pool_geometry(xs[-nd:], kernel_size, strides, dilation, pad_mode, pad, ceil_mode)
        if any(g[0] <= 0 for g in geo):
            raise op_error(
                op,
                f"the output spatial size {[g[0] for g in geo]} is not positive: input shape {list(xs)}, "
                f"kernel_size {kernel_size}, strides {strides}, pad_mode {pad_mode!r}, pad {pad}.",
            )

    return check


def _window(x, nd, kernel, strides, dilation, pads):
    lead = x.ndim - nd
    return dict(
        window_dimensions=(1,) * lead + tuple(kernel),
        window_strides=(1,) * lead + tuple(strides),
        padding=((0, 0),) * lead + tuple(pads),
        window_dilation=(1,) * lead + tuple(dilation),
    )


def _lowest(dt):
    return -jnp.inf if jnp.issubdtype(dt, jnp.inexact) else jnp.iinfo(dt).min


# ---- pooling over windows that tile the input ---------------------------------------------------
# When the windows neither overlap nor reach into padding (stride == kernel, no dilation: LeNet5's and most
# CNNs' 2x2 stride-2 pools), a max pool is the maximum of the kernel taps' strided slices (an average pool a
# reshape of the input into (..., out, k, ...) blocks and a sum over the k axes), and the max's gradient an
# elementwise mask over the blocks instead of XLA's select-and-scatter, which the CPU backend runs slowly: the
# LeNet5 train step took 0.69x the time with it (`python -m benchmarks.bench_conv --step`). Both rewrites here
# are the CPU's; other platforms keep reduce_window and its derivative.
def tiled_outputs(geo, kernel, strides, dilation) -> tuple[int, ...] | None:
    """On the CPU, the output sizes when every window is a disjoint block of the input; None on other platforms
    and when windows overlap, skip input, are dilated or read padding (a remainder no window reads is allowed)."""
    if default_platform() != "cpu":
        return None
    for g, k, s, d in zip(geo, kernel, strides, dilation):
        if s != k or d != 1 or g[1] or g[2]:
            return None
    return tuple(g[0] for g in geo)


def _blocks(x, kernel, outs):
    """x's trailing spatial dims cropped to the tiled part and split into (..., out_0, k_0, out_1, k_1, ...)."""
    nd = len(kernel)
    lead = x.shape[:-nd]
    covered = tuple(o * k for o, k in zip(outs, kernel))
    if covered != x.shape[-nd:]:
        x = lax.slice(x, (0,) * x.ndim, lead + covered)
    return x.reshape(lead + tuple(v for ok in zip(outs, kernel) for v in ok))


def _window_axes(x_ndim: int, nd: int) -> tuple[int, ...]:
    first = x_ndim - nd
    return tuple(first + 2 * i + 1 for i in range(nd))


def materialized(a):
    """`a` as is (bit for bit, NaNs and signed zeros included), but computed once into memory by XLA's CPU fusion
    (booleans and complex values as they are).

    XLA fuses a cheap producer into each consumer, and computes it again for every element the consumer reads it at
    (an optimization barrier does not stop it: the CPU removes barriers before fusion). The tiled pools' gradient
    reads each window's `dout` once per window entry: LeNet5's c1 ReLU/pool gradient mask recomputed c2's banded
    input gradient's five shifted row sums four times per pooled entry. A reduction is never duplicated into a
    consumer that reuses its elements, so `a` goes through one that changes nothing: the maximum of its bits (as
    integers of its width) and the lowest integer, which YNNPACK (floats only) leaves to XLA's own loop. In the
    step (`python -m benchmarks.bench_conv --step --profile`, one core, load 7-9) the mask 148-150 -> 66-67 us plus
    17 us for the reduction that now holds the row sums; kernel sum 1,269 -> 1,130 us; process CPU per step
    0.93-0.96x (two copies of each rule, 30 interleaved rounds, one core, load 9). Kiln's own @jit step, two copies
    of each rule, 30 interleaved rounds of 20 steps (load 7-8, session 14): median process CPU 2.08 and 2.09 -> 2.04
    and 1.98 ms on two cores, 1.59 and 1.65 -> 1.52 and 1.57 ms pinned to one.
    """
    if a.dtype == jnp.bool_ or jnp.issubdtype(a.dtype, jnp.complexfloating):
        return a
    return _materialized(a)


# The identity's derivative, declared: through the bit cast the backend's own derivative is zero, which made forward
# mode (ops.jvp) through a tiled MaxPool 0 and dropped the second-order term through its gradient's dout.
@jax.custom_jvp
def _materialized(a):
    bits_type = jnp.dtype(f"int{8 * a.dtype.itemsize}")
    bits = lax.bitcast_convert_type(a, bits_type)
    lowest = jnp.full_like(bits, jnp.iinfo(bits_type).min)
    return lax.bitcast_convert_type(jnp.max(jnp.stack([bits, lowest]), axis=0), a.dtype)


@_materialized.defjvp
def _materialized_jvp(primals, tangents):
    return _materialized(primals[0]), tangents[0]


def tiled_max_pool(x, kernel, outs):
    """Max pooling over disjoint blocks: `x` (..., *spatial) -> (..., *outs).

    The elementwise maximum of the kernel taps' strided slices, computed once into memory (`materialized`): one
    loop that reads the ReLU's input where one comes before it. As one reduction over the blocks (YNNPACK's on the
    CPU), the ReLU before it was a loop of its own (LeNet5's c1: 35 us, then the reduction 80 us, one core); as the
    taps' maximum left to XLA's fusion it was recomputed inside the gradient's first-maximum reduction (c1: 44 ->
    156 us, step 1.04-1.05x process CPU; with an optimization barrier 1.04x, which the CPU removes before fusion;
    session 13). Through `materialized` c1's pool is one 71 us loop and c2's 24 us (against 12 + 35 us), kernel sum
    1,280 -> 1,159 us (bench_conv-style step, one core, load 7, session 14); Kiln's @jit step's median process CPU
    0.94x (two copies of each rule, 30 interleaved rounds of 20 steps, one core, load 7-8).
    """
    nd = len(kernel)
    _, taps = _padded_taps(x, kernel, kernel, [(0, 0)] * nd, outs)
    result = None
    for tap in taps():
        result = tap if result is None else jnp.maximum(result, tap)
    return materialized(result) if int(np.prod(kernel)) > 1 else result


def tiled_max_pool_grad(x, out, dout, kernel, outs):
    """The gradient of `tiled_max_pool`: all of a window's `dout` at its first maximum in row-major window order,
    as XLA's select-and-scatter gives it (ties, e.g. the zeros after a ReLU, get one share, not each), zero
    elsewhere; (..., *spatial) like `x`.

    Each window's first-maximum tap is found by one min-reduction over its taps' codes (an int32 array the size
    of the output), and the gradient is one select of each input entry's tap code against it over the blocks'
    (..., out_0, k_0, out_1, k_1, ...) view. Stacking the taps' shares and transposing them into place instead
    (as the overlapping windows' gradient once did) made XLA compute the whole tie chain and the
    stack's index arithmetic for every input entry inside its consumer, LeNet5's c1 ReLU/pool gradient mask:
    that kernel 447-499 -> 263-310 us plus 110-124 us for the reduction; the train step 0.96-0.98x in 21- and
    11-round interleaved runs, 0.86x and 0.99x in two 9-round ones (`taskset -c 0 python -m benchmarks.bench_conv
    --step --profile`, one core, load 9-10, session 12). Computing the first tap elementwise from the taps'
    strided slices instead was fused back into the mask and recomputed per entry (step 1.10-1.16x the shares');
    int8 codes were slower (1.34x).

    Args:
        x: the pool's input (..., *spatial).
        out: its output (..., *outs).
        dout: the output's cotangent (..., *outs).
        kernel: the window (= stride) per spatial dimension.
        outs: the output's spatial sizes.

    Returns:
        The input's cotangent, shaped like `x` (zero in a remainder no window reads).
    """
    nd = len(kernel)
    lead = x.shape[:-nd]
    blocks = _blocks(x, kernel, outs)  # (*lead, out_0, k_0, out_1, k_1, ...)
    per_window = lead + tuple(v for o in outs for v in (o, 1))
    taps = int(np.prod(kernel))
    if taps > 1:
        dout = materialized(dout)
    code = np.arange(taps, dtype=np.int32).reshape((1,) * len(lead) + tuple(v for k in kernel for v in (1, k)))
    hit = blocks == out.reshape(per_window)
    first = jnp.min(jnp.where(hit, code, np.int32(taps)), axis=_window_axes(blocks.ndim - nd, nd), keepdims=True)
    grad = jnp.where(code == first, dout.reshape(per_window), jnp.zeros((), dout.dtype))
    covered = tuple(o * k for o, k in zip(outs, kernel))
    grad = grad.reshape(lead + covered)
    if covered != x.shape[-nd:]:
        grad = lax.pad(
            grad,
            jnp.zeros((), grad.dtype),
            [(0, 0, 0)] * len(lead) + [(0, n - c, 0) for n, c in zip(x.shape[-nd:], covered)],
        )
    return grad


# ---- overlapping or padded windows as strided slices ---------------------------------------------
# Windows that overlap or read padding (ResNet's 3x3 stride-2 pad-1 pool) cannot be reshaped into blocks, but
# each window tap is one strided slice of the padded input: the max is an elementwise max of k_0 * k_1 ...
# slices, and its gradient places each tap's first-maximum share back with an interior-padded `pad`, summed
# in one fused loop. ResNet-50's stem pool (8x64x112x112, 3x3/2, pad 1) forward + gradient took 0.75-0.88x the
# time of reduce_window + select-and-scatter, LeNet5's tiled pools 0.17-0.36x (`python -m benchmarks.bench_conv
# --pool`).
def _padded_taps(x, kernel, strides, pads, outs):
    """x padded with its lowest value, and a generator of its window taps (each of the outputs' shape)."""
    nd = len(kernel)
    n_lead = x.ndim - nd
    if any(lo or hi for lo, hi in pads):
        x = lax.pad(x, np.array(_lowest(x.dtype), x.dtype), [(0, 0, 0)] * n_lead + [(lo, hi, 0) for lo, hi in pads])
    step = (1,) * n_lead + tuple(strides)

    def taps():
        for offset in np.ndindex(*kernel):
            start = (0,) * n_lead + offset
            limit = x.shape[:n_lead] + tuple(i + s * (o - 1) + 1 for i, s, o in zip(offset, strides, outs))
            yield lax.slice(x, start, limit, step)

    return x, taps


def windowed_max_pool(x, kernel, strides, pads, outs):
    """Max pooling without dilation as the elementwise max of the window taps: (..., *spatial) -> (..., *outs).

    The maximum is computed once into memory (`materialized`): left to XLA's fusion, its chain of k_0 * k_1 ...
    slices and maxima was emitted again in every consumer, and a pool's consumers after a Downsample are many (the
    BatchNorm statistics and gradient reductions of the next stage): BiMLP's 2/3/5/7 'same' pools' 80 maxima were
    copied into 70 fusions of its train step.
    """
    _, taps = _padded_taps(x, kernel, strides, pads, outs)
    result = None
    for tap in taps():
        result = tap if result is None else jnp.maximum(result, tap)
    return materialized(result) if int(np.prod(kernel)) > 1 else result


def windowed_max_pool_grad(x, out, dout, kernel, strides, pads, outs):
    """The gradient of `windowed_max_pool`: all of a window's `dout` at its first maximum in row-major window order,
    as XLA's select-and-scatter gives it (ties get one share, not each); (..., *spatial) like `x`.

    Each window's first-maximum tap is one minimum over the taps' codes (an int32 array of out's shape) and each
    tap's share a select of `dout` against it, placed back with an interior-padded `pad`. The code and `dout` are
    computed once into memory (`materialized`): each share is its own XLA fusion, and a cheap producer is fused
    into every one of them, so a tie chain across the taps (`hit & ~taken`, one per tap) and the recomputed
    maximum were emitted again per tap, quadratic in the window: a 7x7 'same' pool's gradient compiled to 1,680
    `maximum` instructions and BiMLP's Downsample (2x2 + 3x3 + 5x5 + 7x7 pools after a BatchNorm) to 87 fusions
    of ~900 instructions each, most of the train step's 53-63 s quick-tier XLA compile.
    """
    nd = len(kernel)
    n_lead = x.ndim - nd
    padded, taps = _padded_taps(x, kernel, strides, pads, outs)
    n_taps = int(np.prod(kernel))
    first = None
    for i, tap in enumerate(taps()):
        code = jnp.where(tap == out, np.int32(i), np.int32(n_taps))
        first = code if first is None else jnp.minimum(first, code)
    if n_taps > 1:
        first, dout = materialized(first), materialized(dout)
    zero = jnp.zeros((), dout.dtype)
    grad = None
    for i, offset in enumerate(np.ndindex(*kernel)):
        share = jnp.where(first == i, dout, zero)
        config = [(0, 0, 0)] * n_lead + [
            (at, size - at - s * (o - 1) - 1, s - 1)
            for at, size, s, o in zip(offset, padded.shape[n_lead:], strides, outs)
        ]
        placed = lax.pad(share, zero, config)
        grad = placed if grad is None else grad + placed
    if any(lo or hi for lo, hi in pads):
        start = (0,) * n_lead + tuple(lo for lo, _ in pads)
        grad = lax.slice(grad, start, tuple(b + n for b, n in zip(start, x.shape)))
    return grad


def _max_pool(x, *, kernel_size, strides, pad_mode, pad, dilation, ceil_mode):
    nd = len(kernel_size)
    geo = pool_geometry(x.shape[-nd:], kernel_size, strides, dilation, pad_mode, pad, ceil_mode)
    tiled = tiled_outputs(geo, kernel_size, strides, dilation)
    if tiled is not None:
        return tiled_max_pool(x, kernel_size, tiled)
    if any(d > 1 for d in dilation):  # the backend cannot differentiate a dilated max window: gather it instead
        vals, _ = gather_windows(x, window_positions(geo, kernel_size, strides, dilation))
        return first_extreme(vals, -1)[0]  # MindSpore's gradient: all at the first maximum
    if default_platform() == "cpu":
        return windowed_max_pool(x, kernel_size, strides, [(g[1], g[2]) for g in geo], [g[0] for g in geo])
    # A concrete NumPy init value lets the backend recognise max pooling (and differentiate it).
    init = np.array(_lowest(x.dtype), x.dtype)
    w = _window(x, nd, kernel_size, strides, dilation, [(g[1], g[2]) for g in geo])
    return lax.reduce_window(x, init, lax.max, **w)


def _max_pool_vjp(x, *, out, dout, **attrs):
    """MaxPool's gradient: first-maximum shares for undilated windows, the backend's derivative otherwise."""
    nd = len(attrs["kernel_size"])
    kernel, strides, dilation = attrs["kernel_size"], attrs["strides"], attrs["dilation"]
    geo = pool_geometry(x.shape[-nd:], kernel, strides, dilation, attrs["pad_mode"], attrs["pad"], attrs["ceil_mode"])
    tiled = tiled_outputs(geo, kernel, strides, dilation)
    # The first-maximum test compares x with the maximum bit for bit: compiled, XLA may recompute x's fused producer
    # (a BatchNorm) in each consumer with its own rounding, so the maximum is found again from one copy of x.
    if tiled is not None:
        x = materialized(x)
        return (tiled_max_pool_grad(x, tiled_max_pool(x, kernel, tiled), dout, kernel, tiled),)
    if all(d == 1 for d in dilation) and default_platform() == "cpu":
        pads, outs = [(g[1], g[2]) for g in geo], [g[0] for g in geo]
        x = materialized(x)
        out = windowed_max_pool(x, kernel, strides, pads, outs)
        return (windowed_max_pool_grad(x, out, dout, kernel, strides, pads, outs),)
    _, pull = vjp(lambda t: _max_pool(t, **attrs), x)
    return pull(dout)


def _counts(n, k, s, lo, hi_explicit, out, include_pad):
    """How many positions of each window count towards the average along one dim."""
    start = np.arange(out) * s - lo
    end = start + k
    if include_pad:
        return np.minimum(end, n + hi_explicit) - start
    return np.minimum(end, n) - np.maximum(start, 0)


def _avg_pool(x, *, kernel_size, strides, pad_mode, pad, ceil_mode, count_include_pad, divisor_override):
    # A float16/bfloat16 window sums in float32 and its mean is rounded once, as MindSpore's CPU kernels give it (exact
    # to the rounding, both modes); a float16 running sum and a float16 quotient put 20-55% of the outputs and of the
    # gradients one or two ulps off.
    half = x.dtype in HALF_DTYPES
    out = _window_means(x.astype(jnp.float32) if half else x, kernel_size, strides, pad_mode, pad, ceil_mode,
                        count_include_pad, divisor_override, exact=half)  # fmt: skip
    return out.astype(x.dtype)


def _window_means(x, kernel_size, strides, pad_mode, pad, ceil_mode, count_include_pad, divisor_override, *, exact):
    """The windows' sums of `x` divided by their counts (`exact`: a division rounded once, for a half-precision
    result; otherwise XLA's product by the reciprocal, within one ulp)."""
    nd = len(kernel_size)
    dilation = (1,) * nd
    geo = pool_geometry(x.shape[-nd:], kernel_size, strides, dilation, pad_mode, pad, ceil_mode)
    tiled = tiled_outputs(geo, kernel_size, strides, dilation)
    if tiled is not None:
        total = jnp.sum(_blocks(x, kernel_size, tiled), axis=_window_axes(x.ndim, nd))
    else:
        w = _window(x, nd, kernel_size, strides, dilation, [(g[1], g[2]) for g in geo])
        total = lax.reduce_window(x, np.array(0, x.dtype), lax.add, **w)
    if divisor_override:
        return true_divide(total, jnp.array(divisor_override, x.dtype), exact=exact)
    # 'same' and explicit padding count when count_include_pad (MindSpore's AvgPool3D); its 2-D AvgPool never
    # counts 'same' padding: the faces that stand for it pass count_include_pad False.
    include = count_include_pad and pad_mode != "valid"
    divisor = np.ones((), np.float64)
    for (out, lo, _, hi), n, k, s in zip(geo, x.shape[-nd:], kernel_size, strides):
        divisor = np.multiply.outer(divisor, _counts(n, k, s, lo, hi, out, include))
    return true_divide(total, jnp.asarray(divisor, x.dtype), exact=exact)


_POOL_ATTRS = {"kernel_size": (1, 1), "strides": (1, 1), "pad_mode": "valid", "pad": (0, 0, 0, 0)}
_MAX_ATTRS = {**_POOL_ATTRS, "dilation": (1, 1), "ceil_mode": False}
_AVG_ATTRS = {**_POOL_ATTRS, "ceil_mode": False, "count_include_pad": True, "divisor_override": 0}


def _check_avg(op):
    base = _check_pool(op)

    def check(x, **attrs):
        base(x, **attrs)
        require_float(op, "x", x)
        if attrs["divisor_override"] < 0:
            raise op_error(op, f"'divisor_override' must be non-negative, but got {attrs['divisor_override']}.")

    return check


MaxPool = declare("MaxPool", _max_pool, _check_pool("MaxPool"), attrs=_MAX_ATTRS, vjp=_max_pool_vjp)
MaxPool3D = declare("MaxPool3D", _max_pool, _check_pool("MaxPool3D"), attrs=_MAX_ATTRS, vjp=_max_pool_vjp)
AvgPool = declare("AvgPool", _avg_pool, _check_avg("AvgPool"), attrs=_AVG_ATTRS)
AvgPool3D = declare("AvgPool3D", _avg_pool, _check_avg("AvgPool3D"), attrs=_AVG_ATTRS)


# ---- max pooling with indices ----------------------------------------------------------
def window_positions(geo, kernel, strides, dilation) -> list[np.ndarray]:
    """Per dim, the (out, k) input positions each window reads (may fall in the padding)."""
    return [
        (np.arange(g[0]) * s - g[1])[:, None] + np.arange(k)[None, :] * d
        for g, k, s, d in zip(geo, kernel, strides, dilation)
    ]


def gather_windows(x, positions):
    """Windows of x's trailing spatial dims as (..., *out, K), with the flat input index of each entry.

    `positions[i]` is an (out_i, k_i) array of input positions along dim i; positions
    outside the input read the lowest value, so they never win a max.
    """
    nd = len(positions)
    sizes = x.shape[-nd:]
    full = tuple(p.shape[0] for p in positions) + tuple(p.shape[1] for p in positions)
    grids = []
    for i, p in enumerate(positions):
        shape = [1] * (2 * nd)
        shape[i], shape[nd + i] = p.shape
        grids.append(np.broadcast_to(p.reshape(shape), full))
    valid = np.logical_and.reduce([(g >= 0) & (g < n) for g, n in zip(grids, sizes)])
    flat = np.zeros(full, np.int64)
    for g, n in zip(grids, sizes):
        flat = flat * n + np.clip(g, 0, n - 1)
    out_shape = full[:nd]
    flat = flat.reshape(out_shape + (-1,))
    valid = valid.reshape(out_shape + (-1,))
    xf = x.reshape(x.shape[:-nd] + (-1,))
    vals = jnp.take(xf, jnp.asarray(flat.reshape(-1)), axis=-1).reshape(x.shape[:-nd] + flat.shape)
    if not valid.all():
        vals = jnp.where(jnp.asarray(valid), vals, jnp.array(_lowest(x.dtype), x.dtype))
    return vals, flat


def max_with_index(vals, flat):
    """Max over the last axis at its first maximum (`first_extreme`: the gradient goes to that one entry, as
    MindSpore 2.10's dilated, adaptive and with-argmax max pools give it) and the flat input index there (int64)."""
    best, arg = first_extreme(vals, -1)
    table = jnp.broadcast_to(jnp.asarray(flat), arg.shape + flat.shape[-1:])
    index = jnp.take_along_axis(table, arg[..., None], axis=-1)[..., 0]
    return best, index.astype(jnp.int64)


def _max_pool_argmax(x, *, kernel_size, strides, pad_mode, pad, dilation, ceil_mode):
    nd = len(kernel_size)
    geo = pool_geometry(x.shape[-nd:], kernel_size, strides, dilation, pad_mode, pad, ceil_mode)
    vals, flat = gather_windows(x, window_positions(geo, kernel_size, strides, dilation))
    return max_with_index(vals, flat)


MaxPoolWithArgmax = declare(
    "MaxPoolWithArgmax", _max_pool_argmax, _check_pool("MaxPoolWithArgmax"), attrs=_MAX_ATTRS, multiple_results=True
)


# ---- adaptive pooling ---------------------------------------------------------------------
def adaptive_bins(n: int, out: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch/MindSpore bins: [floor(i * n / out), ceil((i + 1) * n / out))."""
    i = np.arange(out)
    return (i * n) // out, -((-(i + 1) * n) // out)


def _adaptive_positions(n, out):
    start, end = adaptive_bins(n, out)
    width = int((end - start).max())
    pos = start[:, None] + np.arange(width)[None, :]
    return np.where(pos < end[:, None], pos, end[:, None] - 1)  # repeat the last entry: harmless for max


def _resolve(sizes, output_size):
    return tuple(n if o is None else o for n, o in zip(sizes, output_size))


def _check_adaptive(op):
    def check(x, *, output_size):
        nd = len(output_size)
        if any(o is not None and (not isinstance(o, (int, np.integer)) or o <= 0) for o in output_size):
            raise op_error(op, f"'output_size' entries must be positive ints or None, but got {output_size}.")
        _check_pool_rank(op, x, nd)
        dt = dtype_of(x)
        if op.startswith("AdaptiveAvg"):
            require_float(op, "x", x)
        elif dt is not None and dt.kind not in "fiu" and dt.name != "bfloat16":
            raise op_error(op, f"the input must be a real tensor, but got {dt}.", TypeError)

    return check


@rounds_once_from_float32  # as _avg_pool: a float16 bin sums in float32 and its mean is rounded once
def _adaptive_avg(x, *, output_size):
    nd = len(output_size)
    outs = _resolve(x.shape[-nd:], output_size)
    for i, out in enumerate(outs):
        axis = x.ndim - nd + i
        n = x.shape[axis]
        if n % out == 0:  # equal bins: a reshape and a mean
            x = jnp.mean(x.reshape(x.shape[:axis] + (out, n // out) + x.shape[axis + 1 :]), axis=axis + 1)
            continue
        start, end = adaptive_bins(n, out)
        pos = _adaptive_positions(n, out)
        weight = np.where(np.arange(pos.shape[1])[None, :] < (end - start)[:, None], 1.0 / (end - start)[:, None], 0)
        gathered = jnp.take(x, jnp.asarray(pos.reshape(-1)), axis=axis).reshape(
            x.shape[:axis] + pos.shape + x.shape[axis + 1 :]
        )
        w = jnp.asarray(weight.reshape(pos.shape + (1,) * (x.ndim - axis - 1)), x.dtype)
        x = jnp.sum(gathered * w, axis=axis + 1)
    return x


def _adaptive_max(x, *, output_size):
    nd = len(output_size)
    outs = _resolve(x.shape[-nd:], output_size)
    vals, flat = gather_windows(x, [_adaptive_positions(n, o) for n, o in zip(x.shape[-nd:], outs)])
    return max_with_index(vals, flat)


def _adaptive_max3(x, *, output_size):
    out, index = _adaptive_max(x, output_size=output_size)
    return out, index.astype(jnp.int32)  # the 3-D kernel's argmax is int32 (1-D and 2-D: int64)


for _nd in (1, 2, 3):
    declare(
        f"AdaptiveAvgPool{_nd}D",
        _adaptive_avg,
        _check_adaptive(f"AdaptiveAvgPool{_nd}D"),
        attrs={"output_size": (1,) * _nd},
    )
    declare(
        f"AdaptiveMaxPool{_nd}D",
        _adaptive_max3 if _nd == 3 else _adaptive_max,
        _check_adaptive(f"AdaptiveMaxPool{_nd}D"),
        attrs={"output_size": (1,) * _nd},
        multiple_results=True,
    )


def _check_unpool(x, indices, out_len):
    if tuple(getattr(x, "shape", ())) != tuple(getattr(indices, "shape", ())):
        raise op_error("MaxUnpool", f"'x' {tuple(x.shape)} and 'indices' {tuple(indices.shape)} must have one shape.")


def _unpool(x, indices, out_len):
    """Scatter x (..., L) to positions `indices` (flat over the spatial dims) of zeros (..., out_len)."""
    lead = x.shape[:-1]
    flat_x = x.reshape(-1, x.shape[-1])
    flat_i = indices.reshape(-1, x.shape[-1]).astype(jnp.int32)
    out = jnp.zeros((flat_x.shape[0], out_len), x.dtype)
    rows = jnp.arange(flat_x.shape[0])[:, None]
    return out.at[rows, flat_i].set(flat_x, mode="drop").reshape(lead + (out_len,))


MaxUnpool = PrimitiveDef("MaxUnpool", _unpool, attrs={"out_len": 0}, check=_check_unpool, nondiff=(1,))


def _intervals(sample, n_in, n_out, k):
    """Window starts (..., n_out) from one uniform sample per plane (..., ), as in the Fractional Max-Pooling
    paper's pseudo-random sequences: floor((i + u) * a) - floor(u * a) with a = (n_in - k) / (n_out - 1), the
    last window ending at the input's end."""
    if n_out == 1:
        return jnp.full(sample.shape + (1,), n_in - k, jnp.int32)
    alpha = jnp.asarray((n_in - k) / (n_out - 1), sample.dtype)
    i = jnp.arange(n_out - 1, dtype=sample.dtype)
    starts = (
        jnp.floor((i + sample[..., None]) * alpha).astype(jnp.int32)
        - jnp.floor(sample * alpha).astype(jnp.int32)[..., None]
    )
    return jnp.concatenate([starts, jnp.full(sample.shape + (1,), n_in - k, jnp.int32)], axis=-1)


def _fractional_max_pool(x, samples, ksize, output_shape):
    """Max over ksize windows at pseudo-random starts: x (N, C, *spatial) -> (values, flat argmax int64).

    samples (N, C, nd): for 2-D the first drives the width and the second the height; for 3-D they drive
    (depth, height, width) in order (MindSpore's and PyTorch's convention).
    """
    nd = len(ksize)
    spatial = x.shape[2:]
    order = (1, 0) if nd == 2 else (0, 1, 2)  # which sample drives each spatial dim
    idx = []  # per spatial dim: (N, C, out, k) positions
    for d in range(nd):
        starts = _intervals(samples[..., order[d]], spatial[d], output_shape[d], ksize[d])
        idx.append(starts[..., None] + jnp.arange(ksize[d], dtype=jnp.int32))
    n, c = x.shape[:2]
    # flat positions of every window element: (N, C, out_0, ..., out_{nd-1}, k_0, ..., k_{nd-1})
    flat = jnp.zeros((n, c) + tuple(output_shape) + tuple(ksize), jnp.int32)
    stride = 1
    for d in reversed(range(nd)):
        shape = [n, c] + [1] * nd + [1] * nd
        shape[2 + d] = output_shape[d]
        shape[2 + nd + d] = ksize[d]
        flat = flat + idx[d].reshape(shape) * stride
        stride *= spatial[d]
    windows = flat.reshape(n, c, -1)
    vals = jnp.take_along_axis(x.reshape(n, c, -1), windows, axis=2).reshape(flat.shape)
    vals = vals.reshape((n, c) + tuple(output_shape) + (-1,))
    return max_with_index(vals, flat.reshape(vals.shape))


def _check_fractional(x, samples, ksize, output_shape):
    nd = len(ksize)
    op = "FractionalMaxPoolWithFixedKsize" if nd == 2 else "FractionalMaxPool3DWithFixedKsize"
    if len(x.shape) != nd + 2:
        raise op_error(op, f"'x' must be {nd + 2}-D (N, C, spatial...), but got shape {tuple(x.shape)}.")
    if tuple(samples.shape) != (x.shape[0], x.shape[1], nd):
        raise op_error(op, f"'random_samples' must have shape {(x.shape[0], x.shape[1], nd)}, "
                       f"but got {tuple(samples.shape)}.")  # fmt: skip
    for d in range(nd):
        if output_shape[d] + ksize[d] - 1 > x.shape[2 + d] or output_shape[d] <= 0 or ksize[d] <= 0:
            raise op_error(op, f"output size {output_shape[d]} with kernel {ksize[d]} does not fit the input size "
                           f"{x.shape[2 + d]} of spatial dim {d}.")  # fmt: skip


FractionalMaxPool = PrimitiveDef(
    "FractionalMaxPoolFixedKsize",
    _fractional_max_pool,
    attrs={"ksize": (1, 1), "output_shape": (1, 1)},
    check=_check_fractional,
    multiple_results=True,
    nondiff=(1,),
)
