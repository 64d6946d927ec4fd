"""`Cell`, the base of every network, and its containers."""

from __future__ import annotations

import operator
import warnings
from collections import OrderedDict
from collections.abc import Iterator, Mapping

from kiln._compiler.errors import for_user
from kiln._core import dtype as mstype
from kiln._core.primitive import WATCH_MARK, count_edit, same_value
from kiln._core.tensor import CELL_HOOKS, HookHandle, Parameter, ParameterTuple, Tensor, is_generated_name
from kiln._core.unsupported import ignore_argument, warn_once
from kiln._parallel.shard import shard_cell
from kiln._pynative.autograd import call_with_backward_hooks, call_with_custom_bprop, logging_constexprs, note_forward
from kiln._pynative.dispatch import RUN, auto_precision, running_in
from kiln.context import GRAPH_MODE, _context
from kiln.ops import state

__all__ = ["Cell", "CellDict", "CellList", "SequentialCell"]

_UNSET = object()  # an attribute not set before


def _set_plain(cell, d: dict, name: str, value) -> None:
    """Set a plain attribute. On a library Cell a compiled program read (marked by guards.cell_reads), a changed value
    bumps the Cell's count of edits: the layer's Python code read the old one, so each program that read the Cell
    compiles again."""
    if WATCH_MARK in d and not same_value(d.get(name, _UNSET), value):
        count_edit(d)
    object.__setattr__(cell, name, value)


# MindSpore's mixed-precision flags (`Cell.add_flags`), in the order MindSpore applies them: the last True one wins.
_MIXED_PRECISION_FLAGS = (("fp16", mstype.float16), ("fp32", mstype.float32), ("bf16", mstype.bfloat16))


