"""Tensor and Parameter: a backend array plus what autograd and state need.

Methods and operators are installed by `kiln.ops` (which sits above this
layer), so this file only knows how to hold, convert and show data.
"""

from __future__ import annotations

import itertools
import math
import numbers

import numpy as np

from kiln import _backend as B
from kiln._backend.distributed import to_host
from kiln._compiler.ir import graph as G
from kiln._core import dtype as mstype
from kiln._core.source_site import defined_at


def _infer_host_dtype(data) -> mstype.DType:
    """MindSpore's dtype for Python data: int -> int64, float -> float32, bool -> bool."""
    if isinstance(data, (bool, np.bool_)):
        return mstype.bool_
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, np.ndarray | np.generic):
        return mstype.from_np(data.dtype)
    if isinstance(data, numbers.Integral):
        return mstype.int64
    if isinstance(data, numbers.Real):
        return mstype.float32
    if isinstance(data, numbers.Complex):
        return mstype.complex64
    if isinstance(data, (list, tuple)):
        if len(data) == 0:
            return mstype.float32
        kinds = [_infer_host_dtype(x) for x in data]
        rank = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
        return max(kinds, key=lambda d: (rank[d.kind], d.itemsize))
    raise TypeError(
        f"Tensor() expects a Python number, list, tuple, NumPy array or Tensor, but got {type(data).__name__}."
    )


def _to_host(data):
    """Nested lists/tuples of Tensors and numbers -> NumPy-convertible data."""
    if isinstance(data, Tensor):
        return np.asarray(data._data)
    if isinstance(data, (list, tuple)):
        return [_to_host(x) for x in data]
    return data


def _preview(data) -> str:
    text = repr(data)
    return text if len(text) <= 80 else text[:77] + "..."


def _row_lengths(host) -> list:
    """The lengths of the first level of nested lists whose elements differ in length (or nesting)."""
    level = host
    while isinstance(level, list) and level and all(isinstance(x, list) for x in level):
        lengths = [len(x) for x in level]
        if len(set(lengths)) > 1:
            return lengths
        level = [y for x in level for y in x]
    return [len(x) if isinstance(x, list) else "a number" for x in level] if isinstance(level, list) else []


_INITIALIZERS: list = []  # `kiln.common.initializer.initializer`, registered by that module (it sits above)


def _initialize(init, shape, dtype):
    """A Tensor filled by an initializer name or object (`Tensor(shape=..., init=...)`)."""
    if not _INITIALIZERS:
        raise RuntimeError("Tensor(init=...) needs kiln.common.initializer; import kiln first.")
    return _INITIALIZERS[0](init, shape, dtype)


def _symbolic(data) -> bool:
    """True for values only known when a graph runs (Kiln IR values, backend tracers)."""
    return type(data) is G.Var or B.is_tracer(data)


class _Placeholder:
    """Stands for data of a partly unknown shape (`Tensor(shape=(None, 3), dtype=...)`)."""

    __slots__ = ("shape", "dtype", "ndim")

    def __init__(self, shape: tuple, dtype: mstype.DType) -> None:
        self.shape, self.dtype, self.ndim = shape, dtype.np, len(shape)

    @property
    def size(self):
        raise ValueError(f"the size of a Tensor with dynamic shape {list(self.shape)} is unknown.")

    def __array__(self, *args, **kwargs):
        raise ValueError(f"a Tensor with dynamic shape {list(self.shape)} holds no data; it only declares inputs.")


