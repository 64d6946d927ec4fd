"""EarlyStopping: stop training when a monitored value stops improving."""

from __future__ import annotations

import copy
import math
import warnings

import numpy as np

from kiln.train.callback._callback import Callback, loss_value
from kiln.train.checkpoint import load_param_into_net

# Values that improve by going down (for mode="auto").
SMALLER_IS_BETTER = (
    "eval_loss",
    "loss",
    "mae",
    "mse",
    "hausdorff_distance",
    "perplexity",
    "mean_surface_distance",
    "root_mean_square_distance",
)


def minimizes(mode: str, monitor: str) -> bool:
    """Whether smaller values of `monitor` are better: mode "min", or "auto" for the losses and errors."""
    return mode == "min" or (mode == "auto" and monitor in SMALLER_IS_BETTER)


def improved(current: float, reference: float, min_delta: float, minimize: bool) -> bool:
    """Whether `current` beats `reference` by more than `min_delta`, in the monitored value's direction."""
    return current < reference - min_delta if minimize else current > reference + min_delta


def monitored_value(cb_params, monitor: str, who: str) -> float | None:
    """The value `monitor` names this epoch ("loss": the training loss; else an entry of the evaluation results),
    as a float; None, with a warning naming what is available, where this epoch did not produce it.

    Args:
        cb_params: the run context's arguments.
        monitor: "loss", "eval_loss" or a metric name.
        who: the callback's name, for the messages.

    Returns:
        The value, or None.
    """
    results = {}
    if monitor == "loss":
        value = loss_value(cb_params.get("net_outputs"))
    else:
        results = cb_params.get("eval_results") or {}
        value = results.get(monitor)
    if value is None:
        warnings.warn(
            f"{who} monitors '{monitor}', which this epoch did not produce; available: "
            f"{sorted(set(['loss', *results]))}.",
            stacklevel=3,
        )
        return None
    arr = np.asarray(value, dtype=np.float64)
    if arr.shape != ():
        raise ValueError(f"{who} can only monitor a scalar, but '{monitor}' has shape {arr.shape}.")
    return float(arr)


class _ImprovementWatcher(Callback):
    """What EarlyStopping and ReduceLROnPlateau share: the best value of `monitor` so far (`best`) and the epochs
    since it last improved by more than `min_delta` (`wait`); subclasses set `monitor` and `min_delta`."""

    def _watch(self, mode: str, monitor: str) -> None:
        self._minimize = minimizes(mode, monitor)
        self._reset()

    def _reset(self) -> None:
        self.wait = 0
        self.best = math.inf if self._minimize else -math.inf

    def _improved(self, current: float, reference: float) -> bool:
        return improved(current, reference, self.min_delta, self._minimize)


class EarlyStopping(_ImprovementWatcher):
    """Stop `Model.fit` / `Model.train` when `monitor` has not improved for `patience` epochs.

    Args:
        monitor: "loss" (the training loss), "eval_loss" or a metric name of `Model(metrics=...)`
            (these two need `Model.fit` with a validation set).
        min_delta: the smallest change that counts as an improvement.
        patience: epochs without improvement before stopping.
        verbose: print when stopping / restoring.
        mode: "min", "max" or "auto" (min for losses and errors, max otherwise).
        baseline: training stops unless the value becomes better than this.
        restore_best_weights: put the parameters of the best epoch back into the network on stop.
    """

    def __init__(
        self,
        monitor: str = "eval_loss",
        min_delta: float = 0,
        patience: int = 0,
        verbose: bool = False,
        mode: str = "auto",
        baseline: float | None = None,
        restore_best_weights: bool = False,
    ) -> None:
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"EarlyStopping: 'monitor' must be a str, but got {type(monitor).__name__}.")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"EarlyStopping: 'mode' must be 'auto', 'min' or 'max', but got {mode!r}.")
        if isinstance(patience, bool) or not isinstance(patience, int) or patience < 0:
            raise ValueError(f"EarlyStopping: 'patience' must be an int >= 0, but got {patience!r}.")
        self.monitor = monitor
        self.min_delta = abs(float(min_delta))
        self.patience = patience
        self.verbose = verbose
        self.mode = mode
        self.baseline = baseline
        self.restore_best_weights = restore_best_weights
        self._watch(mode, monitor)

    def _reset(self) -> None:
        super()._reset()
        self.stopped_epoch = 0
        self.best_weights_param_dict = None

    def on_train_begin(self, run_context) -> None:
        self._reset()
        self.begin(run_context)

    def on_train_epoch_end(self, run_context) -> None:
        cb_params = run_context.original_args()
        current = monitored_value(cb_params, self.monitor, "EarlyStopping")
        if current is not None:
            net = cb_params.train_network
            improved = self._improved(current, self.best)
            # The first monitored epoch's weights are the fallback snapshot; each improvement replaces it.
            if self.restore_best_weights and (improved or self.best_weights_param_dict is None):
                self.best_weights_param_dict = copy.deepcopy(net.parameters_dict())
            self.wait += 1
            if improved:
                self.best = current
                if self.baseline is None or self._improved(current, self.baseline):
                    self.wait = 0
            if self.wait >= self.patience:
                self.stopped_epoch = cb_params.cur_epoch_num
                run_context.request_stop()
                if self.best_weights_param_dict is not None:  # only kept when restore_best_weights is set
                    if self.verbose:
                        print("EarlyStopping: loading the weights of the best epoch back into the network.")
                    load_param_into_net(net, dict(self.best_weights_param_dict))
        self.epoch_end(run_context)

    def on_train_end(self, run_context) -> None:
        if self.stopped_epoch > 0 and self.verbose:
            print(f"Epoch {self.stopped_epoch:05d}: early stopping")
        self.end(run_context)
