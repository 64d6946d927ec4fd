"""MindSpore Primitive classes with functional faces of their own (`ops.operations`): the Bessel K/Y
functions, summaries, PyFunc/Custom, CTC greedy decoding and the TF-style CTCLoss, non-max suppression,
random choice with mask, image patches and colour adjustment, ragged ranges, Coalesce, dropout masks,
FloatStatus and DetTriangle.

Ops with a fixed output shape are primitive declarations (`kiln._prims`: special, image, random, nn), so they run in
PyNative and compiled graphs alike. Ops whose output size depends on the data (NMS, greedy decoding, ragged
ranges) decide it on the host and run in PyNative mode.
"""

from __future__ import annotations

import numbers

import numpy as np

from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core import random_state
from kiln._core.tensor import Tensor
from kiln._prims import image as prims_image
from kiln._prims import random as prims_random
from kiln._prims import special as prims_special
from kiln._prims.nn import conv as prims_conv
from kiln._prims.nn import loss as prims_loss
from kiln._prims.nn import pool as prims_pool
from kiln._pynative import tape
from kiln.ops import array, math
from kiln.ops import nn as nn_ops
from kiln.ops import sparse as _sparse
from kiln.ops._helpers import apply, op_error, prim
from kiln.ops.primitive import Primitive, WithAttrs
from kiln.ops.random import _RandomPrimitive, _uniform01

__all__ = [
    "bessel_k0", "bessel_k0e", "bessel_k1", "bessel_k1e", "bessel_y0", "bessel_y1", "choice_with_mask",
    "ctc_greedy_decoder",
]  # fmt: skip