class Cell:
    """Base class of networks and layers: subclasses define `construct`.

    Attributes that are Parameters or Cells are registered as the network's
    state and children; parameter names get the attribute path as prefix
    (`fc1.weight`), as in MindSpore.

    Args:
        auto_prefix: prefix child parameter names with the attribute name.
        flags: extra flags (kept for compatibility).
    """

    _graph_runner = None  # set by kiln._compiler: runs a Cell call as a compiled graph
    # True once a primitive the layer holds under MindSpore's name was sharded or replaced; the count of strategies
    # set when it was last looked at (kiln/nn/layer/_held.py)
    _held_touched = False
    _held_epoch = -1

    def __init__(self, auto_prefix: bool = True, flags: dict | None = None) -> None:
        d = self.__dict__
        d["_params"] = OrderedDict()
        d["_cells"] = OrderedDict()
        d["_auto_prefix"] = auto_prefix
        d["training"] = False
        d["requires_grad"] = False
        d["_jit_config"] = None
        d["_input_signature"] = None
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()
        d["_hooks_with_kwargs"] = set()  # keys of forward (pre-)hooks registered with_kwargs=True
        d["_cell_name"] = ""
        d["_param_prefix"] = ""  # this cell's path in the network, set by update_cell_prefix
        d["_phase"] = "train"  # MindSpore's compile phase name: "train" until set_train(False) says "predict"
        d["_flags"] = dict(flags or {})

    # -- attribute registration ----------------------------------------------------
    def __setattr__(self, name: str, value) -> None:
        d = self.__dict__
        if "_params" not in d:
            # as MindSpore, a plain value may come first (the zoo's CBAM ResNet sets `self.in_channels = 64` and
            # then calls super().__init__()); a Parameter or a Cell needs the registries __init__ makes
            if not isinstance(value, (Parameter, Cell, ParameterTuple)):
                object.__setattr__(self, name, value)
                return
            raise AttributeError(
                f"cannot set '{name}' on {type(self).__name__} before Cell.__init__() has run: "
                f"call super().__init__() first."
            )
        idle = getattr(d.get(name), "_unused_reason", None)
        if idle is not None and value is not d[name]:
            cell_name = type(self).__name__
            warn_once(("replaced idle primitive", cell_name, name),
                      f"{idle}: the {type(value).__name__} assigned to it is not run either, so {cell_name}'s result "
                      "does not change.")  # fmt: skip
        if name in d.get("_made_primitives", ()):
            d["_held_touched"] = True  # a held primitive replaced (by a Primitive or a Cell): MindSpore's sequence runs
        if isinstance(value, (Parameter, Cell)):
            if isinstance(value, Parameter) and name in d["_cells"]:
                raise KeyError(f"cannot assign a Parameter to '{name}' of {type(self).__name__}: it is a child Cell.")
            if isinstance(value, Cell) and name in d["_params"]:
                raise KeyError(f"cannot assign a Cell to '{name}' of {type(self).__name__}: it is a Parameter.")
            d.pop(name, None)  # a plain attribute of the same name (e.g. `self.bias = None`) would shadow it
            if isinstance(value, Parameter):
                self.insert_param_to_cell(name, value, check_name_contain_dot=False)
            else:
                _add_child(self, name, value, "")
        elif isinstance(value, ParameterTuple) and value:
            self._insert_param_tuple(value)
            _set_plain(self, d, name, value)
        elif name in d["_params"]:
            if value is None:
                d["_params"][name] = None
            elif isinstance(value, Tensor):
                # `self.w = tensor` on a Parameter attribute updates its value (PyNative assignment); in a compiled
                # graph it is an Assign, as there: the Parameter stays a leaf, no gradient flows into `value`
                param = d["_params"][name]
                if not state.assigned_in_graph(param, value):
                    param.set_data(value)
            else:
                raise TypeError(f"cannot assign {type(value).__name__} to Parameter attribute '{name}'.")
        elif name in d["_cells"]:
            if value is not None:
                raise TypeError(f"cannot assign {type(value).__name__} to child Cell attribute '{name}'.")
            d["_cells"][name] = None
        else:
            _set_plain(self, d, name, value)

    def __getattr__(self, name: str):
        d = self.__dict__
        params = d.get("_params")
        if params is not None and name in params:
            return params[name]
        cells = d.get("_cells")
        if cells is not None and name in cells:
            return cells[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        if name in self._params:
            del self._params[name]
        elif name in self._cells:
            del self._cells[name]
        else:
            object.__delattr__(self, name)
            if WATCH_MARK in self.__dict__:
                count_edit(self.__dict__)

    def insert_param_to_cell(self, param_name: str, param: Parameter, check_name_contain_dot: bool = True) -> None:
        """Register `param` as state of this cell under `param_name`."""
        if not param_name:
            raise KeyError("insert_param_to_cell(): the parameter name must not be empty.")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"the parameter name '{param_name}' must not contain '.'.")
        if param_name in self.__dict__ or param_name in self._cells:
            raise KeyError(f"insert_param_to_cell(): '{param_name}' is already an attribute of {type(self).__name__}.")
        if not isinstance(param, Parameter):
            raise TypeError(f"insert_param_to_cell() expects a Parameter, but got {type(param).__name__}.")
        if is_generated_name(param.name):
            param.name = param_name
        self._params[param_name] = param

    def _insert_param_tuple(self, params: ParameterTuple) -> None:
        # Each item is registered under its own name (as MindSpore does), so that a tuple of another cell's
        # parameters (an optimizer's, a train cell's `weights`) keeps their names when a parent renames them.
        # An unnamed one (`Parameter#<n>`) becomes `Parameter$<k>`, k counting from 1 the ones this cell renamed.
        names: set[str] = set()
        for p in dict.fromkeys(params):  # the same object twice is registered once
            if is_generated_name(p.name):
                k = self.__dict__.get("_renamed_in_tuples", 0) + 1
                self.__dict__["_renamed_in_tuples"] = k
                p.name = f"Parameter${k}"
            if p.name in names:
                raise ValueError(f"two Parameters of one ParameterTuple are both named '{p.name}': rename one.")
            names.add(p.name)
            self.insert_param_to_cell(p.name, p, check_name_contain_dot=False)

    def insert_child_to_cell(self, child_name: str, child_cell: Cell) -> None:
        """Register `child_cell` under `child_name`, leaving its parameter names as they are (as MindSpore does:
        only an attribute assignment, `self.child = cell`, or a container names them)."""
        if not child_name or "." in child_name:
            raise KeyError(f"insert_child_to_cell(): the child name {child_name!r} must be non-empty and without '.'.")
        if child_name in self._params:
            raise KeyError(f"insert_child_to_cell(): '{child_name}' is already a Parameter of {type(self).__name__}.")
        if not isinstance(child_cell, Cell) and child_cell is not None:
            raise TypeError(f"insert_child_to_cell() expects a Cell, but got {type(child_cell).__name__}.")
        self._cells[child_name] = child_cell

    def update_parameters_name(self, prefix: str = "", recurse: bool = True) -> None:
        """Name every parameter of this cell (and its children) `prefix` + its path in this cell.

        The name is rebuilt from the path, not prefixed to the old name: a cell attached to a second parent
        (a GAN's discriminator in both train cells) gets its path under the last parent, not both prefixes.

        Args:
            prefix: put before each path, e.g. `"backbone."`.
            recurse: also the parameters of the descendant cells.
        """
        for path, p in self.parameters_and_names(expand=recurse):
            p.name = prefix + path

    # -- calling ------------------------------------------------------------------------
    def construct(self, *args, **kwargs):
        """The computation; subclasses override it."""
        raise AttributeError(f"construct() is not defined in {type(self).__name__}: a Cell computes in its construct.")

    def __call__(self, *args, **kwargs):
        try:
            return self._call(args, kwargs)
        except Exception as err:  # noqa: BLE001  (re-raised with the user's frames only; KILN_DEBUG=1 keeps all)
            shown = for_user(err)
            if shown is err:
                raise  # bare: the traceback ends at the user's line, with no frame of this call
            raise shown from None

    def _call(self, args: tuple, kwargs: dict):
        d = self.__dict__
        if _context["mode"] == GRAPH_MODE and Cell._graph_runner is not None:
            entry = d.get("_graph_entry_hook")
            if entry is not None:  # concrete inputs prepared before the compiled call (e.g. made global arrays)
                args = entry(self, args)
            out = Cell._graph_runner(self, args, kwargs)
            if out is not NotImplemented:
                return out
        # Forward hooks registered with always_call=True also run when the call raises (`ran`: those already run).
        always = d.get("_hooks_always_call") if d.get("_forward_hooks") else None
        ran: set | None = set() if always else None
        out = None
        try:
            if d.get("_forward_pre_hooks"):
                args, kwargs = self._forward_pre(args, kwargs)
            run_dtype = d.get("_float_dtype")
            auto = d.get("_amp_auto")
            if auto is not None and auto is not RUN.auto:  # amp level 'auto': MindSpore's op-level strategy
                with auto_precision(auto):
                    out = self._construct_in(run_dtype, args, kwargs)
            else:
                out = self._construct_in(run_dtype, args, kwargs)
            if d.get("_forward_hooks"):
                out = self._forward_post(args, kwargs, out, ran)
            return out
        except Exception:
            if not always:
                raise
            with_kwargs = d.get("_hooks_with_kwargs", ())
            for key, hook in list(self._forward_hooks.items()):
                if key not in always or key in ran:
                    continue
                try:
                    hook(self, args, kwargs, out) if key in with_kwargs else hook(self, args, out)
                except Exception as hook_err:  # noqa: BLE001  (the call's own error is the one raised)
                    warnings.warn(
                        f"{type(self).__name__}: a forward hook with always_call=True raised {hook_err!r} while the "
                        "call was already failing; the call's error is raised.",
                        stacklevel=3,
                    )
            raise

    def _construct_call(self, args: tuple, kwargs: dict):
        """The construct on `args`, with the backward hooks or custom bprop the Cell has."""
        d = self.__dict__
        if not d.get("requires_grad"):
            return self._construct_run(args, kwargs)
        with logging_constexprs(note_forward(self, args)):
            return self._construct_run(args, kwargs)

    def _construct_run(self, args: tuple, kwargs: dict):
        """`_construct_call` after the forward is noted."""
        bprop = getattr(type(self), "bprop", None)
        d = self.__dict__
        if d.get("_backward_hooks") or d.get("_backward_pre_hooks"):
            if bprop is not None:

                def run(*a):
                    return call_with_custom_bprop(self, lambda *b: bprop(self, *b), self.construct, a)
            else:

                def run(*a):
                    return self.construct(*a, **kwargs)

            return call_with_backward_hooks(self, args, run)
        if bprop is not None:
            return call_with_custom_bprop(self, lambda *b: bprop(self, *b), self.construct, args)
        return self.construct(*args, **kwargs)

    def _forward_pre(self, args: tuple, kwargs: dict) -> tuple[tuple, dict]:
        """Run the forward pre-hooks: the (possibly new) args and kwargs."""
        with_kwargs = self.__dict__.get("_hooks_with_kwargs", ())
        for key, hook in list(self._forward_pre_hooks.items()):
            if key in with_kwargs:
                new = hook(self, args, kwargs)
                if new is not None:
                    if not (isinstance(new, tuple) and len(new) == 2 and isinstance(new[1], dict)):
                        raise RuntimeError(
                            f"a forward pre-hook registered with with_kwargs=True returns (args, kwargs) or None, "
                            f"but {getattr(hook, '__qualname__', hook)} returned {type(new).__name__}."
                        )
                    args, kwargs = new
                    args = args if isinstance(args, tuple) else (args,)
                continue
            new = hook(self, args)
            if new is not None:
                args = new if isinstance(new, tuple) else (new,)
        return args, kwargs

    def _forward_post(self, args: tuple, kwargs: dict, out, ran: set | None = None):
        """Run the forward hooks on `out` (adding each key to `ran` before it runs, when given)."""
        with_kwargs = self.__dict__.get("_hooks_with_kwargs", ())
        for key, hook in list(self._forward_hooks.items()):
            if ran is not None:
                ran.add(key)
            new = hook(self, args, kwargs, out) if key in with_kwargs else hook(self, args, out)
            if new is not None:
                out = new
        return out

    def _add_hook(self, table: str, hook, prepend: bool = False) -> HookHandle:
        name = "register" + table[:-1]
        if not callable(hook):
            raise TypeError(f"{name}() expects a callable hook_fn, but got {type(hook).__name__}.")
        if getattr(hook, "_kiln_fn", None) is not None:
            raise TypeError(
                f"{name}() expects a plain Python function, but {getattr(hook, '__qualname__', hook)} is "
                f"decorated with @jit: hooks run as Python (inside a graph they are traced with the cell)."
            )
        hooks = self.__dict__[table]
        key = HookHandle.new_key()
        hooks[key] = hook
        if prepend:
            hooks.move_to_end(key, last=False)
        CELL_HOOKS["generation"] += 1
        return HookHandle(hooks, key, cell=True)

    def register_forward_pre_hook(self, hook_fn, *, prepend: bool = False, with_kwargs: bool = False) -> HookHandle:
        """`hook_fn(cell, inputs)` runs before construct; it may return new inputs.

        With `with_kwargs=True` it is `hook_fn(cell, args, kwargs)` and may return `(args, kwargs)`;
        `prepend=True` runs it before the hooks already registered.
        """
        handle = self._add_hook("_forward_pre_hooks", hook_fn, prepend)
        if with_kwargs:
            self._hooks_with_kwargs.add(handle.id)
        return handle

    def register_forward_hook(
        self, hook_fn, *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> HookHandle:
        """`hook_fn(cell, inputs, output)` runs after construct; it may return a new output.

        With `with_kwargs=True` it is `hook_fn(cell, args, kwargs, output)`. With `always_call=True` it also runs
        when the call raises (PyNative), with the output computed so far (None before construct returned); the
        error is then raised again, and an error of the hook itself only warns.
        """
        handle = self._add_hook("_forward_hooks", hook_fn, prepend)
        if with_kwargs:
            self._hooks_with_kwargs.add(handle.id)
        if always_call:
            self.__dict__.setdefault("_hooks_always_call", set()).add(handle.id)
        return handle

    def register_backward_pre_hook(self, hook_fn) -> HookHandle:
        """`hook_fn(cell, grad_output)` runs in the backward pass when the gradients of this cell's outputs are
        known (PyNative mode); it may return new grad_output (a Tensor or a tuple, one per output tensor)."""
        return self._add_hook("_backward_pre_hooks", hook_fn)

    def register_backward_hook(self, hook_fn) -> HookHandle:
        """`hook_fn(cell, grad_input, grad_output)` runs in the backward pass once the gradients of this cell's
        tensor inputs are known (PyNative mode); it may return new grad_input (one per input tensor).

        grad_input and grad_output are tuples, with None for an input or output that gets no gradient.
        """
        return self._add_hook("_backward_hooks", hook_fn)

    # -- traversal ------------------------------------------------------------------------
    def parameters_and_names(self, name_prefix: str = "", expand: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Yield (path, Parameter) once per distinct parameter, in registration order.

        The path is the attribute path from this cell (`layer1.0.conv1.weight`), as in MindSpore; it equals the
        Parameter's name unless the parameter was named otherwise (a cell with auto_prefix=False, a shared cell,
        `Parameter.name` set by hand). Checkpoints use `Parameter.name`.

        Args:
            name_prefix: the path of this cell, put before every path with a dot ("" for none).
            expand: also the parameters of the descendant cells.

        Returns:
            An iterator of (path, Parameter).
        """
        seen: set[int] = set()
        cells = self.cells_and_names(name_prefix=name_prefix) if expand else [(name_prefix, self)]
        for cell_path, cell in cells:
            for key, p in cell._params.items():
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    yield (f"{cell_path}.{key}" if cell_path else key), p

    def get_parameters(self, expand: bool = True) -> Iterator[Parameter]:
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse: bool = True) -> list[Parameter]:
        """The parameters with requires_grad=True (what optimizers update)."""
        return [p for p in self.get_parameters(expand=recurse) if p.requires_grad]

    def untrainable_params(self, recurse: bool = True) -> list[Parameter]:
        return [p for p in self.get_parameters(expand=recurse) if not p.requires_grad]

    def parameters_dict(self, recurse: bool = True) -> OrderedDict:
        """{Parameter.name: Parameter} for every distinct parameter (of the descendants too with `recurse`)."""
        return OrderedDict((p.name, p) for p in self.get_parameters(expand=recurse))

    def init_parameters_data(self, auto_parallel_mode: bool = False) -> dict[Parameter, Parameter]:
        """Make sure every parameter of this cell and its descendants holds its data, before a program reads or
        replaces initial values (the zoo's `_initialize_weights` calls it first).

        A Kiln Parameter gets its data when it is created, so each parameter is its own initialised version and
        stays in place; the mapping is what MindSpore returns for parameters that were already initialised.

        Args:
            auto_parallel_mode: whether to initialise only this process's slice of each parameter; Kiln keeps
                a parameter's data whole (XLA's partitioner places the slices), so it changes nothing.

        Returns:
            A dict from each distinct parameter to the parameter that holds its data (the same object).
        """
        ignore_argument("Cell.init_parameters_data", "auto_parallel_mode", auto_parallel_mode, False,
                        reason="a Parameter's data is whole; XLA's partitioner places its slices")  # fmt: skip
        initialised: dict[Parameter, Parameter] = {}
        for _, cell in self.cells_and_names():
            for name, param in cell._params.items():
                if param is None:
                    continue
                if param not in initialised:
                    initialised[param] = param.init_data()
                cell._params[name] = initialised[param]
        return initialised

    def cells_and_names(self, cells=None, name_prefix: str = "") -> Iterator[tuple[str, Cell]]:
        """Yield (dotted path, cell) for this cell and every descendant, once each.

        Args:
            cells: a set of cells already visited: they (and what lies only below them) are skipped, and the cells
                visited are added to it. None or empty: a new set.
            name_prefix: the path of this cell (children get `name_prefix.child`).

        Returns:
            An iterator of (path, Cell).
        """
        seen = cells if cells else set()

        def walk(cell: Cell, prefix: str):
            if cell in seen:
                return
            seen.add(cell)
            yield prefix, cell
            for name, child in cell._cells.items():
                if child is not None:
                    yield from walk(child, f"{prefix}.{name}" if prefix else name)

        yield from walk(self, name_prefix)

    def cells(self):
        return self.name_cells().values()

    @property
    def param_prefix(self) -> str:
        """This cell's path from the cell whose `update_cell_prefix` ran last ("" before any ran): the prefix of
        its own parameters' paths."""
        return self.__dict__.get("_param_prefix", "")

    def update_cell_prefix(self) -> None:
        """Set `param_prefix` of this cell and every descendant to its path from this cell."""
        for path, cell in self.cells_and_names():
            cell.__dict__["_param_prefix"] = path

    def name_cells(self) -> OrderedDict:
        """The direct children by attribute name; a child held under two names is listed once, under the first."""
        seen: set[int] = set()
        out = OrderedDict()
        for k, v in self._cells.items():
            if v is not None and id(v) not in seen:
                seen.add(id(v))
                out[k] = v
        return out

    def apply(self, fn) -> Cell:
        """Call `fn` on every descendant cell and then this one."""
        for child in self.cells():
            child.apply(fn)
        fn(self)
        return self

    # -- modes ---------------------------------------------------------------------------
    def set_train(self, mode: bool = True) -> Cell:
        """Training mode (dropout active, batch statistics) for this cell and its children; this cell's phase
        becomes "train" or "predict"."""
        self.__dict__["_phase"] = "train" if mode else "predict"
        for _, cell in self.cells_and_names():
            cell.__dict__["training"] = mode
        return self

    def add_flags(self, **flags) -> Cell:
        """Record flags on this Cell (MindSpore's compiler hints): kept in `get_flags()` and as attributes.

        Kiln's compiler reads none of them except MindSpore's mixed-precision flags: `fp16=True`, `fp32=True` or
        `bf16=True` set this Cell's run dtype as `to_float` does (MindSpore's `to_float` is `add_flags_recursive`
        of these flags); when several are True, the last of fp16, fp32, bf16 wins, as there. A child without a
        flag of its own runs in the dtype of the flagged Cell that calls it.
        """
        self.__dict__["_flags"].update(flags)
        for name, value in flags.items():
            object.__setattr__(self, name, value)
        for flag, dt in _MIXED_PRECISION_FLAGS:
            if flags.get(flag):
                self.__dict__["_float_dtype"] = dt
        return self

    def add_flags_recursive(self, **flags) -> Cell:
        """`add_flags` on this Cell and every Cell below it."""
        for _, cell in self.cells_and_names():
            cell.add_flags(**flags)
        return self

    def get_flags(self) -> dict:
        """The flags recorded by `add_flags`."""
        return dict(self.__dict__["_flags"])

    def get_scope(self):
        """The name scope of this Cell: 'recompute_' once `recompute()` marked it or a Cell above it, as MindSpore's
        before a compile names the rest; else None (Kiln's graph dumps name Cells by their path)."""
        return self.__dict__.get("_scope")

    def set_grad(self, requires_grad: bool = True) -> Cell:
        self.__dict__["requires_grad"] = requires_grad
        return self

    @property
    def cls_name(self) -> str:
        """The class's name, as MindSpore's Cell gives it (the zoo's cells put it in their checks' messages)."""
        return type(self).__name__

    @property
    def phase(self) -> str:
        """This cell's phase name: "train" when built, then what `set_train` (this cell's own call) or an
        assignment made it; zoo cells assign their own (`self.phase = phase`) and branch on it."""
        return self.__dict__.get("_phase", "train")

    @phase.setter
    def phase(self, value: str) -> None:
        if not isinstance(value, str):
            raise TypeError(f"Cell.phase must be a str, but got {type(value).__name__}.")
        self.__dict__["_phase"] = value

    def set_inputs(self, *inputs) -> None:
        """Declare the input signature (shapes may contain None for dynamic sizes)."""
        self.__dict__["_input_signature"] = inputs

    def get_inputs(self):
        return self._input_signature

    def set_jit_config(self, jit_config) -> None:
        self.__dict__["_jit_config"] = jit_config

    def _construct_in(self, run_dtype, args: tuple, kwargs: dict):
        """The construct call, its ops cast to `run_dtype` (the Cell's `to_float` dtype, None for none)."""
        if run_dtype is None or run_dtype is RUN.dtype:  # (a to_float child of a Cell of its dtype)
            return self._construct_call(args, kwargs)
        with running_in(run_dtype):  # MindSpore's PyNative: every op inside casts its floating-point inputs
            return self._construct_call(args, kwargs)

    def to_float(self, dst_type) -> Cell:
        """Run this Cell and its children in `dst_type`, as MindSpore 2.10 does in each mode. PyNative: while one of
        them runs, every op casts its floating-point Tensor inputs (Parameters included) to the innermost such Cell's
        dtype. GRAPH_MODE: each such Cell casts its floating-point inputs, its Tensor constants, and the Parameters
        its code hands to an operator or a Primitive; a value computed inside (a cast to float32 included) keeps its
        dtype (kiln/_compiler/frontend/ast/precision.py). Outputs keep the dtype their op gave; a Parameter stays
        float32 and so does its gradient.

        Args:
            dst_type: float16, bfloat16 or float32.

        Returns:
            The Cell itself.
        """
        dt = mstype.to_dtype(dst_type)
        if dt not in (mstype.float16, mstype.bfloat16, mstype.float32):
            raise ValueError(f"to_float: dst_type must be float16, bfloat16 or float32, but got {dt}.")
        for _, c in self.cells_and_names():
            c.__dict__["_float_dtype"] = dt
        return self

    def recompute(self, **kwargs) -> Cell:
        """In graph mode, recompute this Cell's forward pass during backward instead of keeping its activations
        (a rematerialised nested graph). PyNative keeps them, as MindSpore does.

        Returns:
            The Cell itself.
        """
        for _, c in self.cells_and_names():
            c.__dict__["_recompute"] = True
            c.__dict__["_scope"] = "recompute_"
        return self

    def shard(self, in_strategy, out_strategy=None, parameter_plan=None, **kwargs) -> Cell:
        """Split this Cell's inputs, outputs and parameters over the devices (SEMI_AUTO_PARALLEL; see kiln.parallel)."""
        ignore_argument("Cell.shard", "options", kwargs, {},
                        reason="XLA's partitioner lays out the rest of the graph; there is no device kind or search "
                        "level to choose")  # fmt: skip
        return shard_cell(self, in_strategy, out_strategy, parameter_plan)

    def extend_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        # MindSpore 2.10's layout: `Name(details)` on one line, or the details' lines and then one
        # `(attribute): child` per child, indented below `Name(` and closed by `)`.
        extra = self.extend_repr()
        lines = extra.split("\n") if extra else []
        children = [f"({n}): " + repr(c).replace("\n", "\n  ") for n, c in self._cells.items()]
        if len(lines) == 1 and not children:
            return f"{type(self).__name__}({lines[0]})"
        lines += children
        if not lines:
            return f"{type(self).__name__}()"
        return f"{type(self).__name__}(\n  " + "\n  ".join(lines) + "\n)"

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, state):
        self.__dict__.update(state)


