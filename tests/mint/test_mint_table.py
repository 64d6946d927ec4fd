"""Kiln's `mint` against NumPy / SciPy / JAX references, for the cases of `cases.py` that MindSpore's CPU build
cannot run (their kernels are Ascend-only, so there is no golden), plus gradient checks.

`REFS[name](*arrays)` is the reference of case `name` (same inputs as `cases.make_inputs` gives). Names in `GRAD`
also get a gradient check: `kiln.grad` of sum(output * cotangent) with respect to every float input, at float64,
against central finite differences of the same Kiln call.
"""

from __future__ import annotations

import zlib

import jax
import numpy as np
import pytest
import scipy.linalg
import scipy.special

import kiln
from kiln import mint
from tests.mint.cases import CASES, make_inputs

_CASES = {c[0]: c for c in CASES}


# ---------------------------------------------------------------------------------------------- references
def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _log_softmax(x, axis):
    s = x - x.max(axis=axis, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=axis, keepdims=True))


def _conv(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    nd = x.ndim - 2
    stride, dilation = (stride,) * nd if isinstance(stride, int) else stride, (dilation,) * nd
    if isinstance(padding, str):
        pad = padding.upper()
    else:
        p = (padding,) * nd if isinstance(padding, int) else padding
        pad = [(q, q) for q in p]
    out = np.asarray(jax.lax.conv_general_dilated(x, w, stride, pad, rhs_dilation=dilation,
                                                  feature_group_count=groups))  # fmt: skip
    return out if b is None else out + b.reshape((1, -1) + (1,) * nd)


def _conv_transpose2d(x, w, b, stride, padding, output_padding):
    # PyTorch's definition: scatter-add of x[n, ci, i, j] * w[ci, co] at (i * stride - padding, ...)
    n, ci, h, wd = x.shape
    co, kh, kw = w.shape[1], w.shape[2], w.shape[3]
    ho = (h - 1) * stride - 2 * padding + kh + output_padding
    wo = (wd - 1) * stride - 2 * padding + kw + output_padding
    full = np.zeros((n, co, (h - 1) * stride + kh + output_padding, (wd - 1) * stride + kw + output_padding))
    for i in range(h):
        for j in range(wd):
            full[:, :, i * stride : i * stride + kh, j * stride : j * stride + kw] += np.einsum(
                "nc,cokl->nokl", x[:, :, i, j], w
            )
    return full[:, :, padding : padding + ho, padding : padding + wo] + b.reshape(1, -1, 1, 1)


def _unfold(x, k, dilation=1, padding=0, stride=1):
    kh, kw = (k, k) if isinstance(k, int) else k
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    n, c, h, w = xp.shape
    oh = (h - dilation * (kh - 1) - 1) // stride + 1
    ow = (w - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, c, kh, kw, oh, ow), x.dtype)
    for i in range(kh):
        for j in range(kw):
            for a in range(oh):
                for b in range(ow):
                    out[:, :, i, j, a, b] = xp[:, :, a * stride + i * dilation, b * stride + j * dilation]
    return out.reshape(n, c * kh * kw, oh * ow)


def _fold(cols, size, k, padding=0, stride=1):
    kh, kw = (k, k) if isinstance(k, int) else k
    n = cols.shape[0]
    c = cols.shape[1] // (kh * kw)
    h, w = size[0] + 2 * padding, size[1] + 2 * padding
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    blocks = cols.reshape(n, c, kh, kw, oh, ow)
    out = np.zeros((n, c, h, w), cols.dtype)
    for i in range(kh):
        for j in range(kw):
            for a in range(oh):
                for b in range(ow):
                    out[:, :, a * stride + i, b * stride + j] += blocks[:, :, i, j, a, b]
    return out[:, :, padding : padding + size[0], padding : padding + size[1]]


