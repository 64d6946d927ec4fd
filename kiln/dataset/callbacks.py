"""Pipeline callbacks: DSCallback (hooks of a `map`), WaitedDSCallback (a map held in step with training) and the
DSCallbackParam they receive."""

from __future__ import annotations

import threading

from kiln.dataset import config


class DSCallbackParam:
    """What a DSCallback method receives: epoch and step counters of the map it is attached to."""

    def __init__(self, cur_epoch_num: int, cur_step_num_in_epoch: int, cur_step_num: int) -> None:
        self.cur_epoch_num = cur_epoch_num
        self.cur_step_num_in_epoch = cur_step_num_in_epoch
        self.cur_step_num = cur_step_num


class DSCallback:
    """Base class of callbacks attached to `Dataset.map(..., callbacks=[...])`.

    Override ds_begin, ds_epoch_begin, ds_epoch_end, ds_step_begin, ds_step_end; each receives a
    `DSCallbackParam` (cur_epoch_num and step numbers count from 1). Step methods run every `step_size` rows.

    Args:
        step_size: rows between step calls.
    """

    def __init__(self, step_size: int = 1) -> None:
        if isinstance(step_size, bool) or not isinstance(step_size, int) or step_size < 1:
            raise ValueError(f"DSCallback: step_size must be a positive int, but got {step_size!r}.")
        self.step_size = step_size

    def ds_begin(self, ds_run_context) -> None:
        """Called once before the first row."""

    def ds_epoch_begin(self, ds_run_context) -> None:
        """Called before each epoch's first row."""

    def ds_epoch_end(self, ds_run_context) -> None:
        """Called after each epoch's last row."""

    def ds_step_begin(self, ds_run_context) -> None:
        """Called before rows 1, 1 + step_size, ... of an epoch."""

    def ds_step_end(self, ds_run_context) -> None:
        """Called after rows 1, 1 + step_size, ... of an epoch."""

    def create_runtime_obj(self):
        """The callback itself (MindSpore hands a C++ object to its engine here)."""
        return self


class WaitedDSCallback(DSCallback):
    """A DSCallback that holds the pipeline until the training loop finished a step (or epoch).

    Register the same object as a training callback (`Model.train(callbacks=[cb])`) and in
    `map(callbacks=[cb])`: `sync_step_begin` / `sync_epoch_begin` run in the pipeline after training
    finished the previous step / epoch.

    Args:
        step_size: rows per training step (the batch size when the map is before `batch`).
    """

    def __init__(self, step_size: int = 1) -> None:
        super().__init__(step_size)
        self._step_event = threading.Event()
        self._epoch_event = threading.Event()
        self._step_event.set()
        self._epoch_event.set()
        self.training_ended = False

    def sync_epoch_begin(self, train_run_context, ds_run_context) -> None:
        """Override: runs in the pipeline once training finished the previous epoch."""

    def sync_step_begin(self, train_run_context, ds_run_context) -> None:
        """Override: runs in the pipeline once training finished the previous step."""

    # training side
    def step_end(self, run_context) -> None:
        """Training finished a step: let the pipeline go on."""
        self._train_context = run_context
        self._step_event.set()

    def epoch_end(self, run_context) -> None:
        """Training finished an epoch: let the pipeline go on."""
        self._train_context = run_context
        self._epoch_event.set()

    def end(self, run_context) -> None:
        """Training ended: never block the pipeline again."""
        self.training_ended = True
        self._step_event.set()
        self._epoch_event.set()

    on_train_step_end = step_end
    on_train_epoch_end = epoch_end
    on_train_end = end

    # pipeline side
    def _wait(self, event: threading.Event) -> None:
        timeout = config.get_callback_timeout()
        if not event.wait(timeout=timeout) and not self.training_ended:
            raise RuntimeError(
                f"WaitedDSCallback: training did not finish a step within {timeout} s "
                "(dataset.config.set_callback_timeout sets the wait)."
            )
        if not self.training_ended:
            event.clear()

    def ds_epoch_begin(self, ds_run_context) -> None:
        if ds_run_context.cur_epoch_num > 1:
            self._wait(self._epoch_event)
        self.sync_epoch_begin(getattr(self, "_train_context", None), ds_run_context)

    def ds_step_begin(self, ds_run_context) -> None:
        if ds_run_context.cur_step_num > 1:
            self._wait(self._step_event)
        self.sync_step_begin(getattr(self, "_train_context", None), ds_run_context)
