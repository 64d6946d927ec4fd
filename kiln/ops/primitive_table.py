"""MindSpore Primitive classes generated from one table (`ops.Cholesky(upper=True)(x)`).

Each row names the class, its `__init__` attributes with their defaults (in MindSpore's order) and the call, a
function of the instance and the call's inputs that ends in a functional op: the class is only a face of that op.
"""

from __future__ import annotations

import functools

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.ops import array, image, linalg, math, python_ops, random, spectral, state
from kiln.ops import nn as nn_ops
from kiln.ops import random as _random
from kiln.ops.nn import activation, conv, loss, normalization
from kiln.ops.primitive import WithAttrs

__all__: list[str] = []


def _int(v):
    return int(v.asnumpy().reshape(-1)[0]) if isinstance(v, Tensor) else int(v)


def _ints(v):
    if isinstance(v, Tensor):
        return tuple(int(i) for i in v.asnumpy().reshape(-1))
    return (int(v),) if isinstance(v, int) else tuple(int(i) for i in v)


def _assign(var, value):
    return state.assign(var, value) if isinstance(var, Parameter) else value


def _apply_rows(var, indices, updates, fn):
    """`var[indices] = fn(var[indices], updates)` for the rows `indices` (first axis) of a Parameter."""
    idx = array.expand_dims(indices, -1)
    current = array.gather_nd(var, idx)
    return _assign(var, array.tensor_scatter_update(var, idx, fn(current, updates)))


def _window(fn):
    def call(self, length):
        return fn(_int(length), periodic=self.periodic, dtype=self.dtype)

    return call


