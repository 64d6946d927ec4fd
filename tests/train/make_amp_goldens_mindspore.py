"""Record MindSpore 2.10's loss-scaler behaviour into amp_goldens.json (run with the MindSpore environment):

    /tmp/msvenv/bin/python tests/train/make_amp_goldens_mindspore.py

MindSpore's TrainOneStepWithLossScaleCell reads an Ascend overflow status and does not run on CPU, so the
goldens cover what does: amp.DynamicLossScaler (grow after a clean window, shrink on overflow, floor at 1),
scale/unscale and amp.all_finite. tests/train/test_amp.py replays the same calls on Kiln.
"""

import json
import os

import mindspore as ms
import numpy as np
from mindspore import Tensor, amp

FINITE_SEQUENCE = (True, True, False, True, True, True, False, False)


def record() -> dict:
    scaler = amp.DynamicLossScaler(1024, scale_factor=2, scale_window=2)
    scales = []
    for finite in FINITE_SEQUENCE:
        scaler.adjust(Tensor(finite))
        scales.append(float(scaler.scale_value.asnumpy()))
    floor = amp.DynamicLossScaler(1.0, scale_factor=2, scale_window=1)
    for _ in range(3):
        floor.adjust(Tensor(False))
    return {
        "mindspore": ms.__version__,
        "finite_sequence": list(FINITE_SEQUENCE),
        "scales": scales,
        "unscaled": scaler.unscale((Tensor([8.0, 16.0]),))[0].asnumpy().tolist(),
        "scaled": scaler.scale(Tensor([1.0, 3.0])).asnumpy().tolist(),
        "floor_after_overflows": float(floor.scale_value.asnumpy()),
        "all_finite_with_inf": bool(amp.all_finite((Tensor([1.0, 2.0]), Tensor([np.inf]))).asnumpy()),
        "all_finite_with_nan": bool(amp.all_finite((Tensor([np.nan]),)).asnumpy()),
        "all_finite_clean": bool(amp.all_finite((Tensor([1.0, 2.0]),)).asnumpy()),
    }


if __name__ == "__main__":
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "amp_goldens.json")
    with open(path, "w") as f:
        json.dump(record(), f, indent=1)
        f.write("\n")
