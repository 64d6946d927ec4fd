"""Checkpoints of a job of several ranks: `merge_sliced_parameter`, `load_distributed_checkpoint`, and the strategy
file helpers `build_searched_strategy` and `get_ckpt_path_with_strategy`.

How a job saves (with `save_checkpoint`, atomic: each file is complete or absent):

- each rank its own: `save_checkpoint(net, f"ckpt/rank_{get_rank()}.ckpt")`. In data-parallel training every
  rank holds the whole parameters, so the N files agree. In SEMI_AUTO_PARALLEL across processes a parameter
  split over several processes' devices is saved as the part this rank's devices hold, with no collective (a
  rank may save alone); the file's `kiln_process_slices` entry records where each such slice lies in the whole.
  A parameter a script sliced itself (saved as that slice) is put back together from its layout.
- rank 0 the merged parameters: `if get_rank() == 0: save_checkpoint(net, "ckpt/net.ckpt")` after gathering a
  sliced parameter (e.g. `comm_func.all_gather_into_tensor`); or, after the job, merge the N files into one:
  `save_checkpoint(load_distributed_checkpoint(None, files, return_param_dict=True), "net.ckpt")`.

Loading into a job of M ranks (M need not be N): every rank calls `load_distributed_checkpoint(net,
[the N files in rank order], train_strategy_filename=...)`; it rebuilds each whole parameter (from the files'
recorded slices, or from the layouts given) and loads it. A parameter that the new job splits over devices
(shard strategies, `Cell.shard(parameter_plan=...)`, SEMI_AUTO_PARALLEL) keeps its split: the whole value is
placed with the parameter's sharding.

The layouts of sliced parameters are a dict {name: Layout or Layout.to_dict()}, or a JSON file of such
dicts (Kiln's own format: MindSpore's protobuf strategy files are not read).
"""

from __future__ import annotations

import json
import math
import os

import numpy as np

from kiln._backend import distributed as D
from kiln._core.tensor import Parameter, Tensor
from kiln._core.unsupported import ignore_argument
from kiln._parallel.shard import Layout
from kiln.train.checkpoint.api import PROCESS_SLICES, load_checkpoint
from kiln.train.checkpoint.loading import load_param_into_net

__all__ = [
    "load_distributed_checkpoint", "merge_sliced_parameter", "build_searched_strategy", "get_ckpt_path_with_strategy",
]  # fmt: skip


def _layout_dict(name: str, layout) -> dict:
    if isinstance(layout, Layout):
        layout = layout.to_dict()
    if not isinstance(layout, dict) or "device_matrix" not in layout or "tensor_map" not in layout:
        raise TypeError(
            f"The layout of '{name}' must be a Layout (called with a tensor map) or a dict with 'device_matrix' "
            f"and 'tensor_map', but got {layout!r}."
        )
    return layout


def _merge(name: str, slices: list[np.ndarray], layout: dict) -> np.ndarray:
    """The whole tensor from the slices of ranks 0..N-1 saved under `layout` (MindSpore's tensor-map numbering)."""
    dm = tuple(int(d) for d in layout["device_matrix"])
    tmap = tuple(tuple(t) if isinstance(t, (list, tuple)) else (t,) for t in layout["tensor_map"])
    ranks = layout.get("rank_list") or list(range(math.prod(dm)))
    if len(slices) != len(ranks):
        raise ValueError(
            f"The layout of '{name}' has {len(ranks)} devices (device_matrix {dm}), but there are {len(slices)} slices."
        )
    shape = slices[0].shape
    if len(tmap) != len(shape):
        raise ValueError(f"The layout of '{name}' has {len(tmap)} entries for a {len(shape)}-D slice {shape}.")
    k = len(dm)
    axes = [[k - 1 - m for m in entry if m != -1] for entry in tmap]  # mesh axes per tensor dimension
    pieces = [math.prod(dm[a] for a in ax) for ax in axes]
    full = np.zeros(tuple(s * n for s, n in zip(shape, pieces, strict=True)), dtype=slices[0].dtype)
    filled: dict = {}
    for position, value in zip(ranks, slices, strict=True):
        if value.shape != shape:
            raise ValueError(f"The slices of '{name}' have different shapes: {shape} and {value.shape}.")
        coords = np.unravel_index(position, dm)
        index = []
        for ax in axes:
            piece = 0
            for a in ax:
                piece = piece * dm[a] + int(coords[a])
            index.append(piece)
        key = tuple(index)
        if key in filled:
            continue  # a replica of a piece already placed
        filled[key] = True
        full[tuple(slice(i * s, (i + 1) * s) for i, s in zip(index, shape, strict=True))] = value
    if len(filled) != math.prod(pieces):
        have, need = len(filled), math.prod(pieces)
        raise ValueError(f"The slices of '{name}' do not cover the whole tensor ({have} of {need} pieces).")
    return full


