"""SEMI_AUTO_PARALLEL: `Layout`, `Primitive.shard`, `Cell.shard` and `ms.shard` on XLA's SPMD partitioner.

A strategy says how a tensor is split over the devices; Kiln turns it into a sharding constraint on that
tensor (a `ShardingConstraint` equation in a graph, lowering to `with_sharding_constraint` on a
`NamedSharding`; in PyNative the tensor is placed with that sharding), and XLA's partitioner splits the
program around it, propagating shardings to the other ops and inserting the collectives.

- A tuple strategy, e.g. `ops.MatMul().shard(((2, 1), (1, 2)))`: entry i is how many pieces dimension i
  is cut into. The devices form one mesh whose axes are the prime factors of the device count (4 devices:
  a 2 x 2 mesh "d0", "d1"); an entry takes as many mesh axes as its factors need, the remaining axes
  replicate the tensor. Within one primitive's inputs, a dimension they share (MatMul's contraction
  dimension, dimensions aligned by broadcasting) takes the same axes and the others different ones, as
  MindSpore's device matrix does (MatMul ((2, 1), (1, 2)): rows on d0, columns on d1); where that does
  not fit, each tensor takes the first free axes. Every tensor of a program uses the same mesh.
- A `Layout((2, 2), ("dp", "mp"))` names the mesh axes; `layout("dp", "None")` maps dimension 0 onto
  "dp" and leaves dimension 1 whole; a tuple of names splits one dimension over several axes.

Strategies act only in SEMI_AUTO_PARALLEL and AUTO_PARALLEL modes (`set_auto_parallel_context`), as in
MindSpore; in other modes they are kept and ignored. The mesh is every device of the job: in one process its
devices (or the first `device_num` of them when it is set); across processes (`kiln msrun`) the devices of all
of them in process order, one program over all of them (`device_num` must then count them all). How the
batch and the parameters enter that program is `_parallel/batch.py`'s part.
"""

from __future__ import annotations

import itertools
import math

from kiln._backend import distributed as D
from kiln._backend import is_tracer
from kiln._compiler.ir import graph as G
from kiln._core.primitive import PrimitiveDef
from kiln._core.tensor import Parameter, Tensor
from kiln._parallel import context as PC
from kiln._pynative import tape
from kiln._pynative.dispatch import apply

__all__ = ["Layout", "constrain", "shard", "shard_cell", "shard_primitive", "spec_for"]


