"""Dropout, dense, embedding lookup, parametric activations and normalisation by norms."""

from __future__ import annotations

from kiln._backend import jnp, lax
from kiln._backend import random as jrandom
from kiln._core.prims import _bounds
from kiln._core.prims.nn._common import declare, dtype_of, op_error, require_float, shape_of


# ---- Dropout ---------------------------------------------------------------------------------
def _check_dropout(key, x, *, keep_prob):
    if not 0.0 <= keep_prob <= 1.0:
        raise op_error("Dropout", f"'keep_prob' must be in [0, 1], but got {keep_prob}.")
    require_float("Dropout", "x", x)


def _dropout(key, x, *, keep_prob):
    """(x * mask / keep_prob, mask): mask entries are 1 with probability keep_prob."""
    mask = jrandom.bernoulli(jrandom.wrap_key_data(key), keep_prob, x.shape)
    out = jnp.where(mask, x / keep_prob, 0) if keep_prob > 0 else jnp.zeros_like(x)
    return out.astype(x.dtype), mask.astype(x.dtype)


Dropout = declare("Dropout", _dropout, _check_dropout, attrs={"keep_prob": 0.5}, random=True, multiple_results=True)


# ---- Dense -----------------------------------------------------------------------------------
def _check_dense(x, w, b):
    op = "Dense"
    xs, ws = shape_of(x), shape_of(w)
    require_float(op, "input", x)
    if len(ws) not in (1, 2) or len(xs) < 1 or xs[-1] != ws[-1]:
        raise op_error(
            op,
            f"'weight' must be (out_features, in_features) or (in_features,) with in_features equal "
            f"to the last dimension of 'input', but got input {list(xs)} and weight {list(ws)}.",
        )
    want = (ws[0],) if len(ws) == 2 else ()
    if b is not None and tuple(shape_of(b)) not in (want, (1,) if want else ()):
        raise op_error(op, f"'bias' must have shape {list(want)}, but got {list(shape_of(b))}.")


def _dense(x, w, b):
    y = jnp.matmul(x, w.astype(x.dtype).T)
    return y if b is None else y + b.astype(y.dtype)


Dense = declare("Dense", _dense, _check_dense)


# ---- Embedding ---------------------------------------------------------------------------------
def _check_embedding(indices, weight, *, padding_idx):
    op = "Embedding"
    dt = dtype_of(indices)
    if dt is not None and dt.kind not in "iu":
        raise op_error(op, f"'input' must be an integer tensor of indices, but got {dt}.", TypeError)
    ws = shape_of(weight)
    if len(ws) != 2:
        raise op_error(op, f"'weight' must be 2-D (num_embeddings, embedding_dim), but got shape {list(ws)}.")
    if padding_idx is not None and not -ws[0] <= padding_idx < ws[0]:
        raise op_error(op, f"'padding_idx' must be in [{-ws[0]}, {ws[0]}), but got {padding_idx}.")


def _embedding(indices, weight, *, padding_idx):
    if padding_idx is not None:  # the padding row is looked up but never trained
        weight = weight.at[padding_idx].set(lax.stop_gradient(weight[padding_idx]))
    # Out-of-range indices are refused by the bounds check; with checks off they read NaN, not a clamped row.
    return jnp.take(weight, indices, axis=0, mode="fill")


Embedding = declare(
    "Embedding",
    _embedding,
    _check_embedding,
    attrs={"padding_idx": None},
    nondiff=(0,),
    bounds=_bounds.embedding_bounds,
)


# ---- parametric activations --------------------------------------------------------------------
def _check_prelu(x, w):
    xs, ws = shape_of(x), shape_of(w)
    require_float("PReLU", "x", x)
    c = xs[1] if len(xs) >= 2 else (xs[0] if xs else 1)
    if len(ws) > 1 or (ws and ws[0] not in (1, c)):
        raise op_error(
            "PReLU", f"'weight' must have shape [1] or [{c}] (the channels of x {list(xs)}), but got {list(ws)}."
        )


def _prelu(x, w):
    if x.ndim >= 2 and w.ndim == 1:
        w = w.reshape((1, -1) + (1,) * (x.ndim - 2))
    elif w.size == 1:
        w = w.reshape(())  # the output keeps x's shape (a scalar x stays a scalar)
    return jnp.where(x > 0, x, w.astype(x.dtype) * x)  # at 0: the slope side, so d/dx(0) = weight (MindSpore)


PReLU = declare("PReLU", _prelu, _check_prelu)


def _check_hardtanh(x, *, min_val, max_val):
    if min_val > max_val:
        raise op_error("Hardtanh", f"'min_val' must not exceed 'max_val', but got {min_val} and {max_val}.")


Hardtanh = declare(
    "Hardtanh",
    lambda x, *, min_val, max_val: jnp.clip(x, min_val, max_val).astype(x.dtype),
    _check_hardtanh,
    attrs={"min_val": -1.0, "max_val": 1.0},
)


# ---- normalisation by a norm ------------------------------------------------------------------
def _check_axes(op):
    def check(x, *, axis, **_):
        nd = len(shape_of(x))
        require_float(op, "x", x)
        for a in axis:
            if not -max(nd, 1) <= a < max(nd, 1):
                raise op_error(
                    op, f"'axis' entries must be in [{-nd}, {nd}) for shape {list(shape_of(x))}, but got {a}."
                )

    return check


def _l2_normalize(x, *, axis, epsilon):
    sq = jnp.sum(jnp.square(x), axis=axis, keepdims=True)
    return x * lax.rsqrt(jnp.maximum(sq, epsilon))


def _lp_normalize(x, *, axis, p, eps):
    norm = (
        jnp.linalg.norm(x, ord=p, axis=axis[0], keepdims=True)
        if len(axis) == 1
        else jnp.sum(jnp.abs(x) ** p, axis=axis, keepdims=True) ** (1.0 / p)
    )
    return x / jnp.maximum(norm, eps)


L2Normalize = declare("L2Normalize", _l2_normalize, _check_axes("L2Normalize"), attrs={"axis": (0,), "epsilon": 1e-4})
LpNormalize = declare(
    "LpNormalize", _lp_normalize, _check_axes("LpNormalize"), attrs={"axis": (1,), "p": 2.0, "eps": 1e-12}
)
