"""`save_checkpoint` and `load_checkpoint` (MindSpore's `mindspore.save_checkpoint` / `load_checkpoint`), their
asynchronous forms' helpers `load_checkpoint_async` and `async_ckpt_thread_status`."""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from kiln._backend import distributed as D
from kiln._core.atomic_files import atomic_write
from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import ignore_argument
from kiln.nn.cell import Cell
from kiln.train.checkpoint import _ckpt_format, _safetensors_format
from kiln.train.checkpoint.loading import check_distinct_names, load_param_into_net

_FORMATS = ("ckpt", "safetensors")
# The entry naming, as JSON {name: {"shape", "index"}}, the parameters a rank saved only its slice of (below).
PROCESS_SLICES = "kiln_process_slices"
_async_writes: list[threading.Thread] = []
_async_errors: list[BaseException] = []


def _check_format(fn: str, format: str) -> None:
    if format not in _FORMATS:
        raise ValueError(f"For '{fn}', the format must be 'ckpt' or 'safetensors', but got '{format}'.")


def _checked_path(op: str, ckpt_file_name, format: str, key_name: str, key) -> str:
    """The real path of `ckpt_file_name`, after the checks `save_checkpoint` and `load_checkpoint` share (format,
    no encryption key, a str or path-like name)."""
    _check_format(op, format)
    if key is not None:
        raise NotImplementedError(f"{op}: encrypted checkpoints ({key_name}) are not supported by Kiln.")
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"For '{op}', 'ckpt_file_name' must be a str, but got {type(ckpt_file_name)}.")
    return os.path.realpath(os.fspath(ckpt_file_name))


def _host(value, where: str) -> np.ndarray | str:
    """A NumPy copy (or str) of one checkpoint value."""
    if isinstance(value, str):
        return value
    if isinstance(value, Tensor):
        return value.asnumpy()
    if isinstance(value, (bool, int, float)):
        return Tensor(value).asnumpy()  # MindSpore's dtypes: bool, int64, float32
    if isinstance(value, np.ndarray | np.generic):
        return np.asarray(value)
    raise TypeError(
        f"For 'save_checkpoint', {where} must be a Tensor, Parameter, NumPy array, number or str, "
        f"but got {type(value).__name__}."
    )


def _entries(save_obj, append_dict, choice_func) -> list[tuple[str, np.ndarray | str]]:
    if isinstance(save_obj, Cell):
        check_distinct_names(save_obj, "save_checkpoint")
        pairs = [(p.name, p) for p in save_obj.get_parameters()]  # keyed by Parameter.name, as in MindSpore
    elif isinstance(save_obj, dict):
        pairs = list(save_obj.items())
    elif isinstance(save_obj, list):
        pairs, first = [], {}
        for i, item in enumerate(save_obj):
            if isinstance(item, Parameter):
                name, value = item.name, item
            elif isinstance(item, dict) and "name" in item and isinstance(item.get("data"), Tensor):
                name, value = item["name"], item["data"]
            else:
                raise TypeError(
                    f"For 'save_checkpoint', a list 'save_obj' must hold Parameters or dicts {{'name': str, 'data': "
                    f"Tensor}}, but item {i} is {item!r:.80}."
                )
            j, held = first.setdefault(name, (i, value)) if isinstance(name, str) else (i, value)
            if j != i:
                if value is held:
                    continue  # the same Parameter twice: saved once
                # the file would hold one key twice (MindSpore keeps the last value, silently)
                raise ValueError(
                    f"For 'save_checkpoint', items {j} and {i} of 'save_obj' are both named '{name}'; a checkpoint "
                    "holds one value per name: give them distinct names."
                )
            pairs.append((name, value))
    else:
        raise TypeError(
            f"For 'save_checkpoint', 'save_obj' must be a Cell, a list of {{'name', 'data'}} dicts or a dict, "
            f"but got {type(save_obj).__name__}."
        )
    entries, slices = [], {}
    for name, value in pairs:
        if not isinstance(name, str):
            raise TypeError(f"For 'save_checkpoint', parameter names must be str, but got {name!r}.")
        if choice_func is not None and not choice_func(name):
            continue
        # A value split over several processes' devices: this rank saves what it holds (no collective).
        block = D.process_block(value._data) if isinstance(value, Tensor) else None
        if block is not None and block[1] is not None:
            slices[name] = {"shape": list(value.shape), "index": block[1]}
        entries.append((name, _host(value, f"the value of '{name}'") if block is None else block[0]))
    if slices:
        entries.append((PROCESS_SLICES, json.dumps(slices)))
    if append_dict is not None:
        if not isinstance(append_dict, dict):
            raise TypeError(
                f"For 'save_checkpoint', 'append_dict' must be a dict, but got {type(append_dict).__name__}."
            )
        for name, value in append_dict.items():
            if not isinstance(name, str):
                raise TypeError(f"For 'save_checkpoint', the keys of 'append_dict' must be str, but got {name!r}.")
            entries.append((name, _host(value, f"append_dict['{name}']")))
    return entries


def save_checkpoint(
    save_obj,
    ckpt_file_name: str,
    integrated_save: bool = True,
    async_save: bool = False,
    append_dict: dict | None = None,
    enc_key: bytes | None = None,
    enc_mode: str = "AES-GCM",
    choice_func: Callable[[str], bool] | None = None,
    crc_check: bool = False,
    format: str = "ckpt",
    **kwargs,
) -> None:
    """Save parameters to a checkpoint file, atomically.

    The file is written to a temporary file next to the target, synced, and then
    renamed over it: the target is either the old file or the complete new one.

    Args:
        save_obj: a Cell (all its parameters), a list of {'name': str, 'data': Tensor}
            dicts, or a dict {name: Tensor}.
        ckpt_file_name: the file; ".ckpt" / ".safetensors" is appended when missing.
        integrated_save: kept for compatibility. Across processes (SEMI_AUTO_PARALLEL) a parameter split over
            several processes' devices is saved as this rank's slice, without a collective (so one rank may save
            alone); the file records where the slice lies, and `load_distributed_checkpoint` merges the files.
        async_save: write on a background thread (the values are copied first).
        append_dict: extra entries {name: int, float, bool, str or Tensor}
            (e.g. epoch_num), stored after the parameters.
        enc_key, enc_mode: encryption is not supported; `enc_key` must be None.
        choice_func: `choice_func(name) -> bool` selects the parameters to save.
        crc_check: add a CRC32 of the content (checked by `load_checkpoint(crc_check=True)`).
        format: "ckpt" (MindSpore's protobuf layout) or "safetensors".

    Raises:
        TypeError: `save_obj` or a value has an unsupported type.
        ValueError: an unknown format, or two parameters of a Cell `save_obj` share a name (MindSpore would save
            one value for both).
    """
    path = _checked_path("save_checkpoint", ckpt_file_name, format, "enc_key", enc_key)
    ignore_argument("save_checkpoint", "options", kwargs, {}, reason="no further checkpoint option is implemented")
    if os.path.isdir(path):
        raise IsADirectoryError(f"For 'save_checkpoint', '{path}' is a directory; 'ckpt_file_name' must be a file.")
    if not path.endswith(format):
        path += f".{format}"
    entries = _entries(save_obj, append_dict, choice_func)  # copies to host now, even for async saves

    def write() -> None:
        if format == "ckpt":
            atomic_write(path, _ckpt_format.encode(entries, crc_check))
        else:
            atomic_write(path, [_safetensors_format.encode(entries, crc_check)])

    if async_save:
        wait_async_saves()  # one file at a time, in order

        def run() -> None:
            try:
                write()
            except BaseException as e:  # re-raised by wait_async_saves in the caller's thread
                _async_errors.append(e)

        t = threading.Thread(target=run, name="kiln-save-checkpoint", daemon=False)
        t.start()
        _async_writes.append(t)
    else:
        write()


def wait_async_saves() -> None:
    """Block until every `save_checkpoint(async_save=True)` started so far has finished.

    Raises:
        the error of a background save that failed (its file was not written).
    """
    while _async_writes:
        _async_writes.pop(0).join()
    if _async_errors:
        err = _async_errors.pop(0)
        _async_errors.clear()
        raise err


def _read_entries(path: str, format: str, crc_check: bool) -> OrderedDict:
    with open(path, "rb") as f:
        data = f.read()
    if format == "safetensors":
        return _safetensors_format.decode(path, data, crc_check)
    return _ckpt_format.decode(data, path, crc_check)