class Pending:
    """The value of an op that PyNative's lazy window (kiln/_pynative/lazy.py) has recorded but not run yet.

    Its shape, dtype and weak type are known at once (the op's abstract evaluation); reading a Tensor's `_data`
    when it holds one runs the window (`resolve`), and the Tensor then holds the array.
    """

    __slots__ = ("shape", "dtype", "weak_type", "ndim", "size", "window", "index", "array", "__weakref__")

    def __init__(self, shape: tuple, dtype, weak_type: bool, window, index: int) -> None:
        self.shape, self.dtype, self.weak_type = shape, dtype, weak_type
        self.ndim, self.size = len(shape), math.prod(shape)
        # the window computing it (after a failed run, a lazy.Failed that raises the op's error), its output position
        self.window, self.index = window, index
        self.array = None

    def resolve(self):
        """The computed array (running the window that records it, if it has not run yet)."""
        if self.array is None:
            self.window.flush()
            if self.array is None:
                raise self.window.failure(self)
        return self.array


# The open lazy window (kiln/_pynative/lazy.py registers it, from above): a Parameter read outside dispatch runs
# it first, so no recorded op can hold a Parameter's buffer that a compiled graph then donates
LAZY_WINDOWS: list = []


def _made_outside(t: Tensor, trace: G.Trace) -> bool:
    """Whether `t` holds a value from outside the nested graph `trace` (a Tensor being built holds none)."""
    buf = getattr(t, "_buf", None)
    if buf is None:
        return False
    if trace.written_tensor(id(t), t) is not None:
        return True
    return type(buf) is not G.Var or buf.trace is not trace