_HookHandle = HookHandle  # the old name


def _key_prefix(cells: OrderedDict) -> tuple[str, int]:
    """The prefix a container's children's parameter names carry before the child's key, and the key's position
    among the name's dotted parts: ("cl.", 1) for `cl.0.weight` under key "0".

    MindSpore names a cell added to a container (append, extend, insert, item assignment) with this prefix, read
    from the names its first children with parameters already have; a container that is already an attribute
    (`self.cl`) therefore names new cells `cl.1.weight`. Where the key occurs more than once in the first name,
    the second child's name decides which occurrence is the key.

    Args:
        cells: the container's children by key.

    Returns:
        (prefix, position): ("", 0) when no child holds a parameter.
    """
    named = []  # (key, dotted parts of the first parameter's name) of the first two children with parameters
    for key, cell in cells.items():
        first = next(cell.get_parameters(), None) if cell is not None else None
        if first is not None:
            named.append((key, first.name.split(".")))
            if len(named) == 2:
                break
    if not named:
        return "", 0
    key, parts = named[0]
    prefix, position = "", 0
    for i, part in enumerate(parts):
        if part == key:
            prefix, position = "".join(f"{q}." for q in parts[:i]), i
            if len(named) == 2 and i < len(named[1][1]) and named[1][1][i] == named[1][0]:
                break
    return prefix, position


