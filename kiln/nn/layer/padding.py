"""Padding layers: ConstantPad/ReflectionPad/ReplicationPad 1d-3d, ZeroPad2d and Pad."""

from __future__ import annotations

from kiln import ops
from kiln.nn.cell import Cell
from kiln.nn.layer._held import hold, touched

__all__ = [
    "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
    "ReplicationPad3d", "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "Pad",
]  # fmt: skip


class _Pad(Cell):
    _dims = 1
    _mode = "constant"

    def __init__(self, padding, value=0.0) -> None:
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * (2 * self._dims)
        if not isinstance(padding, (tuple, list)):
            raise TypeError(f"For '{name}', 'padding' must be an int or a tuple of ints, but got {padding!r}.")
        if len(padding) % 2 != 0:  # (left, right) pairs from the last axis backwards, as many as given
            raise ValueError(f"For '{name}', the length of 'padding' must be even, but got {len(padding)}.")
        if any(not isinstance(p, int) or isinstance(p, bool) for p in padding):
            raise TypeError(f"For '{name}', the elements of 'padding' must be ints, but got {padding!r}.")
        if self._mode != "constant" and any(p < 0 for p in padding):
            raise ValueError(f"For '{name}', the elements of 'padding' must be >= 0, but got {padding!r}.")
        self.padding = tuple(padding)
        self.value = value

    def construct(self, x):
        if len(self.padding) > 2 * x.ndim:
            raise ValueError(f"For '{type(self).__name__}', 'padding' pads {len(self.padding) // 2} axes of a "
                             f"{x.ndim}-D input.")  # fmt: skip
        if self._mode == "constant":
            return ops.pad(x, self.padding, "constant", self.value)
        if self._mode == "replicate" and touched(self):  # sharded or replaced: MindSpore's layer calls its PadV3
            if x.ndim == self._dims + 1:  # unbatched: the primitive pads a batch
                return ops.squeeze(self.padv3(ops.expand_dims(x, 0), self.padding, None), 0)
            return self.padv3(x, self.padding, None)
        return ops.pad(x, self.padding, self._mode)


def _replication_init(self, padding) -> None:
    _Pad.__init__(self, padding)
    hold(self, padv3=ops.PadV3(mode="edge"))  # MindSpore's ReplicationPad layers hold it


def _pad_class(name: str, dims: int, mode: str, doc: str):
    cls = type(name, (_Pad,), {"_dims": dims, "_mode": mode, "__doc__": doc})
    if mode == "replicate":
        cls.__init__ = _replication_init
    elif mode != "constant":
        cls.__init__ = lambda self, padding: _Pad.__init__(self, padding)
    return cls


ReflectionPad1d = _pad_class("ReflectionPad1d", 1, "reflect", "Reflect the last axis by padding (left, right).")


ReflectionPad2d = _pad_class("ReflectionPad2d", 2, "reflect", "Reflect the last two axes (left, right, top, bottom).")


ReflectionPad3d = _pad_class("ReflectionPad3d", 3, "reflect", "Reflect the last three axes.")


ReplicationPad1d = _pad_class("ReplicationPad1d", 1, "replicate", "Repeat the edge of the last axis.")


ReplicationPad2d = _pad_class("ReplicationPad2d", 2, "replicate", "Repeat the edges of the last two axes.")


ReplicationPad3d = _pad_class("ReplicationPad3d", 3, "replicate", "Repeat the edges of the last three axes.")


ConstantPad1d = _pad_class("ConstantPad1d", 1, "constant", "Pad the last axis with `value`.")


ConstantPad2d = _pad_class("ConstantPad2d", 2, "constant", "Pad the last two axes with `value`.")


ConstantPad3d = _pad_class("ConstantPad3d", 3, "constant", "Pad the last three axes with `value`.")


class ZeroPad2d(_Pad):
    """Pad the last two axes with zeros (left, right, top, bottom)."""

    _dims = 2

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)


class Pad(Cell):
    """Pad with `paddings` ((before, after) per axis, from the first) in mode 'CONSTANT' (zeros), 'REFLECT' or
    'SYMMETRIC' (the edge repeated in the mirror)."""

    def __init__(self, paddings, mode="CONSTANT") -> None:
        super().__init__()
        if mode not in ("CONSTANT", "REFLECT", "SYMMETRIC"):
            raise ValueError(f"For 'Pad', 'mode' must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', but got {mode!r}.")
        if not isinstance(paddings, (tuple, list)) or any(len(p) != 2 for p in paddings):
            raise ValueError(f"For 'Pad', 'paddings' must be a tuple of (before, after) pairs, but got {paddings!r}.")
        self.paddings, self.mode = tuple(tuple(int(v) for v in p) for p in paddings), mode

    def construct(self, x):
        if len(self.paddings) != x.ndim:
            raise ValueError(f"For 'Pad', 'paddings' has {len(self.paddings)} pairs for a {x.ndim}-D input.")
        if self.mode != "SYMMETRIC":
            flat = tuple(v for pair in reversed(self.paddings) for v in pair)
            return ops.pad(x, flat, "constant" if self.mode == "CONSTANT" else "reflect")
        for axis, (before, after) in enumerate(self.paddings):
            parts = []
            if before:
                parts.append(ops.flip(ops.narrow(x, axis, 0, before), (axis,)))
            parts.append(x)
            if after:
                parts.append(ops.flip(ops.narrow(x, axis, x.shape[axis] - after, after), (axis,)))
            x = ops.concat(parts, axis) if len(parts) > 1 else x
        return x