class Tensor:
    """A multi-dimensional array on the current device.

    Args:
        input_data: Python number, (nested) list/tuple, NumPy array or Tensor.
        dtype: element type; inferred as MindSpore does when omitted
            (int -> int64, float -> float32, NumPy dtypes kept).
        shape, init: build a tensor of `shape` from an initializer instead of data.
    """

    # _buf: the array, or a Pending value of the lazy window (read through `_data`); _hooks: set by register_hook;
    # _view_of: (root, path of steps) when this one is a view read from `root` (`root[i][j]`, `root.reshape(s)`), so
    # that writing into it writes there too; for a root, the list of weak references to its views; else None.
    # __dict__: a script may set its own attributes on a Tensor (`w.requires_grad = False`), as MindSpore allows.
    __slots__ = ("_buf", "_nodes", "_hooks", "_view_of", "__weakref__", "__dict__")
    __array_priority__ = 100

    @property
    def _data(self):
        """The backend array (an op still pending in the lazy window runs first); inside a nested graph (a Tensor
        `if` branch, a `while` body), the value that graph wrote to this Tensor, if it did."""
        if G._TRACES:
            trace = G._TRACES[-1]
            if trace is not None and trace.parent is not None:
                v = trace.written_tensor(id(self), self)
                if v is not None:
                    return v
        d = self._buf
        if type(d) is Pending:
            d = self._buf = d.resolve()
        return d

    @_data.setter
    def _data(self, value) -> None:
        # A nested graph writing a Tensor made outside it records the write as its state, which the `cond` or
        # `while` joins at its end: the array itself must not become a value of the nested graph.
        if G._TRACES:
            trace = G._TRACES[-1]
            if trace is not None and trace.parent is not None and _made_outside(self, trace):
                trace.write_tensor(id(self), self, value)
                return
        self._buf = value
        # a PyNative write into a view or into a tensor with views: kiln.ops carries it to the others
        if getattr(self, "_view_of", None) is not None and (not G._TRACES or G._TRACES[-1] is None):
            VIEW_WRITTEN[0](self)

    def __init__(self, input_data=None, dtype=None, shape=None, init=None, const_arg: bool = False) -> None:
        self._nodes = None
        self._view_of = None
        if dtype is not None:
            dtype = mstype.to_dtype(dtype)
        if input_data is None:
            if shape is None and init is None and dtype is not None:
                # MindSpore's dynamic-rank placeholder (`Tensor(dtype=...)`): any shape fits, shown as (-2,).
                self._data = _Placeholder((-2,), dtype)
                return
            if shape is None:
                raise ValueError(
                    "Tensor() needs input_data, or shape together with init (or a dtype alone, for a "
                    "dynamic-rank input declaration)."
                )
            shape = (shape,) if isinstance(shape, int) else tuple(shape)
            if any(d is None or d == -1 for d in shape):
                # A placeholder for `Cell.set_inputs`: shape and dtype only, some sizes unknown.
                self._data = _Placeholder(tuple(None if d == -1 else d for d in shape), dtype or mstype.float32)
                return
            if init is None:
                self._data = B.jnp.zeros(shape, (dtype or mstype.float32).np)
                return
            self._data = _initialize(init, shape, dtype or mstype.float32)._data
            return
        if isinstance(input_data, Tensor):
            # shared, even while pending in the lazy window (a Parameter is read through its `_data`: in a graph
            # being recorded, that is its traced value)
            if not isinstance(input_data, Parameter) and (dtype is None or input_data._buf.dtype == dtype.np):
                self._buf = input_data._buf
                return
            arr = input_data._data
            self._data = arr if dtype is None or arr.dtype == dtype.np else arr.astype(dtype.np)
            return
        if B.is_array(input_data):
            self._data = input_data if dtype is None else input_data.astype(dtype.np)
            return
        host = _to_host(input_data) if isinstance(input_data, (list, tuple)) else input_data
        target = dtype or _infer_host_dtype(input_data)
        try:
            array = np.asarray(host, dtype=target.np)
        except ValueError:
            if not isinstance(input_data, (list, tuple)):
                raise
            # NumPy's words ("setting an array element with a sequence") do not say which data; a TypeError,
            # as MindSpore's for data it cannot convert
            raise TypeError(
                f"Tensor() needs nested lists of one rectangular shape, but the lists of {_preview(input_data)} "
                f"differ in length (rows of lengths {_row_lengths(host)})."
            ) from None
        self._data = B.as_array(array)

    @classmethod
    def _wrap(cls, array) -> Tensor:
        """Wrap a backend array without copying or checking (the dispatch fast path)."""
        t = object.__new__(Tensor)
        t._buf = array
        t._nodes = None
        t._view_of = None
        return t

    # -- metadata (known without running a pending op) -------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._buf.shape)

    @property
    def dtype(self) -> mstype.DType:
        return mstype.from_np(self._buf.dtype)

    @property
    def ndim(self) -> int:
        return self._buf.ndim

    @property
    def size(self) -> int:
        return int(self._buf.size)

    @property
    def itemsize(self) -> int:
        return self._buf.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return int(self._buf.size) * self._buf.dtype.itemsize

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(int(np.prod(self.shape[i + 1 :])) * self.itemsize for i in range(self.ndim))

    # -- conversion ---------------------------------------------------------------
    def asnumpy(self) -> np.ndarray:
        """A NumPy copy of the data (waits for pending computation)."""
        if _symbolic(self._data):
            raise RuntimeError("asnumpy() reads a concrete value, but this Tensor is symbolic inside a compiled graph.")
        return np.array(to_host(self._data))

    numpy = asnumpy

    def __array__(self, dtype=None, copy=None):
        if _symbolic(self._data):
            raise RuntimeError("asnumpy() reads a concrete value, but this Tensor is symbolic inside a compiled graph.")
        arr = to_host(self._data)
        return arr.astype(dtype) if dtype is not None else arr

    def item(self, index=None):
        arr = self.asnumpy()
        if index is None:
            if arr.size != 1:
                raise ValueError(f"item() needs a tensor with one element, but the shape is {list(self.shape)}.")
            return arr.reshape(()).item()
        return arr.item(index)

    def tolist(self):
        return self.asnumpy().tolist()

    def __bool__(self) -> bool:
        if self.size != 1:
            raise ValueError(
                f"The truth value of a Tensor with shape {list(self.shape)} is ambiguous; use .any() or .all()."
            )
        return bool(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __index__(self) -> int:
        if not self.dtype.is_integer:
            raise TypeError(f"only integer tensors can be used as an index, but got {self.dtype}.")
        return int(self.item())

    def __len__(self) -> int:
        if self.ndim == 0:
            raise TypeError("len() of a 0-d Tensor")
        return self.shape[0]

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        if _symbolic(self._data) or isinstance(self._data, _Placeholder):
            return f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=<symbolic>)"
        arr = np.asarray(self._data)
        if self.dtype is mstype.bfloat16:
            arr = arr.astype(np.float32)
        body = np.array2string(arr, separator=" ", threshold=1000, edgeitems=3)
        if arr.ndim == 0 or arr.size == 1:
            body = body.strip("[]") if arr.ndim == 0 else body
        return (
            f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value=\n{body})"
            if arr.ndim > 1
            else (f"Tensor(shape={list(self.shape)}, dtype={self.dtype}, value= {body})")
        )

    def __str__(self) -> str:
        if _symbolic(self._data) or isinstance(self._data, _Placeholder):
            return repr(self)
        arr = np.asarray(self._data)
        return np.array2string(arr, separator=" ") if arr.ndim else str(arr)

    def __format__(self, spec: str) -> str:
        if self.ndim == 0 and spec:
            return format(self.item(), spec)
        return str(self)

    def __copy__(self) -> Tensor:
        t = Tensor._wrap(self._buf)
        t.__dict__.update(self.__dict__)  # the script's own attributes, as MindSpore's copy keeps them
        return t

    def __deepcopy__(self, memo) -> Tensor:
        return Tensor._wrap(self._buf)  # without the script's attributes, as MindSpore's deep copy

    def __reduce__(self):
        return (Tensor, (self.asnumpy(),), self.__dict__ or None)

    def init_data(self) -> Tensor:
        """MindSpore compatibility: data is never lazily initialised in Kiln."""
        return self

    def set_const_arg(self, const_arg: bool = True) -> Tensor:
        return self

    @property
    def has_init(self) -> bool:
        """Whether the data waits for `init_data` (MindSpore's property): never in Kiln, whose initializers make the
        data at once. A property, as MindSpore's, so `if p.has_init:` reads False (a method object read True)."""
        return False

    # -- gradient hooks --------------------------------------------------------------
    def register_hook(self, hook) -> HookHandle:
        """Run `hook(grad)` on the gradient that reaches this tensor in a PyNative backward pass.

        The hook may return a Tensor that replaces the gradient (None keeps it). Hooks run in
        registration order, each on the previous one's result. On a leaf (an input of `grad`, a
        Parameter) the hook sees the gradient summed over all uses.

        Returns:
            A handle whose `remove()` unregisters the hook.
        """
        if not callable(hook):
            raise TypeError(f"register_hook() expects a callable hook(grad), but got {type(hook).__name__}.")
        if isinstance(self, Parameter) and not self.requires_grad:
            raise RuntimeError(
                f"register_hook(): Parameter '{self.name}' has requires_grad=False, so it gets no gradient "
                f"for the hook to see; set requires_grad=True first."
            )
        if G.current() is not None and (isinstance(self, Parameter) or _symbolic(self._data)):
            if isinstance(self, Parameter) or not _GRAPH_TENSOR_HOOK:
                raise ValueError(  # MindSpore's type for this user error
                    f"Tensor.register_hook({defined_at(hook)}) on a Parameter inside a compiled graph (GRAPH_MODE "
                    f"or @jit): register it outside the graph (PyNative), where it lasts until removed."
                )
            # In a graph (as MindSpore): from here on the tensor's value passes through an identity whose
            # backward runs the hook; the tensor itself is returned, and the hook cannot be removed.
            self._data = _GRAPH_TENSOR_HOOK[0](self, hook)._data
            return self
        hooks = getattr(self, "_hooks", None)
        if hooks is None:
            hooks = self._hooks = {}
        key = HookHandle.new_key()
        hooks[key] = hook
        for node, index in (self._nodes or {}).values():  # an intermediate result: hook its tape entry
            node.add_hooks(index, hooks)
        if isinstance(self, Parameter):  # compiled graphs trace Parameters' hooks in: they compile again
            CELL_HOOKS["generation"] += 1
        return HookHandle(hooks, key, cell=isinstance(self, Parameter))

    def hooks(self) -> list:
        """The hooks registered on this tensor, in the order they run."""
        return list((getattr(self, "_hooks", None) or {}).values())


