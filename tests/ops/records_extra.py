"""Op records for `kiln.ops.extra_math` (clipping, cdist, bincount, searchsorted, kron, var_mean) and `ops.unique`.

References are NumPy written from the ops' definitions; the output dtypes are MindSpore 2.10's (bincount counts
in float32; unique's indices are int32 except for int64 input).
"""

from __future__ import annotations

import numpy as np

from kiln import Tensor, ops
from tests.ops.records import OpRecord

F32 = (np.float32,)


def _cdist_ref(p):
    def ref(a, b):
        d = np.abs(a[..., :, None, :] - b[..., None, :, :])
        if p == 0:
            return np.sum(d != 0, axis=-1).astype(a.dtype)
        if p == np.inf:
            return np.max(d, axis=-1)
        return (np.sum(d**p, axis=-1) ** (1.0 / p)).astype(a.dtype)

    return ref


def _bincount_inputs(rng, dtype, shapes):
    x = rng.integers(0, 5, size=shapes[0]).astype(np.int32)
    return [x] + [rng.uniform(0.0, 2.0, size=s).astype(dtype) for s in shapes[1:]]


def _sorted_rows(rng, dtype, shapes):
    seq = np.sort(rng.uniform(-2, 2, size=shapes[0]), axis=-1).astype(dtype)
    values = rng.uniform(-2.5, 2.5, size=shapes[1]).astype(dtype)
    values.reshape(-1)[0] = seq.reshape(-1)[1]  # a value equal to an entry: left and right differ there
    return [seq, values]


def _searchsorted_ref(side, dtype=np.int64):
    def ref(seq, values):
        if seq.ndim == 1:
            return np.searchsorted(seq, values, side=side).astype(dtype)
        rows, vals = seq.reshape(-1, seq.shape[-1]), values.reshape(seq.reshape(-1, seq.shape[-1]).shape[0], -1)
        out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, vals)])
        return out.reshape(values.shape).astype(dtype)

    return ref


def _unique_ref(x):
    flat = x.reshape(-1)
    seen: dict = {}
    for v in flat.tolist():
        seen.setdefault(v, len(seen))
    idx = np.array([seen[v] for v in flat.tolist()]).reshape(x.shape)
    return np.array(list(seen), dtype=x.dtype), idx.astype(np.int64 if x.dtype == np.int64 else np.int32)


def _global_norm_ref(clip):
    def ref(a, b):
        norm = np.sqrt(np.sum(a.astype(np.float64) ** 2) + np.sum(b.astype(np.float64) ** 2))
        scale = clip / max(norm, clip)
        return (a * scale).astype(a.dtype), (b * scale).astype(b.dtype)

    return ref


def _integers(rng, dtype, shapes):
    return [rng.integers(0, 4, size=s).astype(dtype) for s in shapes]


RECORDS = [
    OpRecord("clip_by_value", lambda x: ops.clip_by_value(x, -0.5, 1.0),
             lambda x: np.clip(x, -0.5, 1.0).astype(x.dtype),
             shapes=((3, 4),), dtypes=(np.float32, np.int32), domain=(-2.0, 2.0)),
    OpRecord("clip_by_value_tensor_bounds", lambda x, lo: ops.clip_by_value(x, lo, None), np.maximum,
             shapes=((3, 4), (4,)), grad=False),
    OpRecord("clip_by_value_tuple", lambda x, y: ops.clip_by_value((x, y), None, 0.5),
             lambda x, y: (np.minimum(x, 0.5), np.minimum(y, 0.5)), shapes=((3, 4), (2,)), grad=False),
    OpRecord("clip_by_global_norm", lambda a, b: ops.clip_by_global_norm((a, b), 1.0), _global_norm_ref(1.0),
             shapes=((3, 4), (5,)), rtol=1e-5, atol=1e-6),
    OpRecord("clip_by_global_norm_no_clip", lambda a, b: ops.clip_by_global_norm((a, b), 100.0),
             _global_norm_ref(100.0), shapes=((3, 4), (5,)), grad=False),
    OpRecord("cdist", lambda a, b: ops.cdist(a, b), _cdist_ref(2.0), shapes=((4, 3), (5, 3)),
             cases=(((2, 4, 3), (2, 5, 3)),), rtol=1e-5),
    OpRecord("cdist_p1", lambda a, b: ops.cdist(a, b, 1.0), _cdist_ref(1.0), shapes=((4, 3), (5, 3))),
    OpRecord("cdist_p3", lambda a, b: ops.cdist(a, b, 3.0), _cdist_ref(3.0), shapes=((4, 3), (5, 3)), rtol=1e-5),
    OpRecord("cdist_p0", lambda a, b: ops.cdist(a, b, 0.0), _cdist_ref(0), shapes=((4, 3), (5, 3)), grad=False,
             extra={"make_inputs": _integers}),
    OpRecord("cdist_inf", lambda a, b: ops.cdist(a, b, float("inf")), _cdist_ref(np.inf), shapes=((4, 3), (5, 3))),
    OpRecord("bincount", lambda x: ops.bincount(x), lambda x: np.bincount(x).astype(np.float32), shapes=((12,),),
             grad=False, extra={"make_inputs": _bincount_inputs}),
    OpRecord("bincount_weights", lambda x, w: ops.bincount(x, w, minlength=8),
             lambda x, w: np.bincount(x, w, minlength=8).astype(np.float32), shapes=((12,), (12,)),
             # float32 counts even for float64 weights: a wide finite-difference step (the op is linear in them)
             extra={"make_inputs": _bincount_inputs, "grad_positions": (1,), "fd_eps": 1e-2, "grad_rtol": 1e-3}),
    OpRecord("searchsorted", lambda s, v: ops.searchsorted(s, v), _searchsorted_ref("left"), shapes=((7,), (3, 4)),
             cases=(((2, 6), (2, 5)),), grad=False, extra={"make_inputs": _sorted_rows}),
    OpRecord("searchsorted_right_int32", lambda s, v: ops.searchsorted(s, v, right=True, out_int32=True),
             _searchsorted_ref("right", np.int32), shapes=((2, 6), (2, 5)), grad=False,
             extra={"make_inputs": _sorted_rows}),
    OpRecord("searchsorted_side", lambda s, v: ops.searchsorted(s, v, side="right"), _searchsorted_ref("right"),
             shapes=((7,), (4,)), grad=False, extra={"make_inputs": _sorted_rows}),
    OpRecord("kron", ops.kron, np.kron, shapes=((2, 3), (3, 2)), cases=(((3,), (2, 2)),),
             dtypes=(np.float32, np.int32)),
    OpRecord("var_mean", lambda x: ops.var_mean(x, 1), lambda x: (np.var(x, 1), np.mean(x, 1)), shapes=((3, 4),),
             rtol=1e-5),
    OpRecord("var_mean_ddof_keepdims", lambda x: ops.var_mean(x, (0, 1), ddof=True, keepdims=True),
             lambda x: (np.var(x, (0, 1), ddof=1, keepdims=True), np.mean(x, (0, 1), keepdims=True)),
             shapes=((3, 4, 2),), rtol=1e-5),
    OpRecord("std_mean", lambda x: ops.std_mean(x), lambda x: (np.std(x), np.mean(x)), shapes=((3, 4),), rtol=1e-5),
    OpRecord("unique", ops.unique, _unique_ref, shapes=((4, 5),), dtypes=(np.int32, np.int64, np.float32),
             grad=False, extra={"make_inputs": _integers}),
]  # fmt: skip


# ---- losses (kiln/ops/nn/extra_loss.py): NumPy references from the definitions, gradient checks on the inputs


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


RECORDS += [
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


# ---- layers (kiln/ops/nn/extra_layers.py)


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


RECORDS += [
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


RECORDS += [
    OpRecord("diagonal", lambda x: ops.diagonal(x, 1, 1, 2), lambda x: np.diagonal(x, 1, 1, 2), shapes=((2, 3, 4),),
             dtypes=(np.float32, np.int32)),
    OpRecord("diagonal_neg_dims", lambda x: ops.diagonal(x, -1, -1, 0), lambda x: np.diagonal(x, -1, -1, 0),
             shapes=((4, 3),), grad=False),
    OpRecord("unbind_dim", lambda x: ops.unbind(x, dim=1), lambda x: tuple(np.moveaxis(x, 1, 0)), shapes=((2, 3, 4),),
             grad=False),
    OpRecord("ptp", lambda x: x.ptp(1), lambda x: np.ptp(x, 1), shapes=((3, 4),), grad=False),
]  # fmt: skip


def _band_ref(lower, upper):
    def ref(x):
        i, j = np.arange(x.shape[-2])[:, None], np.arange(x.shape[-1])[None, :]
        keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
        return np.where(keep, x, 0).astype(x.dtype)

    return ref


RECORDS += [
    OpRecord("matrix_band_part", lambda x: ops.matrix_band_part(x, 1, 0), _band_ref(1, 0), shapes=((2, 4, 5),),
             dtypes=(np.float32, np.int32)),
    OpRecord("matrix_band_part_upper_all", lambda x: ops.matrix_band_part(x, 0, -1), _band_ref(0, -1),
             shapes=((4, 3),), grad=False),
    OpRecord("nextafter", ops.nextafter, np.nextafter, shapes=((3, 4), (3, 4)), grad=False),
    OpRecord("flipud", ops.flipud, np.flipud, shapes=((3, 4),), grad=False),
    OpRecord("fliplr", ops.fliplr, np.fliplr, shapes=((3, 4),), grad=False),
    OpRecord("argwhere", ops.argwhere, lambda x: np.argwhere(x).astype(np.int64), shapes=((3, 4),), grad=False,
             dtypes=(np.int32,), extra={"make_inputs": _integers}),
    OpRecord("reduce_sum_functional", lambda x: ops.reduce_sum(x, (0,)), lambda x: np.sum(x, 0), shapes=((3, 4),),
             grad=False, rtol=1e-5),
]  # fmt: skip


def _kl_inputs(rng, dtype, shapes):
    """Log-probabilities and targets with zeros and negatives (which MindSpore 2.10 leaves out of the loss)."""
    t = rng.uniform(-0.5, 1.0, size=shapes[1])
    t[t < 0.1] = np.where(t[t < 0.1] < -0.2, t[t < 0.1], 0.0)
    return [np.log(rng.uniform(0.1, 1.0, size=shapes[0])).astype(dtype), t.astype(dtype)]


RECORDS += [
    OpRecord("kl_div_nonpositive_target", lambda x, y: ops.kl_div(x, y, "none"),
             lambda x, y: np.where(y > 0, y * (np.log(np.where(y > 0, y, 1)) - x), 0).astype(x.dtype),
             shapes=((3, 4), (3, 4)), extra={"make_inputs": _kl_inputs, "grad_positions": (0,)}),
]  # fmt: skip


# ---- Fourier transforms and linear algebra (kiln/ops/extra_linalg.py): real-valued compositions for gradients


def _spd(rng, dtype, shapes):
    a = rng.uniform(-1, 1, size=shapes[0])
    return [(a @ np.swapaxes(a, -1, -2) + 3 * np.eye(a.shape[-1])).astype(dtype)]


RECORDS += [
    OpRecord("rfft_irfft_roundtrip", lambda x: ops.irfft(ops.rfft(x) * 2, 6), lambda x: 2 * x, shapes=((3, 6),),
             rtol=1e-5),
    OpRecord("fft_abs", lambda x: ops.abs(ops.fft2(x)), lambda x: np.abs(np.fft.fft2(x)).astype(x.dtype),
             shapes=((3, 4),), rtol=1e-4, atol=1e-4),
    OpRecord("hfft_of_ihfft", lambda x: ops.hfft(ops.ihfft(x), 8), lambda x: x, shapes=((2, 8),), rtol=1e-5),
    OpRecord("det", ops.det, np.linalg.det, shapes=((2, 3, 3),), rtol=1e-4),
    OpRecord("logdet_spd", ops.logdet, lambda x: np.linalg.slogdet(x)[1].astype(x.dtype), shapes=((2, 3, 3),),
             rtol=1e-5, extra={"make_inputs": _spd}),
    OpRecord("vector_norm_p3", lambda x: ops.vector_norm(x, 3, 1), lambda x: np.sum(np.abs(x) ** 3, 1) ** (1 / 3),
             shapes=((3, 4),), rtol=1e-5),
    OpRecord("matrix_norm_fro", ops.matrix_norm, lambda x: np.linalg.norm(x, "fro", (-2, -1)), shapes=((2, 3, 4),),
             rtol=1e-5),
    OpRecord("baddbmm", lambda i, a, b: ops.baddbmm(i, a, b, 0.5, 2.0), lambda i, a, b: 0.5 * i + 2.0 * (a @ b),
             shapes=((2, 3, 5), (2, 3, 4), (2, 4, 5)), rtol=1e-5),
    OpRecord("addr", lambda x, u, v: ops.addr(x, u, v, beta=0.5), lambda x, u, v: 0.5 * x + np.outer(u, v),
             shapes=((3, 4), (3,), (4,))),
    OpRecord("frac", ops.frac, lambda x: x - np.trunc(x), shapes=((3, 4),), domain=(-3.0, 3.0), grad=False),
    OpRecord("heaviside", ops.heaviside, lambda x, v: np.heaviside(x, v).astype(x.dtype), shapes=((3, 4), (4,)),
             grad=False, extra={"make_inputs": _integers}),
]  # fmt: skip
