"""Gradient reducers: `DistributedGradReducer` (data-parallel all-reduce) and `PipelineGradReducer`.

In data-parallel training every rank computes the gradients of its own shard of the batch; the reducer
all-reduces them (one XLA all-reduce per dtype: the gradients are flattened into one buffer first) and,
with `mean=True`, divides by the number of ranks, so every rank applies the same update: the gradient of
the mean loss over the whole global batch when the shards are equal.

Inside one process with several devices there is one rank: `nn.TrainOneStepCell` spreads each batch over
the devices instead (`spread_batch`), XLA's partitioner computes the gradients of the whole batch across
them, and the reducer has nothing left to do.
"""

from __future__ import annotations

from kiln import ops
from kiln._backend import distributed as D
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln._parallel import context as PC
from kiln._parallel.batch import (
    global_inputs,
    global_parameters,
    shard_optimizer_state,
    shards_optimizer_state,
    spans_processes,
)
from kiln.communication import _collective as C
from kiln.communication import _virtual
from kiln.communication import management as M
from kiln.context import get_context
from kiln.nn.cell import Cell

__all__ = ["DistributedGradReducer", "PipelineGradReducer"]


class DistributedGradReducer(Cell):
    """All-reduce a tuple of gradients across the ranks of `group` (and average them with `mean`).

    Args:
        parameters: the parameters the gradients belong to (one gradient per parameter, in this order).
        mean: divide the sum by `degree`; None reads `gradients_mean` from `set_auto_parallel_context`.
        degree: the divisor of the mean; None means the size of `group`.
        fusion_type: accepted for MindSpore scripts (gradients are always fused per dtype).
        group: the ranks to reduce over (default: all).

    Inputs:
        grads (tuple[Tensor]): this rank's gradients.

    Outputs:
        tuple[Tensor]: the reduced gradients, identical on every rank.

    Attributes (as MindSpore's): `mean`, `degree` (the float32 Tensor `1 / degree`, the factor of the mean),
    `allreduce` and `allgather` (the collectives over `group`), `map_`, `allreduce_filter` (per parameter,
    whether it is reduced: not when `layerwise_parallel`), `split_fusion` and `op_list` (no split fusion: False,
    ()), `mode` (the execution mode when built) and `enable_tuple_broaden`.

    Raises:
        RuntimeError: before `communication.init()`.
    """

    def __init__(self, parameters, mean=None, degree=None, fusion_type=1, group=M.GlobalComm.WORLD_COMM_GROUP):
        super().__init__(auto_prefix=False)
        C.check_group("DistributedGradReducer", group)
        self._ranks = M.group_ranks(group, "DistributedGradReducer")
        if mean is None:
            mean = PC.gradients_mean()
        if not isinstance(mean, bool):
            raise TypeError(f"DistributedGradReducer: 'mean' must be a bool or None, but got {type(mean).__name__}.")
        if degree is None:
            degree = len(self._ranks)
        if isinstance(degree, bool) or not isinstance(degree, int) or degree < 1:
            raise ValueError(f"DistributedGradReducer: 'degree' must be a positive int, but got {degree!r}.")
        parameters = list(parameters)
        self.mean = mean
        self._divisor = degree  # `degree` itself is MindSpore's Tensor 1 / degree
        self.degree = Tensor(1.0 / degree, mstype.float32)
        self.group = group
        self._num_params = len(parameters)
        self.map_ = ops.Map()
        self.allreduce_filter = tuple(not getattr(p, "layerwise_parallel", False) for p in parameters)
        self.split_fusion = False
        self.op_list = ()
        self.allreduce = ops.AllReduce(group=group)
        self.allgather = ops.AllGather(group)
        self.mode = get_context("mode")
        self.enable_tuple_broaden = True

    def construct(self, grads):
        grads = tuple(grads)
        if len(grads) != self._num_params:
            raise ValueError(
                f"DistributedGradReducer: got {len(grads)} gradient(s) for {self._num_params} parameter(s)."
            )
        scale = 1.0 / self._divisor if self.mean else None
        if len(self._ranks) == 1 and scale in (None, 1.0):
            return grads
        for g in grads:
            if not isinstance(g, Tensor):
                raise TypeError(f"DistributedGradReducer: every gradient must be a Tensor, got {type(g).__name__}.")
            C._check_tensor("DistributedGradReducer", g)
        if C.recording() or _virtual.active():
            return self._reduce_ops(grads, scale)
        reduced = D.all_reduce_fused([g._data for g in grads], self._ranks, scale)
        return tuple(Tensor._wrap(r) for r in reduced)

    def _reduce_ops(self, grads, scale):
        """The reduction as Kiln ops (recorded in a graph): per dtype, one AllReduce of the flattened gradients."""
        out = list(grads)
        by_dtype: dict = {}
        for i, g in enumerate(grads):
            by_dtype.setdefault(g.dtype, []).append(i)
        for positions in by_dtype.values():
            flat = ops.concat([grads[i].reshape(-1) for i in positions]) if len(positions) > 1 else None
            flat = grads[positions[0]].reshape(-1) if flat is None else flat
            total = C.run("DistributedGradReducer", "all_reduce", flat, self.group)
            if scale is not None:
                total = total * scale
            start = 0
            for i in positions:
                n = grads[i].size
                out[i] = total[start : start + n].reshape(grads[i].shape)
                start += n
        return tuple(out)


