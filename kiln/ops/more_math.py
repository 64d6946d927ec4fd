"""More of MindSpore's functional ops: special functions, elementwise helpers, reductions that skip NaN, segment
reductions, scatter/fill variants, splitting and stacking, index helpers.

Most are compositions of existing ops (so they run the same in PyNative and graph mode and differentiate through
their parts); the special functions, integer ops and segment reductions dispatch
the primitives of `kiln._prims` (math, special, reduction).
"""

from __future__ import annotations

import builtins
import math as _pymath

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.primitive import REGISTRY
from kiln._core.tensor import Tensor
from kiln.ops import array, extra_array, extra_math, math
from kiln.ops._helpers import apply, op_error

__all__ = [
    "bessel_i0", "bessel_i0e", "bessel_i1", "bessel_i1e", "bessel_j0", "bessel_j1", "i0", "sinc", "signbit",
    "angle", "population_count", "igamma", "igammac", "zeta", "copysign", "logaddexp", "logaddexp2", "fmax", "fmin",
    "polar", "gcd", "lcm", "polygamma", "betainc", "logcumsumexp", "unsorted_segment_sum",
    "unsorted_segment_max", "unsorted_segment_min", "unsorted_segment_prod", "addcdiv", "addcmul", "adjoint",
    "aminmax", "atleast_1d", "atleast_2d", "atleast_3d", "block_diag", "cartesian_prod", "count_nonzero", "cov",
    "cross", "deg2rad", "rad2deg", "diag_embed", "diagflat", "diff", "dist", "dsplit", "hsplit", "vsplit",
    "tensor_split", "dstack", "expand", "float_power", "floordiv", "floormod", "ger", "inv", "invert", "is_complex",
    "is_floating_point", "is_nonzero", "is_tensor", "isreal", "ldexp", "logit", "logspace", "mv", "mvlgamma",
    "nan_to_num", "nanmean", "nansum", "nanmedian", "median", "movedim", "swapdims", "positive", "pows", "ravel",
    "renorm", "repeat_elements", "reverse", "rot90", "sgn", "soft_shrink", "take", "tensor_dot", "top_k", "trapz",
    "tril_indices", "triu_indices", "truncate_mod", "vander", "vecdot", "view_as_real", "zero_", "fills",
    "sequence_mask", "index_add", "index_fill", "inplace_add", "inplace_sub", "inplace_update", "inplace_index_add",
    "diagonal_scatter", "slice_scatter", "select_scatter", "scatter_nd_add", "scatter_nd_update", "scatter_update",
    "histc", "bucketize", "combinations", "pdist", "eps", "fast_gelu", "fftfreq", "rfftfreq", "mirror_pad",
    "reverse_sequence", "strided_slice", "tensor_slice", "space_to_batch_nd", "batch_to_space_nd", "iou",
    "bounding_box_encode", "bounding_box_decode", "check_valid", "lrn", "float_power_ext", "put_", "tanh_",
    "reshape_", "tensor_range", "masked_scatter", "unique_consecutive", "unravel_index", "tensor_add",
    "tensor_sub", "tensor_mul", "tensor_div", "tensor_floordiv", "tensor_mod", "tensor_pow", "tensor_exp",
    "tensor_expm1", "tensor_gt", "tensor_ge", "tensor_lt", "tensor_le", "tensor_muls", "inplace_sigmoid",

]  # fmt: skip


def _t(x):
    return x if isinstance(x, Tensor) else Tensor(x)


def _unary(prim_name: str, public: str, what: str):
    p = REGISTRY[prim_name]

    def op(input) -> Tensor:
        return apply(p, (input,))

    op.__name__ = op.__qualname__ = public
    op.__doc__ = f"""{what}, elementwise.

    Args:
        input (Tensor): the input.

    Returns:
        Tensor of the input's shape.
    """
    return op


def _binary(prim_name: str, public: str, what: str):
    p = REGISTRY[prim_name]

    def op(input, other) -> Tensor:
        return apply(p, (input, other))

    op.__name__ = op.__qualname__ = public
    op.__doc__ = f"""{what}, elementwise with broadcasting.

    Args:
        input (Tensor | number): the first operand.
        other (Tensor | number): the second operand.

    Returns:
        Tensor of the broadcast shape.
    """
    return op


bessel_i0 = _unary("BesselI0", "bessel_i0", "Modified Bessel function of the first kind, order 0")
bessel_i0e = _unary("BesselI0e", "bessel_i0e", "Exponentially scaled modified Bessel function I0")
bessel_i1 = _unary("BesselI1", "bessel_i1", "Modified Bessel function of the first kind, order 1")
bessel_i1e = _unary("BesselI1e", "bessel_i1e", "Exponentially scaled modified Bessel function I1")
bessel_j0 = _unary("BesselJ0", "bessel_j0", "Bessel function of the first kind, order 0")
bessel_j1 = _unary("BesselJ1", "bessel_j1", "Bessel function of the first kind, order 1")
i0 = _unary("BesselI0", "i0", "Modified Bessel function of the first kind, order 0")
sinc = _unary("Sinc", "sinc", "Normalised sinc, sin(pi x) / (pi x) (1 at 0)")
signbit = _unary("SignBit", "signbit", "Whether the sign bit is set (True for -0.0)")
angle = _unary("Angle", "angle", "Argument of a complex number (0 or pi for reals)")
population_count = _unary("PopulationCount", "population_count", "Number of set bits (as uint8)")
igamma = _binary("Igamma", "igamma", "Regularised lower incomplete gamma P(input, other)")
igammac = _binary("Igammac", "igammac", "Regularised upper incomplete gamma Q(input, other)")
zeta = _binary("Zeta", "zeta", "Hurwitz zeta function zeta(input, other)")
copysign = _binary("CopySign", "copysign", "Magnitude of `input` with the sign of `other`")
logaddexp = _binary("LogAddExp", "logaddexp", "log(exp(input) + exp(other))")
logaddexp2 = _binary("LogAddExp2", "logaddexp2", "log2(2**input + 2**other)")
fmax = _binary("Fmax", "fmax", "Maximum that ignores NaN (NaN only where both are NaN)")
fmin = _binary("Fmin", "fmin", "Minimum that ignores NaN (NaN only where both are NaN)")
gcd = _binary("Gcd", "gcd", "Greatest common divisor of integers")
lcm = _binary("Lcm", "lcm", "Least common multiple of integers")


def complex(real, imag) -> Tensor:  # noqa: A001
    """The complex tensor `real + 1j * imag`.

    Args:
        real (Tensor): real parts (float32 gives complex64, float64 complex128).
        imag (Tensor): imaginary parts, same dtype.

    Returns:
        Complex Tensor of the broadcast shape.
    """
    return apply(REGISTRY["Complex"], (real, imag))


def polar(abs, angle) -> Tensor:  # noqa: A002
    """The complex tensor `abs * (cos(angle) + 1j * sin(angle))`.

    Args:
        abs (Tensor): magnitudes.
        angle (Tensor): angles in radians.

    Returns:
        Complex Tensor.
    """
    return apply(REGISTRY["Polar"], (abs, angle))


def polygamma(n, input) -> Tensor:
    """The n-th derivative of the digamma function.

    Args:
        n (int | Tensor): the order (>= 0).
        input (Tensor): the input.

    Returns:
        Tensor of the input's shape.
    """
    n = int(n.asnumpy()) if isinstance(n, Tensor) else int(n)
    if n < 0:
        raise op_error("Polygamma", f"'n' must be non-negative, but got {n}.")
    return apply(REGISTRY["Polygamma"], (input,), (n,))