def _prefixes(arg, name: str) -> tuple[str, ...] | None:
    if arg is None:
        return None
    items = (arg,) if isinstance(arg, str) else tuple(arg)
    if not items or not all(isinstance(p, str) and p for p in items):
        raise TypeError(
            f"For 'load_checkpoint', '{name}' must be a non-empty str or a list/tuple of them, got {arg!r}."
        )
    return items


def load_checkpoint(
    ckpt_file_name: str,
    net: Cell | None = None,
    strict_load: bool = False,
    filter_prefix=None,
    dec_key: bytes | None = None,
    dec_mode: str = "AES-GCM",
    specify_prefix=None,
    choice_func: Callable[[str], bool] | None = None,
    crc_check: bool = False,
    remove_redundancy: bool = False,
    format: str = "ckpt",
) -> dict:
    """Read a checkpoint file (MindSpore's or Kiln's) into {name: Parameter}.

    Nothing is unpickled: the file is parsed as protobuf (or safetensors).

    Args:
        ckpt_file_name: the file.
        net: when given, the parameters are also loaded into it (`load_param_into_net`).
        strict_load: passed to `load_param_into_net`.
        filter_prefix: skip names starting with this prefix (or any of these prefixes).
        specify_prefix: load only names starting with this prefix (or any of them).
        choice_func: `choice_func(name) -> bool` selects the entries to load.
        crc_check: verify the CRC32 written by `save_checkpoint(crc_check=True)`.
        format: "ckpt" or "safetensors".

    Returns:
        dict: name -> Parameter (strings saved through `append_dict` come back as str).

    Raises:
        ValueError: the file does not exist, is truncated or corrupt, or nothing was selected.
    """
    path = _checked_path("load_checkpoint", ckpt_file_name, format, "dec_key", dec_key)
    wait_async_saves()  # a file still being written in the background is not there yet
    if not os.path.isfile(path):
        why = "is a directory" if os.path.isdir(path) else "does not exist"
        raise ValueError(f"For 'load_checkpoint', the checkpoint file '{path}' {why}.")
    specify, filt = _prefixes(specify_prefix, "specify_prefix"), _prefixes(filter_prefix, "filter_prefix")
    result: dict = {}
    for name, value in _read_entries(path, format, crc_check).items():
        if specify is not None and not name.startswith(specify):
            continue
        if filt is not None and name.startswith(filt):
            continue
        if choice_func is not None and specify is None and filt is None and not choice_func(name):
            continue
        result[name] = value if isinstance(value, str) else Parameter(Tensor(value), name=name)
    if not result:
        raise ValueError(f"For 'load_checkpoint', no parameter of '{path}' was selected by the prefix/choice filters.")
    if net is not None:
        load_param_into_net(net, result, strict_load=strict_load)
    return result


class ParamDictFuture:
    """The pending result of `load_checkpoint_async`: `result()` waits and returns {name: Parameter}."""

    def __init__(self, executor, future) -> None:
        self.executor, self.param_dict_future = executor, future

    def result(self):
        param_dict = self.param_dict_future.result()
        self.executor.shutdown()
        return param_dict


def load_checkpoint_async(ckpt_file_name, net=None, strict_load=False, filter_prefix=None, dec_key=None,
                          dec_mode="AES-GCM", specify_prefix=None, choice_func=None):  # fmt: skip
    """`load_checkpoint` on a background thread (format from the file's suffix); returns a future whose `result()`
    is the parameter dict (also accepted by `load_param_into_net` and `Model.build`)."""
    fmt = "safetensors" if str(ckpt_file_name).endswith(".safetensors") else "ckpt"
    executor = ThreadPoolExecutor(max_workers=2)
    future = executor.submit(load_checkpoint, ckpt_file_name, net, strict_load, filter_prefix, dec_key, dec_mode,
                             specify_prefix, choice_func, format=fmt)  # fmt: skip
    return ParamDictFuture(executor, future)


def async_ckpt_thread_status() -> bool:
    """True while a `save_checkpoint(async_save=True)` thread is still writing."""
    return any(t.name == "kiln-save-checkpoint" and t.is_alive() for t in threading.enumerate())
