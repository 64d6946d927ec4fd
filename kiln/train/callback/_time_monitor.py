"""TimeMonitor: epoch time and time per step."""

from __future__ import annotations

import time

from kiln.train.callback._callback import Callback


class TimeMonitor(Callback):
    """Print `Train epoch time: T ms, per step time: S ms` at the end of each epoch.

    Args:
        data_size: steps per epoch, used when the run does not know it (normally the dataset size is used).
        data_time: also print the average time per step spent waiting for data.
    """

    def __init__(self, data_size: int | None = None, data_time: bool = False) -> None:
        super().__init__()
        if data_size is not None and (isinstance(data_size, bool) or not isinstance(data_size, int) or data_size < 1):
            raise ValueError(f"TimeMonitor: 'data_size' must be a positive int or None, but got {data_size!r}.")
        self.data_size = data_size
        self.data_time = bool(data_time)
        self._start: dict[str, float] = {}  # per mode, so fit's evaluation does not reset the training timer
        self._data_sum = 0.0
        self._data_start = None

    def epoch_begin(self, run_context) -> None:
        mode = run_context.original_args().get("mode", "train")
        self._start[mode] = time.perf_counter()
        self._data_sum = 0.0
        self._data_start = time.perf_counter()

    def on_train_step_begin(self, run_context) -> None:
        if self.data_time and self._data_start is not None:
            self._data_sum += time.perf_counter() - self._data_start
        self.step_begin(run_context)

    def on_train_step_end(self, run_context) -> None:
        self._data_start = time.perf_counter()
        self.step_end(run_context)

    def epoch_end(self, run_context) -> None:
        cb_params = run_context.original_args()
        mode = cb_params.get("mode", "train")
        start = self._start.pop(mode, None)
        if start is None:
            return
        epoch_ms = (time.perf_counter() - start) * 1000
        steps = cb_params.get("batch_num")
        if not (isinstance(steps, int) and steps > 0):
            steps = self.data_size or 1
        line = f"{mode.title()} epoch time: {epoch_ms:5.3f} ms, per step time: {epoch_ms / steps:5.3f} ms"
        if self.data_time and mode == "train":
            line += f" (data time: {self._data_sum * 1000 / steps:5.3f} ms)"
        print(line, flush=True)
