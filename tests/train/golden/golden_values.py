"""The values stored in the golden checkpoints (shared by the MindSpore script and the Kiln tests).

Plain NumPy, computed from formulas, so both sides agree without reading each other's output.
"""

import numpy as np


def golden_values() -> dict:
    """{name: NumPy array} for the network's parameters, in the order MindSpore saves them."""
    w = (np.arange(12, dtype=np.float64).reshape(4, 3) / 7.0 - 0.5).astype(np.float32)
    return {
        "scale": np.float32(1.25) * np.ones((), np.float32),
        "steps": np.arange(5, dtype=np.int32) * 3 - 4,
        "half": (np.linspace(-2, 2, 6).reshape(2, 3)).astype(np.float16),
        "wide": np.linspace(0, 1, 4, dtype=np.float64) ** 3,
        "mask": np.array([True, False, True]),
        "bytes": np.arange(250, 256, dtype=np.uint8),
        "fc.weight": w,
        "fc.bias": np.array([0.5, -1.5, 2.25, 1e-3], np.float32),
    }


APPEND = {"epoch_num": 7, "lr": 0.125, "note": "golden from MindSpore"}
