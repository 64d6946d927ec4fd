"""`Callback`, `RunContext` and the manager that calls a list of callbacks at each stage of training."""

from __future__ import annotations

from contextlib import ExitStack

import numpy as np

from kiln._core.tensor import Tensor

_HOOKS = (
    "on_train_begin",
    "on_train_epoch_begin",
    "on_train_step_begin",
    "on_train_step_end",
    "on_train_epoch_end",
    "on_train_end",
    "on_eval_begin",
    "on_eval_epoch_begin",
    "on_eval_step_begin",
    "on_eval_step_end",
    "on_eval_epoch_end",
    "on_eval_end",
)


class Callback:
    """Base class of training/evaluation callbacks: override the hooks you need.

    `Model` calls `on_train_begin`, `on_train_epoch_begin`, `on_train_step_begin`,
    `on_train_step_end`, `on_train_epoch_end`, `on_train_end` while training and the
    `on_eval_*` counterparts while evaluating. By default each of them calls the
    older hook of the same stage (`begin`, `epoch_begin`, `step_begin`, `step_end`,
    `epoch_end`, `end`), so callbacks written against either API work. Every hook
    receives a `RunContext`; `run_context.original_args()` holds the state
    (`cur_epoch_num`, `cur_step_num`, `batch_num`, `net_outputs`, ...).

    A callback is also a context manager: `Model` enters it for the duration of a run.
    """

    def __enter__(self):
        return self

    def __exit__(self, *err):
        return None

    # The older, mode-independent hooks.
    def begin(self, run_context: RunContext) -> None:
        """Called once before training or evaluation starts."""

    def epoch_begin(self, run_context: RunContext) -> None:
        """Called at the beginning of each epoch."""

    def epoch_end(self, run_context: RunContext) -> None:
        """Called at the end of each epoch."""

    def step_begin(self, run_context: RunContext) -> None:
        """Called before each step."""

    def step_end(self, run_context: RunContext) -> None:
        """Called after each step."""

    def end(self, run_context: RunContext) -> None:
        """Called once after training or evaluation."""

    # Training.
    def on_train_begin(self, run_context: RunContext) -> None:
        """Called once before training."""
        self.begin(run_context)

    def on_train_epoch_begin(self, run_context: RunContext) -> None:
        """Called at the beginning of each training epoch."""
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context: RunContext) -> None:
        """Called at the end of each training epoch (after the evaluation of `Model.fit`)."""
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context: RunContext) -> None:
        """Called before each training step."""
        self.step_begin(run_context)

    def on_train_step_end(self, run_context: RunContext) -> None:
        """Called after each training step; `net_outputs` holds the step's loss."""
        self.step_end(run_context)

    def on_train_end(self, run_context: RunContext) -> None:
        """Called once after training."""
        self.end(run_context)

    # Evaluation.
    def on_eval_begin(self, run_context: RunContext) -> None:
        """Called once before evaluation."""
        self.begin(run_context)

    def on_eval_epoch_begin(self, run_context: RunContext) -> None:
        """Called before the evaluation pass."""
        self.epoch_begin(run_context)

    def on_eval_epoch_end(self, run_context: RunContext) -> None:
        """Called after the evaluation pass."""
        self.epoch_end(run_context)

    def on_eval_step_begin(self, run_context: RunContext) -> None:
        """Called before each evaluation step."""
        self.step_begin(run_context)

    def on_eval_step_end(self, run_context: RunContext) -> None:
        """Called after each evaluation step."""
        self.step_end(run_context)

    def on_eval_end(self, run_context: RunContext) -> None:
        """Called once after evaluation; `metrics` holds the results."""
        self.end(run_context)


class InternalCallbackParam(dict):
    """The state shared with callbacks: a dict whose keys are also attributes (`cb_params.cur_step_num`)."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(f"the callback parameters have no '{key}' (known: {sorted(self)})") from None

    def __setattr__(self, key, value):
        self[key] = value


class RunContext:
    """What a callback sees of a run: `original_args()` and `request_stop()`.

    Args:
        original_args: the run's state (an `InternalCallbackParam` / dict).
    """

    def __init__(self, original_args: dict) -> None:
        if not isinstance(original_args, dict):
            raise TypeError(f"RunContext expects a dict, but got {type(original_args).__name__}.")
        self._original_args = original_args
        self._stop_requested = False

    def original_args(self) -> InternalCallbackParam:
        """The run's state: cur_epoch_num, cur_step_num, batch_num, epoch_num, net_outputs, train_network,
        optimizer, loss_fn, mode ("train"/"eval"), metrics (after an evaluation), ..."""
        return self._original_args

    def request_stop(self) -> None:
        """Stop training after the current step (the epoch-end hooks still run)."""
        self._stop_requested = True

    def get_stop_requested(self) -> bool:
        """Whether a callback asked to stop."""
        return self._stop_requested


class CallbackManager(Callback):
    """Calls every callback of a list, in order, at each hook.

    Args:
        callbacks: None, a Callback, or a list/tuple of Callbacks.
    """

    def __init__(self, callbacks) -> None:
        self._callbacks = _as_list(callbacks)
        self._stack: ExitStack | None = None

    def __enter__(self):
        self._stack = ExitStack().__enter__()
        self._callbacks = [self._stack.enter_context(cb) for cb in self._callbacks]
        return self

    def __exit__(self, *err):
        stack, self._stack = self._stack, None
        return stack.__exit__(*err) if stack is not None else None

    @property
    def callbacks(self) -> list[Callback]:
        return list(self._callbacks)


def _dispatch(hook: str):
    def call(self, run_context):
        for cb in self._callbacks:
            getattr(cb, hook)(run_context)

    call.__name__ = hook
    call.__doc__ = f"Call `{hook}` of every callback."
    return call


for _hook in _HOOKS + ("begin", "epoch_begin", "epoch_end", "step_begin", "step_end", "end"):
    setattr(CallbackManager, _hook, _dispatch(_hook))


def _as_list(callbacks) -> list[Callback]:
    if callbacks is None:
        return []
    if isinstance(callbacks, Callback):
        return [callbacks]
    if isinstance(callbacks, (list, tuple)):
        for i, cb in enumerate(callbacks):
            if not isinstance(cb, Callback):
                raise TypeError(f"'callbacks' must hold Callback objects, but item {i} is {type(cb).__name__}.")
        return list(callbacks)
    raise TypeError(f"'callbacks' must be a Callback or a list of Callbacks, but got {type(callbacks).__name__}.")


def loss_value(net_outputs):
    """The scalar loss of a step's outputs as a Python float (the first output when there are several).

    Returns None when the outputs hold no tensor.
    """
    out = net_outputs
    if isinstance(out, (tuple, list)) and out:
        out = out[0]
    if isinstance(out, Tensor):
        return float(np.mean(out.asnumpy()))
    if isinstance(out, np.ndarray | np.generic | float | int):
        return float(np.mean(out))
    return None


def check_bool(cls: str, name: str, v) -> bool:
    """`v`, which must be a bool (TypeError naming the callback and argument otherwise)."""
    if not isinstance(v, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(v).__name__}.")
    return v
