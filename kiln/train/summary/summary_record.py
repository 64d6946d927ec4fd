"""`SummaryRecord`: values of a training run (scalars, tensors, images, histograms) written per step to a log file.

MindSpore writes protobuf event files for MindInsight. Kiln writes its own format, one JSON object a line
(`{"step": S, "mode": "train", "plugin": "scalar", "tag": "loss", "value": 0.25}`), readable with `read_summary`
or any JSON-lines reader; values are recorded exactly (tensors as nested lists with their dtype and shape).
"""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from typing import Any

import numpy as np

from kiln._core.tensor import Tensor
from kiln._core.unsupported import ignore_argument

__all__ = ["SummaryRecord", "read_summary"]

PLUGINS = ("scalar", "tensor", "image", "histogram", "graph", "train_lineage", "eval_lineage", "custom_lineage_data")
_MODES = ("train", "eval")
_TENSORS_INLINE = "tensor values are written into the summary file itself"


class SummaryRecord:
    """Collect values with `add_value` and write them for a step with `record`.

    Args:
        log_dir: folder of the summary file (created if missing).
        file_prefix: start of the file name.
        file_suffix: end of the file name.
        num_process: accepted for MindSpore's signature (Kiln writes in this process).
        max_file_size: bytes after which values are no longer written (None: no limit).
        raise_exception: raise on a write error instead of warning.
        export_options: MindSpore's export of tensor values to separate files: warned about once when given (Kiln
            keeps tensor values in the summary file itself).

    Raises:
        TypeError / ValueError: arguments of the wrong type or range.
    """

    def __init__(
        self,
        log_dir: str,
        file_prefix: str = "events",
        file_suffix: str = "_MS",
        num_process: int = 32,
        max_file_size: int | None = None,
        raise_exception: bool = False,
        export_options: dict | None = None,
    ) -> None:
        for name, value in (("log_dir", log_dir), ("file_prefix", file_prefix), ("file_suffix", file_suffix)):
            if not isinstance(value, str):
                raise TypeError(f"SummaryRecord: '{name}' must be a str, but got {type(value).__name__}.")
        if max_file_size is not None and (isinstance(max_file_size, bool) or not isinstance(max_file_size, int)):
            raise TypeError(f"SummaryRecord: 'max_file_size' must be an int or None, but got {max_file_size!r}.")
        if max_file_size is not None and max_file_size <= 0:
            raise ValueError(f"SummaryRecord: 'max_file_size' must be positive, but got {max_file_size}.")
        ignore_argument("SummaryRecord", "export_options", export_options, reason=_TENSORS_INLINE)
        Path(log_dir).mkdir(parents=True, exist_ok=True)
        name = f"{file_prefix}.out.events.summary.{int(time.time())}.{socket.gethostname()}{file_suffix}"
        self._path = os.path.realpath(os.path.join(log_dir, name))
        self._file = open(self._path, "a", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self._max_file_size = max_file_size
        self._raise_exception = raise_exception
        self._pending: list[tuple[str, str, Any]] = []
        self._mode = "train"

    @property
    def log_dir(self) -> str:
        """The path of the summary file."""
        return self._path

    def set_mode(self, mode: str) -> None:
        """Label the following records `"train"` or `"eval"`."""
        if mode not in _MODES:
            raise ValueError(f"SummaryRecord.set_mode: 'mode' must be 'train' or 'eval', but got {mode!r}.")
        self._mode = mode

    def add_value(self, plugin: str, name: str, value: Any) -> None:
        """Queue one value for the next `record`.

        Args:
            plugin: its kind, one of `PLUGINS`.
            name: its tag.
            value: a Tensor or array (a scalar for "scalar", 4-D NCHW for "image"), or a dict / object for the
                graph and lineage kinds.

        Raises:
            ValueError: an unknown plugin, an empty name, a non-scalar "scalar" or a non-4-D "image".
        """
        if plugin not in PLUGINS:
            raise ValueError(f"SummaryRecord.add_value: unknown plugin {plugin!r}; known: {', '.join(PLUGINS)}.")
        if not isinstance(name, str) or not name:
            raise ValueError(f"SummaryRecord.add_value: 'name' must be a non-empty str, but got {name!r}.")
        if plugin in ("scalar", "tensor", "image", "histogram"):
            array = value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)
            if plugin == "scalar" and array.size != 1:
                raise ValueError(f"SummaryRecord.add_value: scalar '{name}' has shape {array.shape}, not one value.")
            if plugin == "image" and array.ndim != 4:
                raise ValueError(f"SummaryRecord.add_value: image '{name}' must be 4-D (NCHW), got {array.shape}.")
            value = array.reshape(()).item() if plugin == "scalar" else array
        self._pending.append((plugin, name, value))

    def record(self, step: int, train_network: Any = None, plugin_filter: Any = None) -> bool:
        """Write the queued values for `step` and clear the queue.

        Args:
            step: the step number (an int).
            train_network: warned about once when given (Kiln's summary records no graph).
            plugin_filter: a function of the plugin name; only values for which it is true are written.

        Returns:
            True when the values were written, False when the file reached `max_file_size`.
        """
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)):
            raise TypeError(f"SummaryRecord.record: 'step' must be an int, but got {type(step).__name__}.")
        ignore_argument("SummaryRecord.record", "train_network", train_network, reason="its summary records no graph")
        pending, self._pending = self._pending, []
        if self._max_file_size is not None and self._file.tell() >= self._max_file_size:
            return False
        try:
            for plugin, name, value in pending:
                if plugin_filter is None or plugin_filter(plugin):
                    row = {"step": int(step), "mode": self._mode, "plugin": plugin, "tag": name}
                    self._file.write(json.dumps({**row, **_encode(value)}) + "\n")
        except (OSError, TypeError, ValueError):
            if self._raise_exception:
                raise
            return False
        return True

    def flush(self) -> None:
        """Write buffered records to disk."""
        self._file.flush()

    def close(self) -> None:
        """Flush and close the file; later records are an error."""
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> SummaryRecord:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def read_summary(path: str) -> list[dict]:
    """The records of a summary file written by `SummaryRecord`, in order (tensors as NumPy arrays).

    Args:
        path: the file (`SummaryRecord.log_dir`).

    Returns:
        One dict per value: step, mode, plugin, tag and value.
    """
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if "dtype" in row:
                row["value"] = np.asarray(row["value"], dtype=row.pop("dtype")).reshape(row.pop("shape"))
            rows.append(row)
    return rows


def _encode(value: Any) -> dict:
    if isinstance(value, np.ndarray):
        return {"value": value.tolist(), "dtype": str(value.dtype), "shape": list(value.shape)}
    if isinstance(value, (bool, int, float, str, list, dict)) or value is None:
        return {"value": value}
    return {"value": repr(value)}
