"""Running a pipeline: per-run seeding, ordered thread pools and prefetching iterators."""

from __future__ import annotations

import itertools
import multiprocessing
import os
import queue
import threading
import traceback
import types
import warnings
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent import futures
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import numpy as np

from kiln._core.tensor import Tensor
from kiln.dataset import config

_ROW, _END, _ERROR = "row", "end", "error"

# Every iterator still alive, so that a test harness (or an interpreter at exit) can stop their threads at once.
_LIVE: weakref.WeakSet = weakref.WeakSet()


class Run:
    """What one iterator run shares across the graph: its seed and a stable number per node.

    Nodes are numbered in depth-first order, so the same pipeline built twice
    draws the same random numbers under the same seed.
    """

    __slots__ = ("seed", "_ids")

    def __init__(self, root, seed: int) -> None:
        self.seed = seed
        self._ids: dict[int, int] = {}
        stack = [root]
        while stack:
            node = stack.pop()
            if id(node) in self._ids:
                continue
            self._ids[id(node)] = len(self._ids)
            stack.extend(reversed(node.children))

    def key(self, node, epoch: Sequence[int]) -> list[int]:
        """Entropy for a node's generator in one epoch (the sampler uses [seed, 1, ...])."""
        return [self.seed, 0, self._ids[id(node)], *epoch]


def ordered_map(fn: Callable, items: Iterable, workers: int, chunk: int = 8) -> Iterator:
    """`map(fn, items)` on `workers` threads, yielding results in input order.

    Items go to the threads in chunks (a future per item costs more than a
    small NumPy op) and at most 2 * workers chunks are in flight, so memory
    stays bounded. Threads pay off when `fn` spends its time in code that
    releases the GIL: large NumPy kernels, image decoding, file reads.
    """
    if workers <= 1:
        for item in items:
            yield fn(item)
        return

    def run_chunk(part: list) -> list:
        return [fn(item) for item in part]

    pool = ThreadPoolExecutor(workers, thread_name_prefix="kiln-dataset-worker")
    yield from _chunks_in_order(pool, lambda part: pool.submit(run_chunk, part), items, workers, chunk)


def _chunks_in_order(pool, submit: Callable, items: Iterable, workers: int, chunk: int) -> Iterator:
    """The results of `submit(part)` (a future of a list) over chunks of `items`, in input order, with at most
    2 * workers chunks in flight; `pool` is shut down when the results end or the consumer stops."""
    pending: deque = deque()
    iterator = iter(items)
    try:
        while True:
            part = list(itertools.islice(iterator, chunk))
            if part:
                pending.append(submit(part))
            if pending and (not part or len(pending) >= 2 * workers):
                yield from pending.popleft().result()
            if not part and not pending:
                return
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def _put(q: queue.Queue, item, stop: threading.Event) -> bool:
    while not stop.is_set():
        try:
            q.put(item, timeout=0.1)
            return True
        except queue.Full:
            continue
    return False


_DATASET_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
# The pipeline's machinery (this package's own modules and its sources' readers); a transform's frames are the op's
# (and the process pool's frames that carry a worker's failure back)
_PIPELINE_DIRS = (
    _DATASET_DIR,
    os.path.join(_DATASET_DIR, "sources") + os.sep,
    os.path.dirname(os.path.abspath(futures.__file__)) + os.sep,
)


def _debug() -> bool:
    """KILN_DEBUG: the pipeline thread's own frames are shown too, as a note."""
    return os.environ.get("KILN_DEBUG", "") not in ("", "0")


def _past_pipeline(tb: types.TracebackType | None) -> types.TracebackType | None:
    """`tb` from its first frame outside the pipeline's machinery on (the user's function, or a transform): the
    thread's frames that led there say nothing to the user, and the consumer's `raise` adds where they asked."""
    while tb is not None and os.path.dirname(tb.tb_frame.f_code.co_filename) + os.sep in _PIPELINE_DIRS:
        tb = tb.tb_next
    return tb


