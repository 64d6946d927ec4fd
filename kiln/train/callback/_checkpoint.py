"""ModelCheckpoint and CheckpointConfig: save the network during training, keep the newest files."""

from __future__ import annotations

import os
import re
import time

from kiln._core.tensor import Tensor
from kiln._core.unsupported import ignore_argument
from kiln.nn.cell import Cell
from kiln.train.callback._callback import Callback
from kiln.train.checkpoint import save_checkpoint, wait_async_saves

_INFO_KEYS = ("epoch_num", "step_num")


def _non_negative_int(name: str, value) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"CheckpointConfig: '{name}' must be an int >= 0, but got {type(value).__name__} {value!r}.")
    if value < 0:
        raise ValueError(f"CheckpointConfig: '{name}' must be an int >= 0, but got {value!r}.")
    return value


class CheckpointConfig:
    """When to save checkpoints and how many to keep.

    Args:
        save_checkpoint_steps: save every this many steps (takes priority over seconds).
        save_checkpoint_seconds: save every this many seconds (when steps is 0/None).
        keep_checkpoint_max: keep at most this many files of this prefix (the oldest are deleted).
        keep_checkpoint_per_n_minutes: when keep_checkpoint_max is 0: keep one file per this many minutes.
        integrated_save: kept for compatibility.
        async_save: write files on a background thread.
        saved_network: save this Cell instead of the training network.
        append_info: a list of "epoch_num", "step_num" and at most one dict {name: value} stored in each file.
        enc_key, enc_mode: encryption is not supported (enc_key must be None).
        crc_check: add a CRC32 to each file.
        format: "ckpt" or "safetensors".

    Raises:
        ValueError: a negative count, or nothing at all would be saved or kept.
    """

    def __init__(
        self,
        save_checkpoint_steps: int | None = 1,
        save_checkpoint_seconds: int | None = 0,
        keep_checkpoint_max: int | None = 5,
        keep_checkpoint_per_n_minutes: int | None = 0,
        integrated_save: bool = True,
        async_save: bool = False,
        saved_network: Cell | None = None,
        append_info: list | None = None,
        enc_key: bytes | None = None,
        enc_mode: str = "AES-GCM",
        exception_save: bool = False,
        crc_check: bool = False,
        remove_redundancy: bool = False,
        format: str = "ckpt",
        **kwargs,
    ) -> None:
        steps = _non_negative_int("save_checkpoint_steps", save_checkpoint_steps)
        seconds = _non_negative_int("save_checkpoint_seconds", save_checkpoint_seconds)
        keep_max = _non_negative_int("keep_checkpoint_max", keep_checkpoint_max)
        per_minutes = _non_negative_int("keep_checkpoint_per_n_minutes", keep_checkpoint_per_n_minutes)
        if not (steps or seconds or keep_max or per_minutes):
            raise ValueError(
                "CheckpointConfig: save_checkpoint_steps, save_checkpoint_seconds, keep_checkpoint_max and "
                "keep_checkpoint_per_n_minutes cannot all be 0/None."
            )
        if saved_network is not None and not isinstance(saved_network, Cell):
            raise TypeError(
                f"CheckpointConfig: 'saved_network' must be a Cell, but got {type(saved_network).__name__}."
            )
        if format not in ("ckpt", "safetensors"):
            raise ValueError(f"CheckpointConfig: 'format' must be 'ckpt' or 'safetensors', but got {format!r}.")
        if enc_key is not None:
            raise NotImplementedError("CheckpointConfig: encrypted checkpoints (enc_key) are not supported by Kiln.")
        ignore_argument("CheckpointConfig", "options", kwargs, {}, reason="no further checkpoint option is implemented")
        self._save_checkpoint_steps = steps
        self._save_checkpoint_seconds = None if steps else seconds
        self._keep_checkpoint_max = keep_max
        self._keep_checkpoint_per_n_minutes = None if keep_max else per_minutes
        if not keep_max and not per_minutes:
            self._keep_checkpoint_max = 1
        self._integrated_save = bool(integrated_save)
        self._async_save = bool(async_save)
        self._saved_network = saved_network
        self._append_dict = self._parse_append_info(append_info)
        self._enc_key = enc_key
        self._enc_mode = enc_mode
        self._crc_check = bool(crc_check)
        self._format = format
        self.exception_save = exception_save
        self.remove_redundancy = remove_redundancy

    @staticmethod
    def _parse_append_info(append_info) -> dict | None:
        if not append_info:
            return None
        if not isinstance(append_info, list):
            raise TypeError(f"CheckpointConfig: 'append_info' must be a list, but got {type(append_info).__name__}.")
        out: dict = {}
        dicts = 0
        for item in append_info:
            if isinstance(item, str):
                if item not in _INFO_KEYS:
                    raise ValueError(f"CheckpointConfig: 'append_info' strings must be in {_INFO_KEYS}, got {item!r}.")
                out[item] = 0
            elif isinstance(item, dict):
                dicts += 1
                if dicts > 1:
                    raise TypeError("CheckpointConfig: 'append_info' may hold at most one dict.")
                for key, value in item.items():
                    if not isinstance(key, str) or not isinstance(value, (int, float, bool, str, Tensor)):
                        raise TypeError(
                            f"CheckpointConfig: 'append_info' dict entries must be str -> int/float/bool/str/Tensor, "
                            f"but got {key!r}: {type(value).__name__}."
                        )
                    out[key] = value
            else:
                raise TypeError(
                    f"CheckpointConfig: 'append_info' items must be str or dict, got {type(item).__name__}."
                )
        return out

    save_checkpoint_steps = property(lambda self: self._save_checkpoint_steps)
    save_checkpoint_seconds = property(lambda self: self._save_checkpoint_seconds)
    keep_checkpoint_max = property(lambda self: self._keep_checkpoint_max)
    keep_checkpoint_per_n_minutes = property(lambda self: self._keep_checkpoint_per_n_minutes)
    integrated_save = property(lambda self: self._integrated_save)
    async_save = property(lambda self: self._async_save)
    saved_network = property(lambda self: self._saved_network)
    append_dict = property(lambda self: self._append_dict)
    enc_key = property(lambda self: self._enc_key)
    enc_mode = property(lambda self: self._enc_mode)
    crc_check = property(lambda self: self._crc_check)
    format = property(lambda self: self._format)

    def get_checkpoint_policy(self) -> dict:
        """The saving and keeping policy as a dict."""
        return {
            "save_checkpoint_steps": self.save_checkpoint_steps,
            "save_checkpoint_seconds": self.save_checkpoint_seconds,
            "keep_checkpoint_max": self.keep_checkpoint_max,
            "keep_checkpoint_per_n_minutes": self.keep_checkpoint_per_n_minutes,
            "saved_network": self.saved_network,
        }


def _free_prefix(directory: str, prefix: str) -> str:
    """`prefix`, or `prefix_N` with the next free N when checkpoints of `prefix` already exist in `directory`."""
    pattern = re.compile(re.escape(prefix) + r"(?:_(\d+))?-.*\.(?:ckpt|safetensors)$")
    taken = -1
    for name in os.listdir(directory):
        m = pattern.fullmatch(name)
        if m:
            taken = max(taken, int(m.group(1)) if m.group(1) else 0)
    return prefix if taken < 0 else f"{prefix}_{taken + 1}"


class ModelCheckpoint(Callback):
    """Save checkpoints during training as `{prefix}-{epoch}_{step}.ckpt` (step counted within the epoch).

    If files of the same prefix already exist in the directory, the prefix becomes `prefix_1`
    (`prefix_2`, ...) so that earlier runs are not overwritten. A last checkpoint is saved when
    training ends, unless the last step was just saved. Files are written atomically.

    Args:
        prefix: file name prefix (no '/'), or a function of the callback parameters returning the full name.
        directory: where to save (created if needed); default: the current directory.
        config: a CheckpointConfig (default: CheckpointConfig()).
    """

    def __init__(self, prefix="CKP", directory: str | None = None, config: CheckpointConfig | None = None) -> None:
        super().__init__()
        if not callable(prefix) and (not isinstance(prefix, str) or "/" in prefix or not prefix):
            raise ValueError(f"ModelCheckpoint: 'prefix' must be a non-empty str without '/', but got {prefix!r}.")
        if config is None:
            config = CheckpointConfig()
        if not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: 'config' must be a CheckpointConfig, but got {type(config).__name__}.")
        self._config = config
        self._directory = os.path.realpath(directory if directory is not None else os.getcwd())
        os.makedirs(self._directory, exist_ok=True)
        self._prefix_func = prefix if callable(prefix) else None
        self._prefix = prefix if self._prefix_func else _free_prefix(self._directory, prefix)
        self._append = dict(config.append_dict or {})
        self._append_base = {k: self._append.get(k, 0) for k in _INFO_KEYS if k in self._append}
        self._last_triggered_step = 0
        self._last_time = time.time()
        self._last_time_for_keep = time.time()
        self._latest_ckpt_file_name = ""
        self._written: list[str] = []  # files of this prefix, oldest first

    @property
    def latest_ckpt_file_name(self) -> str:
        """The path of the last checkpoint written."""
        return self._latest_ckpt_file_name

    def on_train_begin(self, run_context) -> None:
        self._last_triggered_step = run_context.original_args().get("cur_step_num", 0)
        self.begin(run_context)

    def step_end(self, run_context) -> None:
        self._save(run_context.original_args(), force=False)

    def end(self, run_context) -> None:
        self._save(run_context.original_args(), force=True)
        if self._config.async_save:
            wait_async_saves()

    def _due(self, cb_params, force: bool) -> bool:
        steps, seconds = self._config.save_checkpoint_steps, self._config.save_checkpoint_seconds
        if steps:
            return force or cb_params.cur_step_num >= self._last_triggered_step + steps
        if seconds:
            now = time.time()
            if force or now - self._last_time > seconds:
                self._last_time = now
                return True
        return False

    def _existing_files(self) -> list[str]:
        """Checkpoints of this prefix in the directory, oldest first (files this callback wrote keep their order)."""
        fmt = self._config.format
        pattern = re.compile(re.escape(self._prefix) + r"-[\d_]+\." + fmt)
        found = [os.path.join(self._directory, n) for n in os.listdir(self._directory) if pattern.fullmatch(n)]
        ours = [f for f in self._written if f in found]
        others = sorted((f for f in found if f not in ours), key=os.path.getmtime)
        return others + ours

    def _prune(self) -> None:
        files = self._existing_files()
        keep_max, per_minutes = self._config.keep_checkpoint_max, self._config.keep_checkpoint_per_n_minutes
        if keep_max:
            while len(files) >= keep_max:
                self._remove(files.pop(0))
        elif per_minutes:
            now = time.time()
            if now - self._last_time_for_keep < per_minutes * 60:
                recent = [f for f in files if now - os.path.getmtime(f) < per_minutes * 60]
                for f in recent[1:]:  # keep the oldest of the recent window
                    self._remove(f)

    def _remove(self, path: str) -> None:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        if path in self._written:
            self._written.remove(path)

    def _save(self, cb_params, force: bool) -> None:
        step = cb_params.cur_step_num
        if step == self._last_triggered_step or not self._due(cb_params, force):
            return
        if self._config.async_save:
            wait_async_saves()
        batch_num = cb_params.get("batch_num") or 1
        epoch = cb_params.cur_epoch_num
        fmt = self._config.format
        if self._prefix_func is not None:
            name = self._prefix_func(cb_params)
            if not isinstance(name, str) or "/" in name:
                raise ValueError(f"ModelCheckpoint: the prefix function must return a str without '/', got {name!r}.")
            self._prefix = name
            file_name = f"{name}.{fmt}"
        else:
            file_name = f"{self._prefix}-{epoch}_{(step - 1) % batch_num + 1}.{fmt}"
            self._prune()
        path = os.path.join(self._directory, file_name)
        self._last_time_for_keep = time.time()
        self._last_triggered_step = step
        if "epoch_num" in self._append_base:
            self._append["epoch_num"] = self._append_base["epoch_num"] + epoch
        if "step_num" in self._append_base:
            self._append["step_num"] = self._append_base["step_num"] + step
        network = self._config.saved_network or cb_params.train_network
        save_checkpoint(
            network,
            path,
            async_save=self._config.async_save,
            append_dict=dict(self._append) or None,
            crc_check=self._config.crc_check,
            format=fmt,
        )
        if path in self._written:
            self._written.remove(path)
        self._written.append(path)
        self._latest_ckpt_file_name = path


_current_network: Cell | None = None


def _set_cur_net(net: Cell) -> None:
    """Record `net` as the network whose parameters the run's checkpoints hold (zoo callbacks call it before saving).

    Kiln's `ModelCheckpoint` saves the run's `train_network` itself; the record is read back by `_get_cur_net`.
    """
    global _current_network
    if not isinstance(net, Cell):
        raise TypeError(f"_set_cur_net: expected a Cell, but got {type(net).__name__}.")
    _current_network = net


def _get_cur_net() -> Cell | None:
    """The network `_set_cur_net` recorded last (None before any)."""
    return _current_network
