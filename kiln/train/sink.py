"""Dataset sink mode in GRAPH_MODE: several training steps per compiled call.

`k` consecutive batches are stacked on the host into one (k, batch, ...) array
per column and handed to `_MultiStep`, whose `construct` runs the training step
k times. Called through `Cell.__call__` in GRAPH_MODE it is compiled into one
executable: forward, gradients and optimizer update of all k steps, with one
host-to-device transfer and one dispatch instead of k. The loop is unrolled
(library code is traced, not parsed), so k is kept small: it trades compile
time for dispatch overhead. Batches whose shapes differ from the chunk's (a
short last batch) run one step at a time.
"""

from __future__ import annotations

import os

import numpy as np

from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell

__all__ = ["SinkRunner", "steps_per_call"]


def steps_per_call() -> int:
    """Steps per compiled call in sink mode: KILN_SINK_STEPS (default 4)."""
    value = os.environ.get("KILN_SINK_STEPS", "4")
    try:
        k = int(value)
    except ValueError:
        raise ValueError(f"KILN_SINK_STEPS must be a positive int, but got {value!r}.") from None
    if k < 1:
        raise ValueError(f"KILN_SINK_STEPS must be a positive int, but got {k}.")
    return k


class _MultiStep(Cell):
    """`steps` training steps over inputs stacked along a new axis 0; returns the last step's loss."""

    def __init__(self, step: Cell, steps: int) -> None:
        super().__init__(auto_prefix=False)
        self.step = step
        self.steps = steps

    def construct(self, *stacked):
        loss = None
        for i in range(self.steps):
            loss = self.step(*[x[i] for x in stacked])
        return loss


class Chunk:
    """Up to k batches taken from the iterator: stacked when they share shapes, else single rows."""

    def __init__(self, rows: list) -> None:
        self.rows = rows

    @property
    def size(self) -> int:
        return len(self.rows)


def _host(value) -> np.ndarray:
    return value.asnumpy() if isinstance(value, Tensor) else np.asarray(value)


class SinkRunner:
    """Runs chunks of k steps of `train_network` as one compiled call.

    Args:
        train_network: the training step cell (TrainOneStepCell).
    """

    def __init__(self, train_network: Cell) -> None:
        self.train_network = train_network
        self.k = steps_per_call()
        self._multi: dict[int, _MultiStep] = {}

    def next_chunk(self, iterator, max_steps: int, needs_pairs: bool) -> Chunk | None:
        """Take up to min(k, max_steps) rows; None when the data is exhausted."""
        rows = []
        while len(rows) < min(self.k, max_steps):
            row = next(iterator, None)
            if row is None:
                break
            row = [_host(v) for v in (row if isinstance(row, (list, tuple)) else [row])]
            if needs_pairs and len(row) != 2:
                raise ValueError(
                    f"Model.train: with a loss_fn the dataset must yield (data, label), but a row has "
                    f"{len(row)} columns."
                )
            rows.append(row)
        return Chunk(rows) if rows else None

    def run(self, chunk: Chunk):
        """Train on the chunk; returns the last loss."""
        rows = chunk.rows
        shapes = [tuple((v.shape, v.dtype) for v in row) for row in rows]
        if len(rows) == 1 or len(set(shapes)) != 1:
            loss = None
            for row in rows:
                loss = self.train_network(*[Tensor(v) for v in row])
            return loss
        multi = self._multi.get(len(rows))
        if multi is None:
            multi = self._multi[len(rows)] = _MultiStep(self.train_network, len(rows))
        stacked = [Tensor(np.stack(column)) for column in zip(*rows)]
        return multi(*stacked)
