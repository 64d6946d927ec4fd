"""Op records for the neural-network ops: convolution, pooling, normalisation, dense, losses, resizing, layers."""

from __future__ import annotations

import itertools

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from kiln import Tensor, ops
from tests.ops.records import OpRecord

F32 = (np.float32,)


F32_16 = (np.float32, np.float16)


# ---- convolution references ------------------------------------------------------------------
def same_pads(n, k, s, d):
    out = -(-n // s)
    total = max((out - 1) * s + (k - 1) * d + 1 - n, 0)
    return total // 2, total - total // 2


def np_conv(x, w, b=None, stride=1, pads=0, dilation=1, groups=1, mode="pad"):
    """Direct convolution: pad, take strided windows of the dilated kernel's extent, contract."""
    nd = x.ndim - 2
    stride = (stride,) * nd if np.isscalar(stride) else stride
    dilation = (dilation,) * nd if np.isscalar(dilation) else dilation
    if w.ndim == nd + 3:  # MindSpore's (O, I, 1, K) for 1-D
        w = w[:, :, 0]
    k = w.shape[2:]
    if mode == "same":
        pads = [same_pads(n, kk, s, d) for n, kk, s, d in zip(x.shape[2:], k, stride, dilation)]
    elif mode == "valid":
        pads = [(0, 0)] * nd
    elif np.isscalar(pads):
        pads = [(pads, pads)] * nd
    xp = np.pad(x, [(0, 0), (0, 0)] + list(pads))
    ext = [d * (kk - 1) + 1 for kk, d in zip(k, dilation)]
    win = sliding_window_view(xp, ext, axis=tuple(range(2, 2 + nd)))
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)]
    win = win[(Ellipsis,) + tuple(slice(None, None, d) for d in dilation)]  # the dilated taps
    n, c = x.shape[:2]
    o = w.shape[0]
    out_sp = win.shape[2 : 2 + nd]
    win = win.reshape((n, groups, c // groups) + out_sp + k)
    wg = w.reshape((groups, o // groups, c // groups) + k)
    sp, kk = "xyz"[:nd], "uvw"[:nd]
    y = np.einsum(f"ngc{sp}{kk},goc{kk}->ngo{sp}", win, wg).reshape((n, o) + out_sp)
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y.astype(x.dtype)


def np_conv_transpose(x, w, b=None, stride=1, pad=0, output_padding=0, dilation=1, groups=1):
    """Scatter-add definition: every input value adds weight * value at i * stride + j * dilation."""
    nd = x.ndim - 2
    s, p, op, d = ((v,) * nd if np.isscalar(v) else v for v in (stride, pad, output_padding, dilation))
    k = w.shape[2:]
    n, c_in = x.shape[:2]
    c_out_g = w.shape[1]
    cg = c_in // groups
    full = [(ni - 1) * si + di * (ki - 1) + 1 + opi for ni, si, di, ki, opi in zip(x.shape[2:], s, d, k, op)]
    y = np.zeros((n, c_out_g * groups) + tuple(full))
    for idx in np.ndindex(*x.shape[2:]):
        for tap in np.ndindex(*k):
            pos = tuple(i * si + j * di for i, j, si, di in zip(idx, tap, s, d))
            for g in range(groups):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + idx]
                ws = w[(slice(g * cg, (g + 1) * cg), slice(None)) + tap]
                y[(slice(None), slice(g * c_out_g, (g + 1) * c_out_g)) + pos] += xs @ ws
    crop = tuple(slice(pi, f - pi) for pi, f in zip(p, full))
    y = y[(slice(None), slice(None)) + crop]
    if b is not None:
        y = y + b.reshape((1, -1) + (1,) * nd)
    return y.astype(x.dtype)


# ---- pooling references ---------------------------------------------------------------------------
def _pool_out(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    out = (-(-span // s) if ceil else span // s) + 1
    if ceil and (out - 1) * s >= n + p:
        out -= 1
    return out


def np_max_pool(x, k, s=None, p=0, d=1, ceil=False, with_index=False):
    nd = len(k)
    s = s or k
    d = (d,) * nd if np.isscalar(d) else d
    sp = x.shape[-nd:]
    outs = [_pool_out(n, kk, ss, p, dd, ceil) for n, kk, ss, dd in zip(sp, k, s, d)]
    y = np.zeros(x.shape[:-nd] + tuple(outs), x.dtype)
    idx_out = np.zeros(y.shape, np.int64)
    for o in np.ndindex(*outs):
        best = np.full(x.shape[:-nd], -np.inf)
        best_i = np.zeros(x.shape[:-nd], np.int64)
        for tap in np.ndindex(*k):
            pos = [oi * si - p + ti * di for oi, si, ti, di in zip(o, s, tap, d)]
            if all(0 <= q < n for q, n in zip(pos, sp)):
                v = x[(Ellipsis,) + tuple(pos)]
                better = v > best
                best = np.where(better, v, best)
                best_i = np.where(better, np.ravel_multi_index(pos, sp), best_i)
        y[(Ellipsis,) + o] = best
        idx_out[(Ellipsis,) + o] = best_i
    return (y, idx_out) if with_index else y


def np_avg_pool(x, k, s=None, p=0, ceil=False, include_pad=True, divisor=0):
    nd = len(k)
    s = s or k
    sp = x.shape[-nd:]
    outs = [_pool_out(n, kk, ss, p, 1, ceil) for n, kk, ss in zip(sp, k, s)]
    y = np.zeros(x.shape[:-nd] + tuple(outs), np.float64)
    for o in np.ndindex(*outs):
        starts = [oi * si - p for oi, si in zip(o, s)]
        ends = [st + kk for st, kk in zip(starts, k)]
        sl = tuple(slice(max(st, 0), min(en, n)) for st, en, n in zip(starts, ends, sp))
        total = x[(Ellipsis,) + sl].sum(axis=tuple(range(-nd, 0)))
        if divisor:
            count = divisor
        elif include_pad:
            count = np.prod([min(en, n + p) - st for st, en, n in zip(starts, ends, sp)])
        else:
            count = np.prod([q.stop - q.start for q in sl])
        y[(Ellipsis,) + o] = total / count
    return y.astype(x.dtype)


def _bins(n, out):
    return [(i * n // out, -(-(i + 1) * n // out)) for i in range(out)]


def np_adaptive(x, out, kind):
    nd = len(out)
    sp = x.shape[-nd:]
    y = np.zeros(x.shape[:-nd] + tuple(out), x.dtype)
    idx = np.zeros(y.shape, np.int64)
    for o in itertools.product(*(range(q) for q in out)):
        sl = tuple(slice(*_bins(n, q)[i]) for n, q, i in zip(sp, out, o))
        win = x[(Ellipsis,) + sl]
        flat = win.reshape(win.shape[:-nd] + (-1,))
        if kind == "avg":
            y[(Ellipsis,) + o] = flat.mean(-1)
        else:
            y[(Ellipsis,) + o] = flat.max(-1)
            local = np.unravel_index(flat.argmax(-1), win.shape[-nd:])
            idx[(Ellipsis,) + o] = np.ravel_multi_index([lc + q.start for lc, q in zip(local, sl)], sp)
    return y if kind == "avg" else (y, idx)


# ---- normalisation and loss references ----------------------------------------------------------------
def np_batch_norm(x, mean, var, w, b, training, eps=1e-5):
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean, var = x.mean(axis=axes), x.var(axis=axes)
    y = (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)
    return y.astype(x.dtype)


def np_layer_norm(x, n_axes, w=None, b=None, eps=1e-5):
    axes = tuple(range(x.ndim - n_axes, x.ndim))
    y = (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True) + eps)
    y = y * (1 if w is None else w) + (0 if b is None else b)
    return y.astype(x.dtype)


def np_group_norm(x, groups, w, b, eps=1e-5):
    g = x.reshape(x.shape[0], groups, -1)
    y = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + eps)).reshape(x.shape)
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (y * w.reshape(shape) + b.reshape(shape)).astype(x.dtype)


def np_log_softmax(x, axis):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def lsm(x):
    """log_softmax over the class axis: 1, or 0 for a 1-D input."""
    return np_log_softmax(x, min(x.ndim - 1, 1))


def np_class_loss(logp, target, weight=None, ignore=-100, reduction="mean", smoothing=0.0):
    """NLL with class weights, ignore_index and label smoothing; class axis 1 (or 0 for 1-D)."""
    ax = 1 if logp.ndim >= 2 else 0
    c = logp.shape[ax]
    lp = np.moveaxis(logp, ax, -1)  # (..., C)
    w = np.ones(c) if weight is None else weight
    if target.dtype.kind == "f":
        t = target if smoothing == 0 else target * (1 - smoothing) + smoothing / c
        per = -(lp * np.moveaxis(t, ax, -1) * w).sum(-1)
        return _np_reduce(per, reduction, per.size, logp.dtype)
    valid = target != ignore
    safe = np.where(valid, target, 0)
    picked = np.take_along_axis(lp, safe[..., None], -1)[..., 0]
    wt = w[safe] * valid
    per = -picked * wt
    if smoothing:
        per = (1 - smoothing) * per + smoothing * (-(lp * w).sum(-1) / c * valid)
    return _np_reduce(per, reduction, wt.sum(), logp.dtype)


def _np_reduce(per, reduction, denom, dtype):
    if reduction == "none":
        return per.astype(dtype)
    total = per.sum()
    return np.asarray(total / denom if reduction == "mean" else total, dtype)


def np_reduce(loss, reduction, dtype):
    return _np_reduce(loss, reduction, loss.size, dtype)


# ---- input makers ---------------------------------------------------------------------------------------
def floats(*ranges):
    """make_inputs with one (low, high) range per float input."""

    def make(rng, dtype, shapes):
        return [rng.uniform(lo, hi, size=s).astype(dtype) for (lo, hi), s in zip(ranges, shapes)]

    return make


def logits_and_labels(classes, *, ignore=None, extra=(), label_dtype=np.int64):
    """make_inputs for class losses: logits, integer labels (some = `ignore`), then `extra` float inputs."""

    def make(rng, dtype, shapes):
        x = rng.uniform(-2, 2, size=shapes[0]).astype(dtype)
        t = rng.integers(0, classes, size=shapes[1]).astype(label_dtype)
        if ignore is not None and t.size > 1:
            t.reshape(-1)[:: max(t.size // 2, 2)] = ignore
        rest = [rng.uniform(lo, hi, size=s).astype(dtype) for (lo, hi), s in zip(extra, shapes[2:])]
        return [x, t, *rest]

    return make


def _bn_eval_inputs(rng, dtype, shapes):
    x, m, v, w, b = (rng.uniform(-2, 2, size=s) for s in shapes)
    return [a.astype(dtype) for a in (x, m, np.abs(v) + 0.5, w, b)]


def _bce(p, y, w=None):
    loss = -(y * np.log(np.maximum(p, 1e-12)) + (1 - y) * np.log(np.maximum(1 - p, 1e-12)))
    return loss if w is None else loss * w


def _bce_logits(x, y, w=None, pw=None):
    p = 1 / (1 + np.exp(-x))
    pw = 1 if pw is None else pw
    loss = -(pw * y * np.log(p) + (1 - y) * np.log(1 - p))
    return loss if w is None else loss * w


def _smooth_l1(x, y, beta):
    d = np.abs(x - y)
    return np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta).astype(x.dtype)


def np_resize(x, sizes, mode, align_corners=False, factors=None):
    """Resize with explicit per-output-position loops (PyTorch/MindSpore coordinate rules)."""
    nd = len(sizes)
    for i, n_out in enumerate(sizes):
        axis = x.ndim - nd + i
        n_in = x.shape[axis]
        ratio = n_in / n_out if factors is None else 1.0 / factors[i]
        rows = []
        for o in range(n_out):
            if mode == "nearest":
                rows.append(np.take(x, min(int(np.floor(o * ratio)), n_in - 1), axis=axis))
                continue
            if align_corners:
                src = o * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
            else:
                src = max((o + 0.5) * ratio - 0.5, 0.0)
            lo = min(int(np.floor(src)), n_in - 1)
            hi = min(lo + 1, n_in - 1)
            frac = src - lo
            rows.append(np.take(x, lo, axis=axis) * (1 - frac) + np.take(x, hi, axis=axis) * frac)
        x = np.stack(rows, axis=axis)
    return x


def _np_bn_prim(x, g, b, m, v):
    """MindSpore's BatchNorm outputs in training: y, batch mean, batch variance, new moving mean / variance."""
    mean, var = x.mean((0, 2, 3)), x.var((0, 2, 3))
    n = x.size // x.shape[1]
    y = np_batch_norm(x, None, None, g, b, True)
    return y, mean, var, 0.9 * m + 0.1 * mean, 0.9 * v + 0.1 * var * n / (n - 1)


def _bn_prim_inputs(rng, dtype, shapes):
    x, g, b, m, v = (rng.uniform(-2, 2, size=s) for s in shapes)
    return [a.astype(dtype) for a in (x, g, b, m, np.abs(v) + 0.5)]


def _signs(rng, dtype, shapes):
    """A float input per shape, then a ±1 target of the last shape."""
    xs = [rng.uniform(-2, 2, size=s).astype(dtype) for s in shapes[:-1]]
    return xs + [np.where(rng.random(shapes[-1]) < 0.5, -1.0, 1.0).astype(dtype)]


def _softplus(x):
    return np.logaddexp(0.0, x)


def _gaussian_inputs(rng, dtype, shapes):
    return [rng.uniform(-2, 2, size=shapes[0]).astype(dtype), rng.uniform(-2, 2, size=shapes[1]).astype(dtype),
            rng.uniform(0.2, 2.0, size=shapes[2]).astype(dtype)]  # fmt: skip


def _multilabel_inputs(rng, dtype, shapes):
    return [rng.uniform(-2, 2, size=shapes[0]).astype(dtype), (rng.random(shapes[1]) < 0.5).astype(dtype)]


def _huber_ref(x, y, delta=0.7):
    d = np.abs(x - y)
    return np.mean(np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta)))


def _cosine_ref(a, b, y, margin=0.2):
    cos = np.sum(a * b, -1) / np.sqrt(np.sum(a * a, -1) * np.sum(b * b, -1) + 1e-12)
    return np.mean(np.where(y == 1, 1 - cos, np.maximum(0, cos - margin)))


def _cosine_inputs(rng, dtype, shapes):
    return [rng.uniform(-2, 2, size=shapes[0]).astype(dtype), rng.uniform(-2, 2, size=shapes[1]).astype(dtype),
            np.array([1, -1, 1, -1], np.int32)]  # fmt: skip


def _triplet_ref(a, p, n, margin=0.8, eps=1e-6):
    def d(u, v):
        return np.sqrt(np.sum((u - v + eps) ** 2, -1))

    return np.mean(np.maximum(d(a, p) - np.minimum(d(a, n), d(p, n)) + margin, 0))


def _multi_margin_inputs(rng, dtype, shapes):
    return [rng.uniform(-2, 2, size=shapes[0]).astype(dtype), np.array([0, 3, 1, 4], np.int64)]


def _multi_margin_ref(x, y, p=2, margin=0.9):
    n, c = x.shape
    picked = x[np.arange(n), y][:, None]
    terms = np.maximum(0, margin - picked + x) ** p
    terms[np.arange(n), y] = 0
    return np.mean(terms.sum(1) / c)


def _poisson_ref(x, t):
    t = t.astype(np.float64)
    loss = np.exp(x) - t * x
    safe = np.maximum(t, 1.0)
    stirling = safe * np.log(safe) - safe + 0.5 * np.log(2 * np.pi * safe)
    return np.mean(loss + np.where(t > 1, stirling, 0.0)).astype(x.dtype)


def _poisson_inputs(rng, dtype, shapes):
    return [rng.uniform(-1, 1, size=shapes[0]).astype(dtype), rng.uniform(0, 4, size=shapes[1]).astype(dtype)]


def _ctc_inputs(rng, dtype, shapes):
    logits = rng.uniform(-2, 2, size=shapes[0])
    log_probs = logits - np.log(np.sum(np.exp(logits), -1, keepdims=True))
    return [log_probs.astype(dtype), np.array([[1, 2, 2], [3, 1, 0]], np.int32)]


def _ctc_ref(log_probs, targets, in_lens=(6, 5), tgt_lens=(3, 2), blank=0):
    """The CTC negative log-likelihood by brute force over every alignment (small T only)."""
    import itertools  # noqa: PLC0415

    steps, n, c = log_probs.shape
    out = []
    for b in range(n):
        t_len, target = in_lens[b], list(targets[b][: tgt_lens[b]])
        total = -np.inf
        for path in itertools.product(range(c), repeat=t_len):
            collapsed = [k for i, k in enumerate(path) if k != blank and (i == 0 or path[i - 1] != k)]
            if collapsed == target:
                total = np.logaddexp(total, sum(log_probs[t, b, k] for t, k in enumerate(path)))
        out.append(-total)
    return np.array(out, log_probs.dtype)


def _pixel_shuffle_ref(x, r=2):
    n, c, h, w = x.shape
    return x.reshape(n, c // (r * r), r, r, h, w).transpose(0, 1, 4, 2, 5, 3).reshape(n, c // (r * r), h * r, w * r)


def _pixel_unshuffle_ref(x, r=2):
    n, c, h, w = x.shape
    return x.reshape(n, c, h // r, r, w // r, r).transpose(0, 1, 3, 5, 2, 4).reshape(n, c * r * r, h // r, w // r)


def _lp_pool1d_ref(x, p=2, k=3, s=2):
    steps = (x.shape[-1] - k) // s + 1
    return np.stack([np.sum(x[..., i * s : i * s + k] ** p, -1) ** (1 / p) for i in range(steps)], -1)


def _positive(rng, dtype, shapes):
    return [rng.uniform(0.2, 2.0, size=s).astype(dtype) for s in shapes]


def _unpool_inputs(rng, dtype, shapes):
    """x (N, C, 2, 2) and the flat positions of one distinct cell in each 2x2 window of a (4, 4) plane."""
    x = rng.uniform(-2, 2, size=shapes[0]).astype(dtype)
    n, c = shapes[0][:2]
    idx = np.empty((n, c, 2, 2), np.int64)
    for i in range(2):
        for j in range(2):
            di, dj = rng.integers(0, 2, size=(n, c)), rng.integers(0, 2, size=(n, c))
            idx[:, :, i, j] = (2 * i + di) * 4 + 2 * j + dj
    return [x, idx]


def _unpool_ref(x, idx):
    n, c = x.shape[:2]
    out = np.zeros((n, c, 16), x.dtype)
    for a in range(n):
        for b in range(c):
            out[a, b, idx[a, b].reshape(-1)] = x[a, b].reshape(-1)
    return out.reshape(n, c, 4, 4)


def _cosine_similarity_ref(a, b):
    return np.sum(a * b, 1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-8)


def _kl_inputs(rng, dtype, shapes):
    """Log-probabilities and targets with zeros and negatives (which MindSpore 2.10 leaves out of the loss)."""
    t = rng.uniform(-0.5, 1.0, size=shapes[1])
    t[t < 0.1] = np.where(t[t < 0.1] < -0.2, t[t < 0.1], 0.0)
    return [np.log(rng.uniform(0.1, 1.0, size=shapes[0])).astype(dtype), t.astype(dtype)]


def _distinct(rng, dtype, shapes):
    """Values with no ties (a permutation scaled), so orderings and kinks are away from the inputs."""
    out = []
    for s in shapes:
        n = int(np.prod(s))
        out.append((rng.permutation(n).reshape(s) * 0.37 - n * 0.15 + rng.uniform(0, 0.1, size=s)).astype(dtype))
    return out


R = OpRecord


def _affine_ref(theta):
    h, w = 3, 4
    xs = np.linspace(-1, 1, w) * (w - 1) / w
    ys = np.linspace(-1, 1, h) * (h - 1) / h
    gy, gx = np.meshgrid(ys, xs, indexing="ij")
    base = np.stack([gx, gy, np.ones_like(gx)], -1).reshape(-1, 3)
    return (base @ np.swapaxes(theta, -1, -2)).reshape(theta.shape[0], h, w, 2).astype(theta.dtype)


def _stft_ref(x):
    n_fft, hop = 8, 2
    sig = np.pad(x, (n_fft // 2, n_fft // 2), mode="reflect")
    frames = np.stack([sig[i * hop : i * hop + n_fft] for i in range(1 + (len(sig) - n_fft) // hop)])
    return np.fft.rfft(frames, axis=-1).T.astype(np.complex64)


def _mlml_ref(x, t):
    out = []
    for row, tgt in zip(x, t):
        labels = []
        for v in tgt:
            if v < 0:
                break
            labels.append(int(v))
        others = [j for j in range(len(row)) if j not in labels]
        out.append(sum(max(0.0, 1 - (row[i] - row[j])) for i in labels for j in others) / len(row))
    return np.float32(np.mean(out)) if x.dtype == np.float32 else np.mean(out)


def _mlml_inputs(rng, dtype, shapes):
    x = _distinct(rng, dtype, [shapes[0]])[0]
    return [x, np.array([[3, 0, -1, 1], [1, 2, 3, -1]], np.int64)]


CONV = [
    OpRecord("conv1d", lambda x, w, b: ops.conv1d(x, w, b, stride=2, pad_mode="pad", padding=1),
             lambda x, w, b: np_conv(x, w, b, stride=2, pads=1), shapes=((2, 3, 7), (4, 3, 3), (4,)),
             cases=(((1, 3, 6), (4, 3, 1, 3), (4,)),), dtypes=F32),
    OpRecord("conv1d_same_dilated", lambda x, w: ops.conv1d(x, w, pad_mode="same", dilation=2),
             lambda x, w: np_conv(x, w, mode="same", dilation=2), shapes=((1, 2, 8), (3, 2, 3))),
    OpRecord("conv2d", lambda x, w, b: ops.conv2d(x, w, b), lambda x, w, b: np_conv(x, w, b, mode="valid"),
             shapes=((2, 3, 5, 5), (2, 3, 3, 3), (2,)), dtypes=F32_16),
    OpRecord("conv2d_same_stride2", lambda x, w: ops.conv2d(x, w, stride=2, pad_mode="same"),
             lambda x, w: np_conv(x, w, stride=2, mode="same"), shapes=((1, 2, 6, 5), (3, 2, 3, 2))),
    OpRecord("conv2d_pad_dilation_groups",
             lambda x, w: ops.conv2d(x, w, stride=(1, 2), pad_mode="pad", padding=(1, 0, 2, 1), dilation=(2, 1),
                                     groups=2),
             lambda x, w: np_conv(x, w, stride=(1, 2), pads=[(1, 0), (2, 1)], dilation=(2, 1), groups=2),
             shapes=((1, 4, 6, 5), (4, 2, 2, 3))),
    OpRecord("conv3d", lambda x, w, b: ops.conv3d(x, w, b, pad_mode="pad", padding=1, stride=2),
             lambda x, w, b: np_conv(x, w, b, stride=2, pads=1), shapes=((1, 2, 4, 3, 3), (2, 2, 2, 2, 2), (2,))),
    OpRecord("conv_transpose1d", lambda x, w, b: ops.conv_transpose1d(x, w, b, stride=2, padding=1,
                                                                      output_padding=1),
             lambda x, w, b: np_conv_transpose(x, w, b, stride=2, pad=1, output_padding=1),
             shapes=((2, 3, 4), (3, 2, 3), (2,))),
    OpRecord("conv_transpose2d", lambda x, w: ops.conv_transpose2d(x, w, stride=(2, 1), padding=(1, 0), dilation=2),
             lambda x, w: np_conv_transpose(x, w, stride=(2, 1), pad=(1, 0), dilation=2),
             shapes=((1, 2, 3, 3), (2, 3, 2, 2)), dtypes=F32),
    OpRecord("conv_transpose2d_groups", lambda x, w, b: ops.conv_transpose2d(x, w, b, stride=2, groups=2),
             lambda x, w, b: np_conv_transpose(x, w, b, stride=2, groups=2), shapes=((1, 4, 2, 3), (4, 1, 3, 2), (2,))),
    OpRecord("conv_transpose3d", lambda x, w: ops.conv_transpose3d(x, w, stride=2, padding=1),
             lambda x, w: np_conv_transpose(x, w, stride=2, pad=1), shapes=((1, 2, 2, 2, 3), (2, 1, 3, 3, 2))),
]  # fmt: skip


POOL = [
    OpRecord("max_pool1d", lambda x: ops.max_pool1d(x, 3, 2, 1), lambda x: np_max_pool(x, (3,), (2,), 1),
             shapes=((2, 3, 9),), cases=(((3, 8),),)),
    OpRecord("max_pool2d", lambda x: ops.max_pool2d(x, 2), lambda x: np_max_pool(x, (2, 2)),
             shapes=((2, 2, 5, 6),), cases=(((3, 4, 4),),), dtypes=F32_16),
    OpRecord("max_pool2d_pad_ceil_dilation", lambda x: ops.max_pool2d(x, 3, 2, 1, dilation=(1, 2), ceil_mode=True),
             lambda x: np_max_pool(x, (3, 3), (2, 2), 1, (1, 2), ceil=True), shapes=((1, 2, 6, 7),)),
    OpRecord("max_pool2d_indices", lambda x: ops.max_pool2d(x, 3, 2, 1, return_indices=True),
             lambda x: np_max_pool(x, (3, 3), (2, 2), 1, with_index=True), shapes=((2, 2, 5, 6),)),
    OpRecord("max_pool3d", lambda x: ops.max_pool3d(x, 2, (1, 2, 2), ceil_mode=True),
             lambda x: np_max_pool(x, (2, 2, 2), (1, 2, 2), ceil=True), shapes=((1, 2, 3, 5, 4),)),
    OpRecord("avg_pool1d", lambda x: ops.avg_pool1d(x, 3, 2, 1), lambda x: np_avg_pool(x, (3,), (2,), 1),
             shapes=((2, 3, 8),)),
    OpRecord("avg_pool2d", lambda x: ops.avg_pool2d(x, 2, 2), lambda x: np_avg_pool(x, (2, 2)),
             shapes=((2, 2, 4, 6),), cases=(((2, 5, 5),),), dtypes=F32_16),
    OpRecord("avg_pool2d_ceil_pad", lambda x: ops.avg_pool2d(x, 3, 2, 1, ceil_mode=True),
             lambda x: np_avg_pool(x, (3, 3), (2, 2), 1, ceil=True), shapes=((1, 2, 6, 6),)),
    OpRecord("avg_pool2d_exclude_pad", lambda x: ops.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
             lambda x: np_avg_pool(x, (3, 3), (2, 2), 1, ceil=True, include_pad=False), shapes=((1, 2, 6, 5),)),
    OpRecord("avg_pool2d_divisor", lambda x: ops.avg_pool2d(x, 2, 1, divisor_override=3),
             lambda x: np_avg_pool(x, (2, 2), (1, 1), divisor=3), shapes=((1, 1, 3, 4),), grad=False),
    OpRecord("avg_pool3d", lambda x: ops.avg_pool3d(x, 2, 2, 1, count_include_pad=False),
             lambda x: np_avg_pool(x, (2, 2, 2), (2, 2, 2), 1, include_pad=False), shapes=((1, 1, 3, 4, 4),)),
    OpRecord("adaptive_avg_pool1d", lambda x: ops.adaptive_avg_pool1d(x, 3), lambda x: np_adaptive(x, (3,), "avg"),
             shapes=((2, 3, 7),), cases=(((2, 3, 6),),)),
    OpRecord("adaptive_avg_pool2d", lambda x: ops.adaptive_avg_pool2d(x, (3, 2)),
             lambda x: np_adaptive(x, (3, 2), "avg"), shapes=((2, 2, 5, 4),), cases=(((2, 7, 6),),)),
    OpRecord("adaptive_avg_pool2d_none", lambda x: ops.adaptive_avg_pool2d(x, (None, 2)),
             lambda x: np_adaptive(x, (x.shape[-2], 2), "avg"), shapes=((1, 2, 3, 5),), grad=False),
    OpRecord("adaptive_max_pool1d", lambda x: ops.adaptive_max_pool1d(x, 4), lambda x: np_adaptive(x, (4,), "max")[0],
             shapes=((2, 3, 7),)),
    OpRecord("adaptive_max_pool2d", lambda x: ops.adaptive_max_pool2d(x, (3, 2), return_indices=True),
             lambda x: np_adaptive(x, (3, 2), "max"), shapes=((2, 2, 5, 5),), cases=(((2, 4, 4),),)),
    OpRecord("adaptive_avg_pool3d", lambda x: ops.adaptive_avg_pool3d(x, (2, 3, 1)),
             lambda x: np_adaptive(x, (2, 3, 1), "avg"), shapes=((1, 2, 3, 4, 3),)),
]  # fmt: skip


NORM = [
    OpRecord("batch_norm_eval", lambda x, m, v, w, b: ops.batch_norm(x, m, v, w, b, training=False),
             lambda x, m, v, w, b: np_batch_norm(x, m, v, w, b, False), shapes=((3, 2, 2, 2), (2,), (2,), (2,), (2,)),
             extra={"make_inputs": _bn_eval_inputs, "grad_positions": (0, 3, 4)}),  # running stats: no gradient
    OpRecord("batch_norm_train", lambda x, w, b: ops.batch_norm(x, ops.zeros_like(w), ops.ones_like(w), w, b,
                                                                training=True, eps=1e-3),
             lambda x, w, b: np_batch_norm(x, None, None, w, b, True, eps=1e-3),
             shapes=((4, 2, 2), (2,), (2,)), dtypes=F32_16,
             rtol=1e-4, atol=1e-4, extra={"grad_positions": (0, 1, 2)}),
    OpRecord("layer_norm", lambda x, w, b: ops.layer_norm(x, (3, 4), w, b), lambda x, w, b: np_layer_norm(x, 2, w, b),
             shapes=((2, 3, 4), (3, 4), (3, 4)), dtypes=F32_16, rtol=1e-4, atol=1e-4),
    OpRecord("layer_norm_no_affine", lambda x: ops.layer_norm(x, 5, eps=1e-3), lambda x: np_layer_norm(x, 1, eps=1e-3),
             shapes=((3, 5),), rtol=1e-4, atol=1e-4),
    OpRecord("group_norm", lambda x, w, b: ops.group_norm(x, 2, w, b), lambda x, w, b: np_group_norm(x, 2, w, b),
             shapes=((2, 4, 2, 2), (4,), (4,)), rtol=1e-4, atol=1e-4),
    OpRecord("InstanceNorm", lambda x, w, b: ops.InstanceNorm()(x, w, b, ops.zeros_like(w), ops.ones_like(w))[0],
             lambda x, w, b: np_group_norm(x, x.shape[1], w, b), shapes=((2, 3, 4, 2), (3,), (3,)),
             cases=(((2, 3, 5), (3,), (3,)),), rtol=1e-4, atol=1e-4),  # one group per channel
    OpRecord("normalize", lambda x: ops.normalize(x, dim=-1),
             lambda x: x / np.maximum(np.sqrt((x * x).sum(-1, keepdims=True)), 1e-12), shapes=((3, 4),)),
    OpRecord("normalize_p1", lambda x: ops.normalize(x, p=1.0, dim=0),
             lambda x: x / np.maximum(np.abs(x).sum(0, keepdims=True), 1e-12), shapes=((3, 4),), domain=(0.1, 2.0)),
]  # fmt: skip


BASIC = [
    OpRecord("dense", ops.dense, lambda x, w, b: x @ w.T + b, shapes=((2, 3, 4), (5, 4), (5,)),
             cases=(((4,), (2, 4), (2,)),), dtypes=F32),
    OpRecord("dense_no_bias", lambda x, w: ops.dense(x, w), lambda x, w: x @ w.T, shapes=((3, 4), (2, 4)), grad=False),
    OpRecord("embedding", lambda i, w: ops.embedding(i, w), lambda i, w: w[i], shapes=((2, 3), (5, 4)),
             int_inputs=(0,), int_high=5),
    OpRecord("embedding_padding_idx", lambda i, w: ops.embedding(i, w, padding_idx=1), lambda i, w: w[i],
             shapes=((6,), (3, 2)), int_inputs=(0,), int_high=3, grad=False),
    OpRecord("prelu", ops.prelu, lambda x, w: np.where(x >= 0, x, w.reshape(1, -1, 1) * x).astype(x.dtype),
             shapes=((2, 3, 4), (3,)), cases=(((2, 3, 4), (1,)),)),
    OpRecord("prelu_scalar_x", ops.prelu, lambda x, w: np.where(x > 0, x, w.reshape(()) * x).astype(x.dtype),
             shapes=((), (1,))),
    OpRecord("hardtanh", lambda x: ops.hardtanh(x, -0.5, 1.0), lambda x: np.clip(x, -0.5, 1.0), shapes=((3, 5),),
             extra={"make_inputs": lambda rng, dt, s: [(rng.uniform(-2, 2, s[0]) // 0.1 * 0.1 + 0.05).astype(dt)]}),
]  # fmt: skip


LOSS = [
    OpRecord("cross_entropy", lambda x, t: ops.cross_entropy(x, t), lambda x, t: np_class_loss(lsm(x), t),
             shapes=((4, 3), (4,)), cases=(((2, 3, 2, 2), (2, 2, 2)), ((3,), ())), int_inputs=(1,), int_high=3),
    OpRecord("cross_entropy_weight_ignore_smooth",
             lambda x, t, w: ops.cross_entropy(x, t, w, ignore_index=-100, label_smoothing=0.2),
             lambda x, t, w: np_class_loss(lsm(x), t, w, smoothing=0.2),
             shapes=((5, 4), (5,), (4,)), cases=(((2, 4, 3), (2, 3), (4,)),),
             extra={"make_inputs": logits_and_labels(4, ignore=-100, extra=((0.5, 2.0),)), "grad_positions": (0,)}),
    OpRecord("cross_entropy_none", lambda x, t: ops.cross_entropy(x, t, reduction="none", ignore_index=2),
             lambda x, t: np_class_loss(lsm(x), t, ignore=2, reduction="none"),
             shapes=((6, 3), (6,)), int_inputs=(1,), int_high=3, grad=False),
    OpRecord("cross_entropy_sum_smooth", lambda x, t: ops.cross_entropy(x, t, reduction="sum", label_smoothing=0.1),
             lambda x, t: np_class_loss(lsm(x), t, reduction="sum", smoothing=0.1),
             shapes=((4, 5), (4,)), int_inputs=(1,), int_high=5),
    OpRecord("cross_entropy_probs", lambda x, t, w: ops.cross_entropy(x, t, w, label_smoothing=0.3),
             lambda x, t, w: np_class_loss(lsm(x), t, w, smoothing=0.3),
             shapes=((3, 4), (3, 4), (4,)), extra={"make_inputs": floats((-2, 2), (0, 1), (0.5, 2))}),
    OpRecord("nll_loss", lambda x, t, w: ops.nll_loss(x, t, w, ignore_index=1),
             lambda x, t, w: np_class_loss(x, t, w, ignore=1), shapes=((5, 3), (5,), (3,)),
             extra={"make_inputs": logits_and_labels(3, extra=((0.5, 2.0),)), "grad_positions": (0,)}),
    OpRecord("nll_loss_none_smooth", lambda x, t: ops.nll_loss(x, t, reduction="none", label_smoothing=0.1),
             lambda x, t: np_class_loss(x, t, reduction="none", smoothing=0.1), shapes=((2, 3, 2), (2, 2)),
             int_inputs=(1,), int_high=3),
    OpRecord("binary_cross_entropy", lambda p, y, w: ops.binary_cross_entropy(p, y, w),
             lambda p, y, w: np_reduce(_bce(p, y, w), "mean", p.dtype), shapes=((3, 4), (3, 4), (4,)),
             domain=(0.05, 0.95)),
    OpRecord("binary_cross_entropy_none", lambda p, y: ops.binary_cross_entropy(p, y, reduction="none"),
             lambda p, y: _bce(p, y).astype(p.dtype), shapes=((5,), (5,)), domain=(0.05, 0.95), grad=False),
    OpRecord("binary_cross_entropy_with_logits",
             lambda x, y, w, pw: ops.binary_cross_entropy_with_logits(x, y, w, pw, reduction="sum"),
             lambda x, y, w, pw: np_reduce(_bce_logits(x, y, w, pw), "sum", x.dtype),
             shapes=((3, 4), (3, 4), (3, 4), (4,)), extra={"make_inputs": floats((-3, 3), (0, 1), (0.5, 2), (0.5, 2))}),
    OpRecord("binary_cross_entropy_with_logits_plain", lambda x, y: ops.binary_cross_entropy_with_logits(x, y),
             lambda x, y: np_reduce(_bce_logits(x, y), "mean", x.dtype), shapes=((6,), (6,)),
             extra={"make_inputs": floats((-3, 3), (0, 1))}),
    OpRecord("mse_loss", ops.mse_loss, lambda x, y: np_reduce((x - y) ** 2, "mean", x.dtype),
             shapes=((3, 4), (3, 4)), cases=(((2, 3), (3,)),), dtypes=F32),
    OpRecord("mse_loss_none", lambda x, y: ops.mse_loss(x, y, "none"), lambda x, y: ((x - y) ** 2).astype(x.dtype),
             shapes=((3, 1), (1, 4)), grad=False),
    OpRecord("l1_loss", lambda x, y: ops.l1_loss(x, y, "sum"), lambda x, y: np_reduce(np.abs(x - y), "sum", x.dtype),
             shapes=((3, 4), (3, 4))),
    OpRecord("smooth_l1_loss", lambda x, y: ops.smooth_l1_loss(x, y, beta=0.5), lambda x, y: _smooth_l1(x, y, 0.5),
             shapes=((3, 4), (3, 4))),
    OpRecord("smooth_l1_loss_mean", lambda x, y: ops.smooth_l1_loss(x, y, reduction="mean"),
             lambda x, y: np_reduce(_smooth_l1(x, y, 1.0), "mean", x.dtype), shapes=((5,), (5,)), grad=False),
    OpRecord("kl_div", lambda x, y: ops.kl_div(x, y), lambda x, y: np_reduce(y * (np.log(y) - x), "mean", x.dtype),
             shapes=((3, 4), (3, 4)), extra={"make_inputs": floats((-2, 0), (0.05, 1))}),
    OpRecord("kl_div_batchmean", lambda x, y: ops.kl_div(x, y, "batchmean"),
             lambda x, y: np.asarray((y * (np.log(y) - x)).sum() / x.shape[0], x.dtype), shapes=((3, 4), (3, 4)),
             extra={"make_inputs": floats((-2, 0), (0.05, 1))}, grad=False),
]  # fmt: skip


RESIZE = [
    OpRecord("interpolate_nearest", lambda x: ops.interpolate(x, size=(5, 7)),
             lambda x: np_resize(x, (5, 7), "nearest"), shapes=((1, 2, 3, 5),), cases=(((2, 1, 6, 4),),)),
    OpRecord("interpolate_bilinear", lambda x: ops.interpolate(x, size=(5, 3), mode="bilinear"),
             lambda x: np_resize(x, (5, 3), "linear").astype(x.dtype), shapes=((1, 2, 3, 5),), dtypes=F32_16),
    OpRecord("interpolate_bilinear_align",
             lambda x: ops.interpolate(x, size=(5, 8), mode="bilinear", align_corners=True),
             lambda x: np_resize(x, (5, 8), "linear", True).astype(x.dtype), shapes=((1, 1, 3, 5),)),
    OpRecord("interpolate_linear_scale", lambda x: ops.interpolate(x, scale_factor=1.7, mode="linear"),
             lambda x: np_resize(x, (6,), "linear", factors=(1.7,)).astype(x.dtype), shapes=((2, 2, 4),)),
    OpRecord("interpolate_trilinear", lambda x: ops.interpolate(x, size=(3, 2, 4), mode="trilinear"),
             lambda x: np_resize(x, (3, 2, 4), "linear").astype(x.dtype), shapes=((1, 1, 2, 3, 3),)),
]  # fmt: skip


PRIMITIVE_CLASSES = [
    OpRecord("Conv2D_class", lambda x, w: ops.Conv2D(3, (3, 2), pad_mode="pad", pad=(1, 0, 1, 1), stride=2)(x, w),
             lambda x, w: np_conv(x, w, stride=2, pads=[(1, 0), (1, 1)]), shapes=((1, 2, 5, 5), (3, 2, 3, 2)),
             grad=False),
    OpRecord("Conv2DTranspose_class",
             lambda d, w: ops.Conv2DTranspose(2, 3, pad_mode="pad", pad=1, stride=2)(d, w, (1, 2, 5, 5)),
             lambda d, w: np_conv_transpose(d, w, stride=2, pad=1), shapes=((1, 3, 3, 3), (3, 2, 3, 3)), grad=False),
    OpRecord("MaxPool_class", lambda x: ops.MaxPool(3, 2, "same")(x),
             lambda x: np_max_pool(np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=-9.0), (3, 3), (2, 2)),
             shapes=((1, 2, 5, 5),), grad=False),
    OpRecord("AvgPool3D_class", lambda x: ops.AvgPool3D(2, 2, "pad", 1, count_include_pad=False)(x),
             lambda x: np_avg_pool(x, (2, 2, 2), (2, 2, 2), 1, include_pad=False), shapes=((1, 1, 3, 4, 4),),
             grad=False),
    OpRecord("AdaptiveMaxPool2D_class", lambda x: ops.AdaptiveMaxPool2D((2, 3))(x),
             lambda x: np_adaptive(x, (2, 3), "max"), shapes=((1, 2, 5, 5),), grad=False),
    OpRecord("BatchNorm_class_training", lambda x, g, b, m, v: ops.BatchNorm(True, 1e-5, 0.1)(x, g, b, m, v),
             _np_bn_prim, shapes=((4, 2, 2, 2), (2,), (2,), (2,), (2,)), rtol=1e-4, atol=1e-4, grad=False,
             extra={"make_inputs": _bn_prim_inputs}),
    OpRecord("LayerNorm_class", lambda x, g, b: ops.LayerNorm(1, 1, 1e-5)(x, g, b),
             lambda x, g, b: (np_layer_norm(x, 2, g, b), x.mean((1, 2), keepdims=True), x.var((1, 2), keepdims=True)),
             shapes=((3, 2, 4), (2, 4), (2, 4)), rtol=1e-4, atol=1e-4),
    # grad=False: its derivative is MindSpore's rule (the backprop output times dloss, none for the labels), not
    # the finite differences of its outputs; tests/nn/test_losses.py checks that rule against NumPy
    OpRecord("SoftmaxCrossEntropyWithLogits_class", lambda x, y: ops.SoftmaxCrossEntropyWithLogits()(x, y),
             lambda x, y: (-(np_log_softmax(x, 1) * y).sum(1), np.exp(np_log_softmax(x, 1)) - y),
             shapes=((3, 4), (3, 4)), grad=False, extra={"make_inputs": floats((-2, 2), (0, 1))}),
    OpRecord("SparseSoftmaxCrossEntropyWithLogits_grad",
             lambda x, t: ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(x, t),
             lambda x, t: (np.exp(np_log_softmax(x, 1)) - np.eye(4)[t]) / 3, shapes=((3, 4), (3,)),
             int_inputs=(1,), int_high=4, grad=False, extra={"int_dtype": np.int32, "ref_dtype": "input"}),
    OpRecord("L2Normalize_class", lambda x: ops.L2Normalize(axis=1, epsilon=1e-4)(x),
             lambda x: x / np.sqrt(np.maximum((x * x).sum(1, keepdims=True), 1e-4)), shapes=((3, 4),)),
]  # fmt: skip


DIVERGENCE_LOSSES = [
    OpRecord("margin_ranking_loss", lambda a, b, y: ops.margin_ranking_loss(a, b, y, 0.3),
             lambda a, b, y: np.mean(np.maximum(0, -y * (a - b) + 0.3)), shapes=((4, 5), (4, 5), (4, 5)),
             extra={"make_inputs": _signs, "grad_positions": (0, 1), "check_dtype": False}),
    OpRecord("hinge_embedding_loss", lambda x, y: ops.hinge_embedding_loss(x, y, 0.5, "none"),
             lambda x, y: np.where(y == 1, x, np.maximum(0, 0.5 - x)).astype(x.dtype), shapes=((4, 5), (4, 5)),
             extra={"make_inputs": _signs, "grad_positions": (0,)}),
    OpRecord("gaussian_nll_loss_full", lambda x, t, v: ops.gaussian_nll_loss(x, t, v, full=True),
             lambda x, t, v: np.mean(0.5 * (np.log(v) + (x - t) ** 2 / v) + 0.5 * np.log(2 * np.pi)),
             shapes=((4, 5), (4, 5), (4, 5)), extra={"make_inputs": _gaussian_inputs, "check_dtype": False}),
    OpRecord("multilabel_soft_margin_loss", lambda x, y: ops.multilabel_soft_margin_loss(x, y, reduction="none"),
             lambda x, y: np.mean(y * _softplus(-x) + (1 - y) * _softplus(x), -1).astype(x.dtype),
             shapes=((4, 5), (4, 5)), extra={"make_inputs": _multilabel_inputs, "grad_positions": (0,)}),
    OpRecord("soft_margin_loss", lambda x, y: ops.soft_margin_loss(x, y, "sum"),
             lambda x, y: np.sum(_softplus(-y * x)), shapes=((4, 5), (4, 5)),
             extra={"make_inputs": _signs, "grad_positions": (0,), "check_dtype": False}),
    OpRecord("cosine_embedding_loss", lambda a, b, y: ops.cosine_embedding_loss(a, b, y, 0.2), _cosine_ref,
             shapes=((4, 5), (4, 5), (4,)), extra={"make_inputs": _cosine_inputs, "check_dtype": False}),
    OpRecord("huber_loss", lambda x, y: ops.huber_loss(x, y, delta=0.7), _huber_ref, shapes=((4, 5), (4, 5)),
             extra={"check_dtype": False}),
    OpRecord("poisson_nll_loss_full", lambda x, t: ops.poisson_nll_loss(x, t, full=True), _poisson_ref,
             shapes=((4, 5), (4, 5)), extra={"make_inputs": _poisson_inputs, "check_dtype": False}),
    OpRecord("triplet_margin_loss_swap", lambda a, p, n: ops.triplet_margin_loss(a, p, n, margin=0.8, swap=True),
             _triplet_ref, shapes=((4, 5), (4, 5), (4, 5)), extra={"check_dtype": False}),
    OpRecord("multi_margin_loss_p2", lambda x, y: ops.multi_margin_loss(x, y, p=2, margin=0.9), _multi_margin_ref,
             shapes=((4, 5), (4,)), extra={"make_inputs": _multi_margin_inputs, "check_dtype": False}),
    OpRecord("ctc_loss", lambda lp, tg: ops.ctc_loss(lp, tg, Tensor(np.array([6, 5])), Tensor(np.array([3, 2])),
                                                     reduction="none")[0],
             _ctc_ref, shapes=((6, 2, 4), (2, 3)), rtol=1e-4,
             extra={"make_inputs": _ctc_inputs, "grad_positions": (0,)}),
]  # fmt: skip


KL_DIV = [
    OpRecord("kl_div_nonpositive_target", lambda x, y: ops.kl_div(x, y, "none"),
             lambda x, y: np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0).astype(x.dtype),
             shapes=((3, 4), (3, 4)), extra={"make_inputs": _kl_inputs, "grad_positions": (0,)}),
]  # fmt: skip


LAYERS = [
    OpRecord("pixel_shuffle", lambda x: ops.pixel_shuffle(x, 2), _pixel_shuffle_ref, shapes=((2, 8, 3, 4),),
             dtypes=(np.float32, np.int32)),
    OpRecord("pixel_unshuffle", lambda x: ops.pixel_unshuffle(x, 2), _pixel_unshuffle_ref, shapes=((2, 2, 4, 6),)),
    OpRecord("channel_shuffle", lambda x: ops.channel_shuffle(x, 2),
             lambda x: x.reshape(2, 2, 3, 5).swapaxes(1, 2).reshape(2, 6, 5), shapes=((2, 6, 5),)),
    OpRecord("lp_pool1d", lambda x: ops.lp_pool1d(x, 2, 3, 2), _lp_pool1d_ref, shapes=((2, 3, 7),),
             extra={"make_inputs": _positive}),
    OpRecord("lp_pool2d", lambda x: ops.lp_pool2d(x, 3, 2),
             lambda x: (x**3).reshape(1, 2, 2, 2, 3, 2).sum((3, 5)) ** (1 / 3), shapes=((1, 2, 4, 6),),
             extra={"make_inputs": _positive}),
    OpRecord("max_unpool2d", lambda x, i: ops.max_unpool2d(x, i, 2, 2), _unpool_ref, shapes=((2, 3, 2, 2), (2, 3)),
             extra={"make_inputs": _unpool_inputs, "grad_positions": (0,)}),
    OpRecord("glu", lambda x: ops.glu(x, 1), lambda x: x[:, :3] / (1 + np.exp(-x[:, 3:])), shapes=((2, 6, 4),)),
    OpRecord("threshold", lambda x: ops.threshold(x, 0.1, 20.0), lambda x: np.where(x > 0.1, x, 20.0).astype(x.dtype),
             shapes=((3, 4),)),
    OpRecord("cosine_similarity", lambda a, b: ops.cosine_similarity(a, b), _cosine_similarity_ref,
             shapes=((2, 5, 3), (2, 5, 3))),
    OpRecord("dropout2d_eval", lambda x: ops.dropout2d(x, 0.5, training=False), lambda x: x, shapes=((2, 3, 4, 4),),
             grad=False),
]  # fmt: skip


LAYER_CLASSES = [
    R(
        "fold_unfold",
        lambda x: ops.fold(ops.unfold(x, 2, stride=2), (4, 4), 2, stride=2),
        lambda x: x,
        shapes=((1, 2, 4, 4),),
    ),  # fmt: skip
    R("affine_grid", lambda t: ops.affine_grid(t, (1, 1, 3, 4)), _affine_ref, shapes=((1, 2, 3),)),
    R(
        "bidense",
        ops.bidense,
        lambda a, b, w, c: np.einsum("ni,oij,nj->no", a, w, b) + c,
        shapes=((2, 3), (2, 4), (5, 3, 4), (5,)),
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R(
        "matrix_diag",
        lambda x: ops.matrix_diag(x, -1),
        lambda x: np.stack([np.diag(r, -1) for r in x]),
        shapes=((2, 3),),
    ),  # fmt: skip
    R(
        "stft",
        lambda x: ops.stft(x, 8, 2, return_complex=True),
        _stft_ref,
        shapes=((16,),),
        grad=False,
        rtol=1e-5,
        atol=1e-5,
    ),  # fmt: skip
    R(
        "multilabel_margin_loss",
        ops.multilabel_margin_loss,
        _mlml_ref,
        shapes=((2, 4),),
        extra={"make_inputs": _mlml_inputs},
    ),  # fmt: skip
    R(
        "rms_norm",
        lambda x, g: ops.RmsNorm(1e-6)(x, g),
        lambda x, g: (
            x / np.sqrt(np.mean(x**2, -1, keepdims=True) + 1e-6) * g,
            1 / np.sqrt(np.mean(x**2, -1, keepdims=True) + 1e-6),
        ),
        shapes=((2, 4), (4,)),
        rtol=1e-5,
    ),  # fmt: skip
]  # fmt: skip


RECORDS: list[OpRecord] = [
    *CONV,
    *POOL,
    *NORM,
    *BASIC,
    *LOSS,
    *RESIZE,
    *PRIMITIVE_CLASSES,
    *DIVERGENCE_LOSSES,
    *KL_DIV,
    *LAYERS,
    *LAYER_CLASSES,
]