def betainc(a, b, x) -> Tensor:
    """Regularised incomplete beta function I_x(a, b).

    Args:
        a, b, x (Tensor): inputs of the same dtype.

    Returns:
        Tensor.
    """
    return apply(REGISTRY["Betainc"], (a, b, x))


def logcumsumexp(input, axis) -> Tensor:
    """log(cumsum(exp(input))) along `axis`, computed stably.

    Args:
        input (Tensor): the input.
        axis (int): the axis.

    Returns:
        Tensor of the input's shape.
    """
    return apply(REGISTRY["CumulativeLogsumexp"], (input,), (int(axis), False))


def _segment(kind):
    p = REGISTRY[f"UnsortedSegment{kind.capitalize()}"]

    def op(input_x, segment_ids, num_segments) -> Tensor:
        n = int(num_segments.asnumpy()) if isinstance(num_segments, Tensor) else int(num_segments)
        return apply(p, (input_x, segment_ids), (n,))

    op.__name__ = op.__qualname__ = f"unsorted_segment_{kind}"
    op.__doc__ = f"""The {kind} of the slices of `input_x` that share a segment id.

    Args:
        input_x (Tensor): the data; its leading dimensions have the shape of `segment_ids`.
        segment_ids (Tensor): integer segment of each slice; ids outside [0, num_segments) are dropped.
        num_segments (int): number of segments.

    Returns:
        Tensor of shape (num_segments, *input_x.shape[segment_ids.ndim:]).
    """
    return op


unsorted_segment_sum = _segment("sum")
unsorted_segment_max = _segment("max")
unsorted_segment_min = _segment("min")
unsorted_segment_prod = _segment("prod")


def addcdiv(input, tensor1, tensor2, value=1) -> Tensor:
    """`input + value * tensor1 / tensor2`.

    Args:
        input, tensor1, tensor2 (Tensor): broadcast together.
        value (number | Tensor): the multiplier.

    Returns:
        Tensor.
    """
    return math.add(input, math.mul(math.div(tensor1, tensor2), value))


def addcmul(input, tensor1, tensor2, value=1) -> Tensor:
    """`input + value * tensor1 * tensor2`.

    Args:
        input, tensor1, tensor2 (Tensor): broadcast together.
        value (number | Tensor): the multiplier.

    Returns:
        Tensor.
    """
    return math.add(input, math.mul(math.mul(tensor1, tensor2), value))


def adjoint(x) -> Tensor:
    """Conjugate transpose of the last two dimensions."""
    out = array.swapaxes(x, -1, -2)
    return math.conj(out) if x.dtype.is_complex else out


def aminmax(input, *, axis=0, keepdims=False):
    """(min, max) of `input` along `axis` (None: all elements).

    Returns:
        tuple of two Tensors.
    """
    if axis is None:
        return math.amin(input, None, keepdims), math.amax(input, None, keepdims)
    return math.amin(input, axis, keepdims), math.amax(input, axis, keepdims)


def _atleast(n):
    def one(x):
        x = _t(x)
        if x.ndim >= n:
            return x
        shape = {0: (1,) * n, 1: ((1, x.shape[0], 1) if n == 3 else (1, x.shape[0])) if x.ndim == 1 else None}
        return array.reshape(x, shape[x.ndim]) if x.ndim < 2 else array.expand_dims(x, -1)

    def op(inputs):
        if isinstance(inputs, (list, tuple)):
            return tuple(one(x) for x in inputs)
        return one(inputs)

    op.__name__ = op.__qualname__ = f"atleast_{n}d"
    op.__doc__ = f"""`inputs` (a Tensor or a sequence of them) with at least {n} dimensions each.

    Args:
        inputs (Tensor | sequence of Tensor): the inputs.

    Returns:
        Tensor, or a tuple of Tensors for a sequence.
    """
    return op


atleast_1d, atleast_2d, atleast_3d = _atleast(1), _atleast(2), _atleast(3)


def block_diag(*inputs) -> Tensor:
    """A block-diagonal matrix of the inputs (each at most 2-D).

    Returns:
        Tensor of shape (sum of rows, sum of columns).
    """
    mats = [atleast_2d(_t(x)) if _t(x).ndim < 2 else _t(x) for x in inputs]
    mats = [array.reshape(m, (1, -1)) if m.ndim < 2 else m for m in mats]
    dtype = mats[0].dtype
    for m in mats[1:]:
        dtype = (mats[0] + m[:0, :0].astype(m.dtype)).dtype if m.dtype != dtype else dtype
    cols = builtins.sum(m.shape[1] for m in mats)
    rows, start = [], 0
    for m in mats:
        left = array.zeros((m.shape[0], start), dtype)
        right = array.zeros((m.shape[0], cols - start - m.shape[1]), dtype)
        rows.append(array.concat((left, math.cast(m, dtype), right), 1))
        start += m.shape[1]
    return array.concat(rows, 0)


def cartesian_prod(*inputs) -> Tensor:
    """Cartesian product of 1-D tensors: one row per combination.

    Returns:
        Tensor of shape (prod of lengths, len(inputs)) (1-D for one input).
    """
    if len(inputs) == 1:
        return inputs[0]
    grids = array.meshgrid(*inputs, indexing="ij")
    return array.stack([array.reshape(g, (-1,)) for g in grids], 1)


def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32) -> Tensor:
    """Number of non-zero elements along `axis` (() or None: all).

    Returns:
        Tensor of `dtype`.
    """
    nz = math.cast(math.not_equal(x, 0), mstype.int64)
    out = math.sum(nz, None if axis in ((), None) else axis, keep_dims)
    return math.cast(out, dtype)


def cov(input, *, correction=1, fweights=None, aweights=None) -> Tensor:
    """Covariance matrix of the variables in the rows of `input` (observations in the columns).

    Args:
        input (Tensor): (variables, observations) or (observations,).
        correction (int): subtracted from the weight sum (1: unbiased).
        fweights (Tensor, optional): integer frequency of each observation.
        aweights (Tensor, optional): weight of each observation.

    Returns:
        Tensor (variables, variables), or a scalar for 1-D input.
    """
    x = input if input.ndim == 2 else array.reshape(input, (1, -1))
    if not x.dtype.is_floating and not x.dtype.is_complex:
        x = math.cast(x, mstype.float32)
    n = x.shape[1]
    w = None
    if fweights is not None:
        w = math.cast(fweights, x.dtype)
    if aweights is not None:
        w = math.cast(aweights, x.dtype) if w is None else w * math.cast(aweights, x.dtype)
    if w is None:
        w_sum = Tensor(float(n), x.dtype)
        avg = math.mean(x, 1, True)
        norm = w_sum - correction
    else:
        w_sum = math.sum(w)
        avg = math.sum(x * w, 1, True) / w_sum
        if aweights is None or correction == 0:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * math.sum(w * math.cast(aweights, x.dtype)) / w_sum
    xm = x - avg
    xw = xm if w is None else xm * w
    c = math.matmul(xw, math.conj(array.transpose(xm, (1, 0))) if x.dtype.is_complex else array.transpose(xm, (1, 0)))
    out = c / math.maximum(norm, 0)
    return array.squeeze(out) if input.ndim < 2 else out


def cross(input, other, dim=None) -> Tensor:
    """Cross product of 3-vectors along `dim` (None: the first dimension of size 3).

    Returns:
        Tensor of the broadcast shape.
    """
    if dim is None:
        dim = next((i for i, s in enumerate(input.shape) if s == 3), None)
        if dim is None:
            raise op_error("Cross", f"no dimension of size 3 in the input of shape {input.shape}.")
    if input.shape[dim] != 3 or other.shape[dim] != 3:
        raise op_error("Cross", f"dimension {dim} of both inputs must have size 3.")
    a = [array.narrow(input, dim, i, 1) for i in builtins.range(3)]
    b = [array.narrow(other, dim, i, 1) for i in builtins.range(3)]
    return array.concat((a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]), dim)


