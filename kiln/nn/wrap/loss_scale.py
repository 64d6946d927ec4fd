"""Loss-scaled training (MindSpore's `nn.wrap.loss_scale`): `TrainOneStepWithLossScaleCell` and the update cells
`DynamicLossScaleUpdateCell` / `FixedLossScaleUpdateCell` that adjust the scale after each step."""

from __future__ import annotations

import numpy as np

from kiln import _backend as B
from kiln import ops
from kiln._compiler.ir import graph as G
from kiln._core.tensor import Parameter, Tensor
from kiln._parallel import context as PC
from kiln.context import get_context
from kiln.nn.cell import Cell
from kiln.nn.wrap.cell_wrapper import TrainOneStepCell

__all__ = ["DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "TrainOneStepWithLossScaleCell"]


class DynamicLossScaleUpdateCell(Cell):
    """Divide the loss scale by `scale_factor` (not below 1) on overflow; multiply it by `scale_factor` after
    `scale_window` steps without one.

    Inputs:
        loss_scale (Parameter): the scale, updated in place; overflow (bool Tensor).

    Outputs:
        The overflow flag.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window) -> None:
        super().__init__()
        self.scale_window = Tensor(np.int32(scale_window))
        self.scale_factor = Tensor(np.float32(scale_factor))
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(np.int32(1)), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(np.int32(0)), name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(np.float32(1.0))
        # MindSpore's operator attributes, which a subclass written for it may call in its own `construct`.
        self.select = ops.Select()
        self.max = ops.Maximum()
        self.reciprocal = ops.Reciprocal()
        self.less_equal = ops.LessEqual()
        self.logic_and = ops.LogicalAnd()
        self.logic_not = ops.LogicalNot()
        self.logic_or = ops.LogicalOr()
        self.const_true = Tensor(True)

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        on_overflow = ops.select(overflow, ops.maximum(loss_scale / self.scale_factor, self.minimum_loss_scale),
                                 loss_scale)  # fmt: skip
        should_inc = ops.less_equal(self.scale_window, self.cur_iter - self.last_overflow_iter)
        last = ops.select(ops.logical_or(overflow, should_inc), self.cur_iter, self.last_overflow_iter)
        ops.assign(self.last_overflow_iter, last)
        grow = ops.logical_and(should_inc, ops.logical_not(overflow))
        ops.assign(loss_scale, ops.select(grow, on_overflow * self.scale_factor, on_overflow))
        ops.assign(self.cur_iter, self.cur_iter + 1)
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A loss scale that never changes; passes the overflow flag through."""

    def __init__(self, loss_scale_value) -> None:
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with loss scaling: the gradients of `loss * scale` are divided by the scale; if any is
    inf or NaN the optimizer step is skipped.

    Args:
        network: a Cell returning the loss.
        optimizer: the optimizer.
        scale_sense (Union[Tensor, Cell]): the scale (shape () or (1,)), or an update Cell holding it.

    Outputs:
        (loss, overflow, loss scale).
    """

    def __init__(self, network, optimizer, scale_sense) -> None:
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(np.float32(scale_sense.get_loss_scale())), name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if tuple(scale_sense.shape) not in ((), (1,)):
                raise ValueError(
                    f"TrainOneStepWithLossScaleCell: a Tensor loss scale holds one value (shape () or (1,)); this "
                    f"one has shape {tuple(scale_sense.shape)}."
                )
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError(
                "TrainOneStepWithLossScaleCell: pass the loss scale as a Tensor or as an update Cell (e.g. "
                f"DynamicLossScaleUpdateCell), not a {type(scale_sense).__name__}."
            )
        # MindSpore's operator attributes, which subclasses written for it call in their own `construct`.
        self.hyper_map = ops.HyperMap()
        self.base = Tensor(np.float32(1.0))
        self.base0 = Tensor(np.int32(0))
        self.reduce_sum = ops.ReduceSum(keep_dims=False)
        self.reduce_all = ops.ReduceAll(keep_dims=False)
        self.less_equal = ops.LessEqual()
        self.equal = ops.Equal()
        self.logic_not = ops.LogicalNot()
        self.allreduce = ops.AllReduce()
        self.is_distributed = self.parallel_mode != PC.STAND_ALONE
        self.gpu_target = get_context("device_target") == "GPU"
        # MindSpore's choices of overflow check by chip; Kiln runs no Ascend chip and checks with `isfinite`.
        self.ascend_910a_target = False
        self.ascend_910b_target = False
        self.enable_allfinite = True
        self.enable_tuple_broaden = True

    def construct(self, *inputs):
        loss = self.network(*inputs)
        scaling_sens = self.scale_sense
        sens = ops.ones_like(loss) * ops.cast(scaling_sens, loss.dtype)
        grads = self.grad(self.network, self.weights)(*inputs, sens)
        grads = tuple(g * ops.cast(ops.reciprocal(scaling_sens), g.dtype) for g in grads)
        grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(None, grads)
        overflow = self.process_loss_scale(cond)
        self._step_unless(overflow, grads)
        return loss, cond, scaling_sens

    def _step_unless(self, overflow, grads) -> None:
        """The optimizer step unless `overflow` is True. With a concrete flag (PyNative) a Python branch skips it;
        in a graph being compiled the step runs and every Parameter the optimizer holds (the weights, its moments
        and step counter) is then selected back to its value from before the step where the flag is True."""
        if not (G.is_symbolic(overflow._data) or B.is_tracer(overflow._data)):
            if not bool(overflow):
                self.optimizer(grads)
            return
        state = list(self.optimizer.get_parameters())
        before = [ops.identity(p) for p in state]
        self.optimizer(grads)
        for p, old in zip(state, before):
            ops.assign(p, ops.select(overflow, old, p))

    def set_sense_scale(self, sens) -> None:
        """Replace the loss scale (when `scale_sense` was a Tensor)."""
        if not isinstance(sens, Tensor):
            raise TypeError(
                f"TrainOneStepWithLossScaleCell.set_sense_scale: the new scale must be a Tensor, not a "
                f"{type(sens).__name__}."
            )
        self.scale_sense.set_data(sens)

    def start_overflow_check(self, pre_cond, compute_input):
        """MindSpore's overflow-status setup (Ascend registers): returns (status, compute_input)."""
        return Tensor(np.zeros(8, np.int32)), compute_input

    def get_overflow_status(self, status, compute_output) -> Tensor:
        """True (bool scalar) when a gradient holds inf or NaN."""
        flags = [ops.logical_not(ops.all(ops.isfinite(g))) for g in compute_output]
        return ops.any(ops.stack(flags)) if flags else Tensor(False)

    def process_loss_scale(self, overflow):
        """Let the update Cell adjust the scale; returns the overflow flag."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow
