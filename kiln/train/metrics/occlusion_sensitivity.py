"""`OcclusionSensitivity`: how a model's score for the target class changes as patches of the image are
occluded."""

from __future__ import annotations

import numpy as np

from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell
from kiln.train.metrics.metric import Metric, check_type, check_updated, rearrange_inputs

__all__ = ["OcclusionSensitivity"]


class OcclusionSensitivity(Metric):
    """How much the model's score for `label` drops when a cube of half-width `margin` around each element of the
    (1, ...) input (or of the bounding box `b_box` = [min0, max0, min1, max1, ...]) is set to `pad_val`; the
    occluded images are run through the model `n_batch` at a time."""

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        self.pad_val = check_type("OcclusionSensitivity", "pad_val", pad_val, (float,))
        self.margin = check_type("OcclusionSensitivity", "margin", margin, (int, list))
        self.n_batch = check_type("OcclusionSensitivity", "n_batch", n_batch, (int,))
        self.b_box = b_box if b_box is None else check_type("OcclusionSensitivity", "b_box", b_box, (list,))
        self.clear()

    def clear(self):
        self._baseline = 0
        self._sensitivity_im = 0
        self._is_update = False

    def _box(self, shape):
        if self.b_box is None:
            return None, None
        if len(self.b_box) != 2 * len(shape):
            raise ValueError(f"For 'OcclusionSensitivity', 'b_box' needs a lower and an upper bound for every "
                             f"dimension but the batch ({2 * len(shape)} values), got {len(self.b_box)}.")  # fmt: skip
        lo, hi = np.array(self.b_box[::2]), np.array(self.b_box[1::2])
        lo[lo < 0] = 0
        hi[hi < 0] = shape[hi < 0] - 1
        if np.any(hi >= shape):
            raise ValueError("For 'OcclusionSensitivity', the bounding box's maxima must be smaller than the image.")
        if np.any(lo > hi):
            raise ValueError("For 'OcclusionSensitivity', the bounding box's minima must not exceed its maxima.")
        return lo, hi

    @rearrange_inputs
    def update(self, *inputs):
        self._check_count(inputs, 3, "classification model, predicted value, label")
        model, image = inputs[0], self._convert_data(inputs[1])
        label = self._convert_data(inputs[2])
        if not isinstance(model, Cell):
            raise TypeError(f"For 'OcclusionSensitivity.update', the model must be a Cell, but got {type(model)}.")
        if image.shape[0] > 1:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the batch size of the input must be 1, but got "
                               f"{image.shape[0]}.")  # fmt: skip
        if np.prod(label.shape) != image.shape[0]:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the label must have one element per image, but "
                               f"got {np.prod(label.shape)}.")  # fmt: skip
        shape = np.array(image.shape[1:])
        lo, hi = self._box(shape)
        self._baseline = model(Tensor(image)).asnumpy()[0, label].item()
        out_shape = shape if lo is None else hi - lo + 1
        total = int(np.prod(out_shape))
        scores, batch = [], []
        for i in range(total):
            idx = np.unravel_index(i, out_shape)
            if lo is not None:
                idx = tuple(np.asarray(idx) + lo)
            occluded = image.copy()
            window = tuple(slice(max(0, c - self.margin), min(n, c + self.margin)) for c, n in zip(idx, shape))
            occluded[(...,) + window] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or i == total - 1:
                out = model(Tensor(np.vstack(batch))).asnumpy()
                scores.append(out[:, int(np.asarray(label).reshape(-1)[0])])
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        check_updated(self)
        return self._baseline - np.squeeze(self._sensitivity_im)
