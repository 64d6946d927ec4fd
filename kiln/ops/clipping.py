"""Clipping: by value, by norm and by global norm (MindSpore's `clip_by_*`)."""

from __future__ import annotations

from kiln._core.tensor import Tensor
from kiln.ops import array, math
from kiln.ops._helpers import op_error

__all__ = ["clip_by_global_norm", "clip_by_norm", "clip_by_value"]


def _clip_one(x, clip_value_min, clip_value_max):
    out = x
    if clip_value_min is not None:
        out = math.maximum(out, clip_value_min)
    if clip_value_max is not None:
        out = math.minimum(out, clip_value_max)
    return math.cast(out, x.dtype)  # the input's dtype, whatever the bounds' (MindSpore 2.10)


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """Clip `x` (a Tensor, or a tuple/list of Tensors) into [clip_value_min, clip_value_max].

    Args:
        x: Tensor, or tuple/list of Tensors (each is clipped; a tuple comes back).
        clip_value_min, clip_value_max: Tensors or numbers; either may be None, not both.
    """
    if clip_value_min is None and clip_value_max is None:
        raise op_error("clip_by_value", "at least one of 'clip_value_min' and 'clip_value_max' must be given.")
    if isinstance(x, (tuple, list)):
        return tuple(_clip_one(t, clip_value_min, clip_value_max) for t in x)
    if not isinstance(x, Tensor):
        raise op_error("clip_by_value", f"'x' must be a Tensor or a tuple/list of Tensors, not {type(x).__name__}.",
                       TypeError)  # fmt: skip
    return _clip_one(x, clip_value_min, clip_value_max)


def _global_norm(xs) -> Tensor:
    total = None
    for t in xs:
        sq = math.sum(math.square(t))
        total = sq if total is None else math.add(total, sq)
    return math.sqrt(total)


def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Scale the tensors of `x` so that their global L2 norm is at most `clip_norm`.

    Args:
        x: tuple or list of Tensors.
        clip_norm: positive number or scalar Tensor.
        use_norm: must be None (MindSpore accepts no other value yet).

    Returns:
        A tuple of Tensors: `t * clip_norm / max(global_norm, clip_norm)`.
    """
    if not isinstance(x, (tuple, list)) or not x:
        raise op_error("clip_by_global_norm", "'x' must be a non-empty tuple or list of Tensors.", TypeError)
    if isinstance(clip_norm, (int, float)) and clip_norm <= 0:
        raise op_error("clip_by_global_norm", f"'clip_norm' must be positive, but got {clip_norm}.")
    if use_norm is not None:
        raise op_error("clip_by_global_norm", f"'use_norm' only supports None (as in MindSpore), but got {use_norm!r}.")
    norm = _global_norm(x)
    # MindSpore's select(norm >= clip_norm, norm, clip_norm), not a maximum: at norm == clip_norm the norm takes the
    # whole gradient (a maximum shares it), and a NaN norm gives clip_norm (scale 1)
    scale = math.div(clip_norm, array.select(math.greater_equal(norm, clip_norm), norm, clip_norm))
    return tuple(math.cast(math.mul(t, scale), t.dtype) for t in x)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite: bool = False):
    """Clip the tensor(s) `x` so that their joint `norm_type`-norm is at most `max_norm` (PyTorch's rule)."""
    xs = list(x) if isinstance(x, (tuple, list)) else [x]
    if norm_type == float("inf"):
        total = None
        for t in xs:
            m = math.amax(math.abs(t))
            total = m if total is None else math.maximum(total, m)
    else:
        total = None
        for t in xs:
            s = math.sum(math.pow(math.abs(math.cast(t, "float32")), norm_type))
            total = s if total is None else math.add(total, s)
        total = math.pow(total, 1.0 / norm_type)
    if error_if_nonfinite and not bool(math.isfinite(total).asnumpy()):
        raise RuntimeError(f"clip_by_norm: the total norm of order {norm_type} is not finite.")
    coef = math.clamp(math.div(max_norm, math.add(total, 1e-6)), None, 1.0)
    out = [math.cast(math.mul(t, coef), t.dtype) for t in xs]
    return type(x)(out) if isinstance(x, (tuple, list)) else out[0]