# (class name, {attribute: default}, call(self, *inputs)).
_TABLE = [
    ("Addcdiv", {}, lambda s, x, t1, t2, v: math.addcdiv(x, t1, t2, v)),
    ("Addcmul", {}, lambda s, x, t1, t2, v: math.addcmul(x, t1, t2, v)),
    ("Angle", {}, lambda s, x: math.angle(x)),
    ("BesselI0", {}, lambda s, x: math.bessel_i0(x)),
    ("BesselI0e", {}, lambda s, x: math.bessel_i0e(x)),
    ("BesselI1", {}, lambda s, x: math.bessel_i1(x)),
    ("BesselI1e", {}, lambda s, x: math.bessel_i1e(x)),
    ("BesselJ0", {}, lambda s, x: math.bessel_j0(x)),
    ("BesselJ1", {}, lambda s, x: math.bessel_j1(x)),
    ("Betainc", {}, lambda s, a, b, x: math.betainc(a, b, x)),
    ("Complex", {}, lambda s, re, im: math.complex(re, im)),
    ("ComplexAbs", {}, lambda s, x: math.abs(x)),
    ("Cholesky", {"upper": False}, lambda s, x: linalg.cholesky(x, s.upper)),
    ("CholeskyInverse", {"upper": False}, lambda s, x: linalg.cholesky_inverse(x, s.upper)),
    ("CholeskySolve", {"upper": False}, lambda s, x1, x2: linalg.cholesky_solve(x1, x2, s.upper)),
    (
        "CountNonZero",
        {"dims": None},
        lambda s, x: math.count_nonzero(x, s.dims if s.dims is not None else (), dtype=mstype.int64),
    ),  # fmt: skip
    ("Cross", {"dim": -65530}, lambda s, x, y: math.cross(x, y, None if s.dim == -65530 else s.dim)),
    ("Cummax", {"axis": 0}, lambda s, x: math.cummax(x, s.axis)),
    ("Cummin", {"axis": 0}, lambda s, x: math.cummin(x, s.axis)),
    ("CumulativeLogsumexp", {"exclusive": False, "reverse": False}, lambda s, x, axis: _cumlogsumexp(s, x, axis)),
    ("Dense", {}, lambda s, x, w, b=None: nn_ops.dense(x, w, b)),
    ("DepthToSpace", {"block_size": 2}, lambda s, x: array.depth_to_space(x, s.block_size)),
    ("SpaceToDepth", {"block_size": 2}, lambda s, x: array.space_to_depth(x, s.block_size)),
    ("Diag", {}, lambda s, x: math.diag(x)),
    ("DiagPart", {}, lambda s, x: _diag_part(x)),
    ("DivNoNan", {}, lambda s, x, y: _div_no_nan(x, y)),
    ("MulNoNan", {}, lambda s, x, y: array.select(math.equal(y, 0), math.mul(x, 0) * 0, math.mul(x, y))),
    ("Eig", {"compute_v": False}, lambda s, x: linalg.eig(x) if s.compute_v else (linalg.eigvals(x),)),
    ("Expand", {}, lambda s, x, shape: array.expand(x, shape)),
    ("FastGeLU", {}, lambda s, x: activation.fast_gelu(x)),
    ("FastGelu", {}, lambda s, x: activation.fast_gelu(x)),
    ("Gelu", {}, lambda s, x: nn_ops.gelu(x)),
    ("Fmax", {}, lambda s, x, y: math.fmax(x, y)),
    ("GLU", {"axis": -1}, lambda s, x: nn_ops.glu(x, s.axis)),
    ("Gcd", {}, lambda s, x, y: math.gcd(x, y)),
    ("Lcm", {}, lambda s, x, y: math.lcm(x, y)),
    ("Geqrf", {}, lambda s, x: linalg.geqrf(x)),
    ("Orgqr", {}, lambda s, x, tau: linalg.orgqr(x, tau)),
    (
        "Ormqr",
        {"left": True, "transpose": False},
        lambda s, x, tau, other: linalg.ormqr(x, tau, other, s.left, s.transpose),
    ),  # fmt: skip
    (
        "HammingWindow",
        {"periodic": True, "alpha": 0.54, "beta": 0.46, "dtype": mstype.float32},
        lambda s, n: _hamming(s, n),
    ),  # fmt: skip
    ("BartlettWindow", {"periodic": True, "dtype": mstype.float32}, _window(math.bartlett_window)),
    ("BlackmanWindow", {"periodic": True, "dtype": mstype.float32}, _window(math.blackman_window)),
    ("Heaviside", {}, lambda s, x, v: math.heaviside(x, v)),
    ("Histogram", {"bins": 100, "min": 0.0, "max": 0.0}, lambda s, x: math.histc(x, s.bins, s.min, s.max)),
    ("IOU", {"mode": "iou"}, lambda s, anchors, gt: image.iou(anchors, gt, s.mode)),
    (
        "BoundingBoxEncode",
        {"means": (0.0, 0.0, 0.0, 0.0), "stds": (1.0, 1.0, 1.0, 1.0)},
        lambda s, a, g: image.bounding_box_encode(a, g, s.means, s.stds),
    ),  # fmt: skip
    (
        "BoundingBoxDecode",
        {"max_shape": None, "means": (0.0, 0.0, 0.0, 0.0), "stds": (1.0, 1.0, 1.0, 1.0), "wh_ratio_clip": 0.016},
        lambda s, a, d: image.bounding_box_decode(a, d, s.max_shape, s.means, s.stds, s.wh_ratio_clip),
    ),  # fmt: skip
    ("IdentityN", {}, lambda s, xs: tuple(xs)),
    ("Igamma", {}, lambda s, a, x: math.igamma(a, x)),
    ("Igammac", {}, lambda s, a, x: math.igammac(a, x)),
    (
        "IndexAdd",
        {"axis": 0, "use_lock": True, "check_index_bound": True},
        lambda s, x, idx, y: _assign(x, array.index_add(x, idx, y, s.axis)),
    ),  # fmt: skip
    ("IndexFill", {}, lambda s, x, dim, idx, v: math.index_fill(x, dim, idx, v)),
    ("InplaceAdd", {"indices": 0}, lambda s, x, v: math.inplace_add(x, v, s.indices)),
    ("InplaceSub", {"indices": 0}, lambda s, x, v: math.inplace_sub(x, v, s.indices)),
    ("InplaceUpdateV2", {}, lambda s, x, idx, v: math.inplace_update(x, v, idx)),
    ("InplaceIndexAdd", {"axis": 0}, lambda s, var, idx, u: array.inplace_index_add(var, idx, u, s.axis)),
    ("InvertPermutation", {}, lambda s, x: _invert_permutation(x)),
    (
        "IsClose",
        {"rtol": 1e-05, "atol": 1e-08, "equal_nan": False},
        lambda s, x, y: math.isclose(x, y, s.rtol, s.atol, s.equal_nan),
    ),  # fmt: skip
    (
        "LRN",
        {"depth_radius": 5, "bias": 1.0, "alpha": 1.0, "beta": 0.5, "norm_region": "ACROSS_CHANNELS"},
        lambda s, x: normalization.lrn(x, s.depth_radius, s.bias, s.alpha, s.beta, s.norm_region),
    ),  # fmt: skip
    ("Lerp", {}, lambda s, x, end, w: math.lerp(x, end, w)),
    ("LerpScalar", {}, lambda s, x, end, w: math.lerp(x, end, w)),
    ("LogMatrixDeterminant", {}, lambda s, x: linalg.log_matrix_determinant(x)),
    ("MatrixDeterminant", {}, lambda s, x: linalg.det(x)),
    ("LogSoftmaxExt", {}, lambda s, x, dim=None, dtype=None: activation.log_softmax_ext(x, dim, dtype)),
    (
        "LogSpace",
        {"steps": 10, "base": 10, "dtype": mstype.float32},
        lambda s, start, end: math.logspace(_scalar(start), _scalar(end), s.steps, s.base, dtype=s.dtype),
    ),
    ("Logit", {"eps": -1.0}, lambda s, x: math.logit(x, s.eps)),
    ("Lstsq", {"fast": True, "l2_regularizer": 0.0}, lambda s, a, b: linalg.lstsq(a, b)),
    ("LuSolve", {}, lambda s, b, lu, piv: linalg.lu_solve(b, lu, piv)),
    ("LuUnpack", {"unpack_data": True, "unpack_pivots": True}, lambda s, lu, piv: linalg.lu_unpack(lu, piv)),
    ("MaskedScatter", {}, lambda s, x, mask, src: math.masked_scatter(x, mask, src)),
    ("MatrixExp", {}, lambda s, x: linalg.matrix_exp(x)),
    ("MatrixPower", {"n": 1}, lambda s, x: linalg.matrix_power(x, s.n)),
    ("MatrixSolve", {"adjoint": False}, lambda s, a, b: linalg.matrix_solve(a, b, s.adjoint)),
    (
        "MatrixTriangularSolve",
        {"lower": True, "adjoint": False},
        lambda s, a, b: linalg.triangular_solve(b, a, not s.lower, s.adjoint)[0],
    ),  # fmt: skip
    (
        "Median",
        {"global_median": False, "axis": 0, "keep_dims": False, "ignore_nan": False},
        lambda s, x: _median(s, x),
    ),  # fmt: skip
    ("Meshgrid", {"indexing": "xy"}, lambda s, xs: array.meshgrid(*xs, indexing=s.indexing)),
    ("MirrorPad", {"mode": "REFLECT"}, lambda s, x, pads: array.mirror_pad(x, pads, s.mode)),
    ("Mvlgamma", {"p": 1}, lambda s, x: math.mvlgamma(x, s.p)),
    (
        "NanToNum",
        {"nan": None, "posinf": None, "neginf": None},
        lambda s, x: math.nan_to_num(x, s.nan, s.posinf, s.neginf),
    ),  # fmt: skip
    ("NonZero", {}, lambda s, x: array.nonzero(x)),
    ("Pdist", {"p": 2.0}, lambda s, x: math.pdist(x, s.p)),
    ("Polar", {}, lambda s, r, theta: math.polar(r, theta)),
    ("Polygamma", {}, lambda s, n, x: math.polygamma(n, x)),
    ("PopulationCount", {}, lambda s, x: math.population_count(x)),
    ("Qr", {"full_matrices": False}, lambda s, x: linalg.qr(x, "complete" if s.full_matrices else "reduced")),
    ("ReduceStd", {"axis": (), "unbiased": True, "keep_dims": False}, lambda s, x: _reduce_std(s, x)),
    ("Renorm", {"p": 2, "dim": 0, "maxnorm": 1.0}, lambda s, x: math.renorm(x, s.p, s.dim, s.maxnorm)),
    (
        "ReverseSequence",
        {"seq_dim": 0, "batch_dim": 0},
        lambda s, x, lens: math.reverse_sequence(x, lens, s.seq_dim, s.batch_dim),
    ),  # fmt: skip
    ("Roll", {"shifts": 0, "dims": None}, lambda s, x: array.roll(x, s.shifts, s.dims)),
    ("ScalarToTensor", {}, lambda s, x, dtype=mstype.float32: Tensor(x, dtype)),
    ("ScalarToArray", {}, lambda s, x: Tensor(x)),
    ("TupleToArray", {}, lambda s, x: python_ops.tuple_to_array(x)),
    ("TensorToTuple", {}, lambda s, x: tuple(x.asnumpy().tolist())),
    ("TensorShape", {}, lambda s, x: Tensor(list(x.shape), mstype.int64)),
    (
        "ScatterAdd",
        {"use_locking": False},
        lambda s, var, idx, u: _assign(var, array.tensor_scatter_add(var, array.expand_dims(idx, -1), u)),
    ),
    (
        "ScatterSub",
        {"use_locking": False},
        lambda s, var, idx, u: _assign(var, array.tensor_scatter_add(var, array.expand_dims(idx, -1), math.neg(u))),
    ),
    ("ScatterMul", {"use_locking": False}, lambda s, var, idx, u: _apply_rows(var, idx, u, math.mul)),
    ("ScatterDiv", {"use_locking": False}, lambda s, var, idx, u: _apply_rows(var, idx, u, math.div)),
    (
        "ScatterMax",
        {"use_locking": False},
        lambda s, var, idx, u: _assign(var, array.tensor_scatter_max(var, array.expand_dims(idx, -1), u)),
    ),
    (
        "ScatterMin",
        {"use_locking": False},
        lambda s, var, idx, u: _assign(var, array.tensor_scatter_min(var, array.expand_dims(idx, -1), u)),
    ),
    ("ScatterUpdate", {"use_locking": True}, lambda s, var, idx, u: array.scatter_update(var, idx, u)),
    ("ScatterNdAdd", {"use_locking": False}, lambda s, var, idx, u: array.scatter_nd_add(var, idx, u)),
    ("ScatterNdUpdate", {"use_locking": True}, lambda s, var, idx, u: array.scatter_nd_update(var, idx, u)),
    (
        "ScatterNdSub",
        {"use_locking": False},
        lambda s, var, idx, u: _assign(var, array.tensor_scatter_add(var, idx, math.neg(u))),
    ),  # fmt: skip
    (
        "SigmoidCrossEntropyWithLogits",
        {},
        lambda s, x, y: nn_ops.binary_cross_entropy_with_logits(x, y, reduction="none"),
    ),  # fmt: skip
    ("Sinc", {}, lambda s, x: math.sinc(x)),
    ("SoftMarginLoss", {"reduction": "mean"}, lambda s, x, y: nn_ops.soft_margin_loss(x, y, s.reduction)),
    (
        "MultiMarginLoss",
        {"p": 1, "margin": 1.0, "reduction": "mean"},
        lambda s, x, y, w=None: nn_ops.multi_margin_loss(x, y, s.p, s.margin, w, s.reduction),
    ),  # fmt: skip
    (
        "SpaceToBatchND",
        {"block_shape": 1, "paddings": ()},
        lambda s, x: array.space_to_batch_nd(x, s.block_shape, s.paddings),
    ),  # fmt: skip
    (
        "BatchToSpaceND",
        {"block_shape": 1, "crops": ()},
        lambda s, x: array.batch_to_space_nd(x, s.block_shape, s.crops),
    ),  # fmt: skip
    (
        "BatchToSpace",
        {"block_size": 1, "crops": ()},
        lambda s, x: array.batch_to_space_nd(x, s.block_size, s.crops),
    ),  # fmt: skip
    ("SquareSumAll", {}, lambda s, x, y: math.square_sum_all(x, y)),
    (
        "StridedSlice",
        {"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0, "shrink_axis_mask": 0},
        lambda s, x, b, e, st: array.strided_slice(
            x, b, e, st, s.begin_mask, s.end_mask, s.ellipsis_mask, s.new_axis_mask, s.shrink_axis_mask
        ),
    ),  # fmt: skip
    ("Svd", {"full_matrices": False, "compute_uv": True}, lambda s, x: _svd(s, x)),  # fmt: skip
    ("Trace", {}, lambda s, x: math.trace(x)),
    ("Tril", {"diagonal": 0}, lambda s, x: array.tril(x, s.diagonal)),
    ("Triu", {"diagonal": 0}, lambda s, x: array.triu(x, s.diagonal)),
    (
        "TrilIndices",
        {"row": 1, "col": 1, "offset": 0, "dtype": mstype.int32},
        lambda s: array.tril_indices(s.row, s.col, s.offset, dtype=s.dtype),
    ),  # fmt: skip
    (
        "TriuIndices",
        {"row": 1, "col": 1, "offset": 0, "dtype": mstype.int32},
        lambda s: array.triu_indices(s.row, s.col, s.offset, dtype=s.dtype),
    ),  # fmt: skip
    ("TruncateMod", {}, lambda s, x, y: math.fmod(x, y)),
    (
        "UniqueConsecutive",
        {"return_inverse": False, "return_counts": False, "dim": None},
        lambda s, x: _unique_consecutive(s, x),
    ),  # fmt: skip
    ("Unpack", {"axis": 0}, lambda s, x: array.unstack(x, s.axis)),
    ("UnravelIndex", {}, lambda s, idx, dims: math.unravel_index(idx, dims)),
    ("UnsortedSegmentSum", {}, lambda s, x, ids, n: math.unsorted_segment_sum(x, ids, n)),
    ("UnsortedSegmentMax", {}, lambda s, x, ids, n: math.unsorted_segment_max(x, ids, n)),
    ("UnsortedSegmentMin", {}, lambda s, x, ids, n: math.unsorted_segment_min(x, ids, n)),
    ("UnsortedSegmentProd", {}, lambda s, x, ids, n: math.unsorted_segment_prod(x, ids, n)),
    ("Zeta", {}, lambda s, x, q: math.zeta(x, q)),
    ("FillV2", {}, lambda s, shape, value: array.full(_ints(shape), value, dtype=value.dtype)),
    ("FillDiagonal", {"fill_value": 0.0, "wrap": False}, lambda s, x: _fill_diagonal(s, x)),
    ("Bucketize", {"boundaries": ()}, lambda s, x: math.bucketize(x, s.boundaries, right=True)),
    ("ChannelShuffle", {"group": 1}, lambda s, x: nn_ops.channel_shuffle(x, s.group)),
    ("Dropout2D", {"keep_prob": 0.5}, lambda s, x: _channel_dropout(nn_ops.dropout2d, s, x)),
    ("Dropout3D", {"keep_prob": 0.5}, lambda s, x: _channel_dropout(nn_ops.dropout3d, s, x)),
    ("ApplyGradientDescent", {}, lambda s, var, alpha, delta: _assign(var, var - alpha * delta)),
    ("Assert", {"summarize": 3}, lambda s, cond, data: _assert(s, cond, data)),
    ("StandardLaplace", {"seed": 0, "seed2": 0}, lambda s, shape: _laplace(_ints(shape))),
    (
        "RandomCategorical",
        {"dtype": mstype.int64},
        lambda s, logits, num, seed=0: _random_categorical(logits, _int(num), s.dtype),
    ),  # fmt: skip
    ("Randperm", {"max_length": 1, "pad": -1, "dtype": mstype.int32}, lambda s, n: _randperm_padded(s, n)),
    (
        "RandpermV2",
        {"seed": 0, "offset": 0, "dtype": mstype.int64},
        lambda s, n, seed=0, offset=0: _random.randperm(_int(n), dtype=s.dtype),
    ),  # fmt: skip
]


def _invert_permutation(x):
    if isinstance(x, Tensor):
        return array.invert_permutation(x)
    out = [0] * len(x)
    for i, v in enumerate(x):
        out[v] = i
    return tuple(out)


def _svd(s, x):
    if s.compute_uv:
        return linalg.svd(x, s.full_matrices, True)
    empty = array.zeros((1,), x.dtype)
    return linalg.svd(x, compute_uv=False), empty, empty


def _rows_update(var, indices, rows):
    return _assign(var, array.tensor_scatter_update(var, array.expand_dims(indices, -1), rows))


def _apply_ada_max(s, var, m, v, beta1_power, lr, beta1, beta2, epsilon, grad):
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = math.maximum(beta2 * v, math.abs(grad))
    var_new = var - lr / (1 - beta1_power) * m_new / (v_new + epsilon)
    return _assign(var, var_new), _assign(m, m_new), _assign(v, v_new)


def _apply_adadelta(s, var, accum, accum_update, lr, rho, epsilon, grad):
    accum_new = rho * accum + (1 - rho) * math.square(grad)
    update = math.sqrt(accum_update + epsilon) / math.sqrt(accum_new + epsilon) * grad
    acc_up_new = rho * accum_update + (1 - rho) * math.square(update)
    return _assign(var, var - lr * update), _assign(accum, accum_new), _assign(accum_update, acc_up_new)


def _apply_adagrad(s, var, accum, lr, grad):
    accum_new = accum + math.square(grad) if s.update_slots else accum
    return _assign(var, var - lr * grad / math.sqrt(accum_new)), _assign(accum, accum_new)


def _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad):
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = beta2 * v + (1 - beta2) * math.square(grad)
    vhat_new = math.maximum(vhat, v_new)
    lr_t = lr * math.sqrt(1 - beta2_power) / (1 - beta1_power)
    var_new = var - lr_t * m_new / (math.sqrt(vhat_new) + epsilon)
    return _assign(var, var_new), _assign(m, m_new), _assign(v, v_new), _assign(vhat, vhat_new)


