"""`DatasetHelper`, `connect_network_with_dataset` and `data_sink`: MindSpore's dataset-sink plumbing.

MindSpore sinks batches into a device queue and runs `sink_size` steps per call of a network connected to that
queue. Kiln keeps the observable contract on the host: a connected network (or a `data_sink` function) takes no
data arguments, pulls its next batches from the dataset itself, runs `sink_size` steps and returns the last
step's output; iterating a sink-mode `DatasetHelper` yields one empty input tuple per such call.
"""

from __future__ import annotations

import numpy as np

from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell

__all__ = ["DatasetHelper", "connect_network_with_dataset", "data_sink"]


def _tensors(row) -> tuple:
    return tuple(x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in row)


class _Feeder:
    """An endless stream of batches (tuples of Tensors) over repeated epochs of a dataset."""

    def __init__(self, dataset) -> None:
        self.dataset = dataset
        self._epochs = None  # the dataset's iterator: each `iter()` of it is one more epoch
        self._it = None

    def next(self) -> tuple:
        if self._epochs is None:
            self._epochs = self.dataset.create_tuple_iterator(num_epochs=-1)
            self._it = iter(self._epochs)
        try:
            return _tensors(next(self._it))
        except StopIteration:
            self._it = iter(self._epochs)
            return _tensors(next(self._it))


def _check_sink_size(name: str, sink_size, dataset_size: int) -> int:
    if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size == 0 or sink_size < -1:
        raise ValueError(f"For '{name}', 'sink_size' must be -1 or a positive int, but got {sink_size!r}.")
    return dataset_size if sink_size == -1 else sink_size


class DatasetHelper:
    """Iterate a dataset for a hand-written training loop: `for inputs in helper: net(*inputs)`.

    Without sink mode each item is one batch (a tuple of Tensors), `epoch_num` epochs in all. In sink mode each
    item is an empty tuple and the network must be wrapped by `connect_network_with_dataset(net, helper)`: every
    call then runs `sink_size` steps (-1: one epoch) on batches it takes from the dataset.
    """

    def __init__(self, dataset, dataset_sink_mode=True, sink_size=-1, epoch_num=1) -> None:
        if not isinstance(dataset_sink_mode, bool):
            raise TypeError(f"For 'DatasetHelper', 'dataset_sink_mode' must be a bool, but got "
                            f"{type(dataset_sink_mode).__name__}.")  # fmt: skip
        if isinstance(epoch_num, bool) or not isinstance(epoch_num, int) or epoch_num < 1:
            raise ValueError(f"For 'DatasetHelper', 'epoch_num' must be a positive int, but got {epoch_num!r}.")
        self.dataset = dataset
        self.dataset_sink_mode = dataset_sink_mode
        self.epoch_num = epoch_num
        self._dataset_size = dataset.get_dataset_size()
        self._sink_size = _check_sink_size("DatasetHelper", sink_size, self._dataset_size)
        self._feeder = _Feeder(dataset)
        self._stopped = False

    def __iter__(self):
        if self.dataset_sink_mode:
            for _ in range(len(self)):
                yield ()
            return
        epochs = self.dataset.create_tuple_iterator(num_epochs=self.epoch_num)
        for _ in range(self.epoch_num):
            for row in epochs:
                yield _tensors(row)

    def __len__(self) -> int:
        if self.dataset_sink_mode:
            return max(1, self._dataset_size // self._sink_size) * self.epoch_num
        return self._dataset_size * self.epoch_num

    def sink_size(self) -> int:
        """Steps per call of a connected network (the dataset size for sink_size=-1)."""
        return self._sink_size if self.dataset_sink_mode else 1

    def types_shapes(self):
        """The (dtypes, shapes) of one batch."""
        row = self._peek()
        return [t.dtype for t in row], [t.shape for t in row]

    def _peek(self) -> tuple:
        return _tensors(next(iter(self.dataset.create_tuple_iterator(num_epochs=1))))

    def get_data_info(self):
        """The (dtypes, shapes) of the next batch."""
        return self.types_shapes()

    def continue_send(self) -> None:
        """Resume feeding (after `stop_send`)."""
        self._stopped = False

    def stop_send(self) -> None:
        """Stop feeding a connected network."""
        self._stopped = True

    def release(self) -> None:
        """Drop the feeding iterator."""
        self._feeder = _Feeder(self.dataset)

    def get_send_info(self, run_context=None):
        """Feeding statistics: Kiln feeds from the host, so there are none."""
        return {}

    def get_mbuf_queue_size(self) -> int:
        """Batches waiting in the device queue: Kiln has no device queue."""
        return 0


class _ConnectedNetwork(Cell):
    def __init__(self, network, helper: DatasetHelper) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self._helper = helper

    def construct(self, *inputs):
        helper = self._helper
        if not helper.dataset_sink_mode:
            return self.network(*inputs)
        if helper._stopped:
            raise RuntimeError("connect_network_with_dataset: feeding was stopped by DatasetHelper.stop_send().")
        out = None
        for _ in range(helper.sink_size()):
            out = self.network(*helper._feeder.next())
        return out


def connect_network_with_dataset(network, dataset_helper):
    """Connect `network` to the batches of a sink-mode `DatasetHelper`: the returned Cell takes no data arguments and
    runs `sink_size` steps per call (returning the last output). Without sink mode `network` is returned as is."""
    if not isinstance(dataset_helper, DatasetHelper):
        raise TypeError(f"For 'connect_network_with_dataset', 'dataset_helper' must be a DatasetHelper, but got "
                        f"{type(dataset_helper).__name__}.")  # fmt: skip
    if not dataset_helper.dataset_sink_mode:
        return network
    return _ConnectedNetwork(network, dataset_helper)


def data_sink(fn, dataset, sink_size=1, jit_config=None, input_signature=None):
    """A function of no arguments that, per call, runs `fn` on the next `sink_size` batches of `dataset` (cycling
    through epochs) and returns the last result. `jit_config` / `input_signature` are accepted for compatibility:
    compile `fn` with `kiln.jit` to run it as graphs."""
    if not callable(fn):
        raise TypeError(f"For 'data_sink', 'fn' must be callable, but got {type(fn).__name__}.")
    if not hasattr(dataset, "create_tuple_iterator"):
        raise TypeError(f"For 'data_sink', 'dataset' must be a dataset, but got {type(dataset).__name__}.")
    if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size <= 0:
        raise ValueError(f"For 'data_sink', 'sink_size' must be a positive int, but got {sink_size!r}.")
    feeder = _Feeder(dataset)

    def sink_fun():
        out = None
        for _ in range(sink_size):
            out = fn(*feeder.next())
        return out

    return sink_fun
