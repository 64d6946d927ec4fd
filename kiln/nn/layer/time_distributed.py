"""`nn.TimeDistributed`: apply a layer to every time step of a (batch, time, ...) input."""

from __future__ import annotations

from kiln import ops
from kiln._core.tensor import Tensor
from kiln.nn.cell import Cell

__all__ = ["TimeDistributed"]


class TimeDistributed(Cell):
    """Apply `layer` to every slice of the input along `time_axis` (outputs stacked on that axis); with
    `reshape_with_axis`, the time axis is merged into that axis for one call of `layer` and split again."""

    def __init__(self, layer, time_axis, reshape_with_axis=None):
        if not isinstance(layer, Cell) and not callable(layer):
            raise TypeError(f"TimeDistributed applies a Cell or a callable at each time step, not a "
                            f"{type(layer).__name__}.")  # fmt: skip
        super().__init__()
        for name, v in (("time_axis", time_axis), ("reshape_with_axis", reshape_with_axis)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
                raise TypeError(f"For 'TimeDistributed', '{name}' must be an int, but got {type(v).__name__}.")
        self.layer, self.time_axis, self.reshape_with_axis = layer, time_axis, reshape_with_axis

    def construct(self, inputs):
        if not isinstance(inputs, Tensor):
            raise TypeError("For 'TimeDistributed', the inputs and outputs must be a Tensor.")
        if inputs.ndim < 3:
            raise ValueError(f"For 'TimeDistributed', inputs shape must be at least 3D, but got {inputs.ndim}.")
        rank = inputs.ndim
        t = self.time_axis % rank
        if self.reshape_with_axis is None:
            outs = [self.layer(x) for x in ops.unstack(inputs, t)]
            return ops.stack(outs, t)
        r = self.reshape_with_axis % rank
        # bring the time axis next to the merged axis, then merge the pair into one
        t_new = rank - 2 if r == rank - 1 else (r + 1 if t > r else r - 1)
        pos = min(t_new, r)
        lo, hi = min(t_new, t), max(t_new, t)
        perm = tuple(range(lo)) + (hi,) + tuple(range(lo, hi)) + tuple(range(hi + 1, rank))
        moved = ops.transpose(inputs, perm)
        shape = moved.shape
        outputs = self.layer(ops.reshape(moved, shape[:pos] + (-1,) + shape[pos + 2 :]))
        if pos >= outputs.ndim:
            raise ValueError("For 'TimeDistributed', 'reshape_with_axis' is invalid for this layer's output.")
        new_shape = outputs.shape[:pos] + shape[pos : pos + 2] + outputs.shape[pos + 1 :]
        return ops.reshape(outputs, (-1,) + new_shape[1:])
