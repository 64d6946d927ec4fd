"""ProgressBar: a tqdm bar per epoch, shown by default when stdout is a terminal.

Opt out with the environment variable `KILN_PROGRESS=0` (`KILN_PROGRESS=1`
forces it on, e.g. in a notebook). While a bar is shown, text printed by other
callbacks is written above it instead of through it.
"""

from __future__ import annotations

import os
import sys

from tqdm import tqdm

from kiln.train.callback._callback import Callback, loss_value


def progress_enabled() -> bool:
    """Whether `Model.train` / `Model.fit` add a ProgressBar: KILN_PROGRESS=0/1, else whether stdout is a terminal."""
    setting = os.environ.get("KILN_PROGRESS", "").strip().lower()
    if setting in ("0", "false", "no", "off"):
        return False
    if setting in ("1", "true", "yes", "on"):
        return True
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty and isatty())


class _AboveBar:
    """A stdout stand-in that writes whole lines above the bar: clear the bar, write, redraw it."""

    def __init__(self, real, bar) -> None:
        self._real = real
        self._bar = bar
        self._pending = ""

    def write(self, text: str) -> int:
        self._pending += text
        if "\n" in self._pending:
            lines, self._pending = self._pending.rsplit("\n", 1)
            self._bar.clear()
            self._real.write(lines + "\n")
            self._real.flush()
            self._bar.refresh()
        return len(text)

    def flush(self) -> None:
        self._real.flush()

    def close_line(self) -> None:
        """Write what is left of an unfinished line."""
        if self._pending:
            self._real.write(self._pending)
            self._pending = ""

    def __getattr__(self, name):
        return getattr(self._real, name)


class ProgressBar(Callback):
    """Show a progress bar with the latest loss for each training epoch (on stderr).

    Args:
        refresh_every: update the loss shown every this many steps (reading the loss waits for the device).
    """

    def __init__(self, refresh_every: int = 10) -> None:
        super().__init__()
        self.refresh_every = max(1, int(refresh_every))
        self._bar = None
        self._saved_stdout = None

    def on_train_epoch_begin(self, run_context) -> None:
        cb_params = run_context.original_args()
        total = cb_params.get("batch_num") or None
        desc = f"epoch {cb_params.get('cur_epoch_num', 1)}/{cb_params.get('epoch_num', '?')}"
        self._bar = tqdm(total=total, desc=desc, unit="step", leave=False, file=sys.stderr, dynamic_ncols=True)
        self._saved_stdout, sys.stdout = sys.stdout, _AboveBar(sys.stdout, self._bar)

    def on_train_step_end(self, run_context) -> None:
        if self._bar is None:
            return
        cb_params = run_context.original_args()
        self._bar.update(cb_params.get("sink_size", 1) if cb_params.get("dataset_sink_mode") else 1)
        if self._bar.n % self.refresh_every == 0:
            loss = loss_value(cb_params.get("net_outputs"))
            if loss is not None:
                self._bar.set_postfix(loss=f"{loss:.4f}", refresh=False)

    def _close(self) -> None:
        if self._saved_stdout is not None:
            if isinstance(sys.stdout, _AboveBar):
                sys.stdout.close_line()
            sys.stdout, self._saved_stdout = self._saved_stdout, None
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def on_train_epoch_end(self, run_context) -> None:
        self._close()

    def on_train_end(self, run_context) -> None:
        self._close()

    def __exit__(self, *err):
        self._close()  # also when training stops with an exception
        return None
