"""`AutoParallel`: MindSpore 2.10's cell that declares a network (or a training-step function) model-parallel.

`AutoParallel(network, parallel_mode="semi_auto")` stands for the `set_auto_parallel_context` calls older scripts
make: it puts the job in semi-auto parallel mode with its own settings (`dataset_strategy`, `hsdp`, `pipeline`)
and keeps it there, as MindSpore's compile of the wrapped network does for the whole job; so a `Model` or a
`TrainOneStepCell` built around it reads the batch job-wide too. Each call across processes turns this rank's
inputs into job-wide arrays as its `dataset_strategy` says, and places the parameters the network reaches (a
Cell's own; for a function, those of the Cells, optimizers and Parameters its closure and globals reach) over
every device of the job (`kiln/_parallel/batch.py`). Its outputs are Kiln Tensors every rank can print: a replicated
loss prints the one-device number on every rank.

A configuration method Kiln does not act on raises NotImplementedError naming it, rather than being recorded.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

from kiln._compiler.ir import graph as G
from kiln._core.tensor import Parameter, Tensor
from kiln._parallel import context as PC
from kiln._parallel.batch import (
    global_inputs,
    global_parameters,
    shard_optimizer_state,
    shards_optimizer_state,
    spans_processes,
)
from kiln.nn.cell import Cell
from kiln.nn.optim.optimizer import Optimizer

__all__ = ["AutoParallel"]

# AutoParallel's parallel_mode -> the auto-parallel context's mode. "sharding_propagation" infers the layouts of the
# operators without a strategy from those with one: XLA's sharding propagation does that in either mode.
_MODES = {"semi_auto": PC.SEMI_AUTO_PARALLEL, "sharding_propagation": PC.AUTO_PARALLEL}
_SEARCHES = {"semi_auto": "recursive_programming", "sharding_propagation": "sharding_propagation"}
_NOT_BUILT = {
    "recursive_programming": "a strategy search over a cost model, which Kiln does not have (give strategies with "
    "`shard` and use 'semi_auto' or 'sharding_propagation')",
}


def _refuse(method: str, why: str) -> NotImplementedError:
    return NotImplementedError(f"AutoParallel.{method}: not built in Kiln ({why}).")


class _TrainingStep:
    """What `shard_optimizer_state` reads of a training step: the optimizer and the weights it updates."""

    def __init__(self, optimizer: Optimizer) -> None:
        self.optimizer = optimizer
        self.weights = tuple(optimizer.parameters)


def _code_names(code: types.CodeType) -> list[str]:
    """The global names `code` and the functions defined inside it read, in the order they first appear (the same
    on every rank: each rank places what they reach in this order, one collective after another)."""
    names = dict.fromkeys(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names.update(dict.fromkeys(_code_names(const)))
    return list(names)


def _reached(obj: Any, cells: dict[int, Cell], params: dict[int, Parameter], seen: set[int]) -> None:
    """Collect the Cells and Parameters `obj` reaches: itself, its items, and for a function what its closure and
    the globals its code names hold (through `functools.wraps` and `jit` wrappers and bound methods)."""
    if id(obj) in seen or isinstance(obj, (type, types.ModuleType, str, bytes, int, float, bool)) or obj is None:
        return
    seen.add(id(obj))
    if isinstance(obj, Parameter):
        params[id(obj)] = obj
        return
    if isinstance(obj, Cell):
        cells[id(obj)] = obj
        return
    if isinstance(obj, (list, tuple)):
        items = obj
    elif isinstance(obj, dict):
        items = obj.values()
    elif isinstance(obj, types.MethodType):
        items = (obj.__self__, obj.__func__)
    elif isinstance(obj, functools.partial):
        items = (obj.func, *obj.args, *obj.keywords.values())
    elif isinstance(obj, types.FunctionType):
        closure = tuple(cell.cell_contents for cell in obj.__closure__ or () if _filled(cell))
        named = tuple(obj.__globals__[n] for n in _code_names(obj.__code__) if n in obj.__globals__)
        items = (*closure, *named, *(obj.__defaults__ or ()), getattr(obj, "__wrapped__", None))
    else:
        items = (getattr(obj, "__wrapped__", None),)  # a jit-compiled function or another wrapper
    for item in items:
        _reached(item, cells, params, seen)


def _filled(cell: types.CellType) -> bool:
    try:
        cell.cell_contents  # noqa: B018  (a closure variable not assigned yet raises)
    except ValueError:
        return False
    return True


class AutoParallel(Cell):
    """A network or training-step function run in semi-auto parallel mode over every device of the job.

    Args:
        network: the top Cell (a network, a network with its loss, a training step) or a function (a training
            step, typically decorated with `jit`).
        parallel_mode: "semi_auto" (the strategies given with `shard` / `Layout` split the program) or
            "sharding_propagation" (the same, the layouts of the other operators inferred from them, which XLA's
            partitioner does in both). "recursive_programming" is refused.

    Raises:
        ValueError: an unknown `parallel_mode`.
        TypeError: `network` is neither a Cell nor callable.
        NotImplementedError: "recursive_programming".
    """

    def __init__(self, network: Cell | Callable, parallel_mode: str = "semi_auto") -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell) and not callable(network):
            raise TypeError(f"AutoParallel: 'network' must be a Cell or a function, but got {type(network).__name__}.")
        if parallel_mode in _NOT_BUILT:
            raise NotImplementedError(
                f"AutoParallel(parallel_mode={parallel_mode!r}): not built in Kiln ({_NOT_BUILT[parallel_mode]})."
            )
        if parallel_mode not in _MODES:
            raise ValueError(
                f"AutoParallel: 'parallel_mode' must be one of {[*_MODES, *_NOT_BUILT]}, but got {parallel_mode!r}."
            )
        if isinstance(network, Cell):
            self.network = network
        else:
            object.__setattr__(self, "network", network)  # a function: not a child cell
        self._parallel_mode = parallel_mode
        self._options: dict[str, Any] = {
            "parallel_mode": _MODES[parallel_mode],
            "search_mode": _SEARCHES[parallel_mode],
            "full_batch": False,
            "dataset_strategy": "data_parallel",
            "enable_parallel_optimizer": False,
            "optimizer_weight_shard_size": -1,
            "parallel_optimizer_config": None,
            "pipeline_stages": 1,
            "pipeline_config": None,
        }
        self._apply()

    def _apply(self) -> None:
        """Put the job in this cell's parallel mode and settings (they win over earlier context settings)."""
        PC._context.update(self._options)  # checked when set; the search mode is not a setting Kiln acts on

    def _set(self, **options) -> None:
        PC.set_auto_parallel_context(**options)  # checks the values
        self._options.update(options)
        self._apply()

    # -- what Kiln acts on ----------------------------------------------------------------------------------------
    def dataset_strategy(self, config: str | tuple) -> None:
        """How each rank's inputs make up the job's batch.

        Args:
            config: "data_parallel" (each rank passes its slice of the global batch, split along dimension 0 over
                every device), "full_batch" (every rank passes the whole batch), or a tuple with one strategy (a
                tuple of ints) per input, saying how many parts each dimension is split into.

        Raises:
            ValueError: `config` is None or another string.
            TypeError: `config` is neither a string nor a tuple of tuples of ints.
            NotImplementedError: a tuple of `Layout`s.
        """
        if config is None:
            raise ValueError("AutoParallel.dataset_strategy: 'config' must not be None.")
        if isinstance(config, str):
            if config not in ("data_parallel", "full_batch"):
                raise ValueError(
                    f"AutoParallel.dataset_strategy: a string 'config' must be 'data_parallel' or 'full_batch', "
                    f"but got {config!r}."
                )
            self._set(full_batch=config == "full_batch", dataset_strategy="data_parallel")
            return
        if not isinstance(config, tuple):
            raise TypeError(
                f"AutoParallel.dataset_strategy: 'config' must be a string or a tuple, but got {type(config).__name__}."
            )
        for item in config:
            if isinstance(item, tuple) and all(isinstance(d, int) and not isinstance(d, bool) for d in item):
                continue
            if type(item).__name__ == "Layout" or callable(getattr(item, "to_dict", None)):
                raise _refuse("dataset_strategy", "a dataset strategy of Layouts; give each input a tuple of ints")
            raise TypeError(f"AutoParallel.dataset_strategy: each strategy must be a tuple of ints, but got {item!r}.")
        self._set(full_batch=False, dataset_strategy=tuple(config))

    def hsdp(self, shard_size: int = -1, threshold: int = 64, optimizer_level: str = "level1") -> None:
        """Optimizer parallelism: each optimizer state split over the devices (`enable_parallel_optimizer`).

        Args:
            shard_size: how many devices each state is split over (-1: all of them).
            threshold: states smaller than this many KiB stay whole on every device.
            optimizer_level: "level1" (the optimizer states and their update split); "level2" and "level3"
                (gradients, parameters split too) are refused.

        Raises:
            ValueError: `shard_size` neither -1 nor positive, `threshold` negative, or an unknown level.
            NotImplementedError: "level2" or "level3".
        """
        if isinstance(shard_size, bool) or not isinstance(shard_size, int) or (shard_size != -1 and shard_size < 1):
            raise ValueError(f"AutoParallel.hsdp: 'shard_size' must be -1 or a positive int, but got {shard_size!r}.")
        if isinstance(threshold, bool) or not isinstance(threshold, int) or threshold < 0:
            raise ValueError(f"AutoParallel.hsdp: 'threshold' must be an int >= 0, but got {threshold!r}.")
        if optimizer_level not in ("level1", "level2", "level3"):
            raise ValueError(
                f"AutoParallel.hsdp: 'optimizer_level' must be 'level1', 'level2' or 'level3', got {optimizer_level!r}."
            )
        if optimizer_level != "level1":
            raise _refuse(f"hsdp(optimizer_level={optimizer_level!r})", "only level1, the optimizer states split")
        self._set(
            # a size of 1 splits nothing: every device keeps the whole state
            enable_parallel_optimizer=shard_size != 1,
            optimizer_weight_shard_size=-1 if shard_size == 1 else shard_size,
            parallel_optimizer_config={"parallel_optimizer_threshold": threshold},
        )

    def pipeline(self, stages: int = 1, output_broadcast: bool = False, interleave: bool = False,
                 scheduler: str = "1f1b") -> None:  # fmt: skip
        """Pipeline parallelism: a `parallel.nn.Pipeline` network's stages on `stages` disjoint device groups.

        Args:
            stages: the number of pipeline stages.
            output_broadcast: refused when True (the last stage's result sent to every stage).
            interleave: refused when True (virtual stages).
            scheduler: "1f1b" or "gpipe"; MindSpore's other schedulers are refused.

        Raises:
            TypeError, ValueError: arguments of the wrong type or range.
            NotImplementedError: an option above that Kiln does not build.
        """
        if isinstance(stages, bool) or not isinstance(stages, int):
            raise TypeError(f"AutoParallel.pipeline: 'stages' must be an int, but got {type(stages).__name__}.")
        if stages < 1:
            raise ValueError(f"AutoParallel.pipeline: 'stages' must be at least 1, but got {stages}.")
        if not isinstance(output_broadcast, bool) or not isinstance(interleave, bool):
            raise TypeError("AutoParallel.pipeline: 'output_broadcast' and 'interleave' must be bools.")
        if output_broadcast:
            raise _refuse("pipeline(output_broadcast=True)", "the last stage's result is not sent to the others")
        self._set(
            pipeline_stages=stages,
            pipeline_config={"pipeline_interleave": interleave, "pipeline_scheduler": scheduler},
        )

    def get_pipeline_stages(self) -> int:
        """The number of pipeline stages set with `pipeline` (1 by default)."""
        return self._options["pipeline_stages"]

    # -- what Kiln does not act on: refused, never recorded ------------------------------------------------------
    def save_param_strategy_file(self, file_path: str) -> None:
        """Refused: Kiln writes no strategy file (a checkpoint saved on each rank records its slices instead)."""
        raise _refuse("save_param_strategy_file", "Kiln writes no strategy file; each rank's checkpoint records the "
                      "slices it holds, and load_distributed_checkpoint reads them")  # fmt: skip

    def load_param_strategy_file(self, file_path: str) -> None:
        """Refused: Kiln reads no strategy file."""
        raise _refuse("load_param_strategy_file", "Kiln reads no strategy file")

    def disable_strategy_file_only_for_trainable_params(self) -> None:
        """Refused: Kiln writes no strategy file."""
        raise _refuse("disable_strategy_file_only_for_trainable_params", "Kiln writes no strategy file")

    def save_operator_strategy_file(self, file_path: str) -> None:
        """Refused: Kiln writes no operator strategy file."""
        raise _refuse("save_operator_strategy_file", "Kiln writes no operator strategy file")

    def load_operator_strategy_file(self, file_path: str) -> None:
        """Refused: Kiln reads no operator strategy file."""
        raise _refuse("load_operator_strategy_file", "Kiln reads no operator strategy file")

    def no_init_parameters_in_compile(self) -> None:
        """Refused: parameters are placed when a call first reads them, not while compiling."""
        raise _refuse("no_init_parameters_in_compile", "parameters are placed when a call first reads them")

    def comm_fusion(self, config: dict) -> None:
        """Refused: XLA decides how collectives are fused."""
        raise _refuse("comm_fusion", "XLA decides how its collectives are combined")

    def enable_fp32_communication(self) -> None:
        """Refused: collectives run in the dtype the program computes in."""
        raise _refuse("enable_fp32_communication", "collectives run in the dtype the program computes in")

    def set_group_ckpt_save_file(self, file_path: str) -> None:
        """Refused: Kiln writes no communication-group file."""
        raise _refuse("set_group_ckpt_save_file", "Kiln writes no communication-group file")

    def print_local_norm(self) -> None:
        """Refused: per-device norms are not printed."""
        raise _refuse("print_local_norm", "per-device norms are not printed")

    def dump_local_norm(self, file_path: str) -> None:
        """Refused: per-device norms are not written."""
        raise _refuse("dump_local_norm", "per-device norms are not written")

    def enable_device_local_norm(self) -> None:
        """Refused: per-device norms are not computed."""
        raise _refuse("enable_device_local_norm", "per-device norms are not computed")

    def enable_gradients_mean(self) -> None:
        """Refused: across processes XLA computes the gradient of the global loss itself; there is no
        all-reduce whose sum could be turned into a mean."""
        raise _refuse("enable_gradients_mean", "the gradient is that of the global loss, with no all-reduce to average")

    def disable_gradient_fp32_sync(self) -> None:
        """Refused: gradients are reduced in the dtype the program computes in."""
        raise _refuse("disable_gradient_fp32_sync", "gradients are reduced in the dtype the program computes in")

    def disable_loss_repeated_mean(self) -> None:
        """Refused: a loss repeated over devices is one global value, never summed over its copies."""
        raise _refuse("disable_loss_repeated_mean", "a loss repeated over devices is one value, not summed")

    def transformer_opt(self, file_path: str) -> None:
        """Refused: Kiln has no transformer-specific parallel configuration."""
        raise _refuse("transformer_opt", "Kiln has no transformer-specific parallel configuration")

    # -- calling --------------------------------------------------------------------------------------------------
    def _job_wide(self, args: tuple) -> tuple:
        """This rank's inputs as job-wide arrays, and what the network reaches placed over every device."""
        if not spans_processes() and not shards_optimizer_state():
            return args
        if any(isinstance(x, Tensor) and G.is_symbolic(x._data) for x in args):
            return args  # called inside a program being compiled: the entry of that program placed everything
        cells: dict[int, Cell] = {}
        params: dict[int, Parameter] = {}
        _reached(self.network, cells, params, set())
        if shards_optimizer_state():
            for cell in cells.values():
                for _, optimizer in cell.cells_and_names():
                    if isinstance(optimizer, Optimizer):
                        shard_optimizer_state(_TrainingStep(optimizer))
        if not spans_processes():
            return args
        for cell in cells.values():
            global_parameters(cell.get_parameters())
        global_parameters(params.values())
        return global_inputs(args)

    def __call__(self, *args, **kwargs):
        self._apply()
        args = self._job_wide(args)
        if isinstance(self.network, Cell):
            return super().__call__(*args, **kwargs)
        return self.network(*args, **kwargs)

    def construct(self, *args, **kwargs):
        return self.network(*args, **kwargs)