_GRAPH_TENSOR_HOOK: list = []  # set by kiln._pynative.autograd: (tensor, hook) -> hooked tensor, in a graph


# Bumped whenever a Cell's or a Parameter's hook is registered or removed: compiled graphs, which trace those
# hooks in, guard on it
CELL_HOOKS = {"generation": 0}


class HookHandle:
    """Returned by the register_*hook methods: `remove()` unregisters the hook (twice is harmless)."""

    _counter = 0

    def __init__(self, table: dict, key: int, *, cell: bool = False) -> None:
        self._table, self._key, self._cell = table, key, cell
        self.id = key

    @classmethod
    def new_key(cls) -> int:
        cls._counter += 1
        return cls._counter

    def remove(self) -> None:
        if self._table.pop(self._key, None) is not None and self._cell:
            CELL_HOOKS["generation"] += 1


_slot = Tensor._buf  # the storage slot; Parameter routes its reads and writes through the active trace
STORAGE = _slot
# kiln.ops' view_written(tensor), installed when kiln.ops is imported: run after a PyNative in-place write into a
# tensor that is a view or has views (its `_view_of` set), so that the write is seen through all of them
VIEW_WRITTEN: list = []


def _stored(p: Parameter):
    """A Parameter's own array; recorded ops of the lazy window run first (see LAZY_WINDOWS)."""
    if LAZY_WINDOWS and LAZY_WINDOWS[0].ops:
        LAZY_WINDOWS[0].flush()
    d = _slot.__get__(p, Parameter)
    if type(d) is Pending:
        d = d.resolve()
        _slot.__set__(p, d)
    return d


