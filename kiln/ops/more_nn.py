"""More of MindSpore's functional ops for networks: sliding blocks (`unfold`/`fold`), sampling grids, resizing,
random draws (Laplace, exponential, Gumbel-softmax, RReLU), the short-time Fourier transform, matrix diagonals,
bilinear layers and losses. All compose existing ops, so they run the same in PyNative and graph mode.
"""

from __future__ import annotations

import builtins

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln.ops import array, extra_linalg, extra_mint, math, more_math
from kiln.ops import nn as nn_ops
from kiln.ops import random as _random
from kiln.ops._helpers import op_error

__all__ = [
    "unfold", "fold", "col2im", "grid_sample", "affine_grid", "upsample", "laplace", "standard_laplace", "uniform_",
    "exponential_", "bernoulli_", "random_categorical", "multinomial_with_replacement", "gumbel_softmax", "rrelu",
    "stft", "matrix_diag", "matrix_diag_part", "bidense", "conv3d_transpose", "multilabel_margin_loss", "move_to",
    "crop_and_resize",
]  # fmt: skip

col2im = extra_mint.col2im
grid_sample = extra_mint.grid_sample


def unfold(input, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks of a 4-D input as columns: (N, C * kh * kw, L).

    Args:
        input (Tensor): (N, C, H, W).
        kernel_size, dilation, padding, stride (int | tuple[int, int]): the blocks' geometry.

    Returns:
        Tensor (N, C * kh * kw, L).
    """
    return extra_mint.im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum sliding local blocks (N, C * kh * kw, L) back into (N, C, H, W), the adjoint of `unfold`.

    Args:
        input (Tensor): (N, C * kh * kw, L).
        output_size (Tensor | tuple[int, int]): (H, W).
        kernel_size, dilation, padding, stride (int | tuple[int, int]): the blocks' geometry.

    Returns:
        Tensor (N, C, H, W).
    """
    if isinstance(output_size, Tensor):
        output_size = tuple(int(v) for v in output_size.asnumpy().reshape(-1))
    return extra_mint.col2im(input, output_size, kernel_size, dilation, padding, stride)


def affine_grid(theta, size, align_corners=False) -> Tensor:
    """Sampling grid (N, H, W, 2) (or (N, D, H, W, 3)) of the affine maps `theta` (N, 2, 3) (or (N, 3, 4)).

    Args:
        theta (Tensor): the affine matrices.
        size (tuple[int]): (N, C, H, W) or (N, C, D, H, W) of the output to sample.
        align_corners (bool): -1 and 1 are the corner pixels' centres (True) or outer edges (False).

    Returns:
        Tensor grid of normalised (x, y[, z]) positions.
    """
    spatial = tuple(int(s) for s in size[2:])

    def coords(n):
        if n == 1:
            return np.zeros(1)
        c = np.linspace(-1.0, 1.0, n)
        return c if align_corners else c * (n - 1) / n

    axes = [coords(n) for n in spatial]  # (D,) H, W
    mesh = np.meshgrid(*axes, indexing="ij")
    base = np.stack([*reversed(mesh), np.ones_like(mesh[0])], -1)  # x, y[, z], 1
    base = Tensor(base.reshape(-1, len(spatial) + 1).astype(theta.dtype.np))
    out = math.matmul(base, array.swapaxes(theta, -1, -2))  # (N, P, dims)
    return array.reshape(out, (theta.shape[0], *spatial, len(spatial)))


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
    """`ops.interpolate` (its older name)."""
    return nn_ops.interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def _uniform01(shape, dtype=mstype.float32, seed=None):
    return _random.uniform(tuple(shape), Tensor(0.0, dtype), Tensor(1.0, dtype), seed)


def standard_laplace(shape, seed=None) -> Tensor:
    """Samples of the Laplace distribution with location 0 and scale 1.

    Args:
        shape (tuple[int]): the output shape.
        seed (int, optional): a fixed seed.

    Returns:
        float32 Tensor.
    """
    u = _uniform01(shape, seed=seed) - 0.5
    return math.neg(math.sign(u) * math.log1p(-2 * math.abs(u)))


def laplace(shape, mean, lambda_param, seed=None) -> Tensor:
    """Samples of the Laplace distribution with location `mean` and scale `lambda_param` (broadcast to `shape`)."""
    return standard_laplace(shape, seed) * lambda_param + mean


def uniform_(input, from_=0, to=1, *, generator=None) -> Tensor:
    """Fill `input` in place with samples of U[from_, to)."""
    u = _uniform01(input.shape, input.dtype if input.dtype.is_floating else mstype.float32)
    return input.assign_value(math.cast(u * (to - from_) + from_, input.dtype))


def exponential_(input, lambd=1, *, generator=None) -> Tensor:
    """Fill `input` in place with samples of the exponential distribution of rate `lambd`."""
    u = _uniform01(input.shape, input.dtype)
    return input.assign_value(math.neg(math.log1p(-u)) / lambd)


def bernoulli_(input, p=0.5, *, generator=None) -> Tensor:
    """Fill `input` in place with 0/1 samples that are 1 with probability `p`."""
    u = _uniform01(input.shape)
    prob = math.cast(p, mstype.float32) if isinstance(p, Tensor) else p
    return input.assign_value(math.cast(math.less(u, prob), input.dtype))


def random_categorical(logits, num_sample, seed=0, dtype=mstype.int64) -> Tensor:
    """`num_sample` category indices per row of unnormalised log-probabilities `logits` (N, C)."""
    probs = nn_ops.softmax(math.cast(logits, mstype.float32), -1)
    return math.cast(_random.multinomial(probs, int(num_sample), True, seed or None), dtype)


def multinomial_with_replacement(x, seed, offset, numsamples, replacement=False) -> Tensor:
    """`numsamples` category indices per row of the (unnormalised) probabilities `x`, int64."""
    s = int(seed.asnumpy()) if isinstance(seed, Tensor) else seed
    return math.cast(_random.multinomial(x, int(numsamples), bool(replacement), s or None), mstype.int64)


def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1) -> Tensor:
    """Samples of the Gumbel-softmax distribution: softmax((logits + Gumbel noise) / tau) along `dim`; `hard`
    gives one-hot samples whose gradient is the soft sample's."""
    u = _uniform01(logits.shape, logits.dtype)
    eps = float(np.finfo(logits.dtype.np).tiny)
    g = math.neg(math.log(math.neg(math.log(u + eps)) + eps))
    soft = nn_ops.softmax((logits + g) / tau, dim)
    if not hard:
        return soft
    index = math.argmax(soft, dim, True)
    one = array.zeros_like(soft)
    one = array.scatter(one, dim % soft.ndim, index, array.ones_like(index, dtype=soft.dtype))
    return one - math.stop_gradient(soft) + soft


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3) -> Tensor:
    """Randomised leaky ReLU: negative inputs scaled by a slope drawn from U[lower, upper) per element."""
    slope = _uniform01(input.shape, input.dtype) * (upper - lower) + lower
    return array.select(math.greater_equal(input, 0), input, input * slope)