def _float_tensor(op: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise op_error(op, f"'x' must be a Tensor, but got {type(x).__name__}.", TypeError)
    return x


def _unary(op: str, decl):
    def fn(x):
        return apply(decl, (_float_tensor(op, x),))

    return fn


bessel_k0 = _unary("BesselK0", prims_special.BesselK0)
bessel_k0e = _unary("BesselK0e", prims_special.BesselK0e)
bessel_k1 = _unary("BesselK1", prims_special.BesselK1)
bessel_k1e = _unary("BesselK1e", prims_special.BesselK1e)
bessel_y0 = _unary("BesselY0", prims_special.BesselY0)
bessel_y1 = _unary("BesselY1", prims_special.BesselY1)
for _name in ("k0", "k0e", "k1", "k1e", "y0", "y1"):
    _f = globals()[f"bessel_{_name}"]
    _f.__name__ = _f.__qualname__ = f"bessel_{_name}"
    _f.__doc__ = f"""The Bessel function {_name.upper().replace("E", "e")} of `x`, elementwise (float16/32/64).

    Args:
        x (Tensor): the input.

    Returns:
        Tensor of the shape and dtype of `x`.
    """


def _simple(cls_name: str, fn, doc: str) -> type:
    cls = type(cls_name, (Primitive,), {"__call__": lambda self, *args: fn(*args), "__doc__": doc})
    cls.__init__ = lambda self: Primitive.__init__(self, cls_name)
    globals()[cls_name] = cls
    __all__.append(cls_name)
    return cls


for _name in ("K0", "K0e", "K1", "K1e", "Y0", "Y1"):
    _simple(
        f"Bessel{_name}", globals()[f"bessel_{_name.lower()}"], f"Primitive Bessel{_name}: ops.bessel_{_name.lower()}."
    )


# -- summaries ---------------------------------------------------------------------------------------------------

_summary_sinks: list = []  # callables sink(kind, name, value) installed by a summary recorder


def _summary(kind: str):
    def call(self, name, value):
        if not isinstance(name, str) or not name:
            raise op_error(self.name, f"'name' must be a non-empty str, but got {name!r}.", TypeError)
        if not isinstance(value, Tensor):
            raise op_error(self.name, f"'value' must be a Tensor, but got {type(value).__name__}.", TypeError)
        for sink in _summary_sinks:
            sink(kind, name, value)

    return call


for _cls, _kind in (("ScalarSummary", "scalar"), ("TensorSummary", "tensor"), ("ImageSummary", "image"),
                    ("HistogramSummary", "histogram")):  # fmt: skip
    _c = type(_cls, (Primitive,), {
        "__call__": _summary(_kind),
        "__doc__": f"`{_cls}()(name, value)`: hand `value` to the active summary recorder under `name` "
                   "(MindSpore records it only inside a SummaryRecord; without one, as here, nothing is kept). "
                   "Returns None.",
    })  # fmt: skip
    _c.__init__ = (lambda n: lambda self: Primitive.__init__(self, n))(_cls)
    globals()[_cls] = _c
    __all__.append(_cls)


# -- Python functions ---------------------------------------------------------------------------------------------


def _as_shapes(value) -> tuple:
    value = list(value)
    if value and all(isinstance(v, numbers.Integral) for v in value):
        return (tuple(int(v) for v in value),)
    return tuple(tuple(int(d) for d in s) for s in value)


def _run_pyfunc(fn, inputs, out_shapes, out_dtypes):
    tensors = tuple(x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs)
    dtypes = tuple(mstype.to_dtype(d).np for d in out_dtypes)
    return apply(prim("PyFunc"), tensors, (fn, out_shapes, dtypes))


class PyFunc(Primitive):
    """`PyFunc(fn, in_types, in_shapes, out_types, out_shapes)(*inputs)`: run the Python function `fn` on NumPy
    copies of the inputs (on the host, also inside compiled graphs) and return its outputs as Tensors of the
    declared dtypes and shapes (a tuple). No gradient flows through it."""

    def __init__(self, fn, in_types, in_shapes, out_types, out_shapes, stateful: bool = True) -> None:
        super().__init__("PyFunc")
        if not callable(fn):
            raise TypeError(f"PyFunc: 'fn' must be callable, but got {type(fn).__name__}.")
        self.fn = fn
        for k, v in (("in_types", in_types), ("in_shapes", in_shapes), ("out_types", out_types),
                     ("out_shapes", out_shapes), ("stateful", stateful)):  # fmt: skip
            self.add_prim_attr(k, v)
        self._out_shapes = _as_shapes(out_shapes)
        self._out_types = tuple(out_types)
        if len(self._out_shapes) != len(self._out_types):
            raise ValueError(f"PyFunc: {len(self._out_types)} out_types but {len(self._out_shapes)} out_shapes.")

    def __call__(self, *inputs):
        return _run_pyfunc(self.fn, inputs, self._out_shapes, self._out_types)


class Custom(Primitive):
    """`Custom(func, out_shape, out_dtype, func_type="pyfunc")`: a user op written as a Python function of NumPy
    arrays, run on the host (also inside compiled graphs). `out_shape`/`out_dtype` are the output's shape and
    dtype (tuples of them for several outputs) or functions of the inputs' shapes/dtypes. `bprop(*inputs, out,
    dout)` gives the gradient. The compiled kinds ("aot", "hybrid", "akg", "tbe", "julia", "aicpu") build
    device kernels with MindSpore's toolchains, which Kiln does not have: they are refused."""

    _KINDS = ("pyfunc", "aot", "hybrid", "akg", "tbe", "julia", "aicpu", "ms_kernel")

    def __init__(self, func, out_shape=None, out_dtype=None, func_type: str = "pyfunc", bprop=None,
                 reg_info=None) -> None:  # fmt: skip
        super().__init__("Custom")
        if func_type not in self._KINDS:
            raise ValueError(f"Custom: 'func_type' must be one of {self._KINDS}, but got {func_type!r}.")
        if func_type != "pyfunc":
            raise NotImplementedError(
                f"Custom: func_type={func_type!r} compiles a device kernel with MindSpore's toolchain, which Kiln "
                "does not have; write the op as func_type='pyfunc' (a NumPy function) or with Kiln ops."
            )
        if not callable(func):
            raise TypeError(f"Custom: 'func' must be callable, but got {type(func).__name__}.")
        self.func, self.out_shape, self.out_dtype, self.func_type, self.bprop = (
            func, out_shape, out_dtype, func_type, bprop,
        )  # fmt: skip
        self.add_prim_attr("func_type", func_type)

    def _declared(self, inputs):
        shapes = [tuple(x.shape) if isinstance(x, Tensor) else np.shape(x) for x in inputs]
        dtypes = [x.dtype if isinstance(x, Tensor) else mstype.to_dtype(np.asarray(x).dtype) for x in inputs]
        shape = self.out_shape(*shapes) if callable(self.out_shape) else self.out_shape
        dtype = self.out_dtype(*dtypes) if callable(self.out_dtype) else self.out_dtype
        if shape is None or dtype is None:
            raise ValueError("Custom: 'out_shape' and 'out_dtype' must be given (values or functions).")
        several = isinstance(dtype, (tuple, list))
        shapes_out = tuple(tuple(s) for s in shape) if several else (tuple(shape),)
        dtypes_out = tuple(dtype) if several else (dtype,)
        return shapes_out, dtypes_out, several

    def __call__(self, *inputs):
        shapes, dtypes, several = self._declared(inputs)
        outs = _run_pyfunc(self.func, inputs, shapes, dtypes)
        if self.bprop is not None:
            outs = _with_bprop(self.bprop, inputs, outs, several)
        return outs if several else outs[0]


def _with_bprop(bprop, inputs, outs, several):

    tensors = tuple(x for x in inputs if isinstance(x, Tensor))
    if not tape.recording or G.current() is not None:
        return outs
    fresh = tuple(Tensor._wrap(o._data) for o in outs)

    def rule(cots):
        dout = tuple(cots) if several else cots[0]
        grads = bprop(*inputs, fresh if several else fresh[0], dout)
        grads = (grads,) if isinstance(grads, Tensor) else tuple(grads)
        return tuple(g for g, x in zip(grads, inputs, strict=False) if isinstance(x, Tensor))

    tape.record_custom(tensors, fresh, rule)
    return fresh


__all__ += ["PyFunc", "Custom"]


# -- CTC ------------------------------------------------------------------------------------------------------------


def _host(t, op: str) -> np.ndarray:
    if isinstance(t, Tensor):
        if G.is_symbolic(t._data):
            raise RuntimeError(f"{op}: its output size depends on the input values, so it runs in PyNative mode only.")
        return t.asnumpy()
    return np.asarray(t)


def ctc_greedy_decoder(inputs, sequence_length, merge_repeated: bool = True):
    """Greedy (best-path) CTC decoding of (T, B, C) logits; the blank is class C - 1.

    Returns:
        (decoded_indices (N, 2) int64, decoded_values (N,) int64, decoded_shape (2,) int64 = (B, longest),
        log_probability (B, 1): minus the sum over time of each step's largest logit).
    """
    op = "CTCGreedyDecoder"
    if not isinstance(inputs, Tensor) or inputs.ndim != 3:
        raise op_error(op, f"'inputs' must be a 3-D (T, B, C) Tensor, but got {getattr(inputs, 'shape', inputs)}.")
    x = _host(inputs, op)
    steps, batch, classes = x.shape
    lengths = _host(sequence_length, op).reshape(-1)
    if lengths.shape != (batch,):
        raise op_error(op, f"'sequence_length' must have shape ({batch},), but got {lengths.shape}.")
    if (lengths > steps).any() or (lengths < 0).any():
        raise op_error(op, f"'sequence_length' must be in [0, {steps}], but got {lengths.tolist()}.")
    best = x.argmax(axis=2)  # (T, B)
    blank = classes - 1
    indices, values, longest = [], [], 0
    log_prob = np.zeros((batch, 1), x.dtype)
    for b in range(batch):
        seq, prev = [], -1
        for t in range(int(lengths[b])):
            k = int(best[t, b])
            log_prob[b, 0] -= x[t, b, k]
            if k != blank and not (merge_repeated and k == prev):
                seq.append(k)
            prev = k
        indices += [(b, i) for i in range(len(seq))]
        values += seq
        longest = max(longest, len(seq))
    return (
        Tensor(np.asarray(indices, np.int64).reshape(-1, 2)),
        Tensor(np.asarray(values, np.int64)),
        Tensor(np.asarray([batch, longest], np.int64)),
        Tensor(log_prob),
    )


class CTCGreedyDecoder(WithAttrs):
    """`CTCGreedyDecoder(merge_repeated=True)(inputs, sequence_length)`: see `ops.ctc_greedy_decoder`."""

    _defaults = {"merge_repeated": True}

    def __call__(self, inputs, sequence_length):
        return ctc_greedy_decoder(inputs, sequence_length, self.merge_repeated)


class CTCLoss(WithAttrs):
    """The TensorFlow-style CTC loss: `CTCLoss()(inputs, labels_indices, labels_values, sequence_length)` with
    (T, B, C) logits (softmax is applied inside; the blank is class C - 1) and sparse labels. Returns
    (loss (B,), gradient (T, B, C)): each sample's negative log-likelihood and its gradient w.r.t. the logits."""

    _defaults = {"preprocess_collapse_repeated": False, "ctc_merge_repeated": True,
                 "ignore_longer_outputs_than_inputs": False}  # fmt: skip

    def __call__(self, inputs, labels_indices, labels_values, sequence_length):
        op = "CTCLoss"
        if not self.ctc_merge_repeated:
            raise NotImplementedError("CTCLoss: ctc_merge_repeated=False is not supported by Kiln.")
        if not isinstance(inputs, Tensor) or inputs.ndim != 3:
            raise op_error(op, f"'inputs' must be a 3-D (T, B, C) Tensor, but got {getattr(inputs, 'shape', inputs)}.")
        steps, batch, classes = inputs.shape
        if self.preprocess_collapse_repeated:
            targets, target_lengths = self._collapsed(labels_indices, labels_values, batch)
        else:  # static shapes (runs in graphs too): (B, n_labels) targets, scattered at their positions
            n_labels = labels_values.shape[0]
            idx = math.cast(labels_indices, mstype.int32)
            targets = array.scatter_nd(idx, math.cast(labels_values, mstype.int32), (batch, max(n_labels, 1)))
            ones = array.ones((n_labels,), mstype.int32)
            target_lengths = math.unsorted_segment_sum(ones, array.gather(idx, Tensor(np.int32(0)), 1), batch)
        lengths = math.cast(sequence_length, mstype.int32)
        keep = math.less_equal(target_lengths, lengths)
        if not self.ignore_longer_outputs_than_inputs and not G.is_symbolic(keep._data):
            if not bool(math.all(keep).asnumpy()):
                raise op_error(op, "a label sequence is longer than its input sequence; set "
                               "ignore_longer_outputs_than_inputs=True to give those samples 0 loss.")  # fmt: skip
        return apply(prims_loss.CTCLossTF, (inputs, targets, lengths, target_lengths, keep), (classes - 1,))

    @staticmethod
    def _collapsed(labels_indices, labels_values, batch):
        """Dense targets with repeated labels merged (decided on the host: PyNative only)."""
        idx = _host(labels_indices, "CTCLoss").reshape(-1, 2)
        vals = _host(labels_values, "CTCLoss").reshape(-1)
        rows: list[list[int]] = [[] for _ in range(batch)]
        for (b, _), v in sorted(zip(map(tuple, idx.tolist()), vals.tolist(), strict=True)):
            if not rows[b] or rows[b][-1] != int(v):
                rows[b].append(int(v))
        width = max(1, max(len(r) for r in rows))
        targets = np.zeros((batch, width), np.int32)
        for b, r in enumerate(rows):
            targets[b, : len(r)] = r
        return Tensor(targets), Tensor(np.asarray([len(r) for r in rows], np.int32))


__all__ += ["CTCGreedyDecoder", "CTCLoss"]


# -- non-max suppression ------------------------------------------------------------------------------------------


def _iou(box, others):
    x1 = np.maximum(box[0], others[:, 0])
    y1 = np.maximum(box[1], others[:, 1])
    x2 = np.minimum(box[2], others[:, 2])
    y2 = np.minimum(box[3], others[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area = (box[2] - box[0]) * (box[3] - box[1])
    areas = (others[:, 2] - others[:, 0]) * (others[:, 3] - others[:, 1])
    union = area + areas - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _greedy_nms(boxes: np.ndarray, order: np.ndarray, threshold: float, limit: int | None = None) -> list[int]:
    kept: list[int] = []
    alive = np.ones(len(order), bool)
    for pos, i in enumerate(order):
        if not alive[pos]:
            continue
        kept.append(int(i))
        if limit is not None and len(kept) >= limit:
            break
        rest = order[pos + 1 :]
        alive[pos + 1 :] &= _iou(boxes[i].astype(np.float64), boxes[rest].astype(np.float64)) <= threshold
    return kept


class NMSWithMask(WithAttrs):
    """`NMSWithMask(iou_threshold=0.5)(bboxes)`: bboxes (N, 5) = (x1, y1, x2, y2, score). Returns the boxes
    sorted by descending score, their positions 0..N-1 in that order (int32), and the mask of the boxes kept
    by greedy non-max suppression (a box is dropped when its IoU with a kept, higher-scored box exceeds the
    threshold)."""

    _defaults = {"iou_threshold": 0.5}

    def __call__(self, bboxes):
        op = "NMSWithMask"
        if not isinstance(bboxes, Tensor) or bboxes.ndim != 2 or bboxes.shape[1] != 5 or bboxes.shape[0] <= 0:
            raise op_error(op, f"'bboxes' must be (N, 5) with N > 0, but got {getattr(bboxes, 'shape', bboxes)}.")
        host = _host(bboxes, op)
        order = np.argsort(-host[:, 4], kind="stable")
        sorted_boxes = array.gather(bboxes, Tensor(order.astype(np.int64)), 0)
        kept = _greedy_nms(host[order, :4], np.arange(len(order)), float(self.iou_threshold))
        mask = np.zeros(len(order), bool)
        mask[kept] = True
        return sorted_boxes, Tensor(np.arange(len(order), dtype=np.int32)), Tensor(mask)


class NonMaxSuppressionV3(Primitive):
    """`NonMaxSuppressionV3()(boxes, scores, max_output_size, iou_threshold, score_threshold)`: the indices
    (int32) of at most `max_output_size` boxes (y1, x1, y2, x2 or any corner order) kept by greedy NMS over
    the boxes scoring above `score_threshold`, by descending score."""

    def __init__(self) -> None:
        super().__init__("NonMaxSuppressionV3")

    def __call__(self, boxes, scores, max_output_size, iou_threshold, score_threshold):
        op = self.name
        b, s = _host(boxes, op), _host(scores, op).reshape(-1)
        if b.ndim != 2 or b.shape[1] != 4 or s.shape[0] != b.shape[0]:
            raise op_error(op, f"'boxes' must be (N, 4) and 'scores' (N,), but got {b.shape} and {s.shape}.")
        limit = int(_host(max_output_size, op))
        if limit < 0:
            raise op_error(op, f"'max_output_size' must be non-negative, but got {limit}.")
        iou = float(_host(iou_threshold, op))
        floor = float(_host(score_threshold, op))
        corners = np.concatenate([np.minimum(b[:, :2], b[:, 2:]), np.maximum(b[:, :2], b[:, 2:])], axis=1)
        candidates = np.nonzero(s > floor)[0]
        order = candidates[np.argsort(-s[candidates], kind="stable")]
        kept = _greedy_nms(corners, order, iou, limit) if limit > 0 else []
        return Tensor(np.asarray(kept, np.int32))


__all__ += ["NMSWithMask", "NonMaxSuppressionV3"]


# -- random choice with mask, dropout masks -----------------------------------------------------------------------


def choice_with_mask(input_x, count: int = 256, seed=None, seed2=None):
    """`count` random positions (int32, (count, rank)) of the True entries of bool `input_x`, and a mask
    telling which rows are real (when there are fewer than `count` True entries the rest are zeros/False)."""
    return RandomChoiceWithMask(count, seed or 0, seed2 or 0)(input_x)


class RandomChoiceWithMask(_RandomPrimitive):
    """`RandomChoiceWithMask(count=256, seed=0, seed2=0)(input_x)`: see `ops.choice_with_mask`."""

    def __init__(self, count: int = 256, seed: int = 0, seed2: int = 0) -> None:
        super().__init__(seed, seed2)
        if not isinstance(count, numbers.Integral) or isinstance(count, bool) or count <= 0:
            raise op_error(self.name, f"'count' must be a positive int, but got {count!r}.")
        self.add_prim_attr("count", int(count))

    def __call__(self, input_x):
        if not isinstance(input_x, Tensor):
            raise op_error(self.name, f"'input_x' must be a Tensor, but got {type(input_x).__name__}.", TypeError)
        return apply(prims_random.RandomChoiceWithMask, (self._key(), input_x), (self.count,))


class DropoutGenMask(_RandomPrimitive):
    """`DropoutGenMask(Seed0=0, Seed1=0)(shape, keep_prob)`: a random keep-mask for `shape`, packed eight
    elements a byte into a 1-D uint8 Tensor of ceil(size / 128) * 16 bytes (for `DropoutDoMask`)."""

    def __init__(self, Seed0: int = 0, Seed1: int = 0) -> None:  # noqa: N803
        super().__init__(Seed0, Seed1)

    def __call__(self, shape, keep_prob):
        size = int(np.prod([int(s) for s in shape]))
        padded = -(-size // 128) * 128
        p = keep_prob if isinstance(keep_prob, Tensor) else Tensor(np.float32(keep_prob))

        draws = _uniform01((padded,), mstype.float32, self._key())
        keep = math.cast(math.less(draws, math.cast(p, mstype.float32)), mstype.uint8)
        weights = Tensor(np.array([1, 2, 4, 8, 16, 32, 64, 128], np.uint8))
        return math.cast(math.sum(math.mul(array.reshape(keep, (-1, 8)), weights), 1), mstype.uint8)


class DropoutDoMask(Primitive):
    """`DropoutDoMask()(x, mask, keep_prob)`: x * kept / keep_prob, with the packed mask of `DropoutGenMask`."""

    def __init__(self) -> None:
        super().__init__("DropoutDoMask")

    def __call__(self, x, mask, keep_prob):
        if mask.dtype is not mstype.uint8 or mask.ndim != 1 or mask.shape[0] * 8 < x.size:
            raise op_error(self.name, f"'mask' must be the uint8 mask of DropoutGenMask for {x.size} elements.")
        bits = Tensor(np.array([1, 2, 4, 8, 16, 32, 64, 128], np.int32))
        flags = math.bitwise_and(array.expand_dims(math.cast(mask, mstype.int32), 1), bits)
        kept = array.reshape(math.cast(math.not_equal(flags, 0), x.dtype), (-1,))
        kept = array.reshape(array.slice(kept, (0,), (x.size,)), x.shape)
        p = keep_prob if isinstance(keep_prob, Tensor) else Tensor(np.asarray(keep_prob, x.dtype.np))
        return math.div(math.mul(x, kept), math.cast(p, x.dtype))


__all__ += ["RandomChoiceWithMask", "DropoutGenMask", "DropoutDoMask"]


# -- images -------------------------------------------------------------------------------------------------------


def _pair(op: str, name: str, value) -> tuple[int, int]:
    v = tuple(int(a) for a in value)
    if len(v) == 4:
        v = v[2:]
    if len(v) != 2 or any(a <= 0 for a in v):
        raise op_error(op, f"'{name}' must be (1, 1, h, w) or (h, w) with positive values, but got {value!r}.")
    return v


class ExtractImagePatches(Primitive):
    """`ExtractImagePatches(ksizes, strides, rates, padding="VALID")(x)`: (N, C, H, W) -> (N, kh*kw*C, oh, ow),
    each output column the (row, col, channel)-ordered patch around it."""

    def __init__(self, ksizes, strides, rates, padding: str = "VALID") -> None:
        super().__init__("ExtractImagePatches")
        op = self.name
        self._attrs = (_pair(op, "ksizes", ksizes), _pair(op, "strides", strides), _pair(op, "rates", rates),
                       str(padding).upper())  # fmt: skip
        for k, v in (("ksizes", ksizes), ("strides", strides), ("rates", rates), ("padding", padding)):
            self.add_prim_attr(k, v)

    def __call__(self, input_x):
        return apply(prims_image.ExtractImagePatches, (input_x,), self._attrs)


def _scalar(value, like: Tensor) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(np.asarray(value, like.dtype.np))


class AdjustHue(Primitive):
    """`AdjustHue()(image, delta)`: rotate the hue of RGB images (last dim 3, values in [0, 1]) by `delta`
    (a fraction of the colour circle)."""

    def __init__(self) -> None:
        super().__init__("AdjustHue")

    def __call__(self, image, delta):
        return apply(prims_image.AdjustHue, (image, _scalar(delta, image)))


class AdjustSaturation(Primitive):
    """`AdjustSaturation()(image, scale)`: multiply the saturation of RGB images (last dim 3) by `scale`."""

    def __init__(self) -> None:
        super().__init__("AdjustSaturation")

    def __call__(self, image, scale):
        return apply(prims_image.AdjustSaturation, (image, _scalar(scale, image)))


__all__ += ["ExtractImagePatches", "AdjustHue", "AdjustSaturation"]


# -- ragged ranges, coalesce, float status, triangular determinant -------------------------------------------------


class RaggedRange(WithAttrs):
    """`RaggedRange(Tsplits)(starts, limits, deltas)`: the ranges range(starts[i], limits[i], deltas[i]) laid
    end to end (`rt_dense_values`, the dtype of `starts`) and their row splits (`rt_nested_splits`, Tsplits)."""

    _defaults = {"Tsplits": None}

    def __call__(self, starts, limits, deltas):
        op = "RaggedRange"
        if self.Tsplits not in (mstype.int32, mstype.int64):
            raise op_error(op, f"'Tsplits' must be int32 or int64, but got {self.Tsplits}.", TypeError)
        s, lim, d = (np.atleast_1d(_host(v, op)) for v in (starts, limits, deltas))
        s, lim, d = np.broadcast_arrays(s, lim, d)
        if (d == 0).any():
            raise op_error(op, "'deltas' must not contain 0.")
        dtype = starts.dtype.np if isinstance(starts, Tensor) else s.dtype
        pieces = [np.arange(a, b, c, dtype=dtype) for a, b, c in zip(s.tolist(), lim.tolist(), d.tolist(), strict=True)]
        splits = np.concatenate([[0], np.cumsum([len(p) for p in pieces])]).astype(self.Tsplits.np)
        values = np.concatenate(pieces).astype(dtype) if pieces else np.zeros((0,), dtype)
        return Tensor(splits), Tensor(values)


class Coalesce(Primitive):
    """`Coalesce()(x_indices, x_values, x_shape)`: see `ops.coalesce`."""

    def __init__(self) -> None:
        super().__init__("Coalesce")

    def __call__(self, x_indices, x_values, x_shape):
        return _sparse.coalesce(x_indices, x_values, x_shape)


class FloatStatus(Primitive):
    """`FloatStatus()(x)`: a (1,) Tensor of x's dtype, 1 when x holds an inf or a NaN, else 0."""

    def __init__(self) -> None:
        super().__init__("FloatStatus")

    def __call__(self, x):
        bad = math.logical_not(math.all(math.isfinite(x)))
        return array.reshape(math.cast(bad, x.dtype), (1,))


class DetTriangle(WithAttrs):
    """`DetTriangle(fill_mode=0)(x)`: the determinant of (batches of) triangular matrices: the product of the
    diagonal, shape x.shape[:-2]."""

    _defaults = {"fill_mode": 0}

    def __call__(self, x):
        if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
            raise op_error("DetTriangle", f"'x' must be (..., n, n), but got {tuple(x.shape)}.")
        return math.prod(array.diagonal(x, 0, -2, -1), -1)


__all__ += ["RaggedRange", "Coalesce", "FloatStatus", "DetTriangle"]


# -- resize, ROI align, 3-D grid sampling and pooling --------------------------------------------------------------


class ResizeBicubic(WithAttrs):
    """`ResizeBicubic(align_corners=False, half_pixel_centers=False)(images, size)`: bicubic resize of
    (N, C, H, W) images to `size` = (new_h, new_w) (MindSpore's/TensorFlow's kernel and coefficient table)."""

    _defaults = {"align_corners": False, "half_pixel_centers": False}

    def __call__(self, images, size):
        values = _host(size, "ResizeBicubic").reshape(-1).tolist() if isinstance(size, Tensor) else list(size)
        if len(values) != 2 or any(int(v) <= 0 for v in values):
            raise op_error("ResizeBicubic", f"'size' must hold two positive ints, but got {values}.")
        attrs = (tuple(int(v) for v in values), bool(self.align_corners), bool(self.half_pixel_centers))
        return apply(prims_image.ResizeBicubic, (images,), attrs)


class ROIAlign(Primitive):
    """`ROIAlign(pooled_height, pooled_width, spatial_scale, sample_num=2, roi_end_mode=1)(features, rois)`:
    (R, C, pooled_height, pooled_width) features of each roi (batch index, x1, y1, x2, y2), each bin the mean of
    bilinear samples on a sample_num x sample_num lattice (sample_num <= 0: floor(roi size / pooled size))."""

    def __init__(self, pooled_height: int, pooled_width: int, spatial_scale: float, sample_num: int = 2,
                 roi_end_mode: int = 1) -> None:  # fmt: skip
        super().__init__("ROIAlign")
        if roi_end_mode not in (0, 1):
            raise op_error(self.name, f"'roi_end_mode' must be 0 or 1, but got {roi_end_mode!r}.")
        for k, v in (
            ("pooled_height", pooled_height),
            ("pooled_width", pooled_width),
            ("spatial_scale", spatial_scale),
            ("sample_num", sample_num),
            ("roi_end_mode", roi_end_mode),
        ):
            self.add_prim_attr(k, v)  # fmt: skip

    def __call__(self, features, rois):
        n_rois = rois.shape[0]
        if self.sample_num > 0:
            grids = np.full((n_rois, 2), int(self.sample_num), np.int32)
        else:  # adaptive lattice: from each roi's size (read on the host)
            host = _host(rois, self.name).astype(np.float64)
            mode, scale = self.roi_end_mode, float(self.spatial_scale)
            h = np.maximum((host[:, 4] + mode) * scale - host[:, 2] * scale, 1.0)
            w = np.maximum((host[:, 3] + mode) * scale - host[:, 1] * scale, 1.0)
            # MindSpore's CPU kernel takes floor(roi size / pooled size) samples per bin (at least one)
            grids = np.stack([np.floor(h / self.pooled_height), np.floor(w / self.pooled_width)], 1)
            grids = np.maximum(grids, 1).astype(np.int32)
        grid_max = int(grids.max()) if n_rois else 1
        attrs = (int(self.pooled_height), int(self.pooled_width), float(self.spatial_scale), grid_max,
                 int(self.roi_end_mode))  # fmt: skip
        return apply(prims_image.ROIAlign, (features, rois, Tensor(grids)), attrs)


class GridSampler3D(WithAttrs):
    """`GridSampler3D(interpolation_mode="bilinear", padding_mode="zeros", align_corners=False)(input_x, grid)`:
    sample (N, C, D, H, W) at the normalised (x, y, z) positions of grid (N, Do, Ho, Wo, 3)."""

    _defaults = {"interpolation_mode": "bilinear", "padding_mode": "zeros", "align_corners": False}

    def __call__(self, input_x, grid):
        attrs = (self.interpolation_mode, self.padding_mode, bool(self.align_corners))
        return apply(prims_image.GridSampler3D, (input_x, grid), attrs)


class MaxPool3DWithArgmax(WithAttrs):
    """`MaxPool3DWithArgmax(ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False, data_format="NCDHW",
    argmax_type=int64)(x)`: 3-D max pooling and, for each maximum, its flat index in the input's D*H*W."""

    _defaults = {"ksize": 1, "strides": 1, "pads": 0, "dilation": (1, 1, 1), "ceil_mode": False,
                 "data_format": "NCDHW", "argmax_type": mstype.int64}  # fmt: skip

    def __call__(self, x):

        if self.data_format != "NCDHW":
            raise op_error(self.name, f"'data_format' must be 'NCDHW', but got {self.data_format!r}.")
        if self.argmax_type not in (mstype.int32, mstype.int64):
            raise op_error(self.name, f"'argmax_type' must be int32 or int64, but got {self.argmax_type}.", TypeError)
        out, index = nn_ops.max_pool3d(x, self.ksize, self.strides, self.pads, self.dilation, self.ceil_mode,
                                       return_indices=True)  # fmt: skip
        return out, math.cast(index, self.argmax_type)


class CombinedNonMaxSuppression(WithAttrs):
    """`CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores, max_output_size_per_class,
    max_total_size, iou_threshold, score_threshold)`: greedy NMS per batch and class over boxes (B, N, q, 4)
    (q = 1: shared by the classes) and scores (B, N, classes), then the best `max_total_size` detections of each
    batch. Returns (boxes (B, T, 4), scores (B, T), classes (B, T), valid_detections (B,) int32)."""

    _defaults = {"pad_per_class": False, "clip_boxes": True}

    def __call__(self, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold):
        op = "CombinedNonMaxSuppression"
        b, s = _host(boxes, op).astype(np.float32), _host(scores, op).astype(np.float32)
        if (
            b.ndim != 4
            or b.shape[3] != 4
            or s.ndim != 3
            or s.shape[:2] != b.shape[:2]
            or b.shape[2] not in (1, s.shape[2])
        ):
            raise op_error(op, f"'boxes' must be (B, N, q, 4) with q 1 or the number of classes and 'scores' "
                           f"(B, N, classes), but got {b.shape} and {s.shape}.")  # fmt: skip
        per_class, total = int(_host(max_output_size_per_class, op)), int(_host(max_total_size, op))
        iou, floor = float(_host(iou_threshold, op)), float(_host(score_threshold, op))
        if per_class <= 0 or total <= 0:
            raise op_error(op, "'max_output_size_per_class' and 'max_total_size' must be positive.")
        width = min(total, per_class * s.shape[2]) if self.pad_per_class else total
        batch = b.shape[0]
        out_boxes = np.zeros((batch, width, 4), np.float32)
        out_scores = np.zeros((batch, width), np.float32)
        out_classes = np.zeros((batch, width), np.float32)
        valid = np.zeros((batch,), np.int32)
        for i in range(batch):
            found = []
            for k in range(s.shape[2]):
                cand = b[i, :, 0 if b.shape[2] == 1 else k]
                corners = np.concatenate(
                    [np.minimum(cand[:, :2], cand[:, 2:]), np.maximum(cand[:, :2], cand[:, 2:])], 1
                )
                sc = s[i, :, k]
                keep_idx = np.nonzero(sc > floor)[0]
                order = keep_idx[np.argsort(-sc[keep_idx], kind="stable")]
                for j in _greedy_nms(corners, order, iou, per_class):
                    found.append((float(sc[j]), k, cand[j]))
            found.sort(key=lambda t: -t[0])
            found = found[:width]
            valid[i] = len(found)
            for j, (score, k, box) in enumerate(found):
                out_boxes[i, j], out_scores[i, j], out_classes[i, j] = box, score, k
        if self.clip_boxes:
            out_boxes = np.clip(out_boxes, 0.0, 1.0)
        return Tensor(out_boxes), Tensor(out_scores), Tensor(out_classes), Tensor(valid)


class UpdateState(Primitive):
    """`UpdateState()(state, *exprs)`: MindSpore's side-effect ordering node; Kiln orders effects itself, so the
    state comes back unchanged."""

    def __init__(self) -> None:
        super().__init__("UpdateState")

    def __call__(self, state, *exprs):
        return state


class Load(Primitive):
    """`Load()(parameter, u)`: the current value of `parameter` (MindSpore's side-effect read node)."""

    def __init__(self) -> None:
        super().__init__("Load")

    def __call__(self, parameter, u=None):
        return Tensor._wrap(parameter._data) if isinstance(parameter, Tensor) else parameter


__all__ += ["ResizeBicubic", "ROIAlign", "GridSampler3D", "MaxPool3DWithArgmax", "CombinedNonMaxSuppression",
            "UpdateState", "Load"]  # fmt: skip


# -- CTCLossV2, NMS with overlaps, FFTWithSize, Morph ---------------------------------------------------------------


class CTCLossV2(WithAttrs):
    """`CTCLossV2(blank=0, reduction="none", zero_infinity=False)(log_probs, targets, input_lengths,
    target_lengths)`: per-sample negative log-likelihood (N,) and the forward variables log_alpha
    (N, T, 2S + 1) of (T, N, C) log-probabilities against padded (N, S) targets."""

    _defaults = {"blank": 0, "reduction": "none", "zero_infinity": False}

    def __call__(self, log_probs, targets, input_lengths, target_lengths):
        if self.reduction != "none":
            raise op_error(self.name, f"'reduction' must be 'none', but got {self.reduction!r}.")
        return apply(prim("CTCLoss"), (log_probs, targets, input_lengths, target_lengths),
                     (int(self.blank), bool(self.zero_infinity)))  # fmt: skip


class NonMaxSuppressionWithOverlaps(Primitive):
    """`NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size, overlap_threshold, score_threshold)`:
    greedy NMS with a given (N, N) overlap matrix: the int32 indices of at most `max_output_size` boxes."""

    def __init__(self) -> None:
        super().__init__("NonMaxSuppressionWithOverlaps")

    def __call__(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        op = self.name
        ov, s = _host(overlaps, op), _host(scores, op).reshape(-1)
        if ov.ndim != 2 or ov.shape[0] != ov.shape[1] or ov.shape[0] != s.shape[0]:
            raise op_error(op, f"'overlaps' must be (N, N) and 'scores' (N,), but got {ov.shape} and {s.shape}.")
        limit, thresh = int(_host(max_output_size, op)), float(_host(overlap_threshold, op))
        floor = float(_host(score_threshold, op))
        if limit < 0:
            raise op_error(op, f"'max_output_size' must be non-negative, but got {limit}.")
        order = [i for i in np.argsort(-s, kind="stable") if s[i] > floor]
        kept: list[int] = []
        for i in order:
            if len(kept) >= limit:
                break
            if all(ov[i, j] <= thresh for j in kept):
                kept.append(int(i))
        return Tensor(np.asarray(kept, np.int32))


class FFTWithSize(WithAttrs):
    """`FFTWithSize(signal_ndim, inverse, real, norm="backward", onesided=True, signal_sizes=())(x)`: the
    (inverse) discrete Fourier transform over the last `signal_ndim` dims: complex-to-complex (real=False),
    real-to-complex (real, not inverse; half spectrum when onesided) or complex-to-real (real and inverse, to
    `signal_sizes`)."""

    _defaults = {"signal_ndim": 1, "inverse": False, "real": False, "norm": "backward", "onesided": True,
                 "signal_sizes": ()}  # fmt: skip

    def __call__(self, x):
        from kiln import ops  # noqa: PLC0415

        nd = int(self.signal_ndim)
        if nd not in (1, 2, 3) or x.ndim < nd:
            raise op_error(self.name, f"'signal_ndim' must be 1, 2 or 3 and at most x's rank, but got {nd}.")
        if self.norm not in ("backward", "forward", "ortho"):
            raise op_error(self.name, f"'norm' must be 'backward', 'forward' or 'ortho', but got {self.norm!r}.")
        dims = tuple(range(-nd, 0))
        if not self.real:
            return (ops.ifftn if self.inverse else ops.fftn)(x, None, dims, self.norm)
        if not self.inverse:
            return (ops.rfftn if self.onesided else ops.fftn)(x, None, dims, self.norm)
        sizes = tuple(int(v) for v in self.signal_sizes) or None
        if not self.onesided:
            return math.real(ops.ifftn(x, sizes, dims, self.norm))
        return ops.irfftn(x, sizes, dims, self.norm)


class Morph(Primitive):
    """`Morph(fn, infer_shape, infer_dtype, bprop_fn=None)(*args)`: call `fn` as one op (its Kiln ops run as
    usual, in PyNative and in graphs); `bprop_fn(*args, out, dout)` replaces its gradient when given."""

    def __init__(self, fn, infer_shape, infer_dtype, bprop_fn=None) -> None:
        super().__init__("Morph")
        if not callable(fn):
            raise TypeError(f"Morph: 'fn' must be callable, but got {type(fn).__name__}.")
        self.fn, self.infer_shape, self.infer_dtype, self.bprop_fn = fn, infer_shape, infer_dtype, bprop_fn

    def __call__(self, *args):
        if self.bprop_fn is None:
            return self.fn(*args)

        with tape.pause():
            out = self.fn(*args)
        several = isinstance(out, (tuple, list))
        outs = _with_bprop(self.bprop_fn, args, tuple(out) if several else (out,), several)
        return outs if several else outs[0]


__all__ += ["CTCLossV2", "NonMaxSuppressionWithOverlaps", "FFTWithSize", "Morph"]


# -- fractional max pooling ---------------------------------------------------------------------------------------


def _fixed(op: str, name: str, value, nd: int) -> tuple[int, ...]:
    v = (int(value),) * nd if isinstance(value, numbers.Integral) else tuple(int(a) for a in value)
    if len(v) != nd or any(a <= 0 for a in v):
        raise op_error(op, f"'{name}' must be a positive int or {nd} positive ints, but got {value!r}.")
    return v


def _fractional(op: str, x, kernel_size, output_size, output_ratio, samples, nd: int):
    ksize = _fixed(op, "kernel_size", kernel_size, nd)
    if output_size is None:
        if output_ratio is None:
            raise op_error(op, "one of 'output_size' and 'output_ratio' must be given.")
        ratio = (float(output_ratio),) * nd if isinstance(output_ratio, numbers.Real) else tuple(output_ratio)
        if len(ratio) != nd or not all(0 < r < 1 for r in ratio):
            raise op_error(op, f"'output_ratio' must hold {nd} values in (0, 1), but got {output_ratio!r}.")
        out = tuple(int(x.shape[-nd + d] * ratio[d]) for d in range(nd))
    else:
        out = _fixed(op, "output_size", output_size, nd)
    if samples is None:
        samples = math.cast(_uniform01((x.shape[0], x.shape[1], nd), mstype.float32, random_state.next_key()),
                            x.dtype if x.dtype.is_floating else mstype.float32)  # fmt: skip
    return apply(prims_pool.FractionalMaxPool, (x, samples), (ksize, out))


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                          _random_samples=None):  # fmt: skip
    """2-D fractional max pooling of (N, C, H, W) (or (C, H, W)): `kernel_size` windows at pseudo-random steps
    reaching `output_size` (or input size * `output_ratio`). `_random_samples` (N, C, 2) in [0, 1) fixes the
    steps (drawn from the global generator when omitted). Returns the values (and int64 flat H*W indices)."""
    squeeze = input.ndim == 3
    x = array.expand_dims(input, 0) if squeeze else input
    y, index = _fractional("FractionalMaxPool2d", x, kernel_size, output_size, output_ratio, _random_samples, 2)
    if squeeze:
        y, index = array.squeeze(y, 0), array.squeeze(index, 0)
    return (y, index) if return_indices else y


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None, return_indices: bool = False,
                          _random_samples=None):  # fmt: skip
    """3-D fractional max pooling of (N, C, D, H, W) (or (C, D, H, W)); `_random_samples` (N, C, 3). See
    `fractional_max_pool2d`."""
    squeeze = input.ndim == 4
    x = array.expand_dims(input, 0) if squeeze else input
    y, index = _fractional("FractionalMaxPool3d", x, kernel_size, output_size, output_ratio, _random_samples, 3)
    if squeeze:
        y, index = array.squeeze(y, 0), array.squeeze(index, 0)
    return (y, index) if return_indices else y


class FractionalMaxPoolWithFixedKsize(Primitive):
    """`FractionalMaxPoolWithFixedKsize(ksize, output_shape, data_format="NCHW")(input_x, random_samples)`:
    (values, int64 flat indices); see `ops.fractional_max_pool2d`."""

    def __init__(self, ksize, output_shape, data_format: str = "NCHW") -> None:
        super().__init__("FractionalMaxPoolWithFixedKsize")
        if data_format != "NCHW":
            raise op_error(self.name, f"'data_format' must be 'NCHW', but got {data_format!r}.")
        self._attrs = (_fixed(self.name, "ksize", ksize, 2), _fixed(self.name, "output_shape", output_shape, 2))
        for k, v in (("ksize", ksize), ("output_shape", output_shape), ("data_format", data_format)):
            self.add_prim_attr(k, v)

    def __call__(self, input_x, random_samples):
        return apply(prims_pool.FractionalMaxPool, (input_x, random_samples), self._attrs)


class FractionalMaxPool3DWithFixedKsize(Primitive):
    """`FractionalMaxPool3DWithFixedKsize(ksize, output_shape, data_format="NCDHW")(x, random_samples)`:
    (values, int64 flat indices); see `ops.fractional_max_pool3d`."""

    def __init__(self, ksize, output_shape, data_format: str = "NCDHW") -> None:
        super().__init__("FractionalMaxPool3DWithFixedKsize")
        if data_format != "NCDHW":
            raise op_error(self.name, f"'data_format' must be 'NCDHW', but got {data_format!r}.")
        self._attrs = (_fixed(self.name, "ksize", ksize, 3), _fixed(self.name, "output_shape", output_shape, 3))
        for k, v in (("ksize", ksize), ("output_shape", output_shape), ("data_format", data_format)):
            self.add_prim_attr(k, v)

    def __call__(self, x, random_samples):
        return apply(prims_pool.FractionalMaxPool, (x, random_samples), self._attrs)


__all__ += ["fractional_max_pool2d", "fractional_max_pool3d", "FractionalMaxPoolWithFixedKsize",
            "FractionalMaxPool3DWithFixedKsize"]  # fmt: skip


# -- deformable convolution -----------------------------------------------------------------------------------------


def _nchw4(op: str, name: str, value) -> tuple[int, int]:
    v = tuple(int(a) for a in value)
    if len(v) != 4 or v[0] != 1 or v[1] != 1 or v[2] <= 0 or v[3] <= 0:
        raise op_error(op, f"'{name}' must be 4 ints (1, 1, h, w) with positive h, w, but got {value!r}.")
    return v[2], v[3]


class DeformableOffsets(Primitive):
    """`DeformableOffsets(strides, pads, ksize, dilations=(1, 1, 1, 1), data_format="NCHW", deformable_groups=1,
    modulated=True)(x, offsets)`: the input sampled at the deformed kernel positions, (N, C, out_h * kh,
    out_w * kw), ready for a convolution with stride (kh, kw) (see `ops.deformable_conv2d`)."""

    def __init__(self, strides, pads, ksize, dilations=(1, 1, 1, 1), data_format: str = "NCHW",
                 deformable_groups: int = 1, modulated: bool = True) -> None:  # fmt: skip
        super().__init__("DeformableOffsets")
        op = self.name
        if data_format != "NCHW":
            raise op_error(op, f"'data_format' must be 'NCHW', but got {data_format!r}.")
        pads = tuple(int(p) for p in pads)
        if len(pads) != 4 or min(pads) < 0:
            raise op_error(op, f"'pads' must be 4 non-negative ints (top, bottom, left, right), but got {pads!r}.")
        ksize = _fixed(op, "ksize", ksize, 2)
        if not isinstance(modulated, bool):
            raise op_error(op, f"'modulated' must be a bool, but got {modulated!r}.", TypeError)
        self._attrs = (_nchw4(op, "strides", strides), pads, ksize, _nchw4(op, "dilations", dilations),
                       int(deformable_groups), modulated)  # fmt: skip
        for k, v in (
            ("strides", strides),
            ("pads", pads),
            ("ksize", ksize),
            ("dilations", dilations),
            ("data_format", data_format),
            ("deformable_groups", deformable_groups),
            ("modulated", modulated),
        ):
            self.add_prim_attr(k, v)  # fmt: skip

    def __call__(self, x, offsets):
        return apply(prims_conv.DeformableOffsets, (x, offsets), self._attrs)


def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None, dilations=(1, 1, 1, 1),
                      groups: int = 1, deformable_groups: int = 1, modulated: bool = True):  # fmt: skip
    """Deformable convolution (v2 when `modulated`): `weight` (C_out, C_in / groups, kh, kw) applied at the
    kernel positions moved by `offsets` (N, 3 * deformable_groups * kh * kw, H_out, W_out) = (x offsets,
    y offsets, masks), plus `bias`. `strides`/`dilations` are (1, 1, h, w); `padding` (top, bottom, left, right).
    """

    kh, kw = _fixed("deformable_conv2d", "kernel_size", kernel_size, 2)
    sampled = DeformableOffsets(strides, padding, (kh, kw), dilations, "NCHW", deformable_groups, modulated)(x, offsets)
    out = nn_ops.conv2d(sampled, weight, None, (kh, kw), "valid", 0, 1, groups)
    if bias is not None:
        out = math.add(out, array.reshape(bias, (1, -1, 1, 1)))
    return out


__all__ += ["DeformableOffsets", "deformable_conv2d"]