class Layout:
    """A named arrangement of the devices, and (once called) how a tensor's dimensions map onto it.

    Args:
        device_matrix (tuple[int]): the shape of the device mesh; its product is the number of devices used.
        alias_name (tuple[str]): a name for each mesh axis ("None" is reserved: no split).
        rank_list (list[int], optional): the devices, in mesh order (default: 0, 1, ...).

    Calling a layout, `layout("dp", ("sp", "mp"), "None")`, gives the layout of one tensor: each argument
    names the mesh axis (or axes) its dimension is split over, "None" for a whole dimension.

    Raises:
        TypeError / ValueError: malformed arguments, an unknown or repeated axis name.
    """

    def __init__(self, device_matrix, alias_name, rank_list=None) -> None:
        if not isinstance(device_matrix, tuple) or not all(
            isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in device_matrix
        ):
            raise TypeError(f"Layout: 'device_matrix' must be a tuple of positive ints, but got {device_matrix!r}.")
        if not isinstance(alias_name, tuple) or not all(isinstance(a, str) and a for a in alias_name):
            raise TypeError(f"Layout: 'alias_name' must be a tuple of non-empty strs, but got {alias_name!r}.")
        if len(device_matrix) != len(alias_name):
            raise ValueError(
                f"Layout: 'device_matrix' {device_matrix} and 'alias_name' {alias_name} must have the same length."
            )
        if "None" in alias_name:
            raise ValueError("Layout: 'None' cannot be an axis name: it means a dimension that is not split.")
        if len(set(alias_name)) != len(alias_name):
            raise ValueError(f"Layout: the axis names {alias_name} must be different.")
        n = math.prod(device_matrix)
        if rank_list is None:
            rank_list = list(range(n))
        if not isinstance(rank_list, list) or not all(isinstance(r, int) for r in rank_list) or len(rank_list) != n:
            raise ValueError(f"Layout: 'rank_list' must be a list of {n} ints (the device matrix's size).")
        self._device_shape = device_matrix
        self._alias_name = alias_name
        self._rank_list = rank_list
        self._tensor_map = None
        self._spec = None

    def __call__(self, *tensor_map) -> Layout:
        used: set = set()
        spec = []
        for entry in tensor_map:
            names = entry if isinstance(entry, tuple) else (entry,)
            axes = []
            for name in names:
                if name == "None":
                    continue
                if name not in self._alias_name:
                    raise ValueError(f"Layout: the axis {name!r} is not one of {self._alias_name}.")
                if name in used:
                    raise ValueError(f"Layout: the axis {name!r} is used more than once in {tensor_map}.")
                used.add(name)
                axes.append(name)
            spec.append(None if not axes else axes[0] if len(axes) == 1 else tuple(axes))
        out = Layout(self._device_shape, self._alias_name, list(self._rank_list))
        out._tensor_map = tuple(tensor_map)
        out._spec = tuple(spec)
        return out

    def to_dict(self) -> dict:
        """The layout as a dict: device_matrix, tensor_map (MindSpore's numbering: the last mesh axis is 0,
        -1 for a whole dimension), interleaved_parallel, alias_name, rank_list.

        Raises:
            ValueError: the layout was not called with a tensor map.
        """
        if self._spec is None:
            raise ValueError("Layout.to_dict(): call the layout with a tensor map first, e.g. layout('dp', 'None').")
        last = len(self._alias_name) - 1

        def number(entry):
            if entry is None:
                return -1
            if isinstance(entry, tuple):
                return tuple(last - self._alias_name.index(a) for a in entry)
            return last - self._alias_name.index(entry)

        return {
            "device_matrix": self._device_shape,
            "tensor_map": tuple(number(e) for e in self._spec),
            "interleaved_parallel": False,
            "alias_name": self._alias_name,
            "rank_list": list(self._rank_list),
        }

    def __repr__(self) -> str:
        shape, names, tmap = self._device_shape, self._alias_name, self._tensor_map
        return f"Layout(device_matrix={shape}, alias_name={names}, tensor_map={tmap})"


# -- strategies -> shardings --------------------------------------------------------------------------------------


def _device_count() -> int:
    n = PC._context["device_num"]
    if n is not None and D.process_count() > 1 and n == D.process_count():
        # A MindSpore script sets device_num=get_group_size(): there a rank is a device, here a process whose
        # devices all take part, so the number of ranks means the whole job.
        return D.device_count()
    if n is not None and D.process_count() > 1 and n != D.device_count():
        raise ValueError(
            f"set_auto_parallel_context(device_num={n}) does not match the job: {D.process_count()} processes with "
            f"{D.device_count()} devices in all. Across processes the strategies split over every device of the job: "
            f"set device_num={D.device_count()} (or the number of ranks, {D.process_count()}), or leave it unset."
        )
    return n if n is not None else D.device_count()


def _primes(n: int) -> list[int]:
    out, p = [], 2
    while n > 1:
        while n % p == 0:
            out.append(p)
            n //= p
        p += 1
    return out or [1]