def stft(x, n_fft, hop_length=None, win_length=None, window=None, center=True, pad_mode="REFLECT",
         normalized=False, onesided=None, return_complex=None) -> Tensor:  # fmt: skip
    """Short-time Fourier transform of 1-D (or batched 2-D) signals.

    Args:
        x (Tensor): (L,) or (B, L).
        n_fft (int): FFT size.
        hop_length (int, optional): step between frames (n_fft // 4).
        win_length (int, optional): window size (n_fft), centred in the frame.
        window (Tensor, optional): the window (all ones).
        center (bool): pad the signal by n_fft // 2 on both sides first (`pad_mode` 'REFLECT' or 'CONSTANT').
        normalized (bool): multiply by n_fft ** -0.5.
        onesided (bool, optional): only the n_fft // 2 + 1 non-negative frequencies (default for real input).
        return_complex (bool, optional): complex (..., F, T) output, else (..., F, T, 2) real.

    Returns:
        Tensor.
    """
    hop = hop_length or n_fft // 4
    wl = win_length or n_fft
    single = x.ndim == 1
    sig = array.expand_dims(x, 0) if single else x
    if center:
        half = n_fft // 2
        if str(pad_mode).upper() == "REFLECT":
            sig = more_math.mirror_pad(sig, ((0, 0), (half, half)), "REFLECT")
        else:
            sig = array.pad(sig, (half, half))
    n = sig.shape[-1]
    frames = 1 + (n - n_fft) // hop
    idx = np.arange(frames)[:, None] * hop + np.arange(n_fft)[None, :]
    framed = array.reshape(array.gather(sig, Tensor(idx.reshape(-1)), 1), (sig.shape[0], frames, n_fft))
    if window is None:
        left = (n_fft - wl) // 2
        win_dtype = sig.dtype if sig.dtype.is_floating else mstype.float32
        win = Tensor(np.pad(np.ones(wl, np.float32), (left, n_fft - wl - left)), win_dtype)
    else:
        win = window
        if win.shape[0] < n_fft:
            left = (n_fft - win.shape[0]) // 2
            win = array.pad(win, (left, n_fft - win.shape[0] - left))
    framed = framed * win
    complex_in = x.dtype.is_complex
    one = (not complex_in) if onesided is None else onesided
    spec = extra_linalg.rfft(framed, n_fft, -1) if one and not complex_in else extra_linalg.fft(framed, n_fft, -1)
    if normalized:
        spec = spec * float(n_fft) ** -0.5
    spec = array.swapaxes(spec, -1, -2)  # (B, F, T)
    if single:
        spec = array.squeeze(spec, 0)
    if return_complex is False:
        return array.stack((math.real(spec), math.imag(spec)), -1)
    return spec


