"""`Model`: training, evaluation and prediction loops with callbacks and metrics (MindSpore's `mindspore.Model`)."""

from __future__ import annotations

import copy
import functools
import warnings

import numpy as np

from kiln._compiler.errors import for_user
from kiln._core.tensor import Tensor
from kiln._parallel.batch import job_wide
from kiln.context import GRAPH_MODE, get_context
from kiln.nn.cell import Cell
from kiln.nn.wrap.cell_wrapper import WithEvalCell, WithLossCell
from kiln.parallel import ParallelMode  # noqa: F401 (MindSpore's train.model holds it; zoo scripts import it here)
from kiln.train.amp import build_train_network
from kiln.train.callback import INTERNAL_CALLBACKS, TimeMonitor
from kiln.train.callback._callback import CallbackManager, InternalCallbackParam, RunContext, _as_list
from kiln.train.callback._progress import ProgressBar, progress_enabled
from kiln.train.metrics import Loss, get_metrics
from kiln.train.sink import SinkRunner

__all__ = ["Model"]

_AMP_LEVELS = ("O0", "O1", "O2", "O3", "auto")
# The keywords Model takes besides its named arguments (MindSpore's set).
_MODEL_KWARGS = ("loss_scale_manager", "keep_batchnorm_fp32", "boost_config_dict", "acc_level")


def _users_frames(method):
    """`method` re-raising any error with the user's frames only (their callbacks' included), as a Cell's call:
    a bad dataset column failed four Model frames deep."""

    @functools.wraps(method)
    def run(*args, **kwargs):
        try:
            return method(*args, **kwargs)
        except Exception as err:  # noqa: BLE001  (KILN_DEBUG=1 keeps every frame)
            shown = for_user(err)
            if shown is err:
                raise  # bare: the traceback ends at the user's line, with no frame of this call
            raise shown from None

    return run


def _check_dataset(dataset, what: str) -> None:
    if not (hasattr(dataset, "create_tuple_iterator") and hasattr(dataset, "get_dataset_size")):
        raise TypeError(
            f"'{what}' must be a dataset with create_tuple_iterator() and get_dataset_size() "
            f"(e.g. a kiln.dataset pipeline), but got {type(dataset).__name__}."
        )


def _positive_int(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"Model: '{name}' must be a positive int, but got {value!r}.")
    return value


def _endless(iterator):
    """Rows of `iterator` across dataset epochs (sink_size epochs need not align with the dataset's)."""
    while True:
        empty = True
        for row in iterator:
            empty = False
            yield row
        if empty:
            return


def _as_tensors(row) -> tuple:
    if isinstance(row, Tensor):
        return (row,)
    return tuple(x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in row)