def _add_child(container: Cell, key: str, cell: Cell, prefix: str) -> None:
    """Register `cell` under `key` of `container`; with its auto_prefix, `cell`'s parameters are named `prefix + key.`
    + their path in it (an attribute assignment, or a cell added to a container)."""
    if container._auto_prefix:
        cell.update_parameters_name(f"{prefix}{key}.")
    container.insert_child_to_cell(key, cell)


def _renumber(cell: Cell, prefix: str, key: str, position: int) -> None:
    """Rename `cell`'s parameters `prefix + key` + what follows the old key (at `position` among the dotted parts),
    as MindSpore does to the cells that move when a container's cell is inserted or deleted."""
    for _, p in cell.parameters_and_names():
        p.name = f"{prefix}{key}." + ".".join(p.name.split(".")[position + 1 :])


def _cells_held(n: int) -> str:
    """'1 cell' or 'n cells', for a container's index errors (built only when one is raised: indexing is a hot path)."""
    return f"{n} cell" if n == 1 else f"{n} cells"


class _CellSequence(Cell):
    """What SequentialCell and CellList share: their length and iteration over the child cells, in order."""

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells.values())

    @property
    def cell_list(self) -> list:
        """The child cells in order, as a list (MindSpore's attribute: zoo code reaches `seq.cell_list[0].conv2d`)."""
        return list(self._cells.values())

    def _position(self, index) -> int:
        """`index` (an int, or what converts like one: a NumPy integer, an integer Tensor) as a position in [0, n).

        A float or an index outside [-n, n) raises naming the container, the index and the cells it holds: Python's
        list message named neither (the zoo's ALBERT indexes its CellList by `layer_idx / n * groups`, a float).
        """
        n = len(self._cells)
        try:
            i = operator.index(index)
        except TypeError:
            raise TypeError(
                f"{type(self).__name__} index {index!r} is a {type(index).__name__}: index a {type(self).__name__} "
                f"by an int or a slice (it holds {_cells_held(n)})."
            ) from None
        if not -n <= i < n:
            raise IndexError(
                f"{type(self).__name__} index {i} out of range: it holds {_cells_held(n)} ({-n} to {n - 1})."
            )
        return i % n