def stored_value(p: Parameter):
    """`p`'s own array, or the lazy window's pending value, read without running the window or asking a trace."""
    return _slot.__get__(p, Parameter)


def store_value(p: Parameter, value) -> None:
    """Make `value` (an array or a pending value) `p`'s own, with no kernel and no trace (PyNative's replay of a
    forward's state puts back arrays nothing else holds)."""
    _slot.__set__(p, value)


def value_mark(p: Parameter):
    """What identifies `p`'s current value without reading it: its Var in the graph being recorded, else its own
    array (or the lazy window's pending value). Any write replaces it; compare marks with `is`."""
    trace = G._TRACES[-1] if G._TRACES else None
    if trace is None or id(p) in trace.const_ids:
        return _slot.__get__(p, Parameter)
    return p._data


# A Parameter made without a name is `Parameter#<n>`, n counting such Parameters in the process, as in MindSpore (whose
# import makes two, the default Generator's seed and offset: `kiln.common.generator` takes the same two numbers).
GENERATED_NAME_PREFIX = "Parameter#"
_generated_numbers = itertools.count()
_NAME_MAX_LEN = 1024


def generated_parameter_name() -> str:
    """A fresh `Parameter#<n>` name (the name of a Parameter made without one)."""
    return f"{GENERATED_NAME_PREFIX}{next(_generated_numbers)}"


def is_generated_name(name) -> bool:
    """Whether `name` is one `generated_parameter_name` gives: a Cell registering such a Parameter renames it."""
    return isinstance(name, str) and name.startswith(GENERATED_NAME_PREFIX)


