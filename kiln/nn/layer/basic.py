"""Basic layers: Dropout and the channel dropouts Dropout1d/2d/3d, Flatten, Unflatten, Identity, Upsample,
ParameterUpdate."""

from __future__ import annotations

import math
import numbers

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, touched
from kiln.nn.layer._variants import op_variants

__all__ = [
    "Dropout", "Flatten", "Identity", "Unflatten", "Upsample", "Dropout1d", "Dropout2d", "Dropout3d",
    "ParameterUpdate",
]  # fmt: skip


class Dropout(Cell):
    """In training mode, zero each element with probability p and scale the others by 1 / (1 - p).

    The identity when the cell is not in training mode (`cell.set_train(False)`, the default).

    Args:
        keep_prob (float): probability of keeping an element, in (0, 1] (deprecated by MindSpore in favour of
            `p`). Default: 0.5.
        p (float, optional): probability of dropping an element, in [0, 1); overrides `keep_prob`.
        dtype (mindspore.dtype): unused (MindSpore compatibility).

    Inputs:
        x (Tensor): floating-point tensor.

    Outputs:
        Tensor of the input's shape.
    """

    def __init__(self, keep_prob: float = 0.5, p: float | None = None, dtype=mstype.float32) -> None:
        super().__init__()
        if p is None:
            if not isinstance(keep_prob, numbers.Real) or not 0.0 < keep_prob <= 1.0:
                raise ValueError(f"For 'Dropout', 'keep_prob' must be a number in (0, 1], but got {keep_prob!r}.")
            p = 1.0 - keep_prob
        elif not isinstance(p, numbers.Real) or not 0.0 <= p < 1.0:
            raise ValueError(f"For 'Dropout', 'p' must be a number in [0, 1), but got {p!r}.")
        self.p = float(p)
        self.keep_prob = 1.0 - self.p
        hold(self, dropout=ops.Dropout(self.keep_prob))

    def construct(self, x):
        if not self.training or self.p == 0.0:
            return x
        return self.dropout(x)[0]  # its Primitive (MindSpore's `dropout`): (output, mask)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class Flatten(Cell):
    """Merge the axes start_dim..end_dim into one.

    Args:
        start_dim (int): first merged axis. Default: 1.
        end_dim (int): last merged axis. Default: -1.
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        for name, v in (("start_dim", start_dim), ("end_dim", end_dim)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"For 'Flatten', '{name}' must be an int, but got {type(v).__name__}.")
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Unflatten(Cell):
    """Split axis `axis` into `unflattened_size`.

    Args:
        axis (int): the axis to split.
        unflattened_size (Union[tuple[int], list[int]]): its new shape; one entry may be -1.
    """

    def __init__(self, axis: int, unflattened_size) -> None:
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(
                f"For 'Unflatten', 'unflattened_size' must be a tuple or list, but got "
                f"{type(unflattened_size).__name__}."
            )
        self.axis, self.unflattened_size = axis, tuple(unflattened_size)

    def construct(self, x):
        axis = self.axis % x.ndim
        size = self.unflattened_size
        if -1 not in size and math.prod(size) != x.shape[axis]:
            raise ValueError(
                f"For 'Unflatten', 'unflattened_size' {list(size)} must multiply to the size of axis "
                f"{self.axis} of input shape {list(x.shape)}."
            )
        return ops.reshape(x, x.shape[:axis] + size + x.shape[axis + 1 :])


class Identity(Cell):
    """Return the input unchanged (placeholder layer); constructor arguments are ignored."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()

    def construct(self, input):
        return input


class Upsample(Cell):
    """Resize the spatial dims of (N, C, *spatial) with `ops.interpolate`.

    Args:
        size (Union[int, tuple[int]], optional): output spatial size.
        scale_factor (Union[float, tuple[float]], optional): output size = floor(size * scale_factor).
        mode (str): 'nearest', 'linear', 'bilinear', 'trilinear' or 'area'. Default: 'nearest'.
        align_corners (bool, optional): linear modes only. Default: None (False).
        recompute_scale_factor (bool, optional): map coordinates with the size ratio.
    """

    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None) -> None:  # fmt: skip
        super().__init__()
        if (size is None) == (scale_factor is None):
            raise ValueError("For 'Upsample', exactly one of 'size' and 'scale_factor' must be given.")
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners, self.recompute_scale_factor = align_corners, recompute_scale_factor

    def construct(self, x):
        return ops.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners,
                               self.recompute_scale_factor)  # fmt: skip

    def extend_repr(self) -> str:
        return f"size={self.size}, scale_factor={self.scale_factor}, mode={self.mode}"


class _ChannelDropout(Cell):
    _fn = None
    _held = None  # (attribute, Primitive class): MindSpore's Dropout2d/3d hold a Dropout2D/3D of keep_prob 1 - p

    def __init__(self, p=0.5) -> None:
        super().__init__()
        if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
            raise ValueError(f"For '{type(self).__name__}', 'p' must be a number in [0, 1], but got {p!r}.")
        self.p = float(p)
        if self._held is not None:
            hold(self, **{self._held[0]: self._held[1](1.0 - self.p)})

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        if self._held is not None and touched(self):  # sharded or replaced: the held primitive's (output, mask)
            return getattr(self, self._held[0])(x)[0]
        return type(self)._fn(x, self.p, True)


Dropout1d, Dropout2d, Dropout3d = op_variants(
    _ChannelDropout,
    ("Dropout1d", ops.dropout1d, "Zero whole channels of (N, C, L) during training with probability `p`."),
    ("Dropout2d", ops.dropout2d, "Zero whole channels of (N, C, H, W) during training with probability `p`."),
    ("Dropout3d", ops.dropout3d, "Zero whole channels of (N, C, D, H, W) during training with probability `p`."),
)
Dropout2d._held, Dropout3d._held = ("dropout2d", ops.Dropout2D), ("dropout3d", ops.Dropout3D)


class ParameterUpdate(Cell):
    """Assign a new value to a Parameter: `ParameterUpdate(param)(value)` writes `value` into `param` (same shape
    and dtype) and returns it."""

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterUpdate wraps a Parameter, not a {type(param).__name__}.")
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x
