"""SummaryCollector: a callback that writes the loss, the learning rate and evaluation metrics to a summary log."""

from __future__ import annotations

import os

import numpy as np

from kiln._core.tensor import Tensor
from kiln._core.unsupported import ignore_argument
from kiln.train.callback._callback import Callback, loss_value
from kiln.train.summary.summary_record import SummaryRecord

_COLLECTED = ("collect_metric", "collect_learning_rate")


class SummaryCollector(Callback):
    """Record a training run with `SummaryRecord` (Kiln's JSON-lines format, see `kiln.train.summary`).

    Every `collect_freq` steps it records the scalar `loss` and, when the optimizer has one, `learning_rate`; after
    an evaluation of `Model.fit` / `Model.eval` each metric as the scalar `metric/NAME` (mode "eval").

    Args:
        summary_dir: folder of the summary file.
        collect_freq: record every this many steps.
        num_process: accepted for MindSpore's signature.
        collect_specified_data: {"collect_metric": bool, "collect_learning_rate": bool, ...}; other kinds of
            MindSpore's collector (graphs, histograms, lineage) are accepted and not recorded.
        keep_default_action: with `collect_specified_data`, also collect what it does not name.
        custom_lineage_data: accepted for MindSpore's signature (not recorded).
        collect_tensor_freq: accepted for MindSpore's signature.
        max_file_size: bytes after which the log stops growing (None: no limit).
        export_options: accepted for MindSpore's signature.
    """

    def __init__(
        self,
        summary_dir: str,
        collect_freq: int = 10,
        num_process: int = 32,
        collect_specified_data: dict | None = None,
        keep_default_action: bool = True,
        custom_lineage_data: dict | None = None,
        collect_tensor_freq: int | None = None,
        max_file_size: int | None = None,
        export_options: dict | None = None,
    ) -> None:
        super().__init__()
        if not isinstance(summary_dir, str) or not summary_dir:
            raise ValueError(f"SummaryCollector: 'summary_dir' must be a non-empty str, but got {summary_dir!r}.")
        if isinstance(collect_freq, bool) or not isinstance(collect_freq, int) or collect_freq <= 0:
            raise ValueError(f"SummaryCollector: 'collect_freq' must be a positive int, but got {collect_freq!r}.")
        if collect_specified_data is not None and not isinstance(collect_specified_data, dict):
            raise TypeError("SummaryCollector: 'collect_specified_data' must be a dict or None.")
        ignore_argument("SummaryCollector", "custom_lineage_data", custom_lineage_data, reason="lineage is not kept")
        ignore_argument("SummaryCollector", "collect_tensor_freq", collect_tensor_freq, reason="tensors are not kept")
        ignore_argument("SummaryCollector", "export_options", export_options, reason="tensors are not exported")
        specified = collect_specified_data or {}
        self._collect = {key: specified.get(key, keep_default_action) for key in _COLLECTED}
        self._summary_dir = summary_dir
        self._collect_freq = collect_freq
        self._max_file_size = max_file_size
        self._record: SummaryRecord | None = None

    def _summary(self) -> SummaryRecord:
        if self._record is None:
            self._record = SummaryRecord(os.fspath(self._summary_dir), max_file_size=self._max_file_size)
        return self._record

    def begin(self, run_context) -> None:
        """Open the summary file."""
        self._summary()

    def step_end(self, run_context) -> None:
        """Record the loss and learning rate every `collect_freq` steps."""
        cb_params = run_context.original_args()
        if cb_params.get("mode", "train") != "train":
            return
        step = cb_params.get("cur_step_num", 0)
        if step % self._collect_freq and step != 1:  # the first step too, as a starting point
            return
        record = self._summary()
        record.set_mode("train")
        loss = loss_value(cb_params.get("net_outputs"))
        if loss is not None:
            record.add_value("scalar", "loss", np.float32(loss))
        optimizer = cb_params.get("optimizer")
        if self._collect["collect_learning_rate"] and optimizer is not None and hasattr(optimizer, "get_lr"):
            lr = optimizer.get_lr()
            if isinstance(lr, Tensor) and lr.size == 1:
                record.add_value("scalar", "learning_rate", lr)
        record.record(step)
        record.flush()

    def on_eval_end(self, run_context) -> None:
        """Record the evaluation's metrics (mode "eval")."""
        cb_params = run_context.original_args()
        metrics = cb_params.get("metrics") or {}
        if not self._collect["collect_metric"] or not metrics:
            return
        record = self._summary()
        record.set_mode("eval")
        for name, value in metrics.items():
            if np.size(value) == 1:
                record.add_value("scalar", f"metric/{name}", np.asarray(value, dtype=np.float64))
        record.record(cb_params.get("cur_step_num", 0))
        record.flush()
        record.set_mode("train")

    def end(self, run_context) -> None:
        """Close the summary file."""
        if self._record is not None:
            self._record.close()
            self._record = None
