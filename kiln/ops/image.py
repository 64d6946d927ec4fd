"""Image ops: sampling grids (`grid_sample`, `affine_grid`), crop-and-resize and bounding boxes (IoU, encode/decode)."""

from __future__ import annotations

import builtins

import numpy as np

from kiln._core import dtype as mstype
from kiln._core.tensor import Tensor
from kiln._prims import image as prims_image
from kiln.ops import array, math
from kiln.ops._helpers import apply, op_error

__all__ = [
    "iou",
    "bounding_box_encode",
    "bounding_box_decode",
    "check_valid",
    "grid_sample",
    "affine_grid",
    "crop_and_resize",
]


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
    `max_shape` (height, width): x to [0, width], y to [0, height]."""
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
    # MindSpore's kernels (CPU and GPU) clip x to [0, width] and y to [0, height], not to the last pixel
    x1 = math.clamp(gx - gw * 0.5 + 0.5, 0, w)
    y1 = math.clamp(gy - gh * 0.5 + 0.5, 0, h)
    x2 = math.clamp(gx + gw * 0.5 - 0.5, 0, w)
    y2 = math.clamp(gy + gh * 0.5 - 0.5, 0, h)
    return array.stack((x1, y1, x2, y2), 1)


def check_valid(bboxes, img_metas) -> Tensor:
    """Whether each (x1, y1, x2, y2) box lies inside the image (height, width, ratio) of `img_metas`."""
    h = img_metas[0] * img_metas[2]
    w = img_metas[1] * img_metas[2]
    ok = math.logical_and(bboxes[:, 0] >= 0, bboxes[:, 1] >= 0)
    ok = math.logical_and(ok, bboxes[:, 2] <= w - 1)
    return math.logical_and(ok, bboxes[:, 3] <= h - 1)


def grid_sample(input, grid, mode: str = "bilinear", padding_mode: str = "zeros", align_corners=None) -> Tensor:
    """Sample a 4-D input at the normalised (x, y) positions of `grid` ([-1, 1] spans the input).

    Args:
        input (Tensor): (N, C, H, W).
        grid (Tensor): (N, Ho, Wo, 2), x then y.
        mode (str): 'bilinear' or 'nearest'.
        padding_mode (str): 'zeros', 'border' or 'reflection' (how positions outside are read).
        align_corners (bool): -1 and 1 are the centres (True) or the outer edges (False, the default)
            of the corner pixels.

    Returns:
        Tensor of shape (N, C, Ho, Wo).
    """
    return apply(prims_image.GridSampler2D, (input, grid), (mode, padding_mode, bool(align_corners)))


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