class PipelineGradReducer(Cell):
    """Pipeline-parallel gradient reducer. In one process there is nothing to reduce: the gradients are divided by
    `scale_sense` (the accumulation buffers `accu_grads.*` exist for checkpoint layout and are reset)."""

    def __init__(self, parameters, scale_sense=1.0, opt_shard=None) -> None:
        super().__init__(auto_prefix=False)
        self.accu_grads = ParameterTuple(parameters).clone(prefix="accu_grads", init="zeros")
        self.scale_sense = Parameter(Tensor(float(scale_sense)), name="scale_sense")
        self.opt_shard = bool(opt_shard)

    def construct(self, grads):
        out = []
        for g, acc in zip(grads, self.accu_grads):
            out.append(g / ops.cast(self.scale_sense, g.dtype))
            ops.assign(acc, ops.zeros_like(acc))
        return tuple(out)


def data_parallel_reducer(parameters):
    """The reducer `nn.TrainOneStepCell` inserts in data-parallel mode, or None outside it."""
    if not PC.is_data_parallel():
        return None
    size = M.get_group_size()  # before init(): its error says to call init()
    if PC.parallel_mode() in (PC.SEMI_AUTO_PARALLEL, PC.AUTO_PARALLEL):
        # One program spans every process's devices: XLA's partitioner reduces the gradients itself.
        return None
    device_num = PC._context["device_num"]
    if device_num is not None and device_num != size:
        raise ValueError(
            f"set_auto_parallel_context(device_num={device_num}) does not match the job, which has {size} rank(s) "
            "(one per process). Within a process Kiln spreads each batch over its devices by itself: leave "
            "device_num unset, or set it to the number of processes."
        )
    return DistributedGradReducer(parameters, PC.gradients_mean(), size)


def spread_batch(cell, inputs):
    """Forward pre-hook: each input Tensor's first axis spread over this process's devices (one process only);
    across processes in semi-auto parallel, the inputs and parameters become arrays over every process's devices;
    with optimizer parallelism the optimizer's states are placed split (`_parallel.batch`)."""
    if shards_optimizer_state():
        shard_optimizer_state(cell)
    if spans_processes():
        global_parameters(cell.get_parameters())
        return global_inputs(tuple(inputs))
    if PC.parallel_mode() not in (PC.DATA_PARALLEL, PC.HYBRID_PARALLEL):
        return tuple(inputs)
    return tuple(Tensor._wrap(D.shard_batch(x._data)) if isinstance(x, Tensor) else x for x in inputs)


def spreads_batches() -> bool:
    """Whether data-parallel steps in this process spread their batches over several devices."""
    if spans_processes() or shards_optimizer_state():
        return True
    if PC.parallel_mode() not in (PC.DATA_PARALLEL, PC.HYBRID_PARALLEL):
        return False  # semi-auto: the strategies say how tensors are split
    return D.process_count() == 1 and D.local_device_count() > 1 and not _virtual.active()