def _apply_rms_prop(s, var, mean_square, moment, lr, grad, decay, momentum, epsilon):
    ms_new = decay * mean_square + (1 - decay) * math.square(grad)
    mom_new = momentum * moment + lr * grad / math.sqrt(ms_new + epsilon)
    _assign(mean_square, ms_new)
    _assign(moment, mom_new)
    return _assign(var, var - mom_new)


def _apply_centered_rms_prop(s, var, mean_grad, mean_square, moment, grad, lr, decay, momentum, epsilon):
    mg_new = decay * mean_grad + (1 - decay) * grad
    ms_new = decay * mean_square + (1 - decay) * math.square(grad)
    mom_new = momentum * moment + lr * grad / math.sqrt(ms_new - math.square(mg_new) + epsilon)
    _assign(mean_grad, mg_new)
    _assign(mean_square, ms_new)
    _assign(moment, mom_new)
    return _assign(var, var - mom_new)


def _adam_weight_decay(s, var, m, v, lr, beta1, beta2, epsilon, decay, grad):
    m_new = beta1 * m + (1 - beta1) * grad
    v_new = beta2 * v + (1 - beta2) * math.square(grad)
    update = m_new / (math.sqrt(v_new) + epsilon) + decay * var
    return _assign(var, var - lr * update), _assign(m, m_new), _assign(v, v_new)