class SequentialCell(_CellSequence):
    """Cells applied one after another; children are named "0", "1", ... or by the keys of an OrderedDict.

    Parameter names follow MindSpore's: a cell gets its key as prefix when the SequentialCell is built; a cell added
    later (append, item assignment) gets the prefix the existing cells' names carry (`seq.1.weight` once the
    SequentialCell is the attribute `seq`); deleting a cell renumbers the cells that were numbered.

    Args:
        *args: cells, a list of cells, or an OrderedDict of named cells.
    """

    def __init__(self, *args) -> None:
        super().__init__()
        self.__dict__["_given_keys"] = set()  # keys from an OrderedDict: kept when a cell before them is deleted
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, cell in args[0].items():
                _add_child(self, name, cell, "")
                self._given_keys.add(name)
        else:
            cells = args[0] if len(args) == 1 and isinstance(args[0], list) else args
            for i, cell in enumerate(cells):
                if not isinstance(cell, Cell):
                    raise TypeError(f"SequentialCell takes Cells, but item {i} is {type(cell).__name__}.")
                _add_child(self, str(i), cell, "")

    def __getitem__(self, index):
        if isinstance(index, slice):
            # as MindSpore: the slice keeps the cells' keys (and names their parameters by them)
            return SequentialCell(OrderedDict(list(self._cells.items())[index]))
        return list(self._cells.values())[self._position(index)]

    def __setitem__(self, index: int, cell: Cell) -> None:
        if not isinstance(index, int):
            raise TypeError(f"SequentialCell indices must be integers, but got {type(index).__name__}.")
        if not isinstance(cell, Cell):
            raise TypeError(f"SequentialCell holds Cells, but got {type(cell).__name__}.")
        prefix, _ = _key_prefix(self._cells)
        _add_child(self, list(self._cells)[index], cell, prefix)

    def __delitem__(self, index) -> None:
        _delete_cells(self, index)
        prefix, position = _key_prefix(self._cells)
        kept = list(self._cells.items())
        self._cells.clear()
        for i, (key, cell) in enumerate(kept):
            if key not in self.__dict__.get("_given_keys", ()):  # a SequentialCell pickled before it had them
                key = str(i)
                _renumber(cell, prefix, key, position)
            self._cells[key] = cell

    def append(self, cell: Cell) -> SequentialCell:
        if not isinstance(cell, Cell):
            raise TypeError(f"SequentialCell holds Cells, but got {type(cell).__name__}.")
        prefix, _ = _key_prefix(self._cells)
        _add_child(self, _free_key(self._cells), cell, prefix)
        return self

    def construct(self, input_data):
        for cell in self._cells.values():
            input_data = cell(input_data)
        return input_data


