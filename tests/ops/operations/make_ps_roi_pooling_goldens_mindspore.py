"""Write ps_roi_pooling_goldens_mindspore.npz: MindSpore 2.10's CPU PSROIPooling outputs (GRAPH_MODE and PyNative,
checked equal here) for seeded random features and rois, with the inputs themselves.
Run: /work/msvenv/bin/python tests/ops/operations/make_ps_roi_pooling_goldens_mindspore.py"""

import os

import mindspore as ms
import numpy as np
from mindspore.ops.operations import nn_ops

# name -> (batch, rois_n, group_size, output_dim, spatial_scale, H, W)
CASES = {
    "one_roi_each": (2, 1, 2, 4, 1.0 / 16, 20, 12),
    "three_rois_each": (2, 3, 3, 2, 1.0 / 8, 15, 17),
    "wide_scale": (1, 4, 2, 3, 0.5, 9, 11),
}


class _Net(ms.nn.Cell):
    def __init__(self, scale, group, dim):
        super().__init__()
        self.op = nn_ops.PSROIPooling(scale, group, dim)

    def construct(self, features, rois):
        return self.op(features, rois)


def main():
    out = {}
    rng = np.random.default_rng(2026)
    for name, (batch, n, group, dim, scale, h, w) in CASES.items():
        features = rng.standard_normal((batch, dim * group * group, h, w)).astype(np.float32)
        # rois as rows of 5 (batch index, x1, y1, x2, y2), some past the map's edge, one inverted, one tiny
        boxes = np.zeros((batch * n, 5), np.float32)
        boxes[:, 0] = rng.integers(0, batch, batch * n)
        x = np.sort(rng.uniform(-2, w / scale + 8, (batch * n, 2)), axis=1)
        y = np.sort(rng.uniform(-2, h / scale + 8, (batch * n, 2)), axis=1)
        boxes[:, 1], boxes[:, 3], boxes[:, 2], boxes[:, 4] = x[:, 0], x[:, 1], y[:, 0], y[:, 1]
        boxes[-1, 1:] = boxes[-1, [3, 4, 1, 2]]  # inverted corners: a roi of the minimum size
        rois = boxes.reshape(batch, 5, n)  # the buffer the kernels read as rows of 5
        results = []
        for mode in (ms.GRAPH_MODE, ms.PYNATIVE_MODE):
            ms.set_context(mode=mode)
            results.append(_Net(scale, group, dim)(ms.Tensor(features), ms.Tensor(rois)).asnumpy())
        assert np.array_equal(results[0], results[1]), name
        out[f"{name}/features"], out[f"{name}/rois"], out[f"{name}/out"] = features, rois, results[0]
    np.savez(os.path.join(os.path.dirname(__file__), "ps_roi_pooling_goldens_mindspore.npz"), **out)


if __name__ == "__main__":
    main()