def _sparse_apply_adagrad(s, var, accum, grad, indices):
    idx = array.expand_dims(indices, -1)
    acc_rows = array.gather_nd(accum, idx)
    acc_rows = acc_rows + math.square(grad) if s.update_slots else acc_rows
    var_rows = array.gather_nd(var, idx) - s.lr * grad / math.sqrt(acc_rows)
    return _rows_update(var, indices, var_rows), _rows_update(accum, indices, acc_rows)


def _apply_adagrad_v2(s, var, accum, lr, grad):
    accum_new = accum + math.square(grad) if s.update_slots else accum
    return _assign(var, var - lr * grad / (math.sqrt(accum_new) + s.epsilon)), _assign(accum, accum_new)


def _apply_proximal_adagrad(s, var, accum, lr, l1, l2, grad):
    accum_new = accum + math.square(grad)
    lr_t = lr / math.sqrt(accum_new)  # the adaptive rate also scales the proximal step
    prox = var - lr_t * grad
    var_new = math.sign(prox) / (1 + lr_t * l2) * math.maximum(math.abs(prox) - lr_t * l1, 0)
    return _assign(var, var_new), _assign(accum, accum_new)


def _sparse_apply_rms_prop(s, var, mean_square, moment, lr, grad, indices):
    idx = array.expand_dims(indices, -1)
    ms_rows = s.rho * array.gather_nd(mean_square, idx) + (1 - s.rho) * math.square(grad)
    mom_rows = s.momentum * array.gather_nd(moment, idx) + lr * grad / math.sqrt(ms_rows + s.epsilon)
    var_rows = array.gather_nd(var, idx) - mom_rows
    return (_rows_update(var, indices, var_rows), _rows_update(mean_square, indices, ms_rows),
            _rows_update(moment, indices, mom_rows))  # fmt: skip