class CellList(_CellSequence):
    """A list of cells registered as children ("0", "1", ...).

    Parameter names follow MindSpore's: a cell added (append, extend, insert, item assignment) gets the prefix the
    existing cells' names carry (`cl.1.weight` once the CellList is the attribute `cl`); inserting or deleting a
    cell renumbers the cells after it, names too. With auto_prefix=False names are left as they are.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(kwargs.pop("auto_prefix", True))
        if args:
            self.extend(args[0])

    def __getitem__(self, index):
        cells = list(self._cells.values())
        return CellList(cells[index]) if isinstance(index, slice) else cells[self._position(index)]

    def __setitem__(self, index: int, cell: Cell) -> None:
        key = list(self._cells)[self._position(index)]
        prefix, _ = _key_prefix(self._cells)
        _add_child(self, key, cell, prefix)

    def __delitem__(self, index) -> None:
        _delete_cells(self, index)
        self._renumber_from(list(self._cells.values()), 0, *_key_prefix(self._cells))

    def __iadd__(self, cells) -> CellList:
        return self.extend(cells)

    def append(self, cell: Cell) -> CellList:
        prefix, _ = _key_prefix(self._cells)
        _add_child(self, _free_key(self._cells), cell, prefix)
        return self

    def extend(self, cells) -> CellList:
        prefix, _ = _key_prefix(self._cells)  # read once, before the first new cell: as MindSpore
        for cell in cells:
            _add_child(self, _free_key(self._cells), cell, prefix)
        return self

    def insert(self, index: int, cell: Cell) -> None:
        n = len(self._cells)
        if not isinstance(index, int) or not -n <= index <= n:
            raise IndexError(f"CellList.insert(): the index must be an int in [{-n}, {n}], but got {index!r}.")
        if not isinstance(cell, Cell):
            raise TypeError(f"CellList holds Cells, but got {type(cell).__name__}.")
        index = index + n if index < 0 else index
        prefix, position = _key_prefix(self._cells)  # read before the new cell is in: it is not named yet
        cells = list(self._cells.values())
        cells.insert(index, cell)
        self._renumber_from(cells, index + 1, prefix, position)
        if self._auto_prefix:
            cell.update_parameters_name(f"{prefix}{index}.")

    def _renumber_from(self, cells: list, start: int, prefix: str, position: int) -> None:
        """Hold `cells` keyed 0, 1, ... and, with auto_prefix, rename those from `start` on by their new key (the
        names' old key at dotted `position`, after `prefix`)."""
        self._cells.clear()
        for i, c in enumerate(cells):
            self._cells[str(i)] = c
            if self._auto_prefix and i >= start:
                _renumber(c, prefix, str(i), position)

    def construct(self, *inputs):
        raise NotImplementedError("CellList is a container; call its cells instead.")


def _delete_cells(container: Cell, index) -> None:
    keys = list(container._cells)
    if isinstance(index, slice):
        doomed = keys[index]
    elif isinstance(index, int):
        doomed = [keys[index]]
    else:
        raise TypeError(f"{type(container).__name__} indices must be integers or slices, not {type(index).__name__}.")
    for key in doomed:
        del container._cells[key]


def _free_key(cells: dict) -> str:
    n = len(cells)
    while str(n) in cells:
        n += 1
    return str(n)


class CellDict(Cell):
    """A dict of cells registered as children under their keys.

    A cell added gets its key as parameter prefix, after the prefix the existing cells' names carry (`cd.b.weight`
    once the CellDict is the attribute `cd`), as in MindSpore. With auto_prefix=False names are left as they are.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(kwargs.pop("auto_prefix", True))
        if args:
            self.update(args[0])

    def __getitem__(self, key: str) -> Cell:
        return self._cells[key]

    def __setitem__(self, key: str, cell: Cell) -> None:
        if not isinstance(key, str):
            raise TypeError(f"CellDict keys are strings, but got {type(key).__name__}.")
        if not isinstance(cell, Cell) or isinstance(cell, (CellDict, _CellSequence)):
            # as MindSpore: a CellDict holds layers, not containers
            raise TypeError(f"CellDict holds Cells other than CellDict, CellList and SequentialCell, but the value "
                            f"for key {key!r} is {type(cell).__name__}.")  # fmt: skip
        _add_child(self, key, cell, _key_prefix(self._cells)[0] if self._auto_prefix else "")

    def __delitem__(self, key: str) -> None:
        del self._cells[key]

    def __contains__(self, key: str) -> bool:
        return key in self._cells

    def __len__(self) -> int:
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def update(self, cells) -> None:
        items = cells.items() if isinstance(cells, (Mapping, CellDict)) else cells
        for k, v in items:
            self[k] = v

    def pop(self, key: str) -> Cell:
        return self._cells.pop(key)

    def clear(self) -> None:
        self._cells.clear()

    def construct(self, *inputs):
        raise NotImplementedError("CellDict is a container; call its cells instead.")