def merge_sliced_parameter(sliced_parameters, strategy=None) -> Parameter:
    """Put a parameter back together from the slices ranks saved of it.

    Args:
        sliced_parameters (list[Parameter]): the slices, in rank order, all with the same name.
        strategy (dict, optional): {name: Layout or Layout.to_dict()} describing how the parameter was split;
            None concatenates the slices along axis 0.

    Returns:
        Parameter: the whole parameter, with the slices' name.

    Raises:
        TypeError / ValueError: no slices, different names, or slices that do not fit the layout.
    """
    if not isinstance(sliced_parameters, (list, tuple)) or not sliced_parameters:
        raise TypeError("merge_sliced_parameter: 'sliced_parameters' must be a non-empty list of Parameters.")
    if not all(isinstance(p, Parameter) for p in sliced_parameters):
        raise TypeError("merge_sliced_parameter: every element of 'sliced_parameters' must be a Parameter.")
    name = sliced_parameters[0].name
    if any(p.name != name for p in sliced_parameters):
        raise ValueError(f"merge_sliced_parameter: the slices have different names ({name!r} and others).")
    values = [p.asnumpy() for p in sliced_parameters]
    if strategy is None:
        whole = np.concatenate(values, axis=0)
    else:
        if not isinstance(strategy, dict) or name not in strategy:
            raise ValueError(f"merge_sliced_parameter: 'strategy' has no layout for '{name}'.")
        whole = _merge(name, values, _layout_dict(name, strategy[name]))
    return Parameter(Tensor(whole), name=name, requires_grad=sliced_parameters[0].requires_grad)


def _strategies(train_strategy_filename) -> dict:
    if train_strategy_filename is None:
        return {}
    if isinstance(train_strategy_filename, dict):
        return {k: _layout_dict(k, v) for k, v in train_strategy_filename.items()}
    if not isinstance(train_strategy_filename, (str, os.PathLike)):
        raise TypeError(
            "load_distributed_checkpoint: 'train_strategy_filename' must be a JSON file of layouts or a dict, "
            f"but got {type(train_strategy_filename).__name__}."
        )
    with open(train_strategy_filename, encoding="utf-8") as f:
        data = json.load(f)
    return {k: _layout_dict(k, v) for k, v in data.items()}