def _produce(make_rows: Callable[[], Iterator], q: queue.Queue, stop: threading.Event) -> None:
    # A module function, not a method: the thread must not keep the iterator
    # alive, or dropping the iterator could never stop the thread.
    rows = None
    try:
        rows = make_rows()
        for row in rows:
            if not _put(q, (_ROW, row, None), stop):
                return
        _put(q, (_END, None, None), stop)
    except BaseException as exc:  # noqa: BLE001  (everything goes back to the consumer)
        _put(q, (_ERROR, exc, traceback.format_exc() if _debug() else None), stop)
    finally:
        if rows is not None:
            rows.close()


class _Prefetcher:
    """One epoch of rows made by a background thread into a bounded queue."""

    def __init__(self, make_rows: Callable[[], Iterator], size: int) -> None:
        self._queue: queue.Queue = queue.Queue(maxsize=size)
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=_produce, args=(make_rows, self._queue, self._stop), name="kiln-dataset-prefetch", daemon=True
        )
        self._thread.start()

    def get(self):
        while True:
            try:
                return self._queue.get(timeout=0.5)
            except queue.Empty:
                if not self._thread.is_alive() and self._queue.empty():
                    return (_ERROR, RuntimeError("the data pipeline thread ended without a result"), "")

    def close(self, wait: bool = False) -> None:
        self._stop.set()
        # Empty the queue so that a producer blocked in put() sees the stop flag.
        while True:
            try:
                self._queue.get_nowait()
            except queue.Empty:
                break
        if wait and self._thread is not threading.current_thread():
            self._thread.join(timeout=5.0)


def _to_output(array: np.ndarray, output_numpy: bool):
    if output_numpy or array.dtype.kind in "USOV":  # strings and objects have no Tensor form
        return array
    return Tensor(array)


class TupleIterator:
    """Iterates a dataset as lists of Tensors (or NumPy arrays), one per column.

    A background thread prepares the next rows while the caller works. After an
    epoch ends (StopIteration), iterating again starts the next epoch until
    `num_epochs` epochs were given (-1: no limit). Each epoch reshuffles.

    Args:
        dataset: the dataset to read.
        columns: names of the columns to yield, in order; all when None.
        num_epochs: number of epochs this iterator may run, -1 for unlimited.
        output_numpy: yield NumPy arrays instead of Tensors.
    """

    def __init__(
        self, dataset, columns=None, num_epochs: int = -1, output_numpy: bool = False, init_step: int = 0
    ) -> None:
        if isinstance(num_epochs, bool) or not isinstance(num_epochs, int) or (num_epochs < 1 and num_epochs != -1):
            raise ValueError(f"num_epochs must be -1 or a positive int, but got {num_epochs!r}.")
        names = dataset.get_col_names()
        if columns is None:
            columns = names
        elif isinstance(columns, str):
            columns = [columns]
        columns = list(columns)
        missing = [c for c in columns if c not in names]
        if missing:
            raise ValueError(f"Column {missing[0]!r} does not exist; the dataset has columns {names}.")
        self._columns = columns
        self._select = [names.index(c) for c in columns]
        self._dataset = dataset
        self._num_epochs = num_epochs
        self._output_numpy = output_numpy
        self._run = Run(dataset, config.pipeline_seed())
        self._epochs_started = 0
        self._skip_rows = 0
        if init_step:
            # Resume at global step `init_step`: whole epochs are passed over, then rows of the next one are read
            # and dropped, so random transforms and shuffles give the rows they would have given.
            size = dataset.get_dataset_size()
            if size > 0:
                self._epochs_started, self._skip_rows = divmod(init_step, size)
        self._prefetcher: _Prefetcher | None = None
        _LIVE.add(self)

    def __iter__(self):
        return self

    def _next_row(self) -> tuple:
        if self._prefetcher is None:
            if self._num_epochs != -1 and self._epochs_started >= self._num_epochs:
                raise StopIteration
            dataset, run, epoch = self._dataset, self._run, (self._epochs_started,)
            select, output_numpy = self._select, self._output_numpy
            self._epochs_started += 1
            skip, self._skip_rows = self._skip_rows, 0

            def outputs():
                # Selecting columns and moving them to the device happen in the background thread too.
                rows = dataset._rows(run, epoch)
                for row in itertools.islice(rows, skip, None) if skip else rows:
                    yield [_to_output(np.asarray(row[i]), output_numpy) for i in select]

            self._prefetcher = _Prefetcher(outputs, config.get_prefetch_size())
        kind, payload, tb = self._prefetcher.get()
        if kind == _ROW:
            return payload
        self._prefetcher.close()
        self._prefetcher = None
        if kind == _ERROR:
            if tb is not None:  # KILN_DEBUG
                payload.add_note(f"The exception above was raised in the kiln.dataset pipeline thread:\n{tb}")
                raise payload
            if type(payload.__cause__).__name__ == "_RemoteTraceback":  # a worker process's frames, as text: the
                payload.__cause__, payload.__suppress_context__ = None, True  # worker's note keeps the user's ones
            raise payload.with_traceback(_past_pipeline(payload.__traceback__))
        raise StopIteration

    def _values(self) -> list:
        return self._next_row()

    def __next__(self) -> list:
        return self._values()

    def get_col_names(self) -> list[str]:
        """Names of the columns this iterator yields."""
        return list(self._columns)

    def stop(self) -> None:
        """Stop the background thread; the iterator yields nothing more."""
        if self._prefetcher is not None:
            self._prefetcher.close(wait=True)
            self._prefetcher = None
        self._num_epochs, self._epochs_started = 0, 1

    def __del__(self) -> None:
        prefetcher = getattr(self, "_prefetcher", None)
        if prefetcher is not None:
            prefetcher.close()