def spec_for(name: str, what: str, strategy, shape: tuple) -> tuple:
    """The hashable sharding descriptor (mesh shape, axis names, devices, partition) of one tensor.

    Raises:
        ValueError: the strategy does not fit the tensor or the devices.
    """
    if isinstance(strategy, Layout):
        if strategy._spec is None:
            raise ValueError(f"For '{name}', the Layout of {what} has no tensor map: call it, e.g. layout('dp').")
        spec = strategy._spec
        if len(spec) != len(shape):
            raise ValueError(f"For '{name}', the layout of {what} has {len(spec)} entries for a {len(shape)}-D tensor.")
        sizes = dict(zip(strategy._alias_name, strategy._device_shape, strict=True))
        for dim, entry in zip(shape, spec, strict=True):
            cut = math.prod(sizes[a] for a in ((entry,) if isinstance(entry, str) else entry or ()))
            if dim % cut:
                raise ValueError(f"For '{name}', the layout {strategy._tensor_map} of {what} does not divide {shape}.")
        devices = tuple(strategy._rank_list)
        if max(devices) >= D.device_count():
            have = D.device_count()
            raise ValueError(f"For '{name}', the layout needs {max(devices) + 1} devices; there are {have}.")
        return (strategy._device_shape, strategy._alias_name, devices, spec)
    if not isinstance(strategy, tuple) or not all(isinstance(s, int) and not isinstance(s, bool) for s in strategy):
        raise TypeError(f"For '{name}', the strategy of {what} must be a tuple of ints or a Layout, got {strategy!r}.")
    if len(strategy) != len(shape):
        raise ValueError(
            f"For '{name}', the strategy {strategy} of {what} has {len(strategy)} entries for a {len(shape)}-D tensor."
        )
    n = _device_count()
    primes = _primes(n)
    names = tuple(f"d{i}" for i in range(len(primes)))
    free = list(range(len(primes)))
    spec = []
    for dim, k in zip(shape, strategy, strict=True):
        if k < 1 or dim % k:
            raise ValueError(f"For '{name}', the strategy {strategy} of {what} does not divide its shape {shape}.")
        if k == 1:
            spec.append(None)
            continue
        chosen = None
        for r in range(1, len(free) + 1):
            for combo in itertools.combinations(free, r):
                if math.prod(primes[i] for i in combo) == k:
                    chosen = combo
                    break
            if chosen:
                break
        if chosen is None:
            raise ValueError(
                f"For '{name}', the strategy {strategy} of {what} needs more devices than the {n} available "
                "(the product of a strategy must divide the device count)."
            )
        for i in chosen:
            free.remove(i)
        spec.append(names[chosen[0]] if len(chosen) == 1 else tuple(names[i] for i in chosen))
    return (tuple(primes), names, tuple(range(n)), tuple(spec))


def _take(free: list, primes: list, k: int):
    for r in range(1, len(free) + 1):
        for combo in itertools.combinations(free, r):
            if math.prod(primes[i] for i in combo) == k:
                return combo
    return None


def joint_specs(items: list) -> list | None:
    """Descriptors for the tensor inputs of one op, whose dimensions carry labels: dimensions with one label
    (a contraction dimension, broadcast dimensions) share mesh axes, different labels get different axes.

    Args:
        items: (strategy, shape, labels) per tensor; strategies are tuples of ints fitting their shapes.

    Returns:
        One descriptor per item, or None when the strategies do not fit together that way.
    """
    n = _device_count()
    primes = _primes(n)
    names = tuple(f"d{i}" for i in range(len(primes)))
    assigned: dict = {}
    used: set = set()
    out = []
    for strategy, shape, labels in items:
        spec, mine = [], set()
        for dim, k, label in zip(shape, strategy, labels, strict=True):
            if k == 1:
                spec.append(None)
                continue
            if dim % k:
                return None
            if label in assigned:
                k0, axes = assigned[label]
                if k0 != k or mine & set(axes):
                    return None
            else:
                axes = _take([i for i in range(len(primes)) if i not in used], primes, k)
                if axes is None:
                    return None
                assigned[label] = (k, axes)
                used |= set(axes)
            mine |= set(axes)
            spec.append(names[axes[0]] if len(axes) == 1 else tuple(names[i] for i in axes))
        out.append((tuple(primes), names, tuple(range(n)), tuple(spec)))
    return out


def _labels(prim, shapes: list) -> list:
    """Dimension labels of a primitive's tensor inputs: MatMul's i, k, j (with its transposes), batch
    dimensions of BatchMatMul; otherwise dimensions aligned from the right, as broadcasting aligns them."""
    if prim.name in ("MatMul", "BatchMatMul") and len(shapes) == 2:
        ta, tb = bool(prim.attrs.get("transpose_a")), bool(prim.attrs.get("transpose_b"))
        a = ["k", "i"] if ta else ["i", "k"]
        b = ["j", "k"] if tb else ["k", "j"]
        return [[f"r{len(s) - 1 - d}" for d in range(len(s) - 2)] + last for s, last in zip(shapes, (a, b))]
    return [[f"r{len(s) - 1 - d}" for d in range(len(s))] for s in shapes]


def _constraint_impl(x, layout):
    return D.sharding_constraint(x, layout)


SHARDING_CONSTRAINT = PrimitiveDef("ShardingConstraint", _constraint_impl, attrs={"layout": None})


def _active() -> bool:
    return PC.parallel_mode() in (PC.SEMI_AUTO_PARALLEL, PC.AUTO_PARALLEL)


