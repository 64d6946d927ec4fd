"""ReduceLROnPlateau, BackupAndRestore and OnRequestExit callbacks."""

from __future__ import annotations

import json
import os
import signal
import threading
import warnings

import numpy as np

from kiln import ops
from kiln._core.tensor import Parameter, Tensor
from kiln.train.callback._callback import Callback, loss_value
from kiln.train.callback._early_stop import SMALLER_IS_BETTER
from kiln.train.checkpoint import load_checkpoint, save_checkpoint

__all__ = ["BackupAndRestore", "OnRequestExit", "ReduceLROnPlateau"]


def _non_negative_int(cls: str, name: str, v) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise ValueError(f"For '{cls}', '{name}' must be an int >= 0, but got {v!r}.")
    return v


def _bool(cls: str, name: str, v) -> bool:
    if not isinstance(v, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(v).__name__}.")
    return v


class ReduceLROnPlateau(Callback):
    """Multiply the optimizer's (fixed, ungrouped) learning rate by `factor` (not below `min_lr`) when `monitor`
    ("loss", "eval_loss" or a metric of `Model.fit`) has not improved by `min_delta` for `patience` epochs; then wait
    `cooldown` epochs before counting again."""

    def __init__(self, monitor="eval_loss", factor=0.1, patience=10, verbose=False, mode="auto", min_delta=1e-4,
                 cooldown=0, min_lr=0):  # fmt: skip
        super().__init__()
        if not isinstance(monitor, str):
            raise TypeError(f"For 'ReduceLROnPlateau', 'monitor' must be a str, but got {type(monitor).__name__}.")
        if not isinstance(factor, float) or not 0.0 < factor < 1.0:
            raise ValueError(f"For 'ReduceLROnPlateau', 'factor' must be a float in (0.0, 1.0), but got {factor!r}.")
        if mode not in ("auto", "min", "max"):
            raise ValueError(f"mode should be 'auto', 'min' or 'max', but got {mode}.")
        if isinstance(min_delta, bool) or not isinstance(min_delta, (int, float)):
            raise TypeError(f"For 'ReduceLROnPlateau', 'min_delta' must be a float or int, but got {min_delta!r}.")
        if isinstance(min_lr, bool) or not isinstance(min_lr, (int, float)):
            raise TypeError(f"For 'ReduceLROnPlateau', 'min_lr' must be a float or int, but got {min_lr!r}.")
        self.monitor, self.factor, self.mode = monitor, factor, mode
        self.patience = _non_negative_int("ReduceLROnPlateau", "patience", patience)
        self.verbose = _bool("ReduceLROnPlateau", "verbose", verbose)
        self.cooldown = _non_negative_int("ReduceLROnPlateau", "cooldown", cooldown)
        self.min_delta, self.min_lr = abs(min_delta), min_lr
        self._minimize = mode == "min" or (mode == "auto" and monitor in SMALLER_IS_BETTER)
        self._reset()

    def _reset(self) -> None:
        self.cooldown_counter = 0
        self.wait = 0
        self.best = np.inf if self._minimize else -np.inf

    def is_improvement(self, current, best) -> bool:
        return current < best - self.min_delta if self._minimize else current > best + self.min_delta

    def on_train_begin(self, run_context):
        self._reset()

    def _monitor_value(self, cb_params):
        results = {}
        if self.monitor == "loss":
            value = loss_value(cb_params.get("net_outputs"))
        else:
            results = cb_params.get("eval_results") or {}
            value = results.get(self.monitor)
        if value is None:
            warnings.warn(f"Learning rate reduction is conditioned on {self.monitor}, which is not available. "
                          f"Available choices are: {set(['loss', *results])}", stacklevel=3)  # fmt: skip
            return None
        arr = np.asarray(value, np.float64)
        if arr.shape != ():
            raise ValueError("ReduceLROnPlateau only supports scalar monitor now.")
        return float(arr)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        lr = cb_params.optimizer.learning_rate
        if not isinstance(lr, Parameter) or lr.ndim != 0:
            raise ValueError("ReduceLROnPlateau does not support dynamic learning rate and group learning rate now.")
        current = self._monitor_value(cb_params)
        if current is None:
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self.is_improvement(current, self.best):
            self.best = current
            self.wait = 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = float(lr.asnumpy())
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    ops.assign(lr, Tensor(np.asarray(new, lr.asnumpy().dtype)))
                    if self.verbose:
                        print(f"Epoch {cb_params.cur_epoch_num:05d}: ReduceLROnPlateau reducing learning rate "
                              f"to {new}.")  # fmt: skip
                self.cooldown_counter = self.cooldown
                self.wait = 0