class DictIterator(TupleIterator):
    """Iterates a dataset as dicts from column name to Tensor (or NumPy array).

    Args:
        dataset: the dataset to read.
        num_epochs: number of epochs this iterator may run, -1 for unlimited.
        output_numpy: yield NumPy arrays instead of Tensors.
    """

    def __init__(self, dataset, num_epochs: int = -1, output_numpy: bool = False, init_step: int = 0) -> None:
        super().__init__(dataset, None, num_epochs, output_numpy, init_step)

    def __next__(self) -> dict:
        return dict(zip(self._columns, self._values()))


_worker_fn: list = [None]


def _set_worker_fn(fn: Callable) -> None:
    _worker_fn[0] = fn


def _run_worker_chunk(part: list) -> list:
    try:
        return [_worker_fn[0](item) for item in part]
    except Exception as exc:
        # its frames do not cross to the parent process: where the user's function raised goes as a note
        if not _debug():
            where = traceback.format_list(traceback.extract_tb(_past_pipeline(exc.__traceback__)))
            exc.add_note("(raised in a dataset worker process:\n" + "".join(where).rstrip() + ")")
        raise


def process_ordered_map(fn: Callable, items: Iterable, workers: int, chunk: int = 8) -> Iterator:
    """`map(fn, items)` on `workers` forked processes, yielding results in input order.

    The processes are forked, so `fn` (with everything it refers to) is inherited, not pickled; items and
    results are pickled between processes. At most 2 * workers chunks are in flight.
    """
    method = config.get_multiprocessing_start_method()
    context = multiprocessing.get_context(method)
    if method != "fork":
        raise RuntimeError(
            "map(python_multiprocessing=True) needs the 'fork' start method in Kiln (the operations are inherited, "
            "not pickled); call dataset.config.set_multiprocessing_start_method('fork')."
        )
    pool = ProcessPoolExecutor(workers, mp_context=context, initializer=_set_worker_fn, initargs=(fn,))

    def submit(part: list):
        with warnings.catch_warnings():
            # JAX warns about forking a multithreaded process; the workers run NumPy code, not JAX.
            warnings.filterwarnings("ignore", message=r"os\.fork\(\) was called", category=RuntimeWarning)
            return pool.submit(_run_worker_chunk, part)

    yield from _chunks_in_order(pool, submit, items, workers, chunk)


def _cleanup() -> None:
    """Stop the background threads of every live iterator (MindSpore test harnesses call it between tests)."""
    for it in list(_LIVE):
        it.stop()


def _unset_iterator_cleanup() -> None:
    """Forget the iterators `_cleanup` would stop."""
    _LIVE.clear()