def matrix_diag(x, k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT") -> Tensor:
    """Matrices with `x`'s last dimension on diagonal `k` (an int) and `padding_value` elsewhere.

    Args:
        x (Tensor): (..., n) diagonals.
        k (int | Tensor): the diagonal (> 0 above the main one); one diagonal only.
        num_rows, num_cols (int | Tensor): the matrix size (-1: the smallest that holds the diagonal).
        padding_value (number | Tensor): the value off the diagonal.
        align (str): ignored for one diagonal.

    Returns:
        Tensor (..., num_rows, num_cols).
    """
    k = int(k.asnumpy().reshape(-1)[0]) if isinstance(k, Tensor) else int(k)
    rows = int(num_rows.asnumpy()) if isinstance(num_rows, Tensor) else int(num_rows)
    cols = int(num_cols.asnumpy()) if isinstance(num_cols, Tensor) else int(num_cols)
    n = x.shape[-1]
    rows = n + builtins.abs(k) if rows == -1 else rows
    cols = n + builtins.abs(k) if cols == -1 else cols
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    on = np.broadcast_to(j - i == k, (rows, cols))
    pos = np.where(on, np.minimum(np.broadcast_to(i if k >= 0 else j, (rows, cols)), n - 1), 0).astype(np.int64)
    vals = array.reshape(array.gather(x, Tensor(pos.reshape(-1)), x.ndim - 1), (*x.shape[:-1], rows, cols))
    pad = padding_value.astype(x.dtype) if isinstance(padding_value, Tensor) else Tensor(padding_value, x.dtype)
    return array.select(array.broadcast_to(Tensor(on), vals.shape), vals, array.broadcast_to(pad, vals.shape))


def matrix_diag_part(x, k, padding_value, align="RIGHT_LEFT") -> Tensor:
    """Diagonal `k` (an int) of the matrices `x` (..., M, N).

    Returns:
        Tensor (..., length of the diagonal).
    """
    k = int(k.asnumpy().reshape(-1)[0]) if isinstance(k, Tensor) else int(k)
    from kiln.ops import extra_array  # noqa: PLC0415

    return extra_array.diagonal(x, k, -2, -1)


def bidense(input1, input2, weight, bias=None) -> Tensor:
    """Bilinear map y = x1^T W x2 + b.

    Args:
        input1 (Tensor): (..., in1).
        input2 (Tensor): (..., in2).
        weight (Tensor): (out, in1, in2).
        bias (Tensor, optional): (out,).

    Returns:
        Tensor (..., out).
    """
    out = math.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1, group=1, output_padding=0):
    """3-D transposed convolution (MindSpore's argument order; `pad_mode` 'valid' or 'pad')."""
    if pad_mode not in ("valid", "pad"):
        raise op_error("conv3d_transpose", f"'pad_mode' must be 'valid' or 'pad', but got {pad_mode!r}.")
    pad = 0 if pad_mode == "valid" else padding
    if isinstance(pad, tuple) and len(pad) == 6:
        pad = pad[::2]
    return nn_ops.conv_transpose3d(inputs, weight, None, stride, pad, output_padding, group, dilation)


