"""Checkpoint format conversion: `ckpt_to_safetensors` and `safetensors_to_ckpt`, over a file or a directory."""

from __future__ import annotations

import os
import re

from kiln.train.checkpoint.api import load_checkpoint, save_checkpoint

__all__ = ["ckpt_to_safetensors", "safetensors_to_ckpt"]


def _convert_one(src: str, dst_dir: str, name_map, src_fmt: str, dst_fmt: str) -> None:
    params = load_checkpoint(src, format=src_fmt)
    if name_map:
        params = {name_map.get(k, k): v for k, v in params.items()}
    base = os.path.basename(src)[: -len(src_fmt) - 1] + "." + dst_fmt
    save_checkpoint(params, os.path.join(dst_dir, base), format=dst_fmt)


def _convert(func: str, file_path, save_path, name_map, file_name_regex, src_fmt: str, dst_fmt: str) -> None:
    is_dir, is_file = os.path.isdir(file_path), os.path.isfile(file_path)
    if not is_dir and not is_file:
        raise ValueError(f"{func}: {file_path} is neither a file nor a folder; check the path.")
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
