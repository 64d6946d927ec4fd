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


def debug(msg, *args, **kwargs) -> None:
    """Log `msg % args` at debug level (GLOG_v=0)."""
    _logger.debug(msg, *args, stacklevel=2, **kwargs)


def info(msg, *args, **kwargs) -> None:
    """Log `msg % args` at info level (GLOG_v<=1)."""
    _logger.info(msg, *args, stacklevel=2, **kwargs)


def warning(msg, *args, **kwargs) -> None:
    """Log `msg % args` at warning level (GLOG_v<=2, the default)."""
    _logger.warning(msg, *args, stacklevel=2, **kwargs)


def error(msg, *args, **kwargs) -> None:
    """Log `msg % args` at error level."""
    _logger.error(msg, *args, stacklevel=2, **kwargs)


def exception(msg, *args, **kwargs) -> None:
    """Log `msg % args` at error level with the current exception's traceback."""
    _logger.exception(msg, *args, stacklevel=2, **kwargs)


def critical(msg, *args, **kwargs) -> None:
    """Log `msg % args` at critical level."""
    _logger.critical(msg, *args, stacklevel=2, **kwargs)


def get_level() -> str:
    """The current level as MindSpore's GLOG_v digit: '0' debug ... '4' critical."""
    return str(_LOGGING_TO_GLOG.get(_logger.level, 2))


def get_log_config() -> dict:
    """The logger's configuration: {'GLOG_v': level digit, 'GLOG_logtostderr': '1'}."""
    return {"GLOG_v": get_level(), "GLOG_logtostderr": "1"}