def multilabel_margin_loss(input, target, reduction="mean") -> Tensor:
    """Multi-class multi-label hinge loss: target holds class indices, the first -1 ends them.

    Args:
        input (Tensor): (N, C) or (C,) scores.
        target (Tensor): same shape, int; the labels up to the first -1.
        reduction (str): 'none', 'mean' or 'sum'.

    Returns:
        Tensor: the loss per sample ('none') or reduced.
    """
    x = input if input.ndim == 2 else array.expand_dims(input, 0)
    t = target if target.ndim == 2 else array.expand_dims(target, 0)
    c = x.shape[1]
    t64 = math.cast(t, mstype.int64)
    valid = math.cast(math.cumprod(math.cast(math.greater_equal(t64, 0), mstype.int32), 1), mstype.bool_)
    safe = array.select(valid, t64, array.zeros_like(t64))
    is_target = math.any(math.logical_and(array.expand_dims(valid, -1),
                                          math.equal(array.expand_dims(safe, -1), array.arange(0, c))), 1)  # fmt: skip
    x_t = array.gather_elements(x, 1, safe)  # (N, S)
    margins = math.maximum(1 - (array.expand_dims(x_t, -1) - array.expand_dims(x, 1)), 0)  # (N, S, C)
    mask = math.logical_and(array.expand_dims(valid, -1), math.logical_not(array.expand_dims(is_target, 1)))
    per = math.sum(array.select(mask, margins, array.zeros_like(margins)), (1, 2)) / c
    if input.ndim == 1:
        per = array.squeeze(per, 0)
    if reduction == "none":
        return per
    return math.mean(per) if reduction == "mean" else math.sum(per)


def move_to(input, to="CPU", blocking=True) -> Tensor:
    """`input` on device `to`: Kiln keeps every tensor on the one device of the context, so `input` itself."""
    if to not in ("CPU", "GPU", "Ascend", "cpu", "gpu"):
        raise ValueError(f"move_to: 'to' must be 'CPU', 'GPU' or 'Ascend', but got {to!r}.")
    return input


def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear", extrapolation_value=0.0) -> Tensor:
    """Crops of NHWC `image` at normalised boxes (y1, x1, y2, x2), each resized to `crop_size` (bilinear or nearest).

    Args:
        image (Tensor): (N, H, W, C).
        boxes (Tensor): (B, 4) normalised corners.
        box_indices (Tensor): (B,) image of each box.
        crop_size (tuple[int, int]): (crop_height, crop_width).
        method (str): 'bilinear', 'nearest' or 'bilinear_v2'.
        extrapolation_value (float): value of samples outside the image.

    Returns:
        float32 Tensor (B, crop_height, crop_width, C).
    """
    _, h, w, _ = image.shape
    ch, cw = (int(v) for v in crop_size)
    img = math.cast(image, mstype.float32)
    y1, x1, y2, x2 = (boxes[:, k : k + 1] for k in range(4))
    ty = Tensor(np.arange(ch, dtype=np.float32) / builtins.max(ch - 1, 1))
    tx = Tensor(np.arange(cw, dtype=np.float32) / builtins.max(cw - 1, 1))
    ys = (y1 + (y2 - y1) * ty) * (h - 1) if ch > 1 else (y1 + y2) * 0.5 * (h - 1)  # (B, ch)
    xs = (x1 + (x2 - x1) * tx) * (w - 1) if cw > 1 else (x1 + x2) * 0.5 * (w - 1)  # (B, cw)
    per = array.gather(img, math.cast(box_indices, mstype.int64), 0)  # (B, H, W, C)
    inside = math.logical_and(
        array.expand_dims(math.logical_and(ys >= 0, ys <= h - 1), 2),
        array.expand_dims(math.logical_and(xs >= 0, xs <= w - 1), 1),
    )  # (B, ch, cw)

    def read(yi, xi):  # yi (B, ch), xi (B, cw) int -> (B, ch, cw, C)
        rows = array.gather_elements(per, 1, array.broadcast_to(array.reshape(yi, (yi.shape[0], ch, 1, 1)),
                                                                (yi.shape[0], ch, w, per.shape[3])))  # fmt: skip
        return array.gather_elements(rows, 2, array.broadcast_to(array.reshape(xi, (xi.shape[0], 1, cw, 1)),
                                                                 (xi.shape[0], ch, cw, per.shape[3])))  # fmt: skip

    def clip(v, hi):
        return math.cast(math.clamp(v, 0, hi), mstype.int64)

    if method == "nearest":
        out = read(clip(math.floor(ys + 0.5), h - 1), clip(math.floor(xs + 0.5), w - 1))
    else:
        y0, x0 = math.floor(ys), math.floor(xs)
        fy = array.reshape(ys - y0, (ys.shape[0], ch, 1, 1))
        fx = array.reshape(xs - x0, (xs.shape[0], 1, cw, 1))
        top = read(clip(y0, h - 1), clip(x0, w - 1)) * (1 - fx) + read(clip(y0, h - 1), clip(x0 + 1, w - 1)) * fx
        bottom = (
            read(clip(y0 + 1, h - 1), clip(x0, w - 1)) * (1 - fx) + read(clip(y0 + 1, h - 1), clip(x0 + 1, w - 1)) * fx
        )
        out = top * (1 - fy) + bottom * fy
    mask = array.broadcast_to(array.expand_dims(inside, -1), out.shape)
    return array.select(mask, out, array.full_like(out, extrapolation_value))