def _sparse_apply_adagrad_v2(s, var, accum, grad, indices):
    idx = array.expand_dims(indices, -1)
    acc_rows = array.gather_nd(accum, idx)
    acc_rows = acc_rows + math.square(grad) if s.update_slots else acc_rows
    var_rows = array.gather_nd(var, idx) - s.lr * grad / (math.sqrt(acc_rows) + s.epsilon)
    return _rows_update(var, indices, var_rows), _rows_update(accum, indices, acc_rows)


def _loop_value(v):
    return bool(v.asnumpy()) if isinstance(v, Tensor) else bool(v)


def _while_loop(s, cond_func, loop_func, init_val):
    val = init_val
    while _loop_value(cond_func(val)):
        val = loop_func(val)
    return val


def _fori_loop(s, lower, upper, loop_func, init_val, unroll=True):
    val = init_val
    for i in range(_int(lower), _int(upper)):
        val = loop_func(i, val)
    return val


def _scan(s, loop_func, init, xs, length=None, unroll=True):
    carry, ys = init, []
    n = length if xs is None else (xs.shape[0] if isinstance(xs, Tensor) else len(xs))
    for i in range(n):
        carry, y = loop_func(carry, None if xs is None else xs[i])
        ys.append(y)
    if ys and isinstance(ys[0], Tensor):
        return carry, array.stack(ys, 0)
    return carry, ys


def _resize(mode):
    def call(s, image, size):
        hw = _ints(size)
        if mode == "nearest":
            return primitive_table_nearest(image, hw, s.align_corners, s.half_pixel_centers)
        if s.align_corners:
            return nn_ops.interpolate(image, hw, mode=mode, align_corners=True)
        if s.half_pixel_centers:
            return nn_ops.interpolate(image, hw, mode=mode, align_corners=False)
        return _asymmetric_linear(image, hw)

    return call


def primitive_table_nearest(image, hw, align_corners, half_pixel_centers):
    """Nearest-neighbour resize of the last two dims with TensorFlow's index rules (MindSpore's V2 resize)."""
    out = image
    for axis, n_out in zip((image.ndim - 2, image.ndim - 1), hw):
        n_in = image.shape[axis]
        i = np.arange(n_out, dtype=np.float64)
        scale = (n_in - 1) / (n_out - 1) if align_corners and n_out > 1 else n_in / n_out
        if half_pixel_centers:
            src = np.floor((i + 0.5) * scale) if not align_corners else np.round((i + 0.5) * scale - 0.5)
        else:
            src = np.round(i * scale) if align_corners else np.floor(i * scale)
        src = np.clip(src, 0, n_in - 1).astype(np.int64)
        out = array.gather(out, Tensor(src), axis)
    return out