class Parameter(Tensor):
    """A Tensor that is network state: trainable weights, moving statistics.

    While a graph is recorded, reading a Parameter gives its value in that graph
    and writing records a new value there: the Parameter itself changes only
    when the compiled graph runs and its outputs are written back.

    Args:
        default_input: the initial value (Tensor, NumPy array, number, or an
            initializer output).
        name: the parameter's name; cells prefix it with their attribute path. None or a blank string gives
            `Parameter#<n>`, renamed by the Cell that registers it.
        requires_grad: whether optimizers and `weights=` gradients include it.
    """

    __slots__ = ("_name", "requires_grad", "layerwise_parallel", "parallel_optimizer")
    sliced: bool = False  # set by set_data(slice_shape=...): MindSpore's mark of one rank's slice of the Parameter

    def __init__(
        self,
        default_input,
        name: str | None = None,
        requires_grad: bool = True,
        layerwise_parallel: bool = False,
        parallel_optimizer: bool = True,
    ) -> None:
        # A new Parameter holds its value itself, also when made while a graph is recorded (a Cell built inside a
        # function traced as Python): its value never goes through the trace's state.
        if isinstance(default_input, Tensor):
            _slot.__set__(self, default_input._data)
            self._nodes = None
            self._view_of = None
        else:
            with G.recording(None):
                Tensor.__init__(self, default_input)
        self.name = name
        self.requires_grad = requires_grad
        self.layerwise_parallel = layerwise_parallel
        self.parallel_optimizer = parallel_optimizer

    @property
    def name(self) -> str:
        """The parameter's name (in checkpoints, `parameters_dict()`, optimizer state names)."""
        return self._name

    @name.setter
    def name(self, name: str | None) -> None:
        if name is None:
            name = generated_parameter_name()
        elif isinstance(name, str):
            name = name.strip() or generated_parameter_name()
            if len(name) > _NAME_MAX_LEN:
                raise ValueError(
                    f"A Parameter's name has at most {_NAME_MAX_LEN} characters; this one has {len(name)}."
                )
        else:
            raise ValueError(f"A Parameter's name is a str or None, but got a {type(name).__name__}: {name!r}.")
        self._name = name

    @property
    def _data(self):
        trace = G._TRACES[-1] if G._TRACES else None
        if trace is None or id(self) in trace.const_ids:
            return _stored(self)
        return trace.read_state(id(self), self, _stored(self))

    @_data.setter
    def _data(self, value) -> None:
        trace = G._TRACES[-1] if G._TRACES else None
        if trace is None:
            _slot.__set__(self, value)
            if getattr(self, "_view_of", None) is not None:  # a Parameter with views (`row = p[0]`) in PyNative
                VIEW_WRITTEN[0](self)
        elif id(self) in trace.const_ids:
            _slot.__set__(self, value)
        else:
            trace.write_state(id(self), self, value)

    # Inside a graph being recorded, a Parameter's metadata is its traced value's; outside, its own array's (read
    # without running the lazy window)
    def _meta(self):
        return _slot.__get__(self, Parameter) if not G._TRACES or G._TRACES[-1] is None else self._data

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._meta().shape)

    @property
    def dtype(self) -> mstype.DType:
        return mstype.from_np(self._meta().dtype)

    @property
    def ndim(self) -> int:
        return self._meta().ndim

    @property
    def size(self) -> int:
        return int(self._meta().size)

    def __repr__(self) -> str:
        return (
            f"Parameter (name={self.name}, shape={self.shape}, dtype={self.dtype}, requires_grad={self.requires_grad})"
        )

    def set_data(self, data, slice_shape: bool = False) -> Parameter:
        """Replace the value in place, cast to the Parameter's dtype.

        Outside a graph the shape may change, as in MindSpore 2.10: a compiled program that read this Parameter
        compiles again at its next call (its executable refuses state of another shape), and an optimizer's state
        made for the old shape is refused by its step. Inside a graph being recorded the shape must stay.

        Args:
            data: a Tensor, or a number or array made into one of the Parameter's dtype.
            slice_shape: recorded as `sliced` (MindSpore's flag for a Parameter holding one rank's slice); the
                shape is not checked either way.

        Returns:
            The Parameter.
        """
        new = data._data if isinstance(data, Tensor) else Tensor(data, dtype=self.dtype)._data
        if tuple(new.shape) != self.shape and self.size != 0:
            trace = G._TRACES[-1] if G._TRACES else None
            if trace is not None and id(self) not in trace.const_ids:
                # the program being recorded fixes each Parameter's shape for all of its runs
                raise ValueError(
                    f"For Parameter '{self.name}', set_data() inside a compiled graph cannot change the shape from "
                    f"{list(self.shape)} to {list(new.shape)}; call set_data outside the graph (in PyNative code) to "
                    "give the Parameter a new shape."
                )
        if new.dtype != self._data.dtype:
            # inside a graph the value is a Var (a float16 input of a to_float Cell written into a float32
            # Parameter): the installed Tensor.astype records the cast; an array casts itself
            new = data.astype(self.dtype)._data if G.is_symbolic(new) else new.astype(self._data.dtype)
        if type(getattr(self, "_view_of", None)) is list:  # new storage, as MindSpore's: earlier views keep the old
            self._view_of = None
        self._data = new
        self.sliced = bool(slice_shape)
        return self

    @property
    def data(self) -> Parameter:
        """The Parameter itself (reads through it are reads of the Parameter)."""
        return self

    def value(self) -> Tensor:
        """The current value, as a Tensor that is still a read of this Parameter: a gradient with respect to the
        Parameter flows through it in PyNative as in compiled graphs."""
        return self._read()

    def copy(self) -> Tensor:
        """A Tensor holding the current value; like `value()`, gradients flow back to the Parameter through it."""
        return self._read()

    def _read(self) -> Tensor:
        # The PyNative tape knows a tensor by its `_nodes` (its recorded producer per grad level); a fresh Tensor
        # over the same data would be a constant to it. The dict is copied: the Parameter's own entry changes when
        # the Parameter is written or watched again, and this read must keep the value it had.
        # Outside a graph the slot is taken as it is: a value the lazy window computes stays pending (wrapping it
        # uses no array; running the window here cut an embedding's step, which returns its table, in pieces).
        out = Tensor._wrap(self._meta())
        out._nodes = dict(self._nodes) if self._nodes else None
        return out

    def clone(self, init: str = "same") -> Parameter:
        """A new Parameter with this one's name and `requires_grad`, holding a copy of its data (`init="same"`)
        or data made by `init` ('zeros', 'ones', 'normal', an Initializer, ...) in its shape and dtype."""
        p = Parameter(Tensor._wrap(self._data), self.name, self.requires_grad)
        if init != "same":
            p.set_data(_initialize(init, self.shape, self.dtype))
        return p

    def __copy__(self) -> Parameter:
        return self.clone()

    def __deepcopy__(self, memo) -> Parameter:
        # MindSpore's deep copy is made as an unnamed Parameter and then named: it takes a `Parameter#<n>` number
        generated_parameter_name()
        return self.clone()

    def __reduce__(self):
        return (Parameter, (Tensor(self.asnumpy()), self.name, self.requires_grad))

    @property
    def trainable(self) -> bool:
        return self.requires_grad


class ParameterTuple(tuple):
    """A tuple of Parameters, as returned by `Cell.trainable_params()` wrappers."""

    def __new__(cls, iterable=()):
        items = tuple(iterable)
        names: dict[str, Parameter] = {}
        for p in items:
            if not isinstance(p, Parameter):
                raise TypeError(f"ParameterTuple holds Parameters, but got {type(p).__name__}.")
            if names.setdefault(p.name, p) is not p:  # the same Parameter twice is allowed
                raise ValueError(
                    f"ParameterTuple: two different Parameters are both named '{p.name}'; give them distinct names."
                )
        return super().__new__(cls, items)

    def clone(self, prefix: str, init: str = "same") -> ParameterTuple:
        out = []
        for p in self:
            c = p.clone(init)
            c.name = f"{prefix}.{p.name}"
            out.append(c)
        return ParameterTuple(out)
