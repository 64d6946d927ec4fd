"""Callbacks for `Model.train` / `Model.fit` (MindSpore's `mindspore.train.callback`)."""

from kiln.train.callback._backup_and_restore import BackupAndRestore
from kiln.train.callback._callback import Callback, RunContext
from kiln.train.callback._callback import CallbackManager as _CallbackManager  # noqa: F401 (MindSpore's name)
from kiln.train.callback._callback import InternalCallbackParam as _InternalCallbackParam  # noqa: F401 (same)
from kiln.train.callback._checkpoint import (
    CheckpointConfig,
    ModelCheckpoint,
    _set_cur_net,  # noqa: F401 (MindSpore's private name, imported by zoo code)
)
from kiln.train.callback._early_stop import EarlyStopping
from kiln.train.callback._history import History
from kiln.train.callback._lambda import LambdaCallback
from kiln.train.callback._loss_monitor import LossMonitor
from kiln.train.callback._lr_scheduler import LearningRateScheduler
from kiln.train.callback._on_request_exit import OnRequestExit
from kiln.train.callback._progress import ProgressBar
from kiln.train.callback._reduce_lr_on_plateau import ReduceLROnPlateau
from kiln.train.callback._summary_collector import SummaryCollector
from kiln.train.callback._time_monitor import TimeMonitor

__all__ = [
    "BackupAndRestore",
    "OnRequestExit",
    "ReduceLROnPlateau",
    "Callback",
    "CheckpointConfig",
    "EarlyStopping",
    "History",
    "LambdaCallback",
    "LearningRateScheduler",
    "LossMonitor",
    "ModelCheckpoint",
    "ProgressBar",
    "RunContext",
    "SummaryCollector",
    "TimeMonitor",
]

# Callbacks of this package that `Model.fit` does not run during its evaluation (TimeMonitor excepted).
INTERNAL_CALLBACKS = tuple(globals()[name] for name in __all__ if name not in ("Callback", "RunContext"))