def _asymmetric_linear(image, hw):
    """Linear resize with source coordinate = out * in / out (no half-pixel offset), TensorFlow's legacy rule."""
    out = image
    for axis, n_out in zip((image.ndim - 2, image.ndim - 1), hw):
        n_in = image.shape[axis]
        src = np.arange(n_out) * (n_in / n_out)
        lo = np.floor(src).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        frac = (src - lo).astype(np.float32)
        shape = [1] * image.ndim
        shape[axis] = n_out
        f = Tensor(frac.reshape(shape), out.dtype)
        out = (
            array.gather(out, Tensor(np.minimum(lo, n_in - 1)), axis) * (1 - f)
            + array.gather(out, Tensor(hi), axis) * f
        )
    return out


def _scalar(v):
    return float(v.asnumpy()) if isinstance(v, Tensor) else float(v)


def _cumlogsumexp(s, x, axis):
    out = math.logcumsumexp(array.flip(x, (_int(axis),)) if s.reverse else x, _int(axis))
    if s.exclusive:
        ax = _int(axis) % x.ndim
        n = x.shape[ax]
        lowest = array.full_like(array.narrow(out, ax, 0, 1), float(np.finfo(x.dtype.np).min))
        out = array.concat((lowest, array.narrow(out, ax, 0, n - 1)), ax)
    return array.flip(out, (_int(axis),)) if s.reverse else out


def _diag_part(x):
    k = x.ndim // 2
    n = int(np.prod(x.shape[:k]))
    flat = array.reshape(x, (n, n))
    return array.reshape(array.diagonal(flat), x.shape[:k])


def _div_no_nan(x, y):
    zero = math.equal(y, 0)
    safe = array.select(zero, array.ones_like(y), y) if isinstance(y, Tensor) else (1 if y == 0 else y)
    q = math.div(x, safe)
    return array.select(array.broadcast_to(zero, q.shape) if isinstance(zero, Tensor) else zero, q * 0, q)


def _hamming(s, n):
    n = _int(n)
    if n == 1:
        return array.ones((1,), s.dtype)
    m = n if s.periodic else n - 1
    w = s.alpha - s.beta * np.cos(2 * np.pi * np.arange(n) / m)
    return Tensor(w.astype(np.float64), s.dtype)


def _median(s, x):
    if s.global_median:
        flat = array.reshape(x, (-1,))
        return math._median(flat, 0, False, s.ignore_nan)[0], Tensor(0, mstype.int64)
    return math._median(x, s.axis, s.keep_dims, s.ignore_nan)


def _reduce_std(s, x):
    axis = s.axis if s.axis not in ((), []) else None
    ddof = 1 if s.unbiased else 0
    return math.std_mean(x, axis, ddof, s.keep_dims)


def _unique_consecutive(s, x):
    out = array.unique_consecutive(x, True, True, s.dim)
    return out


def _fill_diagonal(s, x):
    rows, cols = x.shape[0], x.shape[1] if x.ndim > 1 else 1
    if x.ndim == 2:
        mask = np.zeros((rows, cols), bool)
        step = cols + 1
        flat = mask.reshape(-1)
        limit = flat.size if s.wrap else min(rows, cols) * cols
        flat[:limit:step] = True
        mask = flat.reshape(rows, cols)
    else:
        mask = np.zeros(x.shape, bool)
        n = min(x.shape)
        mask[tuple(np.arange(n) for _ in x.shape)] = True
    return array.select(Tensor(mask), array.full_like(x, s.fill_value), x)


def _channel_dropout(fn, s, x):
    out = fn(x, 1.0 - s.keep_prob, True)
    mask = math.not_equal(out, 0) if s.keep_prob > 0 else array.zeros_like(x, dtype=mstype.bool_)
    return out, mask


def _assert(s, cond, data):
    value = cond.asnumpy().all() if isinstance(cond, Tensor) else bool(cond)
    if not value:
        shown = [d.asnumpy().reshape(-1)[: s.summarize] if isinstance(d, Tensor) else d for d in data]
        raise ValueError(f"Assert failed: the condition is false; data: {shown}")


def _laplace(shape):
    u = _random.uniform(shape, Tensor(-0.5, mstype.float32), Tensor(0.5, mstype.float32))
    return math.neg(math.sign(u) * math.log1p(-2 * math.abs(u)))


def _random_categorical(logits, num, dtype):
    probs = nn_ops.softmax(logits, -1)
    return math.cast(_random.multinomial(probs, num, True), dtype)


def _randperm_padded(s, n):
    k = _int(n)
    perm = _random.randperm(k, dtype=s.dtype)
    if s.max_length > k:
        perm = array.concat((perm, array.full((s.max_length - k,), s.pad, dtype=s.dtype)), 0)
    return perm