class Model:
    """High-level training and evaluation of a network.

    Args:
        network: the network (a Cell). With `loss_fn` it computes logits; without, it returns the loss.
        loss_fn: the loss, `loss_fn(logits, label)`.
        optimizer: an `nn.Optimizer` over the network's parameters; without it `train` only runs forward.
        metrics: {name: Metric} or a set of metric names, used by `eval` and `fit`.
        eval_network: the evaluation network (default: `WithEvalCell(network, loss_fn)`).
        eval_indexes: [loss, logits, label] positions in the eval network's outputs (with `eval_network`).
        amp_level: mixed precision of the training step ("O0" none, "O1", "O2", "O3", "auto"; see
            `amp.build_train_network`); other than "O0" it needs an optimizer.
        boost_level: "O0", "O1" or "O2"; Kiln has no boost algorithms, so "O1"/"O2" warn and train as "O0".
        **kwargs: `loss_scale_manager` (a LossScaleManager: the loss is scaled by its scale, and with an update
            Cell an overflowing step is skipped), `keep_batchnorm_fp32` (bool), `boost_config_dict` (warns: no
            boost) and `acc_level` (the old name of `boost_level`). Any other keyword is a TypeError.

    The training step is `amp.build_train_network(network, optimizer, loss_fn, amp_level, boost_level, ...)`:
    a `TrainOneStepCell` (or `TrainOneStepWithLossScaleCell`) around the network and its loss; in GRAPH_MODE
    it is compiled into one executable (forward, gradients and update). A tqdm progress bar is shown
    when stdout is a terminal; set KILN_PROGRESS=0 to turn it off (KILN_PROGRESS=1 forces it on).
    """

    def __init__(
        self,
        network: Cell,
        loss_fn=None,
        optimizer=None,
        metrics=None,
        eval_network: Cell | None = None,
        eval_indexes: list[int] | None = None,
        amp_level: str = "O0",
        boost_level: str = "O0",
        **kwargs,
    ) -> None:
        if not isinstance(network, Cell):
            raise TypeError(f"Model: 'network' must be a Cell, but got {type(network).__name__}.")
        unknown = sorted(set(kwargs) - set(_MODEL_KWARGS))
        if unknown:
            raise TypeError(f"Model got unexpected keyword argument(s) {unknown}; it takes {list(_MODEL_KWARGS)}.")
        if amp_level not in _AMP_LEVELS:
            raise ValueError(f"Model: 'amp_level' must be one of {_AMP_LEVELS}, but got {amp_level!r}.")
        if optimizer is None and amp_level != "O0":
            raise ValueError(
                f"Model(amp_level={amp_level!r}) needs an optimizer: mixed precision is applied to the training "
                "step. Pass 'optimizer', or leave amp_level at 'O0'."
            )
        if kwargs.get("loss_scale_manager") is not None and optimizer is None:
            raise ValueError("Model: a 'loss_scale_manager' needs an 'optimizer' (it scales the training step).")
        if "acc_level" in kwargs:
            warnings.warn("Model(acc_level=...) is the old name of 'boost_level'; pass boost_level.", stacklevel=2)
            boost_level = kwargs["acc_level"]
        if "boost_config_dict" in kwargs:
            warnings.warn(
                "Model(boost_config_dict=...): Kiln has no boost algorithms, so their configuration is not read.",
                stacklevel=2,
            )
        self._network = network
        self._loss_fn = loss_fn
        self._optimizer = optimizer
        self._amp_level = amp_level
        self._boost_level = boost_level
        # Only the keywords given are passed on, so that the level's own defaults apply to the others.
        self._amp_config = {k: kwargs[k] for k in ("loss_scale_manager", "keep_batchnorm_fp32") if k in kwargs}
        self._metric_fns = get_metrics(metrics) or {}
        self._train_network = self._build_train_network()
        self._eval_network, self._eval_indexes = self._build_eval_network(eval_network, eval_indexes)
        self._predict_network = network
        self._sink_runner = None
        self._current_epoch_num = 0
        self._current_step_num = 0

    # -- networks -----------------------------------------------------------------------------------
    def _build_train_network(self) -> Cell:
        if self._optimizer is not None:
            return build_train_network(
                self._network,
                self._optimizer,
                self._loss_fn,
                level=self._amp_level,
                boost_level=self._boost_level,
                **self._amp_config,
            )
        if self._loss_fn is not None:
            return WithLossCell(self._network, self._loss_fn)
        return self._network

    def _build_eval_network(self, eval_network, eval_indexes):
        if not self._metric_fns:
            return eval_network, eval_indexes
        if eval_network is not None:
            three_positions = isinstance(eval_indexes, list) and len(eval_indexes) == 3
            if eval_indexes is not None and not three_positions:
                raise ValueError(f"Model: 'eval_indexes' must be a list of 3 ints or None, but got {eval_indexes!r}.")
            return eval_network, eval_indexes
        if self._loss_fn is None:
            raise ValueError(
                "Model: 'metrics' needs an evaluation network: pass 'loss_fn' (then Model builds "
                "WithEvalCell(network, loss_fn)) or 'eval_network'."
            )
        return WithEvalCell(self._network, self._loss_fn, self._amp_level in ("O2", "O3", "auto")), [0, 1, 2]

    @property
    def train_network(self) -> Cell:
        """The network run by `train` (TrainOneStepCell when an optimizer is given)."""
        return self._train_network

    @property
    def predict_network(self) -> Cell:
        return self._predict_network

    @property
    def eval_network(self) -> Cell | None:
        return self._eval_network

    # -- metrics -------------------------------------------------------------------------------------
    def _update_metrics(self, outputs) -> None:
        if isinstance(outputs, Tensor):
            outputs = (outputs,)
        if not isinstance(outputs, (tuple, list)):
            raise ValueError(f"The evaluation network must return a Tensor or a tuple, but got {type(outputs)}.")
        if self._eval_indexes is None:  # every metric reads the whole output
            for metric in self._metric_fns.values():
                metric.update(*outputs)
            return
        if len(outputs) < 3:
            raise ValueError(f"The evaluation network must return (loss, logits, label), but got {len(outputs)} items.")
        loss, logits, label = (outputs[i] for i in self._eval_indexes)
        for metric in self._metric_fns.values():
            if isinstance(metric, Loss):
                metric.update(loss)
            else:
                metric.update(logits, label)

    # -- callbacks -----------------------------------------------------------------------------------
    @staticmethod
    def _train_callbacks(callbacks) -> list:
        cbs = _as_list(callbacks)
        if progress_enabled() and not any(isinstance(cb, ProgressBar) for cb in cbs):
            cbs.insert(0, ProgressBar())  # first, so its bar is closed before other epoch-end output
        return cbs

    def _cb_params(self, train_dataset, epoch: int, initial_epoch: int, batch_num: int, callbacks: list):
        return InternalCallbackParam(
            train_network=self._train_network,
            network=self._network,
            loss_fn=self._loss_fn,
            optimizer=self._optimizer,
            train_dataset=train_dataset,
            epoch_num=epoch - initial_epoch,
            batch_num=batch_num,
            cur_epoch_num=initial_epoch,
            cur_step_num=initial_epoch * batch_num,
            initial_epoch=initial_epoch,
            mode="train",
            parallel_mode="stand_alone",
            device_number=1,
            list_callback=callbacks,
            net_outputs=None,
            dataset_sink_mode=False,
            last_save_ckpt_step=None,
            latest_ckpt_file=None,
        )

    # -- training -------------------------------------------------------------------------------------
    @_users_frames
    def train(
        self,
        epoch: int,
        train_dataset,
        callbacks=None,
        dataset_sink_mode: bool = False,
        sink_size: int = -1,
        initial_epoch: int = 0,
    ) -> None:
        """Train for `epoch` epochs.

        Args:
            epoch: the total number of epochs (training runs epochs initial_epoch+1 .. epoch).
            train_dataset: yields (data, label) with a loss_fn, else the network's inputs.
            callbacks: a Callback or a list of them.
            dataset_sink_mode: in GRAPH_MODE, run several steps per compiled call (see `sink_size`).
            sink_size: steps per epoch in sink mode (-1: the whole dataset).
            initial_epoch: epochs already done (to resume).
        """
        self._run_train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch, None)

    @_users_frames
    def fit(
        self,
        epoch: int,
        train_dataset,
        valid_dataset=None,
        valid_frequency=1,
        callbacks=None,
        dataset_sink_mode: bool = False,
        valid_dataset_sink_mode: bool = False,
        sink_size: int = -1,
        initial_epoch: int = 0,
    ) -> None:
        """Train, evaluating on `valid_dataset` every `valid_frequency` epochs.

        The results go to the callbacks as `metrics` (printed by LossMonitor as
        `Eval result: epoch N, metrics: {...}`) and `eval_results` (with `eval_loss`).

        Args:
            valid_frequency: an int (every N epochs) or a list of epoch numbers.
            valid_dataset_sink_mode: accepted; evaluation runs one batch per call.
            Others: as in `train`.
        """
        if valid_dataset is not None:
            _check_dataset(valid_dataset, "valid_dataset")
            if not self._metric_fns:
                raise ValueError("Model.fit: a 'valid_dataset' needs metrics: create the Model with metrics={...}.")
            if isinstance(valid_frequency, bool) or not (
                (isinstance(valid_frequency, int) and valid_frequency >= 1)
                or (isinstance(valid_frequency, list) and all(isinstance(e, int) for e in valid_frequency))
            ):
                raise ValueError(
                    f"Model.fit: 'valid_frequency' must be a positive int or a list of epochs, got {valid_frequency!r}."
                )
        valid = (valid_dataset, valid_frequency, valid_dataset_sink_mode) if valid_dataset is not None else None
        self._run_train(epoch, train_dataset, callbacks, dataset_sink_mode, sink_size, initial_epoch, valid)

    def _run_train(self, epoch, train_dataset, callbacks, sink_mode, sink_size, initial_epoch, valid) -> None:
        epoch = _positive_int("epoch", epoch)
        if isinstance(initial_epoch, bool) or not isinstance(initial_epoch, int):
            raise TypeError(f"Model: 'initial_epoch' must be an int, but got {type(initial_epoch).__name__}.")
        if not isinstance(sink_mode, bool):
            raise TypeError(f"Model: 'dataset_sink_mode' must be a bool, but got {type(sink_mode).__name__}.")
        if not 0 <= initial_epoch < epoch:
            raise ValueError(f"Model: 'initial_epoch' must be an int in [0, epoch), but got {initial_epoch!r}.")
        if isinstance(sink_size, bool) or not isinstance(sink_size, int) or sink_size == 0 or sink_size < -1:
            raise ValueError(f"Model: 'sink_size' must be -1 or a positive int, but got {sink_size!r}.")
        _check_dataset(train_dataset, "train_dataset")
        dataset_size = train_dataset.get_dataset_size()
        if not dataset_size:
            raise ValueError("Model.train: the training dataset is empty (get_dataset_size() returned 0).")
        # Sink mode runs several steps per compiled call; in PyNative there is nothing to compile, so steps run
        # one by one. sink_size sets the epoch length on every device, as MindSpore's GPU and Ascend do (its CPU
        # build ignores sink_size and runs whole dataset epochs: a script's step count there differs).
        use_sink = bool(sink_mode) and get_context("mode") == GRAPH_MODE and self._optimizer is not None
        steps_per_epoch = sink_size if (sink_mode and sink_size > 0) else dataset_size
        callbacks = self._train_callbacks(callbacks)
        cb_params = self._cb_params(train_dataset, epoch, initial_epoch, steps_per_epoch, callbacks)
        cb_params.dataset_sink_mode = use_sink
        cb_params.sink_size = steps_per_epoch
        run_context = RunContext(cb_params)
        # The iterator counts epochs from the dataset's start, as set_init_step does (MindSpore's num_epochs=epoch):
        # a resumed run reads the rest of its epochs. A sink_size of its own makes epochs that run on across the
        # dataset's; otherwise an epoch ends with the data, also when it was resumed mid-epoch.
        endless = sink_mode and sink_size > 0
        iterator = train_dataset.create_tuple_iterator(num_epochs=-1 if endless else epoch)
        if endless:
            iterator = _endless(iterator)
        self._train_network.set_train(True)
        with CallbackManager(callbacks) as manager:
            manager.on_train_begin(run_context)
            for i in range(initial_epoch, epoch):
                cb_params.cur_epoch_num = i + 1
                self._current_epoch_num = i + 1
                self._current_step_num = 0
                manager.on_train_epoch_begin(run_context)
                if use_sink:
                    self._sink_epoch(iterator, steps_per_epoch if endless else None, manager, run_context)
                else:
                    self._epoch(iterator, steps_per_epoch if endless else None, manager, run_context)
                if valid is not None and self._should_eval(i + 1, valid[1]):
                    self._eval_in_fit(valid[0], manager, cb_params)
                manager.on_train_epoch_end(run_context)
                cb_params.pop("metrics", None)
                cb_params.pop("eval_results", None)
                if run_context.get_stop_requested():
                    break
            manager.on_train_end(run_context)

    def _epoch(self, iterator, limit, manager, run_context) -> None:
        """One epoch, one step per batch (`limit` steps when sink_size sets the epoch, else until the data ends)."""
        cb_params = run_context.original_args()
        step_fn = self._train_network
        steps = 0
        for row in iterator:
            inputs = _as_tensors(row)
            if self._loss_fn is not None and len(inputs) != 2:
                raise ValueError(
                    f"Model.train: with a loss_fn the dataset must yield (data, label), but a row has "
                    f"{len(inputs)} columns."
                )
            cb_params.cur_step_num += 1
            self._current_step_num += 1
            cb_params.train_dataset_element = inputs
            manager.on_train_step_begin(run_context)
            cb_params.net_outputs = step_fn(*inputs)
            manager.on_train_step_end(run_context)
            steps += 1
            if run_context.get_stop_requested() or (limit is not None and steps >= limit):
                break

    def _sink_epoch(self, iterator, steps: int | None, manager, run_context) -> None:
        """Sink mode in GRAPH_MODE: chunks of several steps per compiled call; callbacks see one step per chunk."""
        if self._sink_runner is None:
            self._sink_runner = SinkRunner(self._train_network)
        cb_params = run_context.original_args()
        rows = iter(iterator)  # one epoch's rows (a dataset iterator is its own; a plain iterable restarts)
        done = 0
        while steps is None or done < steps:
            wanted = self._sink_runner.k if steps is None else min(self._sink_runner.k, steps - done)
            chunk = self._sink_runner.next_chunk(rows, wanted, self._loss_fn is not None)
            if chunk is None:
                break
            cb_params.cur_step_num += chunk.size
            self._current_step_num += chunk.size
            done += chunk.size
            manager.on_train_step_begin(run_context)
            cb_params.net_outputs = self._sink_runner.run(chunk)
            manager.on_train_step_end(run_context)
            # A short chunk means the epoch's data ended (a resumed epoch is short); the next row is the next epoch's.
            if run_context.get_stop_requested() or chunk.size < wanted:
                break

    @staticmethod
    def _should_eval(epoch: int, frequency) -> bool:
        return epoch % frequency == 0 if isinstance(frequency, int) else epoch in frequency

    def _eval_in_fit(self, valid_dataset, manager, cb_params) -> None:
        saved = {k: cb_params.get(k) for k in ("mode", "cur_step_num", "batch_num", "dataset_sink_mode", "net_outputs")}
        eval_callbacks = [
            cb for cb in manager.callbacks if not isinstance(cb, INTERNAL_CALLBACKS) or isinstance(cb, TimeMonitor)
        ]
        cb_params.eval_network = self._eval_network
        cb_params.valid_dataset = valid_dataset
        cb_params.batch_num = valid_dataset.get_dataset_size()
        cb_params.mode = "eval"
        cb_params.cur_step_num = 0
        cb_params.dataset_sink_mode = False
        self._run_eval(valid_dataset, CallbackManager(eval_callbacks), cb_params, add_eval_loss=True)
        cb_params.update(saved)

    # -- evaluation and prediction -----------------------------------------------------------------
    @_users_frames
    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode: bool = False) -> dict:
        """Evaluate the metrics on a dataset.

        Args:
            valid_dataset: yields (data, label) for the evaluation network.
            callbacks: callbacks with `on_eval_*` hooks.
            dataset_sink_mode: accepted; evaluation runs one batch per call.

        Returns:
            dict {metric name: value}.
        """
        _check_dataset(valid_dataset, "valid_dataset")
        if not self._metric_fns:
            raise ValueError("Model.eval needs metrics: create the Model with metrics={'accuracy'} or similar.")
        cb_params = InternalCallbackParam(
            eval_network=self._eval_network,
            valid_dataset=valid_dataset,
            batch_num=valid_dataset.get_dataset_size(),
            mode="eval",
            cur_step_num=0,
            cur_epoch_num=self._current_epoch_num,
            network=self._network,
            list_callback=_as_list(callbacks),
            dataset_sink_mode=False,
            net_outputs=None,
        )
        with CallbackManager(callbacks) as manager:
            return self._run_eval(valid_dataset, manager, cb_params, add_eval_loss=False)

    def _run_eval(self, valid_dataset, manager, cb_params, add_eval_loss: bool) -> dict:
        run_context = RunContext(cb_params)
        for metric in self._metric_fns.values():
            metric.clear()
        eval_loss = Loss() if add_eval_loss and self._eval_indexes is not None else None
        network = self._eval_network
        network.set_train(False)
        manager.on_eval_begin(run_context)
        manager.on_eval_epoch_begin(run_context)
        for row in valid_dataset.create_tuple_iterator(num_epochs=1):
            inputs = job_wide(network, _as_tensors(row))  # across processes: each rank's batch joined (semi-auto)
            cb_params.cur_step_num += 1
            cb_params.eval_dataset_element = inputs
            manager.on_eval_step_begin(run_context)
            outputs = network(*inputs)
            cb_params.net_outputs = outputs
            manager.on_eval_step_end(run_context)
            self._update_metrics(outputs)
            if eval_loss is not None:
                eval_loss.update(outputs[self._eval_indexes[0]])
            if run_context.get_stop_requested():
                break
        manager.on_eval_epoch_end(run_context)
        metrics = {name: metric.eval() for name, metric in self._metric_fns.items()}
        cb_params.metrics = metrics
        if eval_loss is not None:
            cb_params.eval_results = copy.deepcopy(metrics)
            cb_params.eval_results["eval_loss"] = eval_loss.eval()
        manager.on_eval_end(run_context)
        self._train_network.set_train(True)
        return metrics

    @_users_frames
    def predict(self, *predict_data, backend=None, config=None):
        """The network's output for the given inputs (in inference mode).

        Args:
            *predict_data: Tensors (or NumPy arrays).
            backend: None (Kiln runs the network); 'lite' (MindSpore Lite) is not available; anything else is a
                ValueError.
            config: MindSpore Lite options (unused).

        Returns:
            The network's output.
        """
        if backend not in ("lite", None):
            raise ValueError(f"Model.predict: 'backend' is None (Kiln runs the network) or 'lite'; got {backend!r}.")
        if backend == "lite":
            raise NotImplementedError("Model.predict: the MindSpore Lite backend is not available in Kiln.")
        for item in predict_data:
            if isinstance(item, (str, bytes)):
                raise TypeError(f"Model.predict: the inputs must be Tensors or arrays, but got {type(item).__name__}.")
        self._predict_network.set_train(False)
        return self._predict_network(*_as_tensors(predict_data))
