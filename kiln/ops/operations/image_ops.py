"""MindSpore's image Primitive classes (`ops.operations.image_ops`): resizing, crops, boxes, non-max suppression,
colour."""

from __future__ import annotations

import numpy as np

from kiln._core.tensor import Tensor
from kiln._prims import image as prims_image
from kiln.ops import array, image
from kiln.ops import nn as nn_ops
from kiln.ops._helpers import apply, op_error
from kiln.ops.operations._build import as_ints, attr_class, host_array, resize_call
from kiln.ops.primitive import Primitive, WithAttrs

__all__ = [
    "IOU",
    "BoundingBoxEncode",
    "BoundingBoxDecode",
    "CheckValid",
    "ResizeBilinearV2",
    "ResizeLinear1D",
    "CropAndResize",
    "NMSWithMask",
    "NonMaxSuppressionV3",
    "ExtractImagePatches",
    "AdjustHue",
    "HSVToRGB",
    "RGBToHSV",
    "AdjustSaturation",
    "ResizeBicubic",
    "CombinedNonMaxSuppression",
    "NonMaxSuppressionWithOverlaps",
]


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


def _pair(op: str, name: str, value) -> tuple[int, int]:
    v = tuple(int(a) for a in value)
    if len(v) == 4:
        v = v[2:]
    if len(v) != 2 or any(a <= 0 for a in v):
        raise op_error(op, f"'{name}' must be (1, 1, h, w) or (h, w) with positive values, but got {value!r}.")
    return v


def _scalar(value, like: Tensor) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(np.asarray(value, like.dtype.np))


IOU = attr_class("IOU", {"mode": "iou"}, lambda s, anchors, gt: image.iou(anchors, gt, s.mode))
BoundingBoxEncode = attr_class(
    "BoundingBoxEncode",
    {"means": (0.0, 0.0, 0.0, 0.0), "stds": (1.0, 1.0, 1.0, 1.0)},
    lambda s, a, g: image.bounding_box_encode(a, g, s.means, s.stds),
)
BoundingBoxDecode = attr_class(
    "BoundingBoxDecode",
    {"max_shape": None, "means": (0.0, 0.0, 0.0, 0.0), "stds": (1.0, 1.0, 1.0, 1.0), "wh_ratio_clip": 0.016},
    lambda s, a, d: image.bounding_box_decode(a, d, s.max_shape, s.means, s.stds, s.wh_ratio_clip),
)
CheckValid = attr_class("CheckValid", {}, lambda s, bboxes, img_metas: image.check_valid(bboxes, img_metas))
ResizeBilinearV2 = attr_class(
    "ResizeBilinearV2", {"align_corners": False, "half_pixel_centers": False}, resize_call("bilinear")
)
ResizeLinear1D = attr_class(
    "ResizeLinear1D",
    {"coordinate_transformation_mode": "align_corners"},
    lambda s, x, size: nn_ops.interpolate(
        x, as_ints(size), mode="linear", align_corners=s.coordinate_transformation_mode == "align_corners"
    ),
)
CropAndResize = attr_class(
    "CropAndResize",
    {"method": "bilinear", "extrapolation_value": 0.0},
    lambda s, x, boxes, box_index, crop_size: image.crop_and_resize(  # `image` is the module: the input is `x`
        x, boxes, box_index, crop_size, s.method, s.extrapolation_value
    ),
)


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
        host = host_array(bboxes, op)
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
        b, s = host_array(boxes, op), host_array(scores, op).reshape(-1)
        if b.ndim != 2 or b.shape[1] != 4 or s.shape[0] != b.shape[0]:
            raise op_error(op, f"'boxes' must be (N, 4) and 'scores' (N,), but got {b.shape} and {s.shape}.")
        limit = int(host_array(max_output_size, op))
        if limit < 0:
            raise op_error(op, f"'max_output_size' must be non-negative, but got {limit}.")
        iou = float(host_array(iou_threshold, op))
        floor = float(host_array(score_threshold, op))
        corners = np.concatenate([np.minimum(b[:, :2], b[:, 2:]), np.maximum(b[:, :2], b[:, 2:])], axis=1)
        candidates = np.nonzero(s > floor)[0]
        order = candidates[np.argsort(-s[candidates], kind="stable")]
        kept = _greedy_nms(corners, order, iou, limit) if limit > 0 else []
        return Tensor(np.asarray(kept, np.int32))


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