_TABLE += [
    ("Im2Col", {"ksizes": 1, "strides": 1, "dilations": 1, "pads": 0}, lambda s, x: _im2col(s, x)),  # fmt: skip
    (
        "Col2Im",
        {"kernel_size": 1, "dilation": 1, "padding": 0, "stride": 1},
        lambda s, x, size: conv.fold(
            array.reshape(x, (x.shape[0], -1, x.shape[-1])) if x.ndim == 4 else x,
            size,
            s.kernel_size,
            s.dilation,
            s.padding,
            s.stride,
        ),
    ),  # fmt: skip
    (
        "GridSampler2D",
        {"interpolation_mode": "bilinear", "padding_mode": "zeros", "align_corners": False},
        lambda s, x, grid: image.grid_sample(x, grid, s.interpolation_mode, s.padding_mode, s.align_corners),
    ),
    (
        "AffineGrid",
        {"align_corners": False},
        lambda s, theta, size: image.affine_grid(theta, _ints(size), s.align_corners),
    ),  # fmt: skip
    (
        "Cauchy",
        {"size": (1,), "median": 0.0, "sigma": 1.0},
        lambda s: s.median + s.sigma * math.tan(np.float32(np.pi) * (random._unit_uniform(tuple(s.size)) - 0.5)),
    ),  # fmt: skip
    (
        "LogNormalReverse",
        {"mean": 1.0, "std": 2.0},
        lambda s, x: math.cast(math.exp(_random.standard_normal(x.shape) * s.std + s.mean), x.dtype),
    ),  # fmt: skip
    (
        "MultinomialWithReplacement",
        {"numsamples": 1, "replacement": False},
        lambda s, x, seed, offset: random.multinomial_with_replacement(x, seed, offset, s.numsamples, s.replacement),
    ),
    ("ApplyAdaMax", {}, _apply_ada_max),
    ("ApplyAdadelta", {"use_locking": False}, _apply_adadelta),
    ("ApplyAdagrad", {"update_slots": True, "use_locking": False}, _apply_adagrad),
    (
        "ApplyAdamWithAmsgrad",
        {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-08, "use_locking": False},
        lambda s, var, m, v, vhat, b1p, b2p, lr, grad: _amsgrad(
            var, m, v, vhat, b1p, b2p, lr, s.beta1, s.beta2, s.epsilon, grad
        ),
    ),  # fmt: skip
    (
        "ApplyAdamWithAmsgradV2",
        {"use_locking": False},
        lambda s, var, m, v, vhat, b1p, b2p, lr, b1, b2, eps, grad: _amsgrad(
            var, m, v, vhat, b1p, b2p, lr, b1, b2, eps, grad
        ),
    ),  # fmt: skip
    ("ApplyRMSProp", {"use_locking": False}, _apply_rms_prop),
    ("ApplyCenteredRMSProp", {"use_locking": False}, _apply_centered_rms_prop),
    ("AdamWeightDecay", {"use_locking": False}, _adam_weight_decay),
    ("SparseApplyAdagrad", {"lr": 0.01, "update_slots": True, "use_locking": False}, _sparse_apply_adagrad),
    (
        "SparseApplyAdagradV2",
        {"lr": 0.01, "epsilon": 1e-6, "use_locking": False, "update_slots": True},
        _sparse_apply_adagrad_v2,
    ),
    ("ApplyAdagradV2", {"epsilon": 1e-6, "update_slots": True}, _apply_adagrad_v2),
    ("ApplyProximalAdagrad", {"use_locking": False}, _apply_proximal_adagrad),
    (
        "SparseApplyRMSProp",
        {"rho": 0.9, "momentum": 0.0, "epsilon": 1e-10, "use_locking": False},
        _sparse_apply_rms_prop,
    ),
    (
        "TripletMarginLoss",
        {"p": 2, "swap": False, "eps": 1e-06, "reduction": "mean"},
        lambda s, a, pos, neg, margin: nn_ops.triplet_margin_loss(
            a, pos, neg, float(_scalar(margin)), s.p, s.eps, s.swap, s.reduction
        ),
    ),  # fmt: skip
    (
        "MultilabelMarginLoss",
        {"reduction": "mean"},
        lambda s, x, t: (
            loss.multilabel_margin_loss(x, t, s.reduction),
            math.cast(math.greater_equal(t, 0), x.dtype),
        ),
    ),  # fmt: skip
    (
        "MaxUnpool2D",
        {"ksize": 1, "strides": 0, "pads": 0, "output_shape": (), "data_format": "NCHW"},
        lambda s, x, idx: nn_ops.max_unpool2d(
            x, idx, s.ksize, s.strides or None, s.pads, tuple(s.output_shape)[-2:] or None
        ),
    ),  # fmt: skip
    (
        "MaxUnpool3D",
        {"ksize": 1, "strides": 0, "pads": 0, "output_shape": (), "data_format": "NCDHW"},
        lambda s, x, idx: nn_ops.max_unpool3d(
            x, idx, s.ksize, s.strides or None, s.pads, tuple(s.output_shape)[-3:] or None
        ),
    ),  # fmt: skip
    ("EmbeddingLookup", {}, lambda s, params, indices, offset: _embedding_lookup(params, indices, offset)),
    (
        "PadV3",
        {"mode": "constant", "paddings_contiguous": True},
        lambda s, x, paddings, value=None: array.pad(
            x,
            _ints(paddings) if s.paddings_contiguous else _pairs_to_flat(_ints(paddings)),
            s.mode,
            None if value is None else _scalar(value),
        ),
    ),  # fmt: skip
    (
        "IndexPut",
        {"accumulate": 0},
        lambda s, x, values, indices: x.index_put(tuple(indices), values, bool(s.accumulate)),
    ),  # fmt: skip
    ("SparseToDense", {}, lambda s, indices, values, shape: array.scatter_nd(indices, values, _ints(shape))),
    ("Partial", {}, lambda s, fn, *args: functools.partial(fn, *args)),
    ("WhileLoop", {}, _while_loop),
    ("ForiLoop", {}, _fori_loop),
    ("Scan", {}, _scan),
    ("TransposeView", {}, lambda s, x, perm: array.transpose(x, tuple(perm))),
    ("TransposeExtView", {}, lambda s, x, d0, d1: array.swapaxes(x, d0, d1)),
    ("ResizeBilinearV2", {"align_corners": False, "half_pixel_centers": False}, _resize("bilinear")),
    ("ResizeNearestNeighborV2", {"align_corners": False, "half_pixel_centers": False}, _resize("nearest")),
    (
        "ResizeLinear1D",
        {"coordinate_transformation_mode": "align_corners"},
        lambda s, x, size: nn_ops.interpolate(
            x, _ints(size), mode="linear", align_corners=s.coordinate_transformation_mode == "align_corners"
        ),
    ),
    (
        "UpsampleNearest3D",
        {},
        lambda s, x, output_size=None, scales=None: nn_ops.interpolate(
            x, None if output_size is None else _ints(output_size), None if scales is None else tuple(scales)
        ),
    ),
    (
        "UpsampleTrilinear3D",
        {"align_corners": False},
        lambda s, x, output_size=None, scales=None: nn_ops.interpolate(
            x,
            None if output_size is None else _ints(output_size),
            None if scales is None else tuple(scales),
            "trilinear",
            s.align_corners,
        ),
    ),  # fmt: skip
    ("RmsNorm", {"epsilon": 1e-06}, lambda s, x, gamma: _rms_norm(x, gamma, s.epsilon)),
    (
        "MatrixDiagV3",
        {"align": "RIGHT_LEFT"},
        lambda s, x, k, rows, cols, pad: array.matrix_diag(x, k, rows, cols, pad, s.align),
    ),  # fmt: skip
    ("MatrixDiagPartV3", {"align": "RIGHT_LEFT"}, lambda s, x, k, pad: array.matrix_diag_part(x, k, pad, s.align)),
    (
        "STFT",
        {"n_fft": 1, "hop_length": 1, "win_length": 1, "normalized": False, "onesided": True, "return_complex": True},
        lambda s, x, window: spectral.stft(
            x, s.n_fft, s.hop_length, s.win_length, window, False, "REFLECT", s.normalized, s.onesided, s.return_complex
        ),
    ),  # fmt: skip
    ("HistogramFixedWidth", {"nbins": 1, "dtype": "int32"}, lambda s, x, r: _histogram_fixed_width(s, x, r)),
    (
        "CropAndResize",
        {"method": "bilinear", "extrapolation_value": 0.0},
        lambda s, image, boxes, box_index, crop_size: image.crop_and_resize(
            image, boxes, box_index, crop_size, s.method, s.extrapolation_value
        ),
    ),
    ("MoveTo", {}, lambda s, x, to="CPU", blocking=True: array.move_to(x, to, blocking)),
    (
        "UniformCandidateSampler",
        {"num_true": 1, "num_sampled": 1, "unique": True, "range_max": 1, "seed": 0, "remove_accidental_hits": False},
        lambda s, true_classes: random.uniform_candidate_sampler(
            true_classes, s.num_true, s.num_sampled, s.unique, s.range_max, s.seed, s.remove_accidental_hits
        ),
    ),
    (
        "LogUniformCandidateSampler",
        {"num_true": 1, "num_sampled": 5, "unique": True, "range_max": 5, "seed": 0},
        lambda s, true_classes: random.log_uniform_candidate_sampler(
            true_classes, s.num_true, s.num_sampled, s.unique, s.range_max, s.seed
        ),
    ),
]