def load_distributed_checkpoint(
    network,
    checkpoint_filenames=None,
    predict_strategy=None,
    train_strategy_filename=None,
    strict_load: bool = False,
    dec_key=None,
    dec_mode: str = "AES-GCM",
    format: str = "ckpt",
    return_param_dict: bool = False,
    **kwargs,
):
    """Load the checkpoints that N ranks saved (one file per rank) into `network`, in a job of any size.

    Args:
        network (Cell): the network to load into (None with `return_param_dict=True`).
        checkpoint_filenames (list[str]): the N files, in the order of the ranks that saved them.
        predict_strategy: accepted for MindSpore scripts; the new job's splits come from its own parameters.
        train_strategy_filename (str or dict, optional): the layouts of the parameters the ranks saved slices
            of (see the module docstring); parameters without one must be the same in every file.
        strict_load (bool): passed to `load_param_into_net`.
        format (str): "ckpt" or "safetensors".
        return_param_dict (bool): return {name: Parameter} of the whole parameters (and load nothing).

    Returns:
        dict of the whole parameters when `return_param_dict`, else None.

    Raises:
        ValueError: no files, a parameter missing from a file, or a parameter that differs between the files
            and has no layout.
    """
    ignore_argument("load_distributed_checkpoint", "predict_strategy", predict_strategy,
                    reason="Kiln loads whole parameters; the network's own shard strategies lay them out")  # fmt: skip
    ignore_argument("load_distributed_checkpoint", "options", kwargs, {}, reason="no such option is implemented")
    if dec_key is not None:
        raise NotImplementedError("load_distributed_checkpoint: encrypted checkpoints are not supported by Kiln.")
    if not isinstance(checkpoint_filenames, (list, tuple)) or not checkpoint_filenames:
        raise ValueError("load_distributed_checkpoint: 'checkpoint_filenames' must be a non-empty list of files.")
    layouts = _strategies(train_strategy_filename)
    per_rank = [load_checkpoint(f, format=format) for f in checkpoint_filenames]
    sliced = [json.loads(entries.pop(PROCESS_SLICES, "{}")) for entries in per_rank]
    merged: dict = {}
    for name, first in per_rank[0].items():
        if isinstance(first, str):
            merged[name] = first
            continue
        if any(name in s for s in sliced):
            whole = _from_process_slices(name, checkpoint_filenames, per_rank, sliced)
            merged[name] = Parameter(Tensor(whole), name=name, requires_grad=first.requires_grad)
            continue
        values = []
        for f, entries in zip(checkpoint_filenames, per_rank, strict=True):
            if name not in entries:
                raise ValueError(f"load_distributed_checkpoint: '{name}' is in {checkpoint_filenames[0]} but not {f}.")
            values.append(entries[name].asnumpy())
        if name in layouts:
            whole = _merge(name, values, layouts[name])
        elif all(v.shape == values[0].shape and np.array_equal(v, values[0]) for v in values[1:]):
            whole = values[0]
        else:
            raise ValueError(
                f"load_distributed_checkpoint: '{name}' differs between the {len(values)} checkpoints (each rank "
                "saved a slice of it?); give its layout in 'train_strategy_filename'."
            )
        merged[name] = Parameter(Tensor(whole), name=name, requires_grad=first.requires_grad)
    if return_param_dict:
        return merged
    shardings = {p.name: D.sharding_of(p._data) for p in network.get_parameters()}
    load_param_into_net(network, merged, strict_load=strict_load)
    for p in network.get_parameters():
        if shardings.get(p.name) is not None:
            p._data = D.place(p._data, shardings[p.name])  # the new job's split of the parameter
    return None


def _from_process_slices(name: str, files, per_rank: list[dict], sliced: list[dict]) -> np.ndarray:
    """The whole value of `name` from the slices ranks saved of it (each file's `kiln_process_slices` says where
    its slice lies; a file without an entry for it holds the whole value)."""
    shape = next(tuple(s[name]["shape"]) for s in sliced if name in s)
    first = per_rank[0][name].asnumpy()
    whole = np.zeros(shape, dtype=first.dtype)
    filled = np.zeros(shape, dtype=bool)
    for f, entries, where in zip(files, per_rank, sliced, strict=True):
        if name not in entries:
            raise ValueError(f"load_distributed_checkpoint: '{name}' is in {files[0]} but not {f}.")
        value = entries[name].asnumpy()
        if name in where:
            if tuple(where[name]["shape"]) != shape:
                raise ValueError(f"load_distributed_checkpoint: the files give '{name}' different shapes.")
            index = tuple(slice(a, b) for a, b in where[name]["index"])
        else:
            index = tuple(slice(0, n) for n in shape)
        if whole[index].shape != value.shape:
            raise ValueError(
                f"load_distributed_checkpoint: {f} holds '{name}' of shape {value.shape}, which does not fit its "
                f"recorded place {where.get(name)}."
            )
        whole[index] = value
        filled[index] = True
    if not filled.all():
        raise ValueError(
            f"load_distributed_checkpoint: the files cover {int(filled.sum())} of the {filled.size} elements of "
            f"'{name}': pass every rank's file."
        )
    return whole


def build_searched_strategy(strategy_filename):
    """{parameter name: layout dict} from a strategy file. Kiln's strategy files are JSON ({name: Layout.to_dict()},
    as `load_distributed_checkpoint` reads them); MindSpore's protobuf strategy files are not read."""
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
