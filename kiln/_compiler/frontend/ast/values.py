"""Values the interpreter passes around besides Python objects and Tensors."""

from __future__ import annotations

from kiln._compiler.frontend.ast.node import FuncGraph
from kiln._compiler.frontend.ast.parser import UNDEF
from kiln._compiler.ir.graph import Var
from kiln._core import dtype as mstype
from kiln._core.primitive import AbstractTensor
from kiln._core.tensor import Tensor

MISSING = object()  # "no such global": a guard that a builtin is not shadowed later


class Frame:
    """The values of one activation of a graph; `parent` is the frame of the enclosing graph."""

    __slots__ = ("graph", "parent", "values", "ns", "current")

    def __init__(self, graph: FuncGraph, parent: Frame | None, ns) -> None:
        self.graph = graph
        self.parent = parent
        self.values: dict = {}
        self.ns = ns
        self.current = None  # the node being evaluated (for error reports)


class Closure:
    """A graph as a value: its graph plus the frame its free variables live in."""

    __slots__ = ("graph", "frame", "defaults", "kwdefaults")

    def __init__(self, graph: FuncGraph, frame: Frame | None, defaults: tuple = (), kwdefaults: dict | None = None):
        self.graph, self.frame, self.defaults, self.kwdefaults = graph, frame, defaults, kwdefaults or {}

    def __repr__(self) -> str:
        return f"<closure {self.graph.name}>"


class IterState:
    """A loop over a sequence whose length is known at compile time (the loop is unrolled)."""

    __slots__ = ("items", "index")

    def __init__(self, items: tuple, index: int) -> None:
        self.items, self.index = items, index


class TensorRange:
    """`range(...)` with Tensor bounds: iterated by a compiled loop."""

    __slots__ = ("index", "stop", "step")

    def __init__(self, index: Tensor, stop: Tensor, step: Tensor) -> None:
        self.index, self.stop, self.step = index, stop, step


class RangeLoop(TensorRange):
    """`range(...)` of Python ints long enough to try as one compiled loop (`control.range_loop`): its bounds
    as constant Tensors, and the range itself for unrolling when the body cannot run with a Tensor index."""

    __slots__ = ("py",)

    def __init__(self, py: range) -> None:
        super().__init__(Tensor(py.start, mstype.int64), Tensor(py.stop, mstype.int64), py.step)
        self.py = py


class SwitchedCallable:
    """`fns[index]` with an index Tensor known only at run time (MindSpore's switch_layer): calling it runs the
    chosen function, one `cond` per candidate."""

    __slots__ = ("fns", "index", "node")

    def __init__(self, fns: tuple, index: Tensor, node) -> None:
        self.fns, self.index, self.node = fns, index, node


class Goto:
    """Outcome of running a region: it left by jumping to `target`."""

    __slots__ = ("target", "parent", "args")

    def __init__(self, target: FuncGraph, parent: Frame, args: list) -> None:
        self.target, self.parent, self.args = target, parent, args


class Return:
    """Outcome of running a region: the function returned `value`."""

    __slots__ = ("value",)

    def __init__(self, value) -> None:
        self.value = value


class Raises:
    """Outcome of running a region: it raised `exc` (at `loc`), under a Tensor condition."""

    __slots__ = ("exc", "loc")

    def __init__(self, exc: BaseException, loc) -> None:
        self.exc, self.loc = exc, loc


# Recursion under a Tensor condition is unrolled a few calls deep, the cut-off call compiled as a raise
# of RecursionCut; when a call reaches it, the function is compiled again twice as deep (iterative
# deepening, up to max_call_depth), so the program gets only as deep as its inputs need.
FIRST_UNROLL = 4
UNROLL: dict = {}  # recursive FuncGraph -> nested calls of it compiled under Tensor conditions


class RecursionCut(RecursionError):
    """A recursion on Tensor values went deeper than compiled (raised by the call; Kiln compiles deeper)."""

    def __init__(self, message: str, graph) -> None:
        super().__init__(message, graph)

    @property
    def graph(self):
        return self.args[1]

    def __str__(self) -> str:
        return self.args[0]


class Exits:
    """Outcome of running a region that leaves by one of several exits, chosen at run time.

    `which` (an int32 scalar Tensor) indexes `outs`, each a Goto or Return; the payloads (jump arguments,
    returned values) of the exits not taken hold placeholders of the right types. `where` locates the
    Tensor `if` that split the paths, for error messages.
    """

    __slots__ = ("which", "outs", "where")

    def __init__(self, which: Tensor, outs: list, where) -> None:
        self.which, self.outs, self.where = which, outs, where


def is_symbolic(x) -> bool:
    """A Tensor whose value is unknown at compile time."""
    return isinstance(x, Tensor) and type(x._data) is Var


def is_cell(x) -> bool:
    """Cells are recognised by shape (the compiler does not import kiln.nn)."""
    d = getattr(x, "__dict__", None)
    return d is not None and "_params" in d and "_cells" in d and hasattr(type(x), "construct")


def abstract_of(v):
    """What the IR printer shows for a value."""
    if isinstance(v, Tensor):
        return AbstractTensor(tuple(v._data.shape), v.dtype)
    if isinstance(v, (int, float, bool, str, type(None))):
        return _Const(v)
    if isinstance(v, tuple) and len(v) <= 8:
        return _Seq("Tuple", tuple(abstract_of(x) for x in v))
    if isinstance(v, list) and len(v) <= 8:
        return _Seq("List", tuple(abstract_of(x) for x in v))
    if v is UNDEF:
        return _Const(v)
    return _Obj(v)


class _Const:
    __slots__ = ("v",)

    def __init__(self, v) -> None:
        self.v = v

    def __str__(self) -> str:
        return f"{type(self.v).__name__}({self.v!r})" if self.v is not None else "None"


class _Seq:
    __slots__ = ("kind", "items")

    def __init__(self, kind: str, items: tuple) -> None:
        self.kind, self.items = kind, items

    def __str__(self) -> str:
        return f"{self.kind}[{', '.join(str(x) for x in self.items)}]"


class _Obj:
    __slots__ = ("text",)

    def __init__(self, v) -> None:
        if isinstance(v, Closure):
            self.text = f"Func[{v.graph.name}]"
        elif is_cell(v):
            self.text = f"Cell[{type(v).__name__}]"
        elif isinstance(v, type):
            self.text = f"Class[{v.__name__}]"
        elif callable(v):
            self.text = f"Func[{getattr(v, '__qualname__', type(v).__name__)}]"
        else:
            self.text = type(v).__name__

    def __str__(self) -> str:
        return self.text