def _im2col(s, x):
    cols = conv.im2col(x, s.ksizes, s.dilations, _im2col_pads(s.pads), s.strides)
    return array.reshape(cols, (x.shape[0], x.shape[1], -1, cols.shape[-1]))  # (N, C, kh * kw, L)


def _im2col_pads(pads):
    p = _ints(pads)
    return p[0] if len(p) == 1 else (p[0], p[-1]) if len(p) == 4 else p


def _pairs_to_flat(p):
    return p


def _embedding_lookup(params, indices, offset):
    idx = indices - offset
    valid = math.logical_and(idx >= 0, idx < params.shape[0])
    rows = array.gather(params, array.select(valid, idx, array.zeros_like(idx)), 0)
    mask = array.reshape(valid, (*valid.shape, *(1,) * (params.ndim - 1)))
    return array.select(array.broadcast_to(mask, rows.shape), rows, array.zeros_like(rows))


def _rms_norm(x, gamma, eps):
    rstd = math.rsqrt(math.mean(math.square(x), -1, True) + eps)
    return x * rstd * gamma, rstd


def _histogram_fixed_width(s, x, value_range):
    lo, hi = value_range[0], value_range[1]
    pos = math.floor((math.cast(x, mstype.float32) - lo) / (hi - lo) * s.nbins)
    idx = math.cast(math.clamp(pos, 0, s.nbins - 1), mstype.int64)
    onehot = math.equal(array.expand_dims(array.reshape(idx, (-1,)), -1), array.arange(0, s.nbins))
    return math.cast(math.sum(math.cast(onehot, mstype.int32), 0), mstype.int32)


def _make(name: str, defaults: dict, call) -> type:
    doc = f"Primitive {name}: the class face of its functional op."
    cls = type(name, (WithAttrs,), {"_defaults": defaults, "__call__": call, "__doc__": doc})
    globals()[name] = cls
    __all__.append(name)
    return cls


for _row in _TABLE:
    _make(*_row)