def constrain(x, strategy, name: str, what: str, layout: tuple | None = None):
    """`x` split over the devices as `strategy` says (a recorded constraint in a graph); other values as they are.

    `layout` is the descriptor when the caller computed it (`joint_specs`)."""
    if not isinstance(x, Tensor) or strategy is None:
        return x
    if layout is None:
        layout = spec_for(name, what, strategy, tuple(x.shape))
    if G.is_symbolic(x._data):
        return apply(SHARDING_CONSTRAINT, (x,), (layout,))
    try:
        return _place(x, layout)
    except D.DifferingValueError as err:
        raise ValueError(
            f"For '{name}', {what}: {err}. Across processes feed each rank's batch through a training step "
            "(nn.TrainOneStepCell, Model.train) or Model.eval, which read it as 'dataset_strategy' and 'full_batch' "
            "say."
        ) from None


def _place(x, layout: tuple):
    if is_tracer(x._data):
        return Tensor._wrap(D.sharding_constraint(x._data, layout))
    if isinstance(x, Parameter) and D.process_count() > 1:
        # Across processes a parameter is kept split as its strategy says: each device holds its slice only.
        x._data = D.sharding_constraint(x._data, layout)
        return x
    out = Tensor._wrap(D.sharding_constraint(x._data, layout))
    if tape.recording and x._nodes and x.dtype.kind in "fc":
        tape.record_custom((x,), (out,), lambda cots: (cots[0],))
    return out


def _constrain_all(values, strategies, name: str, what: str, prim=None):
    if strategies is None:
        return values
    if not isinstance(strategies, tuple):
        raise TypeError(f"For '{name}', the {what} strategy must be a tuple (one entry per {what}): {strategies!r}.")
    single = not isinstance(values, tuple)
    items = (values,) if single else values
    tensors = [i for i, v in enumerate(items) if isinstance(v, Tensor)]
    if len(strategies) != len(tensors):
        raise ValueError(
            f"For '{name}', the {what} strategy has {len(strategies)} entries for {len(tensors)} tensor {what}s."
        )
    layouts = [None] * len(tensors)
    if prim is not None and all(isinstance(st, tuple) for st in strategies):
        shapes = [tuple(items[i].shape) for i in tensors]
        if all(len(st) == len(sh) for st, sh in zip(strategies, shapes)):
            labels = _labels(prim, shapes)
            layouts = joint_specs(list(zip(strategies, shapes, labels))) or layouts
    out = list(items)
    for k, i in enumerate(tensors):
        out[i] = constrain(items[i], strategies[k], name, f"{what} {k}", layouts[k])
    return out[0] if single else tuple(out)


def _check_strategy_arg(name: str, what: str, value) -> None:
    if value is not None and not isinstance(value, tuple):
        raise TypeError(f"For '{name}', '{what}' must be a tuple or None, but got {type(value).__name__}.")


def shard_primitive(prim, in_strategy=None, out_strategy=None):
    """`Primitive.shard`: its inputs (and outputs) are split as the strategies say when it is called.

    Returns:
        The primitive itself.
    """
    _check_strategy_arg(prim.name, "in_strategy", in_strategy)
    _check_strategy_arg(prim.name, "out_strategy", out_strategy)
    prim.add_prim_attr("in_strategy", in_strategy)
    prim.add_prim_attr("out_strategy", out_strategy)
    cls = type(prim)
    if not getattr(cls, "_kiln_sharded", False):
        prim.__class__ = sharded_class(cls)
    return prim


_SHARDED: dict = {}  # a Primitive class -> its sharded subclass (one per class, so that instances share it)


def sharded_class(cls: type) -> type:
    """The subclass of Primitive class `cls` whose call splits its inputs and outputs as the instance's strategies say
    (`shard_primitive` gives an instance this class; made once per class)."""
    sharded = _SHARDED.get(cls)
    if sharded is not None:
        return sharded

    def __call__(self, *args, **kwargs):
        # through super(): the class's own call may be a method or a static function (kiln.ops.faces' classes)
        plain_call = super(sharded, self).__call__
        if not _active():
            return plain_call(*args, **kwargs)
        split = _constrain_all(args, self.in_strategy, self.name, "input", prim=self)
        # a Parameter the primitive writes (BatchNorm's moving statistics) is handed over itself: a constrained
        # copy would take the update instead of it
        written = self._written_inputs
        args = tuple(a if i in written else c for i, (a, c) in enumerate(zip(args, split, strict=True)))
        # keyword arguments (MindSpore's LogSoftmaxExt layer passes `dim=`) are attributes, not split inputs
        out = plain_call(*args, **kwargs)
        return _constrain_all(out, self.out_strategy, self.name, "output")

    def __reduce_ex__(self, protocol):
        # pickled as its plain class, remade sharded when loaded (the made class has no importable name)
        return _sharded_instance, (cls,), self.__dict__

    sharded = type(cls.__name__, (cls,), {"__call__": __call__, "__reduce_ex__": __reduce_ex__, "_kiln_sharded": True})
    _SHARDED[cls] = sharded
    return sharded