class AdjustHue(Primitive):
    """`AdjustHue()(image, delta)`: rotate the hue of RGB images (last dim 3, values in [0, 1]) by `delta`
    (a fraction of the colour circle)."""

    def __init__(self) -> None:
        super().__init__("AdjustHue")

    def __call__(self, image, delta):
        return apply(prims_image.AdjustHue, (image, _scalar(delta, image)))


class HSVToRGB(Primitive):
    """`HSVToRGB()(images)`: images whose last dimension is (hue, saturation, value), each in [0, 1], as RGB."""

    def __init__(self) -> None:
        super().__init__("HSVToRGB")

    def __call__(self, images):
        return apply(prims_image.HSVToRGB, (images,))


class RGBToHSV(Primitive):
    """`RGBToHSV()(images)`: RGB images (last dimension 3, values in [0, 1]) as (hue, saturation, value)."""

    def __init__(self) -> None:
        super().__init__("RGBToHSV")

    def __call__(self, images):
        return apply(prims_image.RGBToHSV, (images,))


class AdjustSaturation(Primitive):
    """`AdjustSaturation()(image, scale)`: multiply the saturation of RGB images (last dim 3) by `scale`."""

    def __init__(self) -> None:
        super().__init__("AdjustSaturation")

    def __call__(self, image, scale):
        return apply(prims_image.AdjustSaturation, (image, _scalar(scale, image)))


class ResizeBicubic(WithAttrs):
    """`ResizeBicubic(align_corners=False, half_pixel_centers=False)(images, size)`: bicubic resize of
    (N, C, H, W) images to `size` = (new_h, new_w) (MindSpore's/TensorFlow's kernel and coefficient table)."""

    _defaults = {"align_corners": False, "half_pixel_centers": False}

    def __call__(self, images, size):
        values = host_array(size, "ResizeBicubic").reshape(-1).tolist() if isinstance(size, Tensor) else list(size)
        if len(values) != 2 or any(int(v) <= 0 for v in values):
            raise op_error("ResizeBicubic", f"'size' must hold two positive ints, but got {values}.")
        attrs = (tuple(int(v) for v in values), bool(self.align_corners), bool(self.half_pixel_centers))
        return apply(prims_image.ResizeBicubic, (images,), attrs)


class CombinedNonMaxSuppression(WithAttrs):
    """`CombinedNonMaxSuppression(pad_per_class=False, clip_boxes=True)(boxes, scores, max_output_size_per_class,
    max_total_size, iou_threshold, score_threshold)`: greedy NMS per batch and class over boxes (B, N, q, 4)
    (q = 1: shared by the classes) and scores (B, N, classes), then the best `max_total_size` detections of each
    batch. Returns (boxes (B, T, 4), scores (B, T), classes (B, T), valid_detections (B,) int32)."""

    _defaults = {"pad_per_class": False, "clip_boxes": True}

    def __call__(self, boxes, scores, max_output_size_per_class, max_total_size, iou_threshold, score_threshold):
        op = "CombinedNonMaxSuppression"
        b, s = host_array(boxes, op).astype(np.float32), host_array(scores, op).astype(np.float32)
        if (
            b.ndim != 4
            or b.shape[3] != 4
            or s.ndim != 3
            or s.shape[:2] != b.shape[:2]
            or b.shape[2] not in (1, s.shape[2])
        ):
            raise op_error(op, f"'boxes' must be (B, N, q, 4) with q 1 or the number of classes and 'scores' "
                           f"(B, N, classes), but got {b.shape} and {s.shape}.")  # fmt: skip
        per_class, total = int(host_array(max_output_size_per_class, op)), int(host_array(max_total_size, op))
        iou, floor = float(host_array(iou_threshold, op)), float(host_array(score_threshold, op))
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


class NonMaxSuppressionWithOverlaps(Primitive):
    """`NonMaxSuppressionWithOverlaps()(overlaps, scores, max_output_size, overlap_threshold, score_threshold)`:
    greedy NMS with a given (N, N) overlap matrix: the int32 indices of at most `max_output_size` boxes."""

    def __init__(self) -> None:
        super().__init__("NonMaxSuppressionWithOverlaps")

    def __call__(self, overlaps, scores, max_output_size, overlap_threshold, score_threshold):
        op = self.name
        ov, s = host_array(overlaps, op), host_array(scores, op).reshape(-1)
        if ov.ndim != 2 or ov.shape[0] != ov.shape[1] or ov.shape[0] != s.shape[0]:
            raise op_error(op, f"'overlaps' must be (N, N) and 'scores' (N,), but got {ov.shape} and {s.shape}.")
        limit, thresh = int(host_array(max_output_size, op)), float(host_array(overlap_threshold, op))
        floor = float(host_array(score_threshold, op))
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
