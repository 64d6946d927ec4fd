"""Summaries of a training run (MindSpore's `mindspore.train.summary`): `SummaryRecord` writes them to a log."""

from kiln.train.summary.summary_record import SummaryRecord

__all__ = ["SummaryRecord"]
