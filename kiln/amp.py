"""`mindspore.amp`: the mixed-precision API, defined in kiln/train/amp.py (MindSpore's `mindspore.train.amp`)."""

from kiln.train.amp import (
    DynamicLossScaleManager,
    DynamicLossScaler,
    FixedLossScaleManager,
    LossScaleManager,
    LossScaler,
    StaticLossScaler,
    all_finite,
    auto_mixed_precision,
    build_train_network,
    custom_mixed_precision,
    get_black_list,
    get_white_list,
    init_status,
)

__all__ = [
    "DynamicLossScaleManager",
    "DynamicLossScaler",
    "FixedLossScaleManager",
    "LossScaleManager",
    "LossScaler",
    "StaticLossScaler",
    "all_finite",
    "auto_mixed_precision",
    "build_train_network",
    "custom_mixed_precision",
    "get_black_list",
    "get_white_list",
    "init_status",
]