class BackupAndRestore(Callback):
    """Save the training network to `backup_dir/backup.ckpt` every `save_freq` epochs ("epoch" = every epoch),
    load it at the start of training when present (resuming an interrupted run), and delete it at the end unless
    `delete_checkpoint` is False."""

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        os.makedirs(backup_dir, exist_ok=True)
        self.backup_file = os.path.join(os.path.realpath(backup_dir), "backup.ckpt")
        if save_freq == "epoch":
            self.save_freq = 1
        elif isinstance(save_freq, bool) or not isinstance(save_freq, int) or save_freq <= 0:
            raise ValueError(f"For 'BackupAndRestore', 'save_freq' must be 'epoch' or a positive int, but got "
                             f"{save_freq!r}.")  # fmt: skip
        else:
            self.save_freq = save_freq
        self.delete_checkpoint = _bool("BackupAndRestore", "delete_checkpoint", delete_checkpoint)

    def on_train_begin(self, run_context):
        if os.path.exists(self.backup_file):
            load_checkpoint(self.backup_file, net=run_context.original_args().train_network)

    def on_train_epoch_end(self, run_context):
        cb_params = run_context.original_args()
        if cb_params.cur_epoch_num % self.save_freq == 0:
            save_checkpoint(cb_params.train_network, self.backup_file)

    def on_train_end(self, run_context):
        if self.delete_checkpoint and os.path.exists(self.backup_file):
            os.remove(self.backup_file)


class OnRequestExit(Callback):
    """Stop training (or evaluation) gracefully when the process receives `sig` (default SIGTERM) or, with
    `config_file`, when its JSON sets "GracefulExit": 1: the run stops after the current step, and the network is
    saved to `directory/rank_{device_id}/{file_name}_train.ckpt` (`_eval` for evaluation) and, with `save_mindir`,
    exported there as MindIR. A checkpoint left by an earlier exit is loaded when training starts."""

    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./", config_file=None,
                 sig=signal.SIGTERM):  # fmt: skip
        super().__init__()
        self.save_ckpt = _bool("OnRequestExit", "save_ckpt", save_ckpt)
        self.save_mindir = _bool("OnRequestExit", "save_mindir", save_mindir)
        if isinstance(sig, bool) or not isinstance(sig, int):
            raise TypeError(f"For 'OnRequestExit', 'sig' must be an int, but got {type(sig).__name__}.")
        if hasattr(signal, "SIGKILL") and sig == signal.SIGKILL:
            raise ValueError("Not support send exit request by signal SIGKILL.")
        self.sig = sig
        self.exit = False
        self.lock = threading.Lock()
        self.save_path = directory
        self.key = "GracefulExit"
        self.remote_config_file = config_file
        if save_ckpt or save_mindir:
            self.train_name, self.eval_name = self._get_save_path(file_name)

    def _get_save_path(self, file_name):
        from kiln import get_context  # noqa: PLC0415  (the context sits above train)

        base = os.getcwd() if self.save_path is None else self.save_path
        path = os.path.join(base, f"rank_{get_context('device_id')}")
        os.makedirs(path, exist_ok=True)
        return os.path.join(path, f"{file_name}_train"), os.path.join(path, f"{file_name}_eval")

    def _handle_signal(self, signum, frame):
        self.exit = True

    def _requested(self) -> bool:
        if self.exit:
            return True
        path = self.remote_config_file
        if path is not None and os.path.exists(path):
            try:
                with open(path, encoding="utf-8") as f:
                    self.exit = json.load(f).get(self.key) == 1
            except (json.JSONDecodeError, AttributeError):
                warnings.warn(f"OnRequestExit: cannot parse the JSON config file {path}.", stacklevel=3)
        return self.exit

    def _register(self) -> None:
        if threading.current_thread() is threading.main_thread():
            signal.signal(self.sig, self._handle_signal)

    def on_train_begin(self, run_context):
        self._register()
        if self.save_ckpt and os.path.isfile(f"{self.train_name}.ckpt"):
            load_checkpoint(f"{self.train_name}.ckpt", net=run_context.original_args().train_network)

    def on_train_step_end(self, run_context):
        with self.lock:
            if self._requested():
                run_context.request_stop()

    on_train_epoch_end = on_train_step_end

    def _save(self, net, name, inputs):
        if self.save_ckpt:
            save_checkpoint(net, name)
        if self.save_mindir and inputs is not None:
            from kiln.common.export import export  # noqa: PLC0415

            export(net, *inputs, file_name=name, file_format="MINDIR")

    def on_train_end(self, run_context):
        if self.exit:
            cb_params = run_context.original_args()
            self._save(cb_params.train_network, self.train_name, cb_params.get("train_dataset_element"))

    def on_eval_begin(self, run_context):
        self._register()
        if not self.save_ckpt:
            return
        net = run_context.original_args().eval_network
        for name in (self.eval_name, self.train_name):
            if os.path.isfile(f"{name}.ckpt"):
                load_checkpoint(f"{name}.ckpt", net=net)
                break

    def on_eval_step_end(self, run_context):
        if self._requested():
            run_context.request_stop()

    def on_eval_end(self, run_context):
        if self.exit:
            cb_params = run_context.original_args()
            self._save(cb_params.eval_network, self.eval_name, cb_params.get("eval_dataset_element"))