def deg2rad(x) -> Tensor:
    """Degrees to radians."""
    return math.mul(x, np.float32(np.pi / 180) if x.dtype != mstype.float64 else np.pi / 180)


def rad2deg(x) -> Tensor:
    """Radians to degrees."""
    return math.mul(x, np.float32(180 / np.pi) if x.dtype != mstype.float64 else 180 / np.pi)


def diag_embed(input, offset=0, dim1=-2, dim2=-1) -> Tensor:
    """Tensor whose diagonals (in dims `dim1`, `dim2`) are the last dimension of `input`.

    Args:
        input (Tensor): (..., n).
        offset (int): which diagonal (> 0 above the main one).
        dim1, dim2 (int): the dimensions of the output that hold the matrices.

    Returns:
        Tensor with one more dimension, (n + |offset|) square in `dim1`, `dim2`.
    """
    n = input.shape[-1]
    m = n + builtins.abs(offset)
    v = array.pad(input, (builtins.max(offset, 0), builtins.max(-offset, 0))) if offset else input
    mask = Tensor(np.eye(m, k=offset, dtype=bool))
    shape = (*input.shape[:-1], m, m)
    vals = array.broadcast_to(array.expand_dims(v, -2), shape)
    out = array.select(array.broadcast_to(mask, shape), vals, array.zeros(shape, input.dtype))
    nd = out.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    order = [None] * nd
    order[d1], order[d2] = nd - 2, nd - 1
    rest = iter(builtins.range(nd - 2))
    order = [next(rest) if o is None else o for o in order]
    return array.transpose(out, tuple(order))


def diagflat(input, offset=0) -> Tensor:
    """2-D tensor with the flattened input on diagonal `offset`."""
    return diag_embed(array.reshape(input, (-1,)), offset)


def diff(x, n=1, axis=-1, prepend=None, append=None) -> Tensor:
    """The n-th forward difference along `axis` (`prepend`/`append` joined first).

    Returns:
        Tensor, shorter by n along `axis`.
    """
    parts = [p for p in (prepend, x, append) if p is not None]
    out = array.concat(parts, axis) if len(parts) > 1 else x
    for _ in builtins.range(n):
        length = out.shape[axis]
        hi = array.narrow(out, axis, 1, length - 1)
        lo = array.narrow(out, axis, 0, length - 1)
        out = math.logical_xor(hi, lo) if out.dtype == mstype.bool_ else hi - lo
    return out


def dist(input, other, p=2) -> Tensor:
    """The p-norm of `input - other`."""
    d = math.abs(math.sub(input, other))
    if p == 0:
        return math.sum(math.cast(math.not_equal(d, 0), d.dtype))
    if p == float("inf"):
        return math.amax(d)
    if p == float("-inf"):
        return math.amin(d)
    return math.pow(math.sum(math.pow(d, p)), 1.0 / p)


def tensor_split(input, indices_or_sections, axis=0):
    """Split into `indices_or_sections` near-equal parts, or at the given indices (as NumPy's array_split).

    Returns:
        tuple of Tensors.
    """
    n = input.shape[axis]
    if isinstance(indices_or_sections, int):
        k = indices_or_sections
        if k <= 0:
            raise op_error("tensor_split", f"the number of sections must be positive, but got {k}.")
        q, r = divmod(n, k)
        sizes = [q + 1] * r + [q] * (k - r)
        bounds = np.cumsum([0, *sizes]).tolist()
    else:
        idx = [builtins.min(builtins.max(int(i) if i >= 0 else n + int(i), 0), n) for i in indices_or_sections]
        bounds = [0, *idx, n]
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        hi = builtins.max(hi, lo)
        out.append(array.narrow(input, axis, lo, hi - lo) if hi > lo else _empty_along(input, axis))
    return tuple(out)


def _empty_along(x, axis):
    shape = list(x.shape)
    shape[axis] = 0
    return array.zeros(tuple(shape), x.dtype)


def _split_dim(name, dim, min_rank):
    def op(input, indices_or_sections):
        if input.ndim < min_rank:
            raise op_error(name, f"the input must have at least {min_rank} dimensions, but got {input.ndim}.")
        if isinstance(indices_or_sections, int) and input.shape[dim] % indices_or_sections:
            raise op_error(name, f"dimension {dim} of size {input.shape[dim]} does not split into "
                                 f"{indices_or_sections} equal parts.")  # fmt: skip
        return tensor_split(input, indices_or_sections, dim)

    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"""Split along dimension {dim} (equal parts, or at indices).

    Args:
        input (Tensor): the input.
        indices_or_sections (int | sequence of int): number of equal parts, or split indices.

    Returns:
        tuple of Tensors.
    """
    return op


vsplit = _split_dim("vsplit", 0, 2)
dsplit = _split_dim("dsplit", 2, 3)


def hsplit(input, indices_or_sections):
    """Split along dimension 1 (dimension 0 for 1-D input).

    Returns:
        tuple of Tensors.
    """
    dim = 0 if input.ndim == 1 else 1
    return _split_dim("hsplit", dim, 1)(input, indices_or_sections)


def dstack(tensors) -> Tensor:
    """Stack along the third dimension (inputs made at least 3-D)."""
    return array.concat(atleast_3d(tuple(tensors)), 2)


def expand(input_x, size) -> Tensor:
    """Broadcast `input_x` to `size` (-1 keeps a dimension)."""
    if isinstance(size, Tensor):
        size = tuple(int(s) for s in size.asnumpy().reshape(-1))
    return array.broadcast_to(input_x, tuple(size))


def float_power(input, exponent) -> Tensor:
    """`input ** exponent` computed in float64 (complex128 for complex inputs)."""
    cdt = mstype.complex128
    is_c = any(isinstance(v, Tensor) and v.dtype.is_complex for v in (input, exponent))
    dt = cdt if is_c else mstype.float64
    a = math.cast(input, dt) if isinstance(input, Tensor) else input
    b = math.cast(exponent, dt) if isinstance(exponent, Tensor) else exponent
    if not isinstance(a, Tensor):
        a = Tensor(a, dt)
    return math.pow(a, b)


float_power_ext = float_power


def floordiv(input, other) -> Tensor:
    """Floor division (`ops.floor_divide`)."""
    return math.floor_divide(input, other)


def floormod(x, y) -> Tensor:
    """Floor modulo (`ops.floor_mod`)."""
    return math.floor_mod(x, y)


def ger(input, vec2) -> Tensor:
    """Outer product of two 1-D tensors."""
    return math.outer(input, vec2)


def inv(x) -> Tensor:
    """Elementwise reciprocal."""
    return math.reciprocal(x)


def invert(x) -> Tensor:
    """Bitwise NOT of integers."""
    return math.bitwise_not(x)


