"""Process-wide helpers of `mindspore.common.api`."""

from __future__ import annotations

import random

import numpy as np

from kiln._core import random_state


def set_seed(seed: int) -> None:
    """Seed Kiln's generator, the data pipeline's, NumPy's and Python's, so runs repeat exactly."""
    from kiln.dataset import config as dataset_config  # noqa: PLC0415  (keeps `import kiln` light)

    random_state.set_seed(seed)
    dataset_config.set_seed(seed)
    np.random.seed(seed)
    random.seed(seed)