def _pool(x, k, stride, padding, op, count_include_pad=True):
    nd = x.ndim - 2
    k, stride, padding = ((v,) * nd if isinstance(v, int) else tuple(v) for v in (k, stride, padding))
    dims, strides = (1, 1) + k, (1, 1) + stride
    pads = ((0, 0), (0, 0)) + tuple((p, p) for p in padding)
    if op == "max":
        return np.asarray(jax.lax.reduce_window(x, -np.inf, jax.lax.max, dims, strides, pads))
    s = np.asarray(jax.lax.reduce_window(x, 0.0, jax.lax.add, dims, strides, pads))
    if count_include_pad:
        return s / np.prod(k)
    cnt = np.asarray(jax.lax.reduce_window(np.ones_like(x), 0.0, jax.lax.add, dims, strides, pads))
    return s / cnt


def _adaptive(x, out, op):
    nd = len(out)
    sizes = x.shape[-nd:]
    res = np.zeros(x.shape[:-nd] + tuple(out), x.dtype)
    for idx in np.ndindex(*out):
        sl = tuple(slice((i * s) // o, -((-(i + 1) * s) // o)) for i, s, o in zip(idx, sizes, out))
        win = x[(Ellipsis, *sl)]
        res[(Ellipsis, *idx)] = (
            win.max(axis=tuple(range(-nd, 0))) if op == "max" else win.mean(axis=tuple(range(-nd, 0)))
        )
    return res


def _bn(x, mean, var, w, b, eps=1e-5):
    shape = (1, -1) + (1,) * (x.ndim - 2)
    return (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps) * w.reshape(shape) + b.reshape(shape)


def _bn_train(x, eps=1e-5):
    axes = tuple(i for i in range(x.ndim) if i != 1)
    c = x.shape[1]
    return _bn(x, x.mean(axes), x.var(axes), np.ones(c), np.zeros(c), eps)


def _cross_entropy(x, t, w=None, smoothing=0.0):
    logp = _log_softmax(x, 1)
    c = x.shape[1]
    w = np.ones(c) if w is None else w
    nll = -logp[np.arange(len(t)), t] * w[t]
    smooth = -(logp * w).sum(1) / c
    loss = (1 - smoothing) * nll + smoothing * smooth
    return loss.sum() / w[t].sum()


def _unique_all(x):
    u, inv, cnt = np.unique(x, return_inverse=True, return_counts=True)
    return u, inv.reshape(x.shape), cnt


def _kthvalue(x, k, dim, keepdim=False):
    idx = np.argsort(x, axis=dim, kind="stable")
    ik = np.take(idx, [k - 1], axis=dim)
    v = np.take_along_axis(x, ik, axis=dim)
    return (v, ik) if keepdim else (v.squeeze(dim), ik.squeeze(dim))


def _bilinear_ref(x, g, align):
    """PyTorch's bilinear grid_sample, zeros padding, written out element by element."""
    n, c, h, w = x.shape
    out = np.zeros((n, c) + g.shape[1:3], x.dtype)
    for b in range(n):
        for i in range(g.shape[1]):
            for j in range(g.shape[2]):
                gx, gy = g[b, i, j]
                fx = (gx + 1) / 2 * (w - 1) if align else ((gx + 1) * w - 1) / 2
                fy = (gy + 1) / 2 * (h - 1) if align else ((gy + 1) * h - 1) / 2
                x0, y0 = int(np.floor(fx)), int(np.floor(fy))
                for yy, wy in ((y0, 1 - (fy - y0)), (y0 + 1, fy - y0)):
                    for xx, wx in ((x0, 1 - (fx - x0)), (x0 + 1, fx - x0)):
                        if 0 <= yy < h and 0 <= xx < w:
                            out[b, :, i, j] += x[b, :, yy, xx] * wy * wx
    return out


def _gather_stats(x, mean, invstd, counts, eps=1e-5):
    counts = counts + 1.0
    tot = counts.sum()
    gm = (mean * counts[:, None]).sum(0) / tot
    var_i = 1 / invstd**2 - eps
    gv = (counts[:, None] * (var_i + (mean - gm) ** 2)).sum(0) / tot
    return gm, 1 / np.sqrt(gv + eps)


REFS = {
    "acos": np.arccos, "acosh": lambda x: np.arccosh(x + 1.5), "asin": np.arcsin, "asinh": np.arcsinh,
    "atan": np.arctan, "atan2": np.arctan2, "arctan2": np.arctan2, "exp2": np.exp2, "special_exp2": np.exp2,
    "frac": lambda x: x - np.trunc(x), "log10": np.log10, "log2": np.log2, "logaddexp": np.logaddexp,
    "logaddexp2": np.logaddexp2, "round_decimals": lambda x: np.round(x, 2),
    "isneginf": lambda x: np.isneginf(np.log(np.round(x))),
    "clamp_tensor": lambda x, lo: np.minimum(np.maximum(x, lo), 1.0),
    "addcdiv": lambda x, a, b: x + 0.5 * a / b, "addcmul": lambda x, a, b: x + 2 * a * b,
    "bitwise_not": np.invert, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
    "equal": lambda x: np.bool_(True),
    # reductions, scans, sorting
    "argmax": lambda x: np.argmax(x), "argmax_dim": lambda x: np.argmax(x, 1)[:, None],
    "argmin": lambda x: np.argmin(x, 0), "argsort": lambda x: np.argsort(x, 1, kind="stable"),
    "count_nonzero": lambda x: np.count_nonzero(np.round(x)),
    "count_nonzero_dim": lambda x: np.count_nonzero(np.round(x), axis=1),
    "cummin": lambda x: (np.minimum.accumulate(x, 0), _cumarg(x, 0, np.less_equal)),
    "cumsum": lambda x: np.cumsum(x, 1), "cumsum_int": lambda x: np.cumsum(x, 0),
    "logsumexp": lambda x: scipy.special.logsumexp(x, 1),
    "logsumexp_keep": lambda x: scipy.special.logsumexp(x, (0, 1), keepdims=True),
    "median": lambda x: np.sort(x.reshape(-1))[(x.size - 1) // 2],
    "median_dim": lambda x: (np.sort(x, 1)[:, (x.shape[1] - 1) // 2],
                             np.argsort(x, 1, kind="stable")[:, (x.shape[1] - 1) // 2]),
    "nansum": lambda x: np.nansum(np.log(x), 1),
    "norm": lambda x: np.sqrt((x**2).sum()), "norm_p1_dim": lambda x: np.abs(x).sum(1),
    "norm_p3": lambda x: (np.abs(x) ** 3).sum(0, keepdims=True) ** (1 / 3),
    "std": lambda x: x.std(ddof=1), "std_dim": lambda x: x.std(1, keepdims=True),
    "std_mean": lambda x: (x.std(1, ddof=1), x.mean(1)), "var": lambda x: x.var(0, ddof=1),
    "var_mean": lambda x: (x.var(), x.mean()),
    "sort": lambda x: (np.sort(x, -1), np.argsort(x, -1, kind="stable")),
    "sort_desc": lambda x: (-np.sort(-x, 0), np.argsort(-x, 0, kind="stable")),
    "topk": lambda x: (-np.sort(-x, 1)[:, :2], np.argsort(-x, 1, kind="stable")[:, :2]),
    "topk_small": lambda x: (np.sort(x, 0)[:2], np.argsort(x, 0, kind="stable")[:2]),
    "kthvalue": lambda x: _kthvalue(x, 2, 1), "kthvalue_keep": lambda x: _kthvalue(x, 3, 0, True),
    "searchsorted": lambda s, v: np.searchsorted(np.sort(s), v),
    "searchsorted_right": lambda s, v: np.searchsorted(np.sort(s), v, side="right"),
    "unique": np.unique, "unique_all": _unique_all,
    "bincount": lambda x: np.bincount(x).astype(np.int64),
    "bincount_w": lambda x, w: np.bincount(x, w, minlength=7),
    "histc": lambda x: np.histogram(x, 5, (-2, 2))[0].astype(np.float32),
    # shape, indexing, creation
    "stack": lambda x, y: np.stack([x, y], 1), "squeeze": np.squeeze,
    "roll": lambda x: np.roll(x, 1, 1), "roll_flat": lambda x: np.roll(x, 2),
    "repeat_interleave": lambda x: np.repeat(x, 2, 0), "repeat_interleave_flat": lambda x: np.repeat(x, 2),
    "index_select": lambda x, i: x[i], "take": lambda x, i: x.reshape(-1)[i],
    "scatter": lambda x, r, s: _scatter(x, np.argsort(r, 1, kind="stable"), s),
    "scatter_value": lambda x, r: _scatter(x, np.argsort(r, 1, kind="stable"), np.full(x.shape, 2.0, x.dtype)),
    "scatter_add": lambda x, i, s: _scatter_add(x, i, s), "nonzero_tuple": lambda x: np.nonzero(np.round(x)),
    "where_cond": np.nonzero, "tril": lambda x: np.tril(x, -1), "diag_1d": np.diag,
    "diag_1d_offset": lambda x: np.diag(x, 1), "diag_1d_neg": lambda x: np.diag(x, -2),
    "diag_2d": lambda x: np.diag(x, 1), "clone": lambda x: x.copy(), "zeros_like": np.zeros_like,
    "ones_like": np.ones_like, "full": lambda: np.full((2, 3), 1.5, np.float32),
    "full_int": lambda: np.full((2,), 7, np.int64), "full_like": lambda x: np.full_like(x, 2),
    "arange": lambda: np.arange(5), "arange_float": lambda: np.arange(0.5, 3.0, 0.5, dtype=np.float32),
    "arange_step": lambda: np.arange(1, 10, 3), "linspace": lambda: np.linspace(0, 1, 5, dtype=np.float32),
    "empty_shape": lambda: np.zeros((2, 3), np.float32), "empty_like_shape": np.zeros_like,
    # linear algebra
    "mm": np.matmul, "mv": np.matmul, "dot": np.dot, "vdot": np.vdot, "outer": np.outer,
    "einsum": lambda x, y: np.einsum("ij,jk->ik", x, y), "trace": np.trace, "inverse": np.linalg.inv,
    "linalg_inv": np.linalg.inv, "addmm": lambda c, a, b: 0.5 * c + 2 * a @ b, "addmv": lambda c, a, v: 2 * c + a @ v,
    "addbmm": lambda c, a, b: c + (a @ b).sum(0), "baddbmm": lambda c, a, b: c + 0.5 * a @ b,
    "addr_": lambda c, a, b: c + np.outer(a, b),
    "triangular_solve": lambda b, a: (scipy.linalg.solve_triangular(a, b), a),
    "triangular_solve_lower_t": lambda b, a: (scipy.linalg.solve_triangular(a.T, b, trans=1, lower=True), a.T),
    "linalg_norm": lambda x: np.linalg.norm(x), "linalg_norm_ord": lambda x: np.linalg.norm(x, 1, axis=1),
    "linalg_norm_matrix": lambda x: np.linalg.norm(x, "fro"),
    "linalg_vector_norm": lambda x: (np.abs(x) ** 3).sum((0, 1)) ** (1 / 3),
    "linalg_vector_norm_inf": lambda x: np.abs(x).max(),
    "linalg_matrix_norm": lambda x: np.linalg.norm(x, "fro", axis=(-2, -1)),
    "linalg_matrix_norm_1": lambda x: np.linalg.norm(x, 1, axis=(-2, -1))[:, None, None],
    "linalg_qr_r": lambda x: np.abs(np.linalg.qr(x)[1]),
    "conv2d": lambda x, w, b: _conv(x, w, b, padding=1),
    "conv_tbc": lambda x, w, b: _conv(x.transpose(1, 2, 0), w.transpose(2, 1, 0), b, padding=1).transpose(2, 0, 1),
    "batch_norm_stats": lambda x: (x.mean((0, 2)), 1 / np.sqrt(x.var((0, 2)) + 1e-5)),
    "batch_norm_elemt": lambda x, w, b, mu, s: (x - mu[:, None]) * s[:, None] * w[:, None] + b[:, None],
    "batch_norm_gather_stats_with_counts": lambda x, mu, s, c: _gather_stats(x, mu, s, c),
    "special_log_softmax": lambda x: _log_softmax(x, 1),
    # nn.functional
    "F_relu6": lambda x: np.clip(4 * x, 0, 6), "F_elu": lambda x: np.where(x > 0, x, 0.5 * np.expm1(x)),
    "F_gelu": lambda x: x * 0.5 * (1 + scipy.special.erf(x / np.sqrt(2))),
    "F_gelu_tanh": lambda x: np.asarray(jax.nn.gelu(x, approximate=True)),
    "F_hardtanh": lambda x: np.clip(x, -0.5, 0.5), "F_leaky_relu": lambda x: np.where(x > 0, x, 0.01 * x),
    "F_leaky_relu_slope": lambda x: np.where(x > 0, x, 0.2 * x), "F_logsigmoid": lambda x: -np.logaddexp(0, -x),
    "F_threshold": lambda x: np.where(x > 0.1, x, 20.0), "F_log_softmax": lambda x: _log_softmax(x, 1),
    "F_log_softmax_none": lambda x: _log_softmax(x, 1), "F_softmax_none": lambda x: _softmax(x, 0),
    "F_conv1d": lambda x, w, b: _conv(x, w, b, 2, 1), "F_conv2d": lambda x, w: _conv(x, w, None, 1, (1, 2), 1, 2),
    "F_conv2d_same": lambda x, w: _conv(x, w, padding="same"), "F_conv3d": lambda x, w: _conv(x, w, padding=1),
    "F_conv_transpose2d": lambda x, w, b: _conv_transpose2d(x, w, b, 2, 1, 1),
    "F_unfold": lambda x: _unfold(x, (2, 3), 1, 1, 2), "F_unfold_dilation": lambda x: _unfold(x, 2, 2),
    "F_fold": lambda x: _fold(x, (4, 5), 2), "F_fold_stride": lambda x: _fold(x, (5, 5), 3, 1, 2),
    "F_avg_pool1d": lambda x: _pool(x, 3, 2, 1, "avg"), "F_avg_pool2d": lambda x: _pool(x, 2, 2, 0, "avg"),
    "F_avg_pool2d_pad": lambda x: _pool(x, 3, 2, 1, "avg", False), "F_avg_pool3d": lambda x: _pool(x, 2, 2, 0, "avg"),
    "F_max_pool2d": lambda x: _pool(x, 3, 2, 1, "max"),
    "F_adaptive_avg_pool1d": lambda x: _adaptive(x, (3,), "avg"),
    "F_adaptive_avg_pool2d": lambda x: _adaptive(x, (2, 3), "avg"),
    "F_adaptive_avg_pool3d": lambda x: _adaptive(x, (2, 2, 2), "avg"),
    "F_adaptive_max_pool1d": lambda x: _adaptive(x, (3,), "max"),
    "F_batch_norm": lambda x, rm, rv, w, b: _bn(x, rm, rv, w, b), "F_batch_norm_train": lambda x, rm, rv: _bn_train(x),
    "F_layer_norm": lambda x, w, b: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) * w + b,
    "F_normalize": lambda x: x / np.maximum(np.linalg.norm(x, axis=1, keepdims=True), 1e-12),
    "F_normalize_p1": lambda x: x / np.maximum(np.abs(x).sum(0, keepdims=True), 1e-12),
    "F_embedding": lambda i, w: w[i], "F_one_hot": lambda i: np.eye(5, dtype=np.int64)[i],
    "F_one_hot_auto": lambda i: np.eye(i.max() + 1, dtype=np.int64)[i],
    "F_pad": lambda x: np.pad(x, ((0, 0), (1, 2))),
    "F_pad_value": lambda x: np.pad(x, ((2, 0), (1, 1)), constant_values=3),
    "F_pad_reflect": lambda x: np.pad(x, ((0, 0), (0, 0), (2, 1)), mode="reflect"),
    "F_pad_replicate": lambda x: np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="edge"),
    "F_interpolate_bilinear": lambda x: _align_corners_bilinear(x, 5, 4),
    "F_grid_sample": lambda x, g: _bilinear_ref(x, g, False),
    "F_grid_sample_out": lambda x, g: _bilinear_ref(x, 0.7 * g, True),
    "F_mse_loss": lambda x, y: ((x - y) ** 2).mean(), "F_mse_loss_sum": lambda x, y: ((x - y) ** 2).sum(),
    "F_l1_loss": lambda x, y: np.abs(x - y).mean(),
    "F_cross_entropy": lambda x, t: _cross_entropy(x, t),
    "F_cross_entropy_smooth": lambda x, t, w: _cross_entropy(x, t, w, 0.1),
    "F_cross_entropy_probs": lambda x, t: -(_softmax(t, 1) * _log_softmax(x, 1)).sum(1).mean(),
    "F_nll_loss": lambda x, t: -_log_softmax(x, 1)[np.arange(4), t].mean(),
    "F_nll_loss_none": lambda x, t: np.where(t == 1, 0, -x[np.arange(4), t]),
    "F_kl_div": lambda x, y: (y * (np.log(y) - x)).mean(),
    "F_kl_div_batchmean": lambda x, y: (y * (np.log(y) - x)).sum() / 3,
    "F_kl_div_log_target": lambda x, y: (np.exp(y) * (y - x)).sum(),
    "F_soft_margin_loss": lambda x, y: np.log1p(np.exp(-np.sign(y) * x)).mean(),
    "F_cosine_embedding_loss": lambda a, b, y: _cos_emb(a, b, np.sign(y), 0.1),
}  # fmt: skip


def _cumarg(x, axis, cmp):
    out = np.zeros(x.shape, np.int64)
    xs = np.moveaxis(x, axis, 0)
    o = np.moveaxis(out, axis, 0)
    best = xs[0].copy()
    for i in range(1, xs.shape[0]):
        take = cmp(xs[i], best)
        best = np.where(take, xs[i], best)
        o[i] = np.where(take, i, o[i - 1])
    return out


def _scatter(x, idx, src):
    out = x.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[i, idx[i, j]] = src[i, j]
    return out


def _scatter_add(x, idx, src):
    out = x.copy()
    for i in range(idx.shape[0]):
        for j in range(idx.shape[1]):
            out[idx[i, j], j] += src[i, j]
    return out


def _align_corners_bilinear(x, oh, ow):
    h, w = x.shape[-2:]
    ys, xs = np.linspace(0, h - 1, oh), np.linspace(0, w - 1, ow)
    y0, x0 = np.clip(np.floor(ys).astype(int), 0, h - 2), np.clip(np.floor(xs).astype(int), 0, w - 2)
    wy, wx = (ys - y0)[:, None], (xs - x0)[None, :]
    g = lambda a, b: x[..., a[:, None], b[None, :]]  # noqa: E731
    return (g(y0, x0) * (1 - wy) * (1 - wx) + g(y0, x0 + 1) * (1 - wy) * wx + g(y0 + 1, x0) * wy * (1 - wx)
            + g(y0 + 1, x0 + 1) * wy * wx)  # fmt: skip


def _cos_emb(a, b, y, margin):
    cos = (a * b).sum(1) / np.sqrt((a * a).sum(1) * (b * b).sum(1))
    return np.where(y > 0, 1 - cos, np.maximum(cos - margin, 0)).mean()


# Dtypes where the reference's own (NumPy's) result dtype is not what MindSpore gives.
_DTYPE = {"bincount_w": np.float32, "histc": np.float32, "searchsorted": np.int64, "searchsorted_right": np.int64,
          "unique_all": None, "F_interpolate_bilinear": np.float32}  # fmt: skip

GRAD = [
    "atan2", "logaddexp", "logsumexp", "norm_p3", "std_dim", "topk", "kthvalue", "scatter_add", "diag_1d_offset",
    "vdot", "inverse", "baddbmm", "triangular_solve", "linalg_matrix_norm", "conv_tbc", "batch_norm_elemt",
    "F_gelu", "F_conv2d", "F_conv_transpose2d", "F_unfold", "F_fold_stride", "F_max_pool2d",
    "F_batch_norm_train", "F_layer_norm", "F_pad_reflect", "F_interpolate_bilinear", "F_grid_sample",
    "F_cross_entropy_smooth", "F_kl_div_log_target", "F_cosine_embedding_loss", "F_embedding", "F_prelu",
]  # fmt: skip


def _as_list(v):
    return list(v) if isinstance(v, (tuple, list)) else [v]


def _np(v):
    return v.asnumpy() if isinstance(v, kiln.Tensor) else np.asarray(v)


def test_every_reference_names_a_case():
    assert set(REFS) <= set(_CASES), sorted(set(REFS) - set(_CASES))
    assert set(GRAD) <= set(_CASES), sorted(set(GRAD) - set(_CASES))


@pytest.mark.parametrize("name", sorted(REFS))
def test_forward(name):
    _, call, specs = _CASES[name]
    arrays = make_inputs(name, specs)
    got = _as_list(call(mint, *(kiln.Tensor(a) for a in arrays)))
    want = _as_list(REFS[name](*arrays))
    assert len(got) == len(want), f"{name}: {len(got)} outputs, reference {len(want)}"
    for k, (g, w) in enumerate(zip(got, want)):
        g, w = _np(g), np.asarray(w)
        assert g.shape == w.shape, f"{name} output {k}: shape {g.shape}, reference {w.shape}"
        if w.dtype.kind == "f" and g.dtype.kind == "f":
            assert g.dtype == (w.dtype if w.dtype != np.float64 or arrays and arrays[0].dtype == np.float64
                               else np.float32), f"{name} output {k}: dtype {g.dtype}"  # fmt: skip
            np.testing.assert_allclose(g, w, rtol=2e-5, atol=2e-5, err_msg=f"{name} output {k}")
        else:
            want_dt = _DTYPE.get(name, w.dtype)
            if want_dt is not None and w.dtype.kind in "biu":
                assert g.dtype == want_dt, f"{name} output {k}: dtype {g.dtype}, reference {want_dt}"
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=2e-5, atol=2e-5,
                                       err_msg=f"{name} output {k}")  # fmt: skip


def _float_positions(arrays):
    return tuple(i for i, a in enumerate(arrays) if a.dtype.kind == "f")


@pytest.mark.parametrize("name", GRAD)
def test_gradient(name):
    _, call, specs = _CASES[name]
    arrays = [a.astype(np.float64) if a.dtype.kind == "f" else a for a in make_inputs(name, specs)]
    positions = _float_positions(arrays)
    outs = _as_list(call(mint, *(kiln.Tensor(a) for a in arrays)))
    float_out = [k for k, o in enumerate(outs) if _np(o).dtype.kind == "f"]
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    cots = [rng.standard_normal(_np(outs[k]).shape) for k in float_out]

    def loss(*xs):
        res = _as_list(call(mint, *xs))
        total = None
        for k, c in zip(float_out, cots):
            term = (res[k] * kiln.Tensor(c)).sum()
            total = term if total is None else total + term
        return total

    def numeric(arrs):
        res = _as_list(call(mint, *(kiln.Tensor(a) for a in arrs)))
        return float(sum((_np(res[k]) * c).sum() for k, c in zip(float_out, cots)))

    grads = _as_list(kiln.grad(loss, grad_position=positions)(*(kiln.Tensor(a) for a in arrays)))
    eps = 1e-6
    for p, g in zip(positions, grads):
        g = _np(g)
        assert g.shape == arrays[p].shape
        n = arrays[p].size
        coords = range(n) if n <= 4 else rng.choice(n, 4, replace=False)
        for c in coords:
            d = np.zeros(n)
            d[c] = 1.0
            d = d.reshape(arrays[p].shape)
            plus, minus = list(arrays), list(arrays)
            plus[p], minus[p] = arrays[p] + eps * d, arrays[p] - eps * d
            fd = (numeric(plus) - numeric(minus)) / (2 * eps)
            np.testing.assert_allclose(g.reshape(-1)[c], fd, rtol=1e-4, atol=1e-6,
                                       err_msg=f"{name}: d/d input {p}, element {c}")  # fmt: skip