def _candidate_counts(true_classes, sampled, num_sampled, unique, prob):
    """Expected counts of classes in a sample of `num_sampled` draws with per-draw probability `prob(class)`."""

    def count(c):
        p = prob(math.cast(c, mstype.float32))
        if unique:
            return math.neg(math.expm1(num_sampled * math.log1p(math.neg(p))))
        return p * num_sampled

    return count(true_classes), count(sampled)


def _draw(num_sampled, range_max, unique, seed, log_uniform):
    seed = seed or None
    if unique:
        keys = _random.uniform((range_max,), Tensor(0.0), Tensor(1.0), seed)
        if log_uniform:  # Gumbel-top-k: sampling without replacement with weights P(k)
            k = Tensor(np.arange(range_max, dtype=np.float32))
            logp = math.log(math.log((k + 2) / (k + 1)))
            keys = logp - math.log(math.neg(math.log(keys + 1e-20)) + 1e-20)
        return math.topk(keys, num_sampled)[1]
    u = _random.uniform((num_sampled,), Tensor(0.0), Tensor(1.0), seed)
    if log_uniform:
        k = math.floor(math.exp(u * float(np.log(range_max + 1)))) - 1
        return math.cast(math.clamp(k, 0, range_max - 1), mstype.int64)
    return math.cast(math.clamp(math.floor(u * range_max), 0, range_max - 1), mstype.int64)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=0,
                              remove_accidental_hits=False):  # fmt: skip
    """Sample `num_sampled` classes uniformly from [0, range_max) (without repeats when `unique`).

    Args:
        true_classes (Tensor): (batch, num_true) int the target classes.
        num_true, num_sampled, range_max (int): as named.
        unique (bool): sample without replacement.
        seed (int): a fixed seed (0: drawn from the global generator).
        remove_accidental_hits (bool): not applied by Kiln (accepted for the signature).

    Returns:
        tuple (sampled_candidates (num_sampled,), true_expected_count (batch, num_true),
        sampled_expected_count (num_sampled,)); the counts are float32.
    """
    if unique and num_sampled > range_max:
        raise op_error("UniformCandidateSampler", f"'num_sampled' ({num_sampled}) must not exceed 'range_max' "
                                                  f"({range_max}) when 'unique' is True.")  # fmt: skip
    sampled = math.cast(_draw(num_sampled, range_max, unique, seed, False), true_classes.dtype)
    p = float(1.0 / range_max)
    true_c, sampled_c = _candidate_counts(true_classes, sampled, num_sampled, unique,
                                          lambda c: array.full_like(c, p))  # fmt: skip
    if unique:
        true_c = array.full_like(true_c, num_sampled / range_max)
        sampled_c = array.full_like(sampled_c, num_sampled / range_max)
    return sampled, true_c, sampled_c


def log_uniform_candidate_sampler(true_classes, num_true=1, num_sampled=5, unique=True, range_max=5, seed=0):
    """Sample `num_sampled` classes from [0, range_max) with the log-uniform (Zipfian) distribution
    P(k) = log((k + 2) / (k + 1)) / log(range_max + 1).

    Returns:
        tuple (sampled_candidates (num_sampled,) int64, true_expected_count, sampled_expected_count) (float32).
    """
    sampled = _draw(num_sampled, range_max, unique, seed, True)
    norm = float(np.log(range_max + 1))
    return (sampled, *_candidate_counts(true_classes, sampled, num_sampled, unique,
                                        lambda c: math.log((c + 2) / (c + 1)) / norm))  # fmt: skip


__all__ += ["uniform_candidate_sampler", "log_uniform_candidate_sampler"]
