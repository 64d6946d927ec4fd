"""Kiln's logger, with MindSpore's `mindspore.log` functions.

The level comes from the `GLOG_v` environment variable as in MindSpore (0 debug, 1 info, 2 warning, the
default, 3 error, 4 critical); messages go to stderr through Python's `logging`, under the logger "kiln".
"""

from __future__ import annotations

import logging
import os
import sys

__all__ = ["critical", "debug", "error", "exception", "get_level", "get_log_config", "info", "warning"]

_GLOG_TO_LOGGING = {0: logging.DEBUG, 1: logging.INFO, 2: logging.WARNING, 3: logging.ERROR, 4: logging.CRITICAL}
_LOGGING_TO_GLOG = {v: k for k, v in _GLOG_TO_LOGGING.items()}


def _level_from_env() -> int:
    raw = os.environ.get("GLOG_v", "2")
    try:
        return _GLOG_TO_LOGGING[int(raw)]
    except (ValueError, KeyError):
        return logging.WARNING


def _make_logger() -> logging.Logger:
    log = logging.getLogger("kiln")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(
            logging.Formatter("[%(levelname)s] KILN(%(process)d,%(filename)s:%(lineno)d): %(message)s")
        )
        log.addHandler(handler)
        log.propagate = False
    log.setLevel(_level_from_env())
    return log


_logger = _make_logger()


def _level_function(level: str, doc: str):
    """The module function `level(msg, *args, **kwargs)` logging through the logger's method of that name.

    `stacklevel=2` makes the record name the caller of the module function, not this module.
    """

    def log_at_level(msg, *args, **kwargs) -> None:
        getattr(_logger, level)(msg, *args, stacklevel=2, **kwargs)

    log_at_level.__name__ = log_at_level.__qualname__ = level
    log_at_level.__doc__ = doc
    return log_at_level


debug = _level_function("debug", "Log `msg % args` at debug level (GLOG_v=0).")
info = _level_function("info", "Log `msg % args` at info level (GLOG_v<=1).")
warning = _level_function("warning", "Log `msg % args` at warning level (GLOG_v<=2, the default).")
error = _level_function("error", "Log `msg % args` at error level.")
exception = _level_function("exception", "Log `msg % args` at error level with the current exception's traceback.")
critical = _level_function("critical", "Log `msg % args` at critical level.")


def get_level() -> str:
    """The current level as MindSpore's GLOG_v digit: '0' debug ... '4' critical."""
    return str(_LOGGING_TO_GLOG.get(_logger.level, 2))


def get_log_config() -> dict:
    """The logger's configuration: {'GLOG_v': level digit, 'GLOG_logtostderr': '1'}."""
    return {"GLOG_v": get_level(), "GLOG_logtostderr": "1"}
