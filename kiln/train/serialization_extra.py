"""Checkpoint format conversion (`ckpt_to_safetensors`, `safetensors_to_ckpt`), `load_checkpoint_async` and
`async_ckpt_thread_status`."""

from __future__ import annotations

import os
import re
import threading
from concurrent.futures import ThreadPoolExecutor

from kiln.train.checkpoint import load_checkpoint, save_checkpoint

__all__ = [
    "async_ckpt_thread_status", "build_searched_strategy", "ckpt_to_safetensors", "get_ckpt_path_with_strategy",
    "load_checkpoint_async", "safetensors_to_ckpt",
]  # fmt: skip


def _convert_one(src: str, dst_dir: str, name_map, src_fmt: str, dst_fmt: str) -> None:
    params = load_checkpoint(src, format=src_fmt)
    if name_map:
        params = {name_map.get(k, k): v for k, v in params.items()}
    base = os.path.basename(src)[: -len(src_fmt) - 1] + "." + dst_fmt
    save_checkpoint(params, os.path.join(dst_dir, base), format=dst_fmt)


def _convert(func: str, file_path, save_path, name_map, file_name_regex, src_fmt: str, dst_fmt: str) -> None:
    is_dir, is_file = os.path.isdir(file_path), os.path.isfile(file_path)
    if not is_dir and not is_file:
        raise ValueError(f"For {func}, the input path must be a valid path or file, but got {file_path}")
    if save_path and os.path.splitext(save_path)[1]:
        raise ValueError(f"For {func}, the save_path must be a directory, but got '{save_path}'")
    if name_map is not None and not isinstance(name_map, dict):
        raise ValueError(f"For {func}, the type of 'name_map' must be a dict, but got '{type(name_map)}'")
    if is_file:
        if not file_path.endswith("." + src_fmt):
            raise ValueError(f"For {func}, the input file must be a .{src_fmt} file, but got {file_path}")
        if file_name_regex is not None and not re.findall(file_name_regex, file_path):
            raise ValueError(f"For {func}, the input file does not match the regular expression.")
        dst = save_path or os.path.dirname(file_path)
        os.makedirs(dst, exist_ok=True)
        _convert_one(file_path, dst, name_map, src_fmt, dst_fmt)
        return
    ranks = sorted(d for d in os.listdir(file_path) if d.startswith("rank") and os.path.isdir(
        os.path.join(file_path, d)))  # fmt: skip
    if not ranks:
        raise ValueError(f"For '{func}', no directories starting with 'rank' found in {file_path}.")
    for rank in ranks:
        src_dir = os.path.join(file_path, rank)
        dst_dir = os.path.join(save_path, rank) if save_path is not None else src_dir
        os.makedirs(dst_dir, exist_ok=True)
        for name in sorted(os.listdir(src_dir)):
            if name.endswith("." + src_fmt) and (file_name_regex is None or re.findall(file_name_regex, name)):
                _convert_one(os.path.join(src_dir, name), dst_dir, name_map, src_fmt, dst_fmt)


def ckpt_to_safetensors(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Convert a `.ckpt` file (or every `.ckpt` in the `rank*` sub-directories of a directory) to `.safetensors`
    next to it or under `save_path` (keeping the `rank*` layout); `name_map` renames parameters, `file_name_regex`
    selects files. Kiln converts in this process (`processes_num` is accepted for compatibility)."""
    _convert("ckpt_to_safetensors", file_path, save_path, name_map, file_name_regex, "ckpt", "safetensors")


def safetensors_to_ckpt(file_path, save_path=None, name_map=None, file_name_regex=None, processes_num=1):
    """Convert `.safetensors` files to MindSpore's `.ckpt` layout (see `ckpt_to_safetensors`)."""
    _convert("safetensors_to_ckpt", file_path, save_path, name_map, file_name_regex, "safetensors", "ckpt")


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


def build_searched_strategy(strategy_filename):
    """{parameter name: layout dict} from a strategy file. Kiln's strategy files are JSON ({name: Layout.to_dict()},
    as `load_distributed_checkpoint` reads them); MindSpore's protobuf strategy files are not read."""
    from kiln.parallel._checkpoint import _strategies  # noqa: PLC0415  (parallel sits beside train)

    if not isinstance(strategy_filename, (str, os.PathLike)):
        raise TypeError(f"For 'build_searched_strategy', 'strategy_filename' must be a str, but got "
                        f"{type(strategy_filename).__name__}.")  # fmt: skip
    if not os.path.isfile(strategy_filename):
        raise ValueError(f"For 'build_searched_strategy', no strategy file at {strategy_filename!r}.")
    return _strategies(strategy_filename)


def get_ckpt_path_with_strategy(cur_ckpt_path, cur_strategy_path):
    """The checkpoint this rank can load: `cur_ckpt_path` when it exists, else None. (MindSpore searches the
    backups of other `rank_{id}` directories holding the same slices; in one process there are none.)"""
    return cur_ckpt_path if os.path.exists(cur_ckpt_path) else None
