"""`OnRequestExit`: stop training cleanly on a signal or a request in a file, saving the network first."""

from __future__ import annotations

import json
import os
import signal
import threading
import warnings

from kiln.common.export import export
from kiln.context import get_context
from kiln.train.callback._callback import Callback, check_bool
from kiln.train.checkpoint import load_checkpoint, save_checkpoint

__all__ = ["OnRequestExit"]


class OnRequestExit(Callback):
    """Stop training (or evaluation) gracefully when the process receives `sig` (default SIGTERM) or, with
    `config_file`, when its JSON sets "GracefulExit": 1: the run stops after the current step, and the network is
    saved to `directory/rank_{device_id}/{file_name}_train.ckpt` (`_eval` for evaluation) and, with `save_mindir`,
    exported there as MindIR. A checkpoint left by an earlier exit is loaded when training starts."""

    def __init__(self, save_ckpt=True, save_mindir=True, file_name="Net", directory="./", config_file=None,
                 sig=signal.SIGTERM):  # fmt: skip
        super().__init__()
        self.save_ckpt = check_bool("OnRequestExit", "save_ckpt", save_ckpt)
        self.save_mindir = check_bool("OnRequestExit", "save_mindir", save_mindir)
        if isinstance(sig, bool) or not isinstance(sig, int):
            raise TypeError(f"For 'OnRequestExit', 'sig' must be an int, but got {type(sig).__name__}.")
        if hasattr(signal, "SIGKILL") and sig == signal.SIGKILL:
            raise ValueError(
                "SIGKILL cannot be caught, so it cannot ask training to stop: pick another signal, e.g. SIGTERM."
            )
        self.sig = sig
        self.exit = False
        self.lock = threading.Lock()
        self.save_path = directory
        self.key = "GracefulExit"
        self.remote_config_file = config_file
        if save_ckpt or save_mindir:
            self.train_name, self.eval_name = self._get_save_path(file_name)

    def _get_save_path(self, file_name):
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