def _sharded_instance(cls: type):
    """An empty instance of `cls`'s sharded class (pickle then sets its attributes, strategies included)."""
    return object.__new__(sharded_class(cls))


def _place_parameters(cell, parameter_plan, name: str) -> None:
    if parameter_plan is None:
        return
    if not isinstance(parameter_plan, dict):
        raise TypeError(f"For '{name}', 'parameter_plan' must be a dict, but got {type(parameter_plan).__name__}.")
    params = dict(cell.parameters_and_names())
    for key, strategy in parameter_plan.items():
        short = key[len("self.") :] if key.startswith("self.") else key
        param = params.get(short)
        if param is None:
            param = next((p for n, p in params.items() if n.endswith("." + short)), None)
        if param is None:
            raise ValueError(f"For '{name}', 'parameter_plan' names {key!r}, which is not a parameter of the cell.")
        if _active():
            layout = spec_for(name, f"parameter {key!r}", strategy, tuple(param.shape))
            param._data = D.sharding_constraint(param._data, layout)


def shard_cell(cell, in_strategy, out_strategy=None, parameter_plan=None):
    """`Cell.shard`: the cell's inputs (and outputs) split as the strategies say; `parameter_plan` places
    parameters (by name) with their strategies.

    Returns:
        The cell itself.
    """
    name = type(cell).__name__
    _check_strategy_arg(name, "in_strategy", in_strategy)
    _check_strategy_arg(name, "out_strategy", out_strategy)
    cell.__dict__["_kiln_strategies"] = (in_strategy, out_strategy)
    if "_kiln_shard_hooks" not in cell.__dict__:

        def pre(c, args):
            if not _active():
                return None
            return _constrain_all(tuple(args), c.__dict__["_kiln_strategies"][0], type(c).__name__, "input")

        def post(c, args, out):
            if not _active():
                return None
            return _constrain_all(out, c.__dict__["_kiln_strategies"][1], type(c).__name__, "output")

        cell.__dict__["_kiln_shard_hooks"] = (cell.register_forward_pre_hook(pre), cell.register_forward_hook(post))
    _place_parameters(cell, parameter_plan, name)
    return cell


def shard(fn, in_strategy, out_strategy=None, parameter_plan=None, device="Ascend", level=0):
    """`ms.shard`: `fn` with its tensor inputs (and outputs) split over the devices as the strategies say.

    Args:
        fn: a function or a Cell.
        in_strategy (tuple): one strategy (a tuple of ints or a Layout) per tensor input.
        out_strategy (tuple, optional): one per tensor output.
        parameter_plan (dict, optional): parameter name -> strategy (Cells only).
        device, level: accepted for MindSpore scripts.

    Returns:
        A function running `fn` under the strategies (in SEMI_AUTO_PARALLEL / AUTO_PARALLEL mode).
    """
    if not isinstance(in_strategy, tuple):
        raise TypeError(f"For 'shard', 'in_strategy' must be a tuple, but got {type(in_strategy).__name__}.")
    _check_strategy_arg("shard", "out_strategy", out_strategy)
    if not callable(fn):
        raise TypeError(f"For 'shard', 'fn' must be a function or a Cell, but got {type(fn).__name__}.")
    if hasattr(fn, "cells_and_names"):
        shard_cell(fn, in_strategy, out_strategy, parameter_plan)
        return fn
    if parameter_plan is not None:
        raise ValueError("For 'shard', 'parameter_plan' applies to a Cell; 'fn' is a function.")

    def sharded(*args):
        if not _active():
            return fn(*args)
        args = _constrain_all(args, in_strategy, "shard", "input")
        return _constrain_all(fn(*args), out_strategy, "shard", "output")

    sharded.__name__ = getattr(fn, "__name__", "sharded")
    return sharded
