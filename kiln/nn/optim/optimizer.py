"""`nn.Optimizer`: the base of the optimizers (learning rates, weight decay, parameter groups).

Built-in optimizers update every parameter with one multi-tensor primitive
per step (`_fused_step`): the global step, weight decay, gradient
centralization and loss-scale division all happen inside that one backend
call (a rate per step is looked up just before it, by `DynamicLR`, which
refuses a step past the table's end), and the results are written back
into the Parameters in place.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

import numpy as np

from kiln import ops
from kiln._compiler.errors import user_stacklevel
from kiln._core import dtype as mstype
from kiln._core.primitive import PrimitiveDef
from kiln._core.tensor import Parameter, ParameterTuple, Tensor, is_generated_name
from kiln._core.unsupported import warn_once
from kiln._prims import state as S
from kiln.nn.cell import Cell
from kiln.nn.init_args import opt_init_args_register  # noqa: F401 (MindSpore's module path for it)
from kiln.nn.learning_rate_schedule import LearningRateSchedule
from kiln.ops._helpers import apply, batched_writes
from kiln.ops.multitype import HyperMap, Map
from kiln.ops.state import AssignAdd, write_back

__all__ = ["Optimizer", "warn_dense_rows"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "order_params", "grad_centralization")


def warn_dense_rows(optimizer: Optimizer) -> None:
    """Warn once per optimizer class when it trains a table of an `nn.EmbeddingLookup(sparse=True)`.

    MindSpore 2.10 (GRAPH_MODE) hands such a table a sparse gradient (the looked-up rows), for which FTRL, Adam and
    LazyAdam run their sparse kernels (FTRL and lazy Adam leave the other rows as they are); Kiln's gradient is dense,
    so they run their dense update, as MindSpore does for `sparse=False`.
    """
    name = type(optimizer).__name__
    tables = [p.name for p in optimizer.parameters if getattr(p, "_kiln_sparse_lookup", False)]
    if tables:
        warn_once(
            ("dense table update", name),
            f"{name} trains {tables[:3]}, the table of an EmbeddingLookup(sparse=True): MindSpore's gradient of it "
            f"holds only the looked-up rows, for which {name} runs its sparse update (FTRL and lazy Adam leave the "
            f"other rows as they are; Adam's rows looked up more than once differ); Kiln's gradient is dense and "
            f"{name} runs its dense update (MindSpore's result with sparse=False).",
            user_stacklevel(),
        )


class _TableLR(LearningRateSchedule):
    """A learning rate per step, from a list or 1-D Tensor; a step past its end raises, as in MindSpore."""

    def __init__(self, table: Tensor, name: str, owner: str) -> None:
        super().__init__()
        self.learning_rate = Parameter(table, name)
        self._owner = owner

    def construct(self, global_step) -> Tensor:
        return apply(S.DynamicLR, (self.learning_rate, global_step), (self._owner,))


def _is_table(lr) -> bool:
    return isinstance(lr, Tensor) and lr.ndim == 1


def _as_table(lr, steps: int):
    """A fixed rate (a number or a 0-d Tensor) as a rate per step repeated `steps` times; other rates as they are."""
    if isinstance(lr, float) or (isinstance(lr, Tensor) and lr.ndim == 0):
        return Tensor(np.full([steps], float(lr), np.float32))
    return lr


class Optimizer(Cell):
    """Base class of optimizers: subclasses define `construct(gradients)`.

    Args:
        learning_rate: a fixed number or 0-d Tensor, a sequence with one rate per step (list or 1-D Tensor),
            or a LearningRateSchedule that gets the global step.
        parameters (Union[list[Parameter], list[dict]]): the parameters, or groups of them as dicts with the
            keys 'params', and optionally 'lr', 'weight_decay', 'grad_centralization'; one extra dict
            {'order_params': params} fixes the order of the parameters.
        weight_decay (Union[float, int, Cell]): L2 penalty. Without groups it skips parameters whose
            names contain 'beta' or 'gamma' (normalization layers). Default: 0.0.
        loss_scale (float): gradients are divided by it (weight decay is scaled to match). Default: 1.0.
    """

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale: float = 1.0) -> None:
        super().__init__(auto_prefix=False)
        parameters = self._parameters_base_check(parameters, "parameters")
        if not all(isinstance(p, Parameter) for p in parameters) and not all(isinstance(p, dict) for p in parameters):
            raise TypeError(
                f"For '{self.cls_name}', 'parameters' must be a list of Parameters or a list of group dicts."
            )
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        if not isinstance(loss_scale, float) or loss_scale <= 0:
            raise ValueError(f"For '{self.cls_name}', 'loss_scale' must be a positive float, but got {loss_scale!r}.")
        self.loss_scale = loss_scale
        self.dynamic_lr = False
        self.dynamic_weight_decay = False
        self.grad_centralization = False
        self.is_group = self.is_group_lr = self.is_group_params_ordered = False
        self._unique = True
        self._target = "CPU"
        self.global_step = Parameter(Tensor(np.zeros([1], np.int32)), name="global_step")
        lr = self._preprocess_lr(learning_rate)
        if isinstance(parameters[0], dict):
            self.is_group = True
            params, lrs, wds, gcs = self._parse_groups(parameters, lr, weight_decay)
        else:
            params = list(parameters)
            source = self._build_lr(lr, "learning_rate")
            lrs = [source] * len(params)
            wds = [self._preprocess_weight_decay(weight_decay)] * len(params)
            gcs = [False] * len(params)
        self._check_unique(params)
        self._lr_sources = lrs
        if self.is_group_lr:
            object.__setattr__(self, "learning_rate", tuple(lrs))
        else:
            self.learning_rate = lrs[0]
        self.parameters = ParameterTuple(params)
        object.__setattr__(self, "_parameters", self.parameters)  # an alias, not a second registration
        self._weight_decays = wds
        if self.is_group:
            # MindSpore's per-parameter group lists (in order_params' order), which user-written optimizers read
            # (the zoo's NFNet SGDAGC walks group_params); plain attributes, not registered state.
            object.__setattr__(self, "group_params", list(params))
            object.__setattr__(self, "group_lr", list(lrs))
            object.__setattr__(self, "group_weight_decay", list(wds))
            object.__setattr__(self, "group_grad_centralization", list(gcs))
        # The public `weight_decay` is MindSpore's: weight_decay * loss_scale as a float32 Tensor (a dynamic one
        # stays its Cell), a tuple of them with groups; user-written optimizers map it as Tensors (the zoo's VIT
        # AdamW). `_weight_decays` keeps the unscaled numbers the built-in steps read.
        if self.is_group:
            self.decay_flags = tuple(isinstance(w, Cell) or w > 0 for w in wds)
            self.weight_decay = tuple(self._scaled_weight_decay(w) for w in wds)
        else:
            # Without groups MindSpore leaves normalization parameters (gamma/beta) undecayed.
            self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name for p in params)
            self.weight_decay = self._scaled_weight_decay(wds[0] if params else 0.0)
        self.dynamic_weight_decay = any(isinstance(w, Cell) for w in wds)
        self.exec_weight_decay = any(f and (isinstance(w, Cell) or w > 0) for f, w in zip(self.decay_flags, wds))
        self.grad_centralization_flags = tuple(gcs)
        self.need_scale = loss_scale != 1.0
        self.reciprocal_scale = 1.0 / loss_scale
        self.param_length = len(params)
        self.optim_filter = (True,) * len(params)
        # MindSpore's flag for a user-written construct to call broadcast_params (its parallel optimizer, Ascend
        # only); Kiln splits optimizer states outside construct (_parallel/batch.py), so a construct never does.
        self.use_parallel = False
        # What MindSpore's base class offers to user-written optimizers' `construct`.
        self.global_step_increase_tensor = Tensor(np.array([1], np.int32))
        self.map_, self.map_reverse = Map(), Map(None, True)
        self.hyper_map, self.hyper_map_reverse = HyperMap(), HyperMap(None, True)
        self.assignadd = AssignAdd()

    # -- construction helpers -----------------------------------------------------------
    @property
    def cls_name(self) -> str:
        return type(self).__name__

    def _parameters_base_check(self, parameters, what: str) -> list:
        # MindSpore names the base class in these messages ("For 'Optimizer', the argument parameters ...").
        if parameters is None:
            raise ValueError(f"For 'Optimizer', the argument {what} can not be None ({self.cls_name}).")
        if not isinstance(parameters, Iterable):
            raise TypeError(f"For 'Optimizer', the argument {what} must be Iterable type, but got "
                            f"{type(parameters).__name__} ({self.cls_name}).")  # fmt: skip
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"For 'Optimizer', the argument {what} must not be empty ({self.cls_name}).")
        return parameters

    def _preprocess_lr(self, learning_rate):
        """A float, a 0-D float32 Tensor, a 1-D float32 Tensor (per step) or a schedule."""
        if isinstance(learning_rate, (int, float)) and not isinstance(learning_rate, bool):
            if not math.isfinite(learning_rate):  # as MindSpore: nan passes the sign check and poisons every step
                raise ValueError(f"For '{self.cls_name}', 'learning_rate' must be finite, but got {learning_rate}.")
            if learning_rate < 0:
                raise ValueError(
                    f"For '{self.cls_name}', 'learning_rate' must be non-negative, but got {learning_rate}."
                )
            return float(learning_rate)
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            return learning_rate
        if isinstance(learning_rate, Tensor):
            if learning_rate.ndim > 1:
                raise ValueError(
                    f"For '{self.cls_name}', a Tensor 'learning_rate' must be 0-D or 1-D, but got shape "
                    f"{list(learning_rate.shape)}."
                )
            if learning_rate.ndim == 1:
                self.dynamic_lr = True
                self._check_table(learning_rate.shape, f"a Tensor of shape {list(learning_rate.shape)}")
            return Tensor(learning_rate.asnumpy().astype(np.float32))
        if isinstance(learning_rate, Iterable) and not isinstance(learning_rate, (str, bytes)):
            self.dynamic_lr = True
            values = list(learning_rate)
            try:
                table = np.asarray(values, np.float32)
            except (TypeError, ValueError):
                table = None
            if table is None or table.ndim > 1:
                raise ValueError(
                    f"For '{self.cls_name}', a sequence 'learning_rate' must hold one number per step, but got "
                    f"{values!r}."
                )
            self._check_table(table.shape, repr(values))
            return Tensor(table)
        raise TypeError(
            f"For '{self.cls_name}', 'learning_rate' must be a float, int, Tensor, Iterable or "
            f"LearningRateSchedule, but got {type(learning_rate).__name__}."
        )

    def _check_table(self, shape: tuple, shown: str) -> None:
        """A rate per step needs a rate for the first step (MindSpore fails at that step, reading past the end)."""
        if shape[0] == 0:
            raise ValueError(
                f"For '{self.cls_name}', 'learning_rate' with a rate per step must hold at least one rate, but got "
                f"{shown}."
            )

    def _build_lr(self, lr, name: str):
        """A Parameter (constant rate) or a schedule Cell."""
        if isinstance(lr, float):
            return Parameter(Tensor(np.float32(lr)), name)
        if isinstance(lr, Tensor) and lr.ndim == 0:
            return Parameter(lr, name)
        if isinstance(lr, Tensor):
            return _TableLR(lr, name, self.cls_name)
        return lr

    def _preprocess_weight_decay(self, weight_decay):
        if isinstance(weight_decay, Cell):
            return weight_decay
        if isinstance(weight_decay, (int, float)) and not isinstance(weight_decay, bool):
            if weight_decay < 0:
                raise ValueError(f"For '{self.cls_name}', 'weight_decay' must be non-negative, but got {weight_decay}.")
            return float(weight_decay)
        raise TypeError(
            f"For '{self.cls_name}', 'weight_decay' must be an int, float or Cell, but got "
            f"{type(weight_decay).__name__}."
        )

    def _parse_groups(self, groups: list[dict], default_lr, weight_decay):
        order = None
        for g in groups:
            bad = [k for k in g if k not in _GROUP_KEYS]
            if bad:
                raise KeyError(f"For '{self.cls_name}', group keys must be among {list(_GROUP_KEYS)}, but got {bad}.")
            if "order_params" in g:
                if len(g) > 1:
                    raise ValueError(
                        f"For '{self.cls_name}', the 'order_params' dict must have no other key, but got {list(g)}."
                    )
                order = list(g["order_params"])
                self.is_group_params_ordered = True
            elif "lr" in g:
                self.is_group_lr = True
        # Rates per step must cover the same steps in every group (MindSpore refuses tables of other lengths).
        tables = {len(default_lr)} if _is_table(default_lr) else set()
        group_lrs = {}
        for i, g in enumerate(groups):
            if "lr" in g:
                group_lrs[i] = self._preprocess_lr(g["lr"])
                if _is_table(group_lrs[i]):
                    tables.add(len(group_lrs[i]))
                    if len(tables) > 1:
                        raise ValueError(
                            f"For '{self.cls_name}', the rates per step of every group must have one length, but "
                            f"got lengths {sorted(tables)}."
                        )
        if tables:  # a fixed rate beside rates per step becomes a table too, as MindSpore makes it
            (steps,) = tables
            default_lr = _as_table(default_lr, steps)
            group_lrs = {i: _as_table(lr, steps) for i, lr in group_lrs.items()}
        default = self._build_lr(default_lr, "learning_rate")
        params, lrs, wds, gcs = [], [], [], []
        for i, g in enumerate(groups):
            if "order_params" in g:
                continue
            members = self._parameters_base_check(g["params"], "group 'params'")
            for j, p in enumerate(members):
                if not isinstance(p, Parameter):
                    raise TypeError(
                        f"For '{self.cls_name}', group {i} 'params' must hold Parameters, but element {j} is "
                        f"{type(p).__name__}."
                    )
            lr = self._build_lr(group_lrs[i], f"learning_rate_group_{i}") if "lr" in g else default
            wd = self._preprocess_weight_decay(g.get("weight_decay", weight_decay))
            gc = g.get("grad_centralization", False)
            if not isinstance(gc, bool):
                raise TypeError(f"For '{self.cls_name}', 'grad_centralization' must be a bool, but got {gc!r}.")
            self.grad_centralization = self.grad_centralization or gc
            for p in members:
                params.append(p)
                lrs.append(lr)
                wds.append(wd)
                gcs.append(gc)
        for k, lr in enumerate(dict.fromkeys(lrs)):  # register each distinct rate as state of this cell
            if isinstance(lr, Parameter):
                self.insert_param_to_cell(f"learning_rate_{k}" if is_generated_name(lr.name) else lr.name, lr, False)
            elif isinstance(lr, Cell) and any(isinstance(r, Parameter) for r in lrs):
                self.insert_child_to_cell(f"learning_rate_{k}", lr)  # beside a fixed rate (see _register_rate_cells)
        if order is not None:
            if len(order) != len(params):
                raise ValueError(
                    f"For '{self.cls_name}', 'order_params' has {len(order)} parameters, but the groups have "
                    f"{len(params)}."
                )
            index = {id(p): k for k, p in enumerate(params)}
            try:
                perm = [index[id(p)] for p in order]
            except KeyError:
                raise ValueError(f"For '{self.cls_name}', 'order_params' names a parameter no group holds.") from None
            params, lrs, wds, gcs = ([seq[k] for k in perm] for seq in (params, lrs, wds, gcs))
        self._register_rate_cells(lrs)
        return params, lrs, wds, gcs

    def _register_rate_cells(self, lrs: list) -> None:
        """Register the group rates that are Cells (rates per step, schedules) as the child `learning_rate`, each
        under the position of its first parameter: MindSpore keeps one rate per parameter in a CellList there, whose
        walk meets a shared rate first at that position, so a parent with auto_prefix names a rate's Parameter
        `learning_rate.<position>.learning_rate` (the zoo's TRN train cell). The attribute stays the tuple of rates.

        Only where every rate is a Cell: beside a schedule MindSpore also wraps each fixed rate in a Cell of that list,
        where Kiln keeps a Parameter (registered by _parse_groups, the schedules under `learning_rate_<k>`)."""
        if any(isinstance(lr, Parameter) for lr in lrs):
            return
        holder, seen = None, set()
        for i, lr in enumerate(lrs):  # one rate per parameter: a set, not a scan of the earlier ones
            if isinstance(lr, Cell) and id(lr) not in seen:
                seen.add(id(lr))
                if holder is None:
                    holder = Cell(auto_prefix=False)
                holder.insert_child_to_cell(str(i), lr)
        if holder is not None:
            self.insert_child_to_cell("learning_rate", holder)

    def _check_unique(self, params: Sequence[Parameter]) -> None:
        seen: set[int] = set()
        for p in params:
            if id(p) in seen:
                raise RuntimeError(f"For '{self.cls_name}', the parameter '{p.name}' is given more than once.")
            seen.add(id(p))

    # -- compatibility properties ------------------------------------------------------------
    @property
    def unique(self) -> bool:
        return self._unique

    @unique.setter
    def unique(self, value: bool) -> None:
        self._unique = bool(value)

    @property
    def target(self) -> str:
        return self._target

    @target.setter
    def target(self, value: str) -> None:
        if value not in ("CPU", "GPU", "Ascend"):
            raise ValueError(f"For '{self.cls_name}', 'target' must be 'CPU', 'GPU' or 'Ascend', but got {value!r}.")
        self._target = value

    # -- the current hyper-parameters ------------------------------------------------------------
    def _lr_value(self, source) -> Tensor:
        if isinstance(source, Parameter):
            return source
        return ops.reshape(source(self.global_step), ())

    def get_lr(self):
        """The learning rate of the current step: a Tensor, or a tuple (one per parameter) with group rates.

        Returns:
            Union[Tensor, tuple[Tensor]].
        """
        if self.is_group_lr:
            cache: dict[int, Tensor] = {}
            return tuple(cache.setdefault(id(s), self._lr_value(s)) for s in self._lr_sources)
        return self._lr_value(self._lr_sources[0])

    def get_lr_parameter(self, param):
        """The learning-rate Parameter (or schedule) of `param`, or a list of them for a list of parameters."""
        plist = [param] if isinstance(param, Parameter) else param
        if not isinstance(plist, list):
            raise TypeError(f"For 'get_lr_parameter', 'param' must be a Parameter or a list, but got {type(param)}.")
        ids = [id(p) for p in self._parameters]
        out = []
        for p in plist:
            if not isinstance(p, Parameter):
                raise TypeError(f"For 'get_lr_parameter', 'param' must hold Parameters, but got {type(p).__name__}.")
            if id(p) not in ids:
                raise ValueError(f"For 'get_lr_parameter', the parameter '{p.name}' is not in this optimizer.")
            src = self._lr_sources[ids.index(id(p))]
            out.append(src.learning_rate if isinstance(src, _TableLR) else src)
        return out if isinstance(param, list) else out[0]

    def _scaled_weight_decay(self, weight_decay):
        """MindSpore's stored weight decay: a number times loss_scale as a float32 Tensor; a Cell as it is."""
        if isinstance(weight_decay, Cell):
            return weight_decay
        return Tensor(np.float32(weight_decay * self.loss_scale))

    def get_weight_decay(self):
        """The weight decay of the current step times loss_scale (as MindSpore's): a float32 Tensor, or a tuple of
        them with groups."""

        def value(w):
            return ops.mul(w(self.global_step), self.loss_scale) if isinstance(w, Cell) else w

        if self.is_group:
            return tuple(value(w) for w in self.weight_decay)
        return value(self.weight_decay)

    # -- gradient transforms (for user-defined optimizers; built-ins do these inside their step) --------
    def decay_weight(self, gradients):
        """gradient + weight_decay * loss_scale * param, for the parameters selected by `decay_flags`."""
        if not self.exec_weight_decay:
            return gradients
        out = []
        for p, g, flag, w in zip(self._parameters, gradients, self.decay_flags, self._weight_decays):
            if flag:
                wd = w(self.global_step) if isinstance(w, Cell) else w
                g = ops.add(g, ops.mul(ops.cast(p, g.dtype), ops.mul(wd, self.loss_scale)))
            out.append(g)
        return tuple(out)

    def gradients_centralization(self, gradients):
        """Subtract each selected gradient's mean over all axes but the first."""
        if not self.is_group:
            return gradients
        out = []
        for g, flag in zip(gradients, self.grad_centralization_flags):
            if flag and g.ndim > 1 and g.shape[1] % 16 == 0:
                g = ops.sub(g, ops.mean(g, tuple(range(1, g.ndim)), True))
            out.append(g)
        return tuple(out)

    def scale_grad(self, gradients):
        """Divide the gradients by `loss_scale`."""
        if not self.need_scale:
            return gradients
        return tuple(ops.mul(g, self.reciprocal_scale) for g in gradients)

    def flatten_gradients(self, gradients):
        return gradients

    def broadcast_params(self, optim_result):
        return optim_result

    # -- the fused step ---------------------------------------------------------------------------
    def _check_gradients(self, gradients) -> tuple:
        if isinstance(gradients, Tensor):
            gradients = (gradients,)
        gradients = tuple(gradients)
        if len(gradients) != self.param_length:  # RuntimeError, as MindSpore's (a failed graph map)
            raise RuntimeError(
                f"For '{self.cls_name}', got {len(gradients)} gradients for {self.param_length} parameters; pass "
                "one gradient per parameter, in the order of 'optimizer.parameters'."
            )
        for i, g in enumerate(gradients):
            if not isinstance(g, Tensor):
                raise TypeError(f"For '{self.cls_name}', gradient {i} must be a Tensor, but got {type(g).__name__}.")
        return gradients

    def _fused_step(
        self,
        prim: PrimitiveDef,
        gradients,
        states: Sequence[Sequence[Parameter]],
        scalars: Sequence = (),
        options: tuple = (),
        scalar_states: Sequence[Parameter] = (),
        decay_scale: float | None = None,
    ) -> tuple:
        """Run one multi-tensor update `prim` and store every new value in place.

        Args:
            prim: a primitive declared by `_declare_fused` in kiln/_prims/state.py.
            gradients: one gradient per parameter.
            states: per-parameter optimizer state, one ParameterTuple per kind (moments, ...).
            scalars: shared inputs (momentum, betas, ...).
            options: static options of the update (nesterov, ...).
            scalar_states: Parameters receiving the step's extra scalar outputs (Adam's beta powers).
            decay_scale: the loss scale applied to the weight decay and divided out of the gradients (default:
                `loss_scale`; 1 once a wrapper has taken the unscaling over, `need_scale` False: nn.LARS).
        """
        grads = self._check_gradients(gradients)
        lr_cache: dict[int, Tensor] = {}
        lrs = []
        for src in self._lr_sources:
            lrs.append(lr_cache.setdefault(id(src), self._lr_value(src)))
        wd_attr, dynamic = [], []
        for flag, w in zip(self.decay_flags, self._weight_decays):
            if flag and isinstance(w, Cell):
                wd_attr.append(None)
                dynamic.append(ops.cast(w(self.global_step), mstype.float32))
            else:
                wd_attr.append(float(w) if flag else 0.0)
        flat_states = [s for group in states for s in group]
        args = (self.global_step, *self._parameters, *grads, *flat_states, *lrs, *scalars, *dynamic)
        attrs = (
            self.param_length,
            tuple(wd_attr),
            self.grad_centralization_flags,
            (self.loss_scale if self.need_scale else 1.0) if decay_scale is None else decay_scale,
            tuple(options),
        )
        outs = apply(prim, args, attrs)
        write_back((self.global_step, *self._parameters, *flat_states, *scalar_states), outs)
        return (True,) * self.param_length

    def construct(self, *hyper_params):
        raise NotImplementedError(f"{self.cls_name} must define construct(gradients).")


def check_float(cls: str, name: str, value, *, low=None, high=None, low_open=True, high_open=True) -> float:
    """An optimizer's float hyper-parameter, checked against optional bounds (open unless `*_open` is False).

    Returns:
        `value`.

    Raises:
        TypeError: `value` is not a float. ValueError: `value` is outside the bounds.
    """
    if not isinstance(value, float) or isinstance(value, bool):
        raise TypeError(f"For '{cls}', '{name}' must be a float, but got {type(value).__name__}.")
    if low is not None and (value <= low if low_open else value < low):
        raise ValueError(f"For '{cls}', '{name}' must be {'>' if low_open else '>='} {low}, but got {value}.")
    if high is not None and (value >= high if high_open else value > high):
        raise ValueError(f"For '{cls}', '{name}' must be {'<' if high_open else '<='} {high}, but got {value}.")
    return value


class PerParameterOptimizer(Optimizer):
    """An optimizer whose step is `_update(index, param, grad, lr)` for each parameter, MindSpore's way."""

    def construct(self, gradients):
        gradients = self._check_gradients(gradients)
        gradients = self.decay_weight(gradients)
        gradients = self.gradients_centralization(gradients)
        gradients = self.scale_grad(gradients)
        lrs = self.get_lr()
        # PyNative: the step (the forward and backward still pending, the global step, every parameter's update) runs
        # as one program at the end; an in-place AssignAdd and a write per parameter each ran the lazy window
        with batched_writes():
            write_back((self.global_step,), (self.global_step + Tensor(np.array([1], np.int32)),))
            for i, (param, grad) in enumerate(zip(self._parameters, gradients)):
                lr = lrs[i] if self.is_group_lr else lrs
                self._update(i, param, grad, ops.cast(lr, mstype.float32))
        return True

    def _update(self, i: int, param, grad, lr) -> None:
        raise NotImplementedError

    @staticmethod
    def _store(target, value) -> None:
        write_back((target,), (ops.cast(value, target.dtype),))

    @staticmethod
    def _apply_update(prim: PrimitiveDef, state: Sequence[Parameter], inputs: Sequence, attrs: tuple = ()) -> None:
        """Run the per-parameter update `prim` (kiln/_prims/state.py) on the variable and its state `state` and the
        other `inputs`, and store the new values in place. Inside a float16 Cell the state keeps its dtype and the
        update runs in float32 (`PrimitiveDef.amp_keep`), as MindSpore's Apply* primitives do."""
        write_back(tuple(state), apply(prim, (*state, *inputs), attrs))


def check_bool(cls: str, **values) -> None:
    """Each keyword argument of `values` must be a bool (TypeError naming it otherwise)."""
    for name, v in values.items():
        if not isinstance(v, bool):
            raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(v).__name__}.")
