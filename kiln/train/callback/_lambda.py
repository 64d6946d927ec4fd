"""LambdaCallback: a callback made of plain functions."""

from __future__ import annotations

from kiln.train.callback._callback import _HOOKS, Callback


class LambdaCallback(Callback):
    """A callback whose hooks are the functions given, e.g. `LambdaCallback(on_train_epoch_end=fn)`.

    Args:
        on_train_begin, on_train_epoch_begin, ..., on_eval_end: functions of the RunContext.
    """

    def __init__(self, **hooks) -> None:
        super().__init__()
        for name, fn in hooks.items():
            if name not in _HOOKS:
                raise TypeError(f"LambdaCallback got an unknown hook '{name}'; hooks are {list(_HOOKS)}.")
            if fn is not None:
                setattr(self, name, fn)
        for name in _HOOKS:
            if hooks.get(name) is None:
                setattr(self, name, _noop)


def _noop(run_context) -> None:
    return None