def is_complex(input) -> bool:
    """Whether `input` has a complex dtype."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_complex(): the input must be a Tensor, but got {type(input).__name__}.")
    return input.dtype.is_complex


def is_floating_point(input) -> bool:
    """Whether `input` has a floating dtype."""
    return input.dtype.is_floating


def is_nonzero(input) -> bool:
    """Whether the single element of `input` is non-zero."""
    if input.size != 1:
        raise RuntimeError(f"is_nonzero(): the input must hold exactly one element, but holds {input.size}.")
    return bool(input.asnumpy().reshape(-1)[0] != 0)


def is_tensor(obj) -> bool:
    """Whether `obj` is a Tensor."""
    return isinstance(obj, Tensor)


def isreal(input) -> Tensor:
    """Elementwise: the imaginary part is 0 (all True for real dtypes)."""
    if input.dtype.is_complex:
        return math.equal(math.imag(input), 0)
    return array.ones_like(input, dtype=mstype.bool_)


def ldexp(x, other) -> Tensor:
    """`x * 2 ** other`."""
    return math.mul(x, math.pow(2.0, math.cast(other, mstype.float32) if isinstance(other, Tensor) else other))


def logit(input, eps=None) -> Tensor:
    """log(p / (1 - p)), with p clipped to [eps, 1 - eps] when `eps` is given."""
    x = input if eps is None or eps < 0 else math.clamp(input, eps, 1 - eps)
    return math.log(math.div(x, math.sub(1, x)))


def logspace(start, end, steps, base=10, *, dtype=mstype.float32) -> Tensor:
    """`steps` points `base ** t` for t evenly spaced from `start` to `end`."""
    t = array.linspace(float(start), float(end), int(steps))
    out = math.pow(Tensor(float(base), mstype.float64), math.cast(t, mstype.float64))
    return math.cast(out, dtype)


def mv(mat, vec) -> Tensor:
    """Matrix-vector product."""
    return math.matmul(mat, vec)


def mvlgamma(input, p) -> Tensor:
    """Multivariate log-gamma of dimension `p`."""
    if p < 1:
        raise op_error("Mvlgamma", f"'p' must be at least 1, but got {p}.")
    j = Tensor(np.arange(p, dtype=np.float32) / 2).astype(input.dtype)
    terms = math.lgamma(array.expand_dims(input, -1) - j)
    return math.sum(terms, -1) + p * (p - 1) / 4 * _pymath.log(_pymath.pi)


def nan_to_num(input, nan=None, posinf=None, neginf=None) -> Tensor:
    """Replace NaN by `nan` (0), +inf by `posinf` (largest finite) and -inf by `neginf` (lowest finite)."""
    info = np.finfo(input.dtype.np)
    nan = 0.0 if nan is None else nan
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = array.select(math.isnan(input), array.full_like(input, nan), input)
    out = array.select(math.logical_and(math.isinf(out), out > 0), array.full_like(input, posinf), out)
    return array.select(math.logical_and(math.isinf(out), out < 0), array.full_like(input, neginf), out)


def nansum(input, axis=None, keepdims=False, *, dtype=None) -> Tensor:
    """Sum treating NaN as 0."""
    x = input if not input.dtype.is_floating else array.select(math.isnan(input), array.zeros_like(input), input)
    return math.sum(x, axis, keepdims, dtype=dtype)


def nanmean(input, axis=None, keepdims=False, *, dtype=None) -> Tensor:
    """Mean of the non-NaN elements."""
    valid = math.logical_not(math.isnan(input))
    total = nansum(input, axis, keepdims, dtype=dtype)
    return total / math.cast(math.sum(math.cast(valid, mstype.int64), axis, keepdims), total.dtype)


def _median(input, axis, keepdims, ignore_nan):
    if axis is None:
        x, axis = array.reshape(input, (-1,)), 0
    else:
        x = input
    axis = axis % builtins.max(x.ndim, 1)
    n = x.shape[axis] if x.ndim else 1
    if x.ndim == 0:
        return input, Tensor(0, mstype.int64)
    order = math.argsort(x, axis)
    values = array.gather_elements(x, axis, order)
    if ignore_nan and x.dtype.is_floating:
        count = math.sum(math.cast(math.logical_not(math.isnan(x)), mstype.int64), axis, True)
        k = math.floor_divide(math.sub(math.maximum(count, 1), 1), 2)
    else:
        nan_any = math.any(math.isnan(x), axis, True) if x.dtype.is_floating else None
        k = array.full(tuple(1 if i == axis else s for i, s in enumerate(x.shape)), (n - 1) // 2, dtype=mstype.int64)
        if nan_any is not None:  # a NaN in the slice: the median is NaN (sorted last), at the first NaN's position
            first_nan = math.argmax(math.cast(math.isnan(values), mstype.int32), axis, True)
            k = array.select(nan_any, math.cast(first_nan, mstype.int64), k)
    med = array.gather_elements(values, axis, k)
    idx = array.gather_elements(order, axis, k)
    if not keepdims:
        med, idx = array.squeeze(med, axis), array.squeeze(idx, axis)
    return med, math.cast(idx, mstype.int64)


def median(input, axis=-1, keepdims=False):
    """The lower median along `axis` and its index.

    Returns:
        tuple (values, indices).
    """
    return _median(input, axis, keepdims, False)


def nanmedian(input, axis=-1, keepdims=False):
    """The lower median of the non-NaN elements along `axis`, and its index.

    Returns:
        tuple (values, indices).
    """
    return _median(input, axis, keepdims, True)


def movedim(x, source, destination) -> Tensor:
    """Move dimensions `source` to `destination`."""
    return array.moveaxis(x, source, destination)


def swapdims(input, dim0, dim1) -> Tensor:
    """Swap two dimensions."""
    return array.swapaxes(input, dim0, dim1)


def positive(input) -> Tensor:
    """`input` itself (bool input is rejected)."""
    if input.dtype == mstype.bool_:
        raise TypeError("positive(): bool tensors are not supported.")
    return input


def pows(input, exponent) -> Tensor:
    """`input ** exponent` (`ops.pow`)."""
    return math.pow(input, exponent)


def ravel(input) -> Tensor:
    """Flatten to 1-D."""
    return array.reshape(input, (-1,))


def renorm(input, p, axis, maxnorm) -> Tensor:
    """Rescale each slice along `axis` whose p-norm exceeds `maxnorm` to norm `maxnorm`."""
    axes = tuple(i for i in builtins.range(input.ndim) if i != axis % input.ndim)
    norm = math.pow(math.sum(math.pow(math.abs(input), p), axes, True), 1.0 / p)
    scale = array.select(norm > maxnorm, maxnorm / (norm + 1e-7), array.ones_like(norm))
    return input * scale


def repeat_elements(x, rep, axis=0) -> Tensor:
    """Repeat each element `rep` times along `axis`."""
    return array.repeat_interleave(x, rep, axis)


def reverse(x, axis) -> Tensor:
    """Reverse along the dimensions in `axis`."""
    return array.flip(x, tuple(axis) if isinstance(axis, (list, tuple)) else (axis,))


def rot90(input, k, dims) -> Tensor:
    """Rotate by 90 degrees `k` times in the plane `dims` (from the first towards the second)."""
    d0, d1 = (d % input.ndim for d in dims)
    k = k % 4
    if k == 0:
        return input
    if k == 2:
        return array.flip(input, (d0, d1))
    if k == 1:
        return array.swapaxes(array.flip(input, (d1,)), d0, d1)
    return array.flip(array.swapaxes(input, d0, d1), (d1,))


def sgn(input) -> Tensor:
    """Sign; for complex inputs `x / |x|` (0 at 0)."""
    if not input.dtype.is_complex:
        return math.sign(input)
    a = math.abs(input)
    safe = array.select(a == 0, array.ones_like(a), a)
    return array.select(a == 0, array.zeros_like(input), input / math.cast(safe, input.dtype))


def soft_shrink(input, lambd=0.5) -> Tensor:
    """Soft shrinkage (`ops.softshrink`)."""
    from kiln.ops import nn as nn_ops  # noqa: PLC0415

    return nn_ops.softshrink(input, lambd)


def take(input, index) -> Tensor:
    """Elements of the flattened input at `index` (negative indices count from the end)."""
    flat = array.reshape(input, (-1,))
    idx = array.select(index < 0, index + input.size, index)
    return array.gather(flat, idx, 0)


def tensor_dot(x1, x2, axes) -> Tensor:
    """Contract `axes` of `x1` with `axes` of `x2` (an int: the last/first n)."""
    if isinstance(axes, int):
        a1 = tuple(builtins.range(x1.ndim - axes, x1.ndim))
        a2 = tuple(builtins.range(axes))
    else:
        a1, a2 = axes
        a1 = (a1,) if isinstance(a1, int) else tuple(a1)
        a2 = (a2,) if isinstance(a2, int) else tuple(a2)
    a1 = tuple(a % x1.ndim for a in a1)
    a2 = tuple(a % x2.ndim for a in a2)
    free1 = [i for i in builtins.range(x1.ndim) if i not in a1]
    free2 = [i for i in builtins.range(x2.ndim) if i not in a2]
    m = int(np.prod([x1.shape[i] for i in a1])) if a1 else 1
    l = array.reshape(array.transpose(x1, (*free1, *a1)), (-1, m))  # noqa: E741
    r = array.reshape(array.transpose(x2, (*a2, *free2)), (m, -1))
    out = math.matmul(l, r)
    return array.reshape(out, tuple(x1.shape[i] for i in free1) + tuple(x2.shape[i] for i in free2))


def top_k(input_x, k, sorted=True):  # noqa: A002
    """The k largest along the last dimension (`ops.topk`)."""
    return math.topk(input_x, int(k), -1, True, sorted)


def trapz(y, x=None, *, dx=1.0, dim=-1) -> Tensor:
    """Trapezoid-rule integral of `y` along `dim` (sample points `x`, or spacing `dx`)."""
    n = y.shape[dim]
    hi, lo = array.narrow(y, dim, 1, n - 1), array.narrow(y, dim, 0, n - 1)
    if x is None:
        return math.sum((hi + lo) * (dx / 2.0), dim)
    d = diff(x, 1, dim if x.ndim == y.ndim else -1)
    return math.sum((hi + lo) * d / 2.0, dim)


def _tri_indices(row, col, offset, lower):
    r, c = np.tril_indices(row, offset, col) if lower else np.triu_indices(row, offset, col)
    return np.stack([r, c])


def tril_indices(row, col, offset=0, *, dtype=mstype.int64) -> Tensor:
    """(2, N) row and column indices of the lower triangle of a row x col matrix (diagonal `offset`)."""
    return Tensor(_tri_indices(row, col, offset, True), dtype)


def triu_indices(row, col, offset=0, *, dtype=mstype.int64) -> Tensor:
    """(2, N) row and column indices of the upper triangle of a row x col matrix (diagonal `offset`)."""
    return Tensor(_tri_indices(row, col, offset, False), dtype)


def truncate_mod(x, y) -> Tensor:
    """Remainder of truncated division (the sign of `x`), `ops.fmod`."""
    return math.fmod(x, y)


def vander(x, N=None) -> Tensor:  # noqa: N803
    """Vandermonde matrix with decreasing powers: column j is x ** (N - 1 - j)."""
    n = x.shape[0] if N is None else int(N)
    powers = Tensor(np.arange(n - 1, -1, -1), mstype.int64)
    base = x if x.dtype.is_floating or x.dtype.is_complex else math.cast(x, mstype.int64)
    return math.pow(array.expand_dims(base, -1), math.cast(powers, base.dtype))


def vecdot(x, y, *, axis=-1) -> Tensor:
    """Dot product along `axis` (the first input conjugated)."""
    return math.sum(math.mul(math.conj(x) if x.dtype.is_complex else x, y), axis)


def view_as_real(input) -> Tensor:
    """A complex tensor as real tensor with a last dimension (real, imag)."""
    if not input.dtype.is_complex:
        raise TypeError(f"view_as_real(): the input must be complex, but got {input.dtype}.")
    return array.stack((math.real(input), math.imag(input)), -1)


def zero_(input) -> Tensor:
    """Fill `input` with 0 in place; returns it."""
    return input.zero_()


def fills(x, value) -> Tensor:
    """A tensor like `x` filled with `value`."""
    return array.full_like(x, value.asnumpy().item() if isinstance(value, Tensor) else value)


def sequence_mask(lengths, maxlen=None) -> Tensor:
    """Boolean mask (..., maxlen): position j is True where j < lengths."""
    if maxlen is None:
        maxlen = int(np.max(lengths.asnumpy()))
    pos = array.arange(0, int(maxlen), dtype=lengths.dtype)
    return math.less(pos, array.expand_dims(lengths, -1))


def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True) -> Tensor:
    """`x` with the slices of `y` added at `indices` along `axis`."""
    axis = axis % x.ndim
    xt = array.moveaxis(x, axis, 0)
    yt = array.moveaxis(y, axis, 0)
    out = array.tensor_scatter_add(xt, array.expand_dims(indices, -1), yt)
    return array.moveaxis(out, 0, axis)


def inplace_index_add(var, indices, updates, axis) -> Tensor:
    """`var[..., indices, ...] += updates` along `axis`, written into the Parameter `var`."""
    from kiln.ops import state  # noqa: PLC0415

    return state.assign(var, index_add(var, indices, updates, axis))


def index_fill(x, axis, index, value) -> Tensor:
    """`x` with the slices at `index` along `axis` set to `value`."""
    axis = int(axis.asnumpy()) if isinstance(axis, Tensor) else axis
    axis = axis % x.ndim
    mask_1d = math.any(math.equal(array.expand_dims(array.arange(0, x.shape[axis]), -1),
                                  array.reshape(index, (1, -1))), -1)  # fmt: skip
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    mask = array.reshape(mask_1d, tuple(shape))
    v = math.cast(value, x.dtype) if isinstance(value, Tensor) else Tensor(value, x.dtype)
    return array.select(array.broadcast_to(mask, x.shape), array.broadcast_to(v, x.shape), x)


def _inplace_rows(x, v, indices, mode):
    idx = (indices,) if isinstance(indices, int) else tuple(indices)
    if isinstance(indices, Tensor):
        idx_t = array.reshape(indices, (-1, 1))
    else:
        idx_t = Tensor(np.asarray(idx, np.int64).reshape(-1, 1))
    if v.ndim == x.ndim - 1:
        v = array.expand_dims(v, 0)
    if mode == "update":
        return array.tensor_scatter_update(x, idx_t, v)
    return array.tensor_scatter_add(x, idx_t, v if mode == "add" else math.neg(v))


def inplace_add(x, v, indices) -> Tensor:
    """`x` with `v` added to the rows `indices`."""
    return _inplace_rows(x, v, indices, "add")


def inplace_sub(x, v, indices) -> Tensor:
    """`x` with `v` subtracted from the rows `indices`."""
    return _inplace_rows(x, v, indices, "sub")


def inplace_update(x, v, indices) -> Tensor:
    """`x` with the rows `indices` replaced by `v`."""
    return _inplace_rows(x, v, indices, "update")


def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1) -> Tensor:
    """`input` with its diagonal (`offset`, in the plane `dim1`, `dim2`) replaced by `src`.

    Args:
        input (Tensor): at least 2-D.
        src (Tensor): the new diagonal: the other dimensions of `input`, then the diagonal's length.
        offset (int): which diagonal (> 0 above the main one).
        dim1, dim2 (int): the plane.

    Returns:
        Tensor of the input's shape.
    """
    nd = input.ndim
    d1, d2 = dim1 % nd, dim2 % nd
    rows, cols = input.shape[d1], input.shape[d2]
    i, j = np.arange(rows)[:, None], np.arange(cols)[None, :]
    on_diag = np.broadcast_to(j - i == offset, (rows, cols))
    pos = np.broadcast_to(i if offset >= 0 else j, (rows, cols))  # index of (i, j) along the diagonal
    length = src.shape[-1]
    pos = np.where(on_diag, np.minimum(pos, max(length - 1, 0)), 0).astype(np.int64)
    perm = [a for a in builtins.range(nd) if a not in (d1, d2)] + [d1, d2]
    moved = array.transpose(input, tuple(perm))
    batch = moved.shape[:-2]
    flat_pos = Tensor(pos.reshape(-1))
    values = array.gather(math.cast(src, input.dtype), flat_pos, src.ndim - 1)
    values = array.reshape(values, (*batch, rows, cols))
    out = array.select(array.broadcast_to(Tensor(on_diag), moved.shape), values, moved)
    return array.transpose(out, tuple(int(k) for k in np.argsort(perm)))


def slice_scatter(input, src, axis=0, start=None, end=None, step=1) -> Tensor:
    """`input` with the slice `start:end:step` along `axis` replaced by `src`."""
    n = input.shape[axis]
    positions = np.arange(n)[builtins.slice(start, end, step)]
    xt = array.moveaxis(input, axis, 0)
    st = array.moveaxis(src, axis, 0)
    out = array.tensor_scatter_update(xt, Tensor(positions.reshape(-1, 1).astype(np.int64)), st)
    return array.moveaxis(out, 0, axis)


def select_scatter(input, src, axis, index) -> Tensor:
    """`input` with the slice at `index` along `axis` replaced by `src`."""
    return slice_scatter(input, array.expand_dims(src, axis), axis, index, index + 1 if index != -1 else None)


def _param_update(var, value):
    from kiln._core.tensor import Parameter  # noqa: PLC0415
    from kiln.ops import state  # noqa: PLC0415

    if isinstance(var, Parameter):
        return state.assign(var, value)
    return value


def scatter_nd_add(input_x, indices, updates, use_locking=False) -> Tensor:
    """Add `updates` at `indices` into the Parameter `input_x` (in place); returns the new value."""
    return _param_update(input_x, array.tensor_scatter_add(input_x, indices, updates))


def scatter_nd_update(input_x, indices, updates, use_locking=True) -> Tensor:
    """Write `updates` at `indices` into the Parameter `input_x` (in place); returns the new value."""
    return _param_update(input_x, array.tensor_scatter_update(input_x, indices, updates))


def scatter_update(input_x, indices, updates) -> Tensor:
    """Write `updates` into the rows `indices` of the Parameter `input_x` (in place); returns the new value."""
    return _param_update(input_x, array.tensor_scatter_update(input_x, array.expand_dims(indices, -1), updates))


def histc(input, bins=100, min=0.0, max=0.0) -> Tensor:  # noqa: A002
    """Histogram with `bins` equal bins over [min, max] (both 0: the data's range); values outside are ignored."""
    x = math.cast(input, mstype.float32)
    lo, hi = float(min), float(max)
    if lo == hi:
        lo_t, hi_t = math.amin(x), math.amax(x)
    else:
        lo_t, hi_t = Tensor(lo, mstype.float32), Tensor(hi, mstype.float32)
    width = hi_t - lo_t
    width = array.select(width == 0, array.ones_like(width), width)
    pos = math.floor((x - lo_t) / width * bins)
    pos = array.select(x == hi_t, array.full_like(pos, bins - 1), pos)
    inside = math.logical_and(x >= lo_t, x <= hi_t)
    idx = math.cast(array.select(inside, pos, array.full_like(pos, bins)), mstype.int64)
    onehot = math.cast(math.equal(array.expand_dims(array.reshape(idx, (-1,)), -1), array.arange(0, bins)),
                       mstype.float32)  # fmt: skip
    return math.cast(math.sum(onehot, 0), input.dtype if input.dtype.is_floating else mstype.float32)


def bucketize(input, boundaries, *, right=False) -> Tensor:
    """Index of the bucket of each element of `input` given sorted `boundaries` (int32)."""
    b = Tensor(np.asarray(boundaries, np.float32)) if not isinstance(boundaries, Tensor) else boundaries
    x = math.cast(input, b.dtype)
    cmp = math.less_equal(array.expand_dims(b, 0), array.expand_dims(array.reshape(x, (-1,)), -1)) if right else (
        math.less(array.expand_dims(b, 0), array.expand_dims(array.reshape(x, (-1,)), -1)))  # fmt: skip
    out = math.sum(math.cast(cmp, mstype.int32), -1)
    return math.cast(array.reshape(out, input.shape), mstype.int32)


def combinations(input, r=2, with_replacement=False) -> Tensor:
    """All length-`r` combinations of the elements of a 1-D tensor, one per row."""
    import itertools  # noqa: PLC0415

    n = input.shape[0]
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.asarray(list(gen(builtins.range(n), r)), np.int64).reshape(-1, r)
    if idx.size == 0:
        return array.zeros((0,), input.dtype) if r != 1 else input
    return array.reshape(array.gather(input, Tensor(idx.reshape(-1)), 0), idx.shape)


def pdist(input, p=2.0) -> Tensor:
    """p-norm distances between the rows of `input` (..., N, M), upper triangle, row by row."""
    n = input.shape[-2]
    d = extra_math.cdist(input, input, p)
    r, c = np.triu_indices(n, 1)
    flat = array.reshape(d, (*d.shape[:-2], n * n))
    return array.gather(flat, Tensor((r * n + c).astype(np.int64)), flat.ndim - 1)


def eps(x) -> Tensor:
    """A tensor like `x` filled with the smallest positive normal of its dtype."""
    return array.full_like(x, float(np.finfo(x.dtype.np).tiny if x.dtype != mstype.float16 else 6.1035e-05))


def fast_gelu(x) -> Tensor:
    """x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))."""
    a = math.abs(x)
    return x / (1 + math.exp(-1.702 * a)) * math.exp(0.851 * (x - a))


def fftfreq(n, d=1.0, dtype=None) -> Tensor:
    """Sample frequencies of an n-point FFT with spacing `d`."""
    return Tensor(np.fft.fftfreq(int(n), float(d)).astype(np.float32), dtype or mstype.float32)


def rfftfreq(n, d=1.0, dtype=None) -> Tensor:
    """Sample frequencies of an n-point real FFT with spacing `d`."""
    return Tensor(np.fft.rfftfreq(int(n), float(d)).astype(np.float32), dtype or mstype.float32)


def mirror_pad(input_x, paddings, mode) -> Tensor:
    """Pad with reflections: `mode` 'REFLECT' (edge not repeated) or 'SYMMETRIC' (edge repeated).

    Args:
        input_x (Tensor): the input.
        paddings (Tensor | sequence): (ndim, 2) before/after amounts per dimension.
        mode (str): 'REFLECT' or 'SYMMETRIC'.

    Returns:
        Tensor.
    """
    pads = paddings.asnumpy().tolist() if isinstance(paddings, Tensor) else [list(p) for p in paddings]
    out = input_x
    for axis, (before, after) in enumerate(pads):
        n = out.shape[axis]
        if before == 0 and after == 0:
            continue
        if mode.upper() == "REFLECT":
            left = [before - i for i in builtins.range(before)]
            right = [n - 2 - i for i in builtins.range(after)]
        else:
            left = [before - 1 - i for i in builtins.range(before)]
            right = [n - 1 - i for i in builtins.range(after)]
        idx = np.asarray(left + list(builtins.range(n)) + right, np.int64)
        out = array.gather(out, Tensor(idx), axis)
    return out


def reverse_sequence(x, seq_lengths, seq_dim, batch_dim=0) -> Tensor:
    """Reverse the first `seq_lengths[b]` elements along `seq_dim` of each batch entry `b`."""
    n = x.shape[seq_dim]
    pos = array.arange(0, n, dtype=mstype.int64)
    lens = math.cast(seq_lengths, mstype.int64)
    rev = array.expand_dims(lens, -1) - 1 - array.expand_dims(pos, 0)  # (B, n)
    idx = array.select(array.expand_dims(pos, 0) < array.expand_dims(lens, -1), rev,
                       array.broadcast_to(array.expand_dims(pos, 0), rev.shape))  # fmt: skip
    shape = [1] * x.ndim
    shape[batch_dim], shape[seq_dim] = x.shape[batch_dim], n
    if batch_dim > seq_dim:
        idx = array.transpose(idx, (1, 0))
    idx = array.broadcast_to(array.reshape(idx, tuple(shape)), x.shape)
    return array.gather_elements(x, seq_dim, idx)


def strided_slice(input_x, begin, end, strides, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0) -> Tensor:  # fmt: skip
    """`input_x[begin:end:strides]` with MindSpore's bit masks (bit i concerns slice entry i).

    Args:
        input_x (Tensor): the input.
        begin, end, strides (tuple of int): the slice, one entry per indexed dimension.
        begin_mask, end_mask: bit i set: ignore begin[i] / end[i] (take the whole range).
        ellipsis_mask: bit i set: entry i is an ellipsis.
        new_axis_mask: bit i set: entry i inserts a new dimension of size 1.
        shrink_axis_mask: bit i set: entry i indexes a single element and drops the dimension.

    Returns:
        Tensor.
    """
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(int(b))
        else:
            key.append(builtins.slice(None if begin_mask & bit else int(b), None if end_mask & bit else int(e),
                                      int(s)))  # fmt: skip
    return input_x[tuple(key)]


def tensor_slice(input, begin, size) -> Tensor:
    """`ops.slice`: the block starting at `begin` with `size` (-1: to the end)."""
    return array.slice(input, begin, size)


def space_to_batch_nd(input_x, block_size, paddings) -> Tensor:
    """Move blocks of the spatial dimensions (after N, C for NCHW) into the batch dimension.

    Args:
        input_x (Tensor): (N, C, *spatial).
        block_size (int | sequence of int): block per spatial dimension.
        paddings (sequence of (before, after)): zero padding per spatial dimension.

    Returns:
        Tensor (N * prod(block), C, *(padded spatial / block)).
    """
    m = len(paddings)
    blocks = [block_size] * m if isinstance(block_size, int) else list(block_size)
    pad = []
    for before, after in reversed([tuple(p) for p in paddings]):
        pad += [int(before), int(after)]
    x = array.pad(input_x, tuple(pad)) if builtins.any(pad) else input_x
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    shape = [n, c]
    for s, b in zip(spatial, blocks):
        shape += [s // b, b]
    x = array.reshape(x, tuple(shape))
    block_axes = [3 + 2 * i for i in builtins.range(m)]
    grid_axes = [2 + 2 * i for i in builtins.range(m)]
    x = array.transpose(x, (*block_axes, 0, 1, *grid_axes))
    return array.reshape(x, (n * int(np.prod(blocks)), c, *(s // b for s, b in zip(spatial, blocks))))


def batch_to_space_nd(input_x, block_shape, crops) -> Tensor:
    """The inverse of `space_to_batch_nd`: move batch blocks back into the spatial dimensions, then crop."""
    m = len(crops)
    blocks = [block_shape] * m if isinstance(block_shape, int) else list(block_shape)
    nb, c = input_x.shape[:2]
    spatial = input_x.shape[2:]
    n = nb // int(np.prod(blocks))
    x = array.reshape(input_x, (*blocks, n, c, *spatial))
    order = [m, m + 1]
    for i in builtins.range(m):
        order += [m + 2 + i, i]
    x = array.transpose(x, tuple(order))
    x = array.reshape(x, (n, c, *(s * b for s, b in zip(spatial, blocks))))
    for i, (lo, hi) in enumerate(crops):
        size = x.shape[2 + i] - int(lo) - int(hi)
        x = array.narrow(x, 2 + i, int(lo), size)
    return x


def iou(anchor_boxes, gt_boxes, mode="iou") -> Tensor:
    """Intersection over union (or over the foreground, mode 'iof') of (x1, y1, x2, y2) boxes.

    Args:
        anchor_boxes (Tensor): (N, 4).
        gt_boxes (Tensor): (M, 4).
        mode (str): 'iou' or 'iof'.

    Returns:
        Tensor (M, N).
    """
    if mode not in ("iou", "iof"):
        raise op_error("IOU", f"'mode' must be 'iou' or 'iof', but got {mode!r}.")
    a = array.expand_dims(anchor_boxes, 0)
    g = array.expand_dims(gt_boxes, 1)
    lt_x = math.maximum(a[..., 0], g[..., 0])
    lt_y = math.maximum(a[..., 1], g[..., 1])
    rb_x = math.minimum(a[..., 2], g[..., 2])
    rb_y = math.minimum(a[..., 3], g[..., 3])
    w = math.maximum(rb_x - lt_x + 1, 0)
    h = math.maximum(rb_y - lt_y + 1, 0)
    inter = w * h
    area_a = (a[..., 2] - a[..., 0] + 1) * (a[..., 3] - a[..., 1] + 1)
    area_g = (g[..., 2] - g[..., 0] + 1) * (g[..., 3] - g[..., 1] + 1)
    if mode == "iof":
        return inter / area_g
    return inter / (area_a + area_g - inter)


def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0)):
    """Deltas (dx, dy, dw, dh) of ground-truth boxes relative to anchors, normalised by `means` and `stds`."""
    ax = (anchor_box[:, 0] + anchor_box[:, 2]) * 0.5
    ay = (anchor_box[:, 1] + anchor_box[:, 3]) * 0.5
    aw = anchor_box[:, 2] - anchor_box[:, 0] + 1.0
    ah = anchor_box[:, 3] - anchor_box[:, 1] + 1.0
    gx = (groundtruth_box[:, 0] + groundtruth_box[:, 2]) * 0.5
    gy = (groundtruth_box[:, 1] + groundtruth_box[:, 3]) * 0.5
    gw = groundtruth_box[:, 2] - groundtruth_box[:, 0] + 1.0
    gh = groundtruth_box[:, 3] - groundtruth_box[:, 1] + 1.0
    d = array.stack(((gx - ax) / aw, (gy - ay) / ah, math.log(gw / aw), math.log(gh / ah)), 1)
    return (d - Tensor(np.asarray(means, np.float32))) / Tensor(np.asarray(stds, np.float32))


def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0), stds=(1.0, 1.0, 1.0, 1.0),
                        wh_ratio_clip=0.016):  # fmt: skip
    """Boxes (x1, y1, x2, y2) from anchors and deltas (the inverse of `bounding_box_encode`), clipped to
    `max_shape` (height, width)."""
    d = deltas * Tensor(np.asarray(stds, np.float32)) + Tensor(np.asarray(means, np.float32))
    limit = abs(float(np.log(wh_ratio_clip)))
    dw = math.clamp(d[:, 2], -limit, limit)
    dh = math.clamp(d[:, 3], -limit, limit)
    ax = (anchor_box[:, 0] + anchor_box[:, 2]) * 0.5
    ay = (anchor_box[:, 1] + anchor_box[:, 3]) * 0.5
    aw = anchor_box[:, 2] - anchor_box[:, 0] + 1.0
    ah = anchor_box[:, 3] - anchor_box[:, 1] + 1.0
    gw, gh = aw * math.exp(dw), ah * math.exp(dh)
    gx, gy = ax + aw * d[:, 0], ay + ah * d[:, 1]
    h, w = max_shape
    x1 = math.clamp(gx - gw * 0.5 + 0.5, 0, w - 1)
    y1 = math.clamp(gy - gh * 0.5 + 0.5, 0, h - 1)
    x2 = math.clamp(gx + gw * 0.5 - 0.5, 0, w - 1)
    y2 = math.clamp(gy + gh * 0.5 - 0.5, 0, h - 1)
    return array.stack((x1, y1, x2, y2), 1)


def check_valid(bboxes, img_metas) -> Tensor:
    """Whether each (x1, y1, x2, y2) box lies inside the image (height, width, ratio) of `img_metas`."""
    h = img_metas[0] * img_metas[2]
    w = img_metas[1] * img_metas[2]
    ok = math.logical_and(bboxes[:, 0] >= 0, bboxes[:, 1] >= 0)
    ok = math.logical_and(ok, bboxes[:, 2] <= w - 1)
    return math.logical_and(ok, bboxes[:, 3] <= h - 1)


def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS") -> Tensor:
    """Local response normalisation across channels of NCHW input:
    x / (bias + alpha * sum of squares over 2 * depth_radius + 1 channels) ** beta."""
    c = x.shape[1]
    sq = math.square(x)
    padded = array.pad(sq, (0, 0, 0, 0, depth_radius, depth_radius))
    acc = builtins.sum(array.narrow(padded, 1, i, c) for i in builtins.range(2 * depth_radius + 1))
    return x / math.pow(bias + alpha * acc, beta)


def put_(input, index, source, accumulate=False) -> Tensor:
    """Write (or add) `source` at the flat positions `index` of `input`, in place."""
    flat = array.reshape(input, (-1,))
    idx = array.reshape(array.select(index < 0, index + input.size, index), (-1, 1))
    src = array.reshape(source, (-1,))
    out = array.tensor_scatter_add(flat, idx, src) if accumulate else array.tensor_scatter_update(flat, idx, src)
    return input.assign_value(array.reshape(out, input.shape))


def tanh_(input) -> Tensor:
    """tanh of `input` in place."""
    return input.assign_value(math.tanh(input))


def inplace_sigmoid(input) -> Tensor:
    """sigmoid of `input` in place."""
    from kiln.ops import nn as nn_ops  # noqa: PLC0415

    return input.assign_value(nn_ops.sigmoid(input))


sigmoid_ = inplace_sigmoid


def reshape_(input, shape) -> Tensor:
    """Reshape `input` in place."""
    return input.assign_value(array.reshape(input, shape))


def tensor_range(start, end, step) -> Tensor:
    """`ops.range`."""
    return array.range(start, end, step)


def masked_scatter(input, mask, source) -> Tensor:
    """`input` with the positions where `mask` is True filled, in order, from the elements of `source`."""
    mask_b = array.broadcast_to(mask, input.shape)
    flat_mask = math.cast(array.reshape(mask_b, (-1,)), mstype.int64)
    pos = math.cumsum(flat_mask, 0) - 1
    pos = math.clamp(pos, 0, None)
    src = array.gather(array.reshape(source, (-1,)), pos, 0)
    return array.select(mask_b, array.reshape(src, input.shape), input)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (of the flattened input when `dim` is None, else of slices
    along `dim`). The output's length depends on the values: PyNative only.

    Returns:
        Tensor, or a tuple with the inverse indices and/or the run lengths.
    """
    x = input.asnumpy()
    if dim is None:
        flat = x.reshape(-1)
        change = np.ones(flat.shape[0], bool)
        change[1:] = flat[1:] != flat[:-1]
        out = flat[change]
        inverse = (np.cumsum(change) - 1).reshape(x.shape)
    else:
        moved = np.moveaxis(x, dim, 0)
        change = np.ones(moved.shape[0], bool)
        change[1:] = np.any((moved[1:] != moved[:-1]).reshape(moved.shape[0] - 1, -1), axis=1)
        out = np.moveaxis(moved[change], 0, dim)
        inverse = np.cumsum(change) - 1
    counts = np.diff(np.append(np.nonzero(change)[0], change.shape[0]))
    res = [Tensor(out, input.dtype)]
    if return_inverse:
        res.append(Tensor(inverse.astype(np.int64)))
    if return_counts:
        res.append(Tensor(counts.astype(np.int64)))
    return res[0] if len(res) == 1 else tuple(res)


def unravel_index(indices, dims) -> Tensor:
    """Coordinates of flat `indices` in an array of shape `dims`, stacked on the last axis."""
    d = dims.asnumpy().tolist() if isinstance(dims, Tensor) else list(dims)
    out, rest = [], indices
    for size in reversed(d):
        out.append(math.floor_mod(rest, size))
        rest = math.floor_divide(rest, size)
    return array.stack(list(reversed(out)), -1)


def invert_permutation(input_x) -> Tensor:
    """The inverse of a permutation of 0..n-1."""
    n = input_x.shape[0]
    return array.tensor_scatter_update(array.zeros((n,), input_x.dtype), array.expand_dims(input_x, -1),
                                       array.arange(0, n, dtype=input_x.dtype))  # fmt: skip


def square_sum_all(x, y):
    """(sum(x ** 2), sum(y ** 2))."""
    return math.sum(math.square(x)), math.sum(math.square(y))


def depth_to_space(x, block_size) -> Tensor:
    """NCHW: move blocks of channels into (block_size x block_size) spatial blocks."""
    n, c, h, w = x.shape
    b = block_size
    x = array.reshape(x, (n, b, b, c // (b * b), h, w))
    x = array.transpose(x, (0, 3, 4, 1, 5, 2))
    return array.reshape(x, (n, c // (b * b), h * b, w * b))


def space_to_depth(x, block_size) -> Tensor:
    """NCHW: move (block_size x block_size) spatial blocks into channels (the inverse of depth_to_space)."""
    n, c, h, w = x.shape
    b = block_size
    x = array.reshape(x, (n, c, h // b, b, w // b, b))
    x = array.transpose(x, (0, 3, 5, 1, 2, 4))
    return array.reshape(x, (n, c * b * b, h // b, w // b))


def log_softmax_ext(input, dim=None, dtype=None) -> Tensor:
    """log_softmax over `dim` (None: the last), computed after casting to `dtype`."""
    from kiln.ops import nn as nn_ops  # noqa: PLC0415

    x = input if dtype is None else math.cast(input, dtype)
    return nn_ops.log_softmax(x, -1 if dim is None else dim)


# The tensor_* spellings of MindSpore's functional module: the same ops.
tensor_add, tensor_sub, tensor_mul, tensor_muls = math.add, math.sub, math.mul, math.mul
tensor_div, tensor_floordiv, tensor_mod, tensor_pow = math.div, math.floor_divide, math.floor_mod, math.pow
tensor_exp, tensor_expm1 = math.exp, math.expm1
tensor_gt, tensor_ge, tensor_lt, tensor_le = math.greater, math.greater_equal, math.less, math.less_equal
_ = extra_array
