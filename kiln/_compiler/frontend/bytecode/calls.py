"""What a call does under bytecode capture: inline it, run it on the symbolic Tensors, or break the graph."""

from __future__ import annotations

import builtins
import collections
import sys
import types

from kiln._compiler.frontend.ast.calls import concretization_errors, is_user_function
from kiln._compiler.frontend.ast.values import MISSING, is_cell
from kiln._core.tensor import Tensor

__all__ = ["HOST_HINT", "MISSING", "classify", "has_tensor", "is_user_function", "needs_value"]

HOST_HINT = "keep the value a Tensor (Tensor ops, ops.select/where instead of Python if), or read it after the call"
HOST_READS = {"asnumpy", "numpy", "item", "tolist", "__bool__", "__float__", "__int__", "__index__", "__array__",
              "__repr__", "__str__", "__format__", "__complex__"}  # fmt: skip
# Builtins that only compute on their arguments (safe to run at capture time on constants and Tensors).
PURE_BUILTINS = {
    builtins.len, builtins.isinstance, builtins.issubclass, builtins.range, builtins.zip, builtins.enumerate,
    builtins.min, builtins.max, builtins.abs, builtins.sum, builtins.sorted, builtins.reversed, builtins.any,
    builtins.all, builtins.map, builtins.filter, builtins.round, builtins.divmod, builtins.pow, builtins.hash,
    builtins.callable, builtins.getattr, builtins.hasattr, builtins.iter, builtins.next, builtins.format,
    builtins.chr, builtins.ord, builtins.hex, builtins.bin, builtins.oct, builtins.id, builtins.type,
    builtins.list, builtins.tuple, builtins.dict, builtins.set, builtins.frozenset, builtins.int, builtins.float,
    builtins.bool, builtins.str, builtins.complex, builtins.slice, builtins.object, builtins.super, builtins.repr,
    builtins.bytes, builtins.ascii,
}  # fmt: skip
CONVERTERS = {builtins.int, builtins.float, builtins.bool, builtins.complex}
TEXT_BUILTINS = {builtins.str, builtins.repr, builtins.format, builtins.ascii}  # a Tensor's text is its value
PURE_MODULES = ("math", "operator", "itertools", "functools", "collections", "dataclasses", "enum", "typing",
                "numbers", "copy", "abc", "string", "re", "keyword")  # fmt: skip
FRESH_RESULT = {builtins.list, builtins.dict, builtins.set, builtins.sorted}

_CONCRETE: tuple = ()


def needs_value(err: BaseException) -> bool:
    """The error says a symbolic Tensor's value was needed (a host read inside a call)."""
    global _CONCRETE
    if isinstance(err, RuntimeError) and "symbolic inside a compiled graph" in str(err):
        return True
    if not _CONCRETE:
        _CONCRETE = concretization_errors() or (type(None),)
    return isinstance(err, _CONCRETE)


def has_tensor(values, depth: int = 2) -> bool:
    for v in values:
        if isinstance(v, Tensor):
            return True
        if depth and isinstance(v, (list, tuple)) and has_tensor(v, depth - 1):
            return True
        if depth and isinstance(v, dict) and has_tensor(v.values(), depth - 1):
            return True
    return False


def _module(fn) -> str:
    m = getattr(fn, "__module__", None)
    if m is None and isinstance(fn, (types.BuiltinFunctionType, types.BuiltinMethodType)):
        owner = getattr(fn, "__self__", None)
        m = getattr(owner, "__name__", None) if isinstance(owner, types.ModuleType) else type(owner).__module__
    return m or ""


def _kiln(fn) -> bool:
    return _module(fn).partition(".")[0] == "kiln"


def classify(fn, args, kwargs) -> tuple:
    """(kind, detail) for a call: 'inline' (fn, bound args), 'jit', 'cell', 'print', 'direct', 'mutate',
    'break' (reason, hint)."""
    if getattr(fn, "_kiln_fn", None) is not None:  # a jit-wrapped function: inline the function behind it
        bound = getattr(fn, "_kiln_self", None)
        return ("inline", (fn._kiln_fn, [bound, *args] if bound is not None else list(args)))
    t = type(fn)
    if t is types.FunctionType:
        if is_user_function(fn):
            if fn.__code__.co_flags & 0x2A0:  # generator, coroutine, async generator
                return ("break", (f"call of generator function '{fn.__qualname__}'", "return a list instead"))
            return ("inline", (fn, list(args)))
        top = _module(fn).partition(".")[0]
        if top == "kiln" or top == "numpy" and not has_tensor(args) and "random" not in _module(fn):
            return ("direct", None)
        if top in PURE_MODULES:
            return ("direct", None)
        return ("break", (f"call of library function '{_module(fn)}.{fn.__qualname__}'", "call it outside jit"))
    if t is types.MethodType:
        f = getattr(fn.__func__, "_kiln_fn", fn.__func__)
        if is_user_function(f):
            return classify(f, [fn.__self__, *args], kwargs)
        if isinstance(fn.__self__, Tensor) and fn.__func__.__name__ in HOST_READS:
            return ("break", (f"Tensor.{fn.__func__.__name__}() reads the Tensor's value on the host", HOST_HINT))
        return ("direct", None) if _kiln(fn.__func__) else _other(fn, args)
    if is_cell(fn):
        construct = type(fn).construct
        construct = getattr(construct, "_kiln_fn", construct)
        if is_user_function(construct):
            return ("cell", construct)
        return ("direct", None)
    if fn is builtins.print:
        return ("print", None)
    if fn in CONVERTERS and args and isinstance(args[0], Tensor):
        return ("break", (f"{fn.__name__}() of a Tensor reads its value on the host", HOST_HINT))
    if fn in TEXT_BUILTINS and has_tensor([*args, *kwargs.values()]):
        return ("break", (f"{fn.__name__}() of a Tensor reads its value on the host", HOST_HINT))
    if fn in PURE_BUILTINS:
        return ("direct", None)
    if t in (types.BuiltinMethodType, types.MethodWrapperType) or t.__name__ == "method_descriptor":
        owner = getattr(fn, "__self__", None)
        if type(owner) in (list, dict, set, bytearray, collections_deque()):
            name = fn.__name__
            if name in _MUTATORS:
                return ("mutate", (owner, name))
            return ("direct", None)
        if isinstance(owner, (str, bytes)) and has_tensor([*args, *kwargs.values()]):
            # "...".format(x), "-".join(...): the text holds the Tensor's value, known only when the graph runs
            return ("break", (f"str.{fn.__name__}() of a Tensor reads its value on the host", HOST_HINT))
        if isinstance(owner, (str, bytes, tuple, int, float, frozenset, range)):
            return ("direct", None)
        if isinstance(owner, Tensor):
            if fn.__name__ in HOST_READS:
                return ("break", (f"Tensor.{fn.__name__}() reads the Tensor's value on the host", HOST_HINT))
            return ("direct", None)
    if isinstance(fn, type):
        if fn.__module__ == "builtins" or _kiln(fn) or not _module(fn).startswith(("numpy",)):
            return ("direct", None)
    if _kiln(fn):
        return ("direct", None)
    return _other(fn, args)


_MUTATORS = {"append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse", "update", "setdefault",
             "popitem", "add", "discard", "__setitem__", "__delitem__", "__iadd__", "__imul__", "appendleft",
             "extendleft", "popleft", "difference_update", "intersection_update",
             "symmetric_difference_update"}  # fmt: skip


def collections_deque():
    return collections.deque


def _other(fn, args) -> tuple:
    mod = _module(fn)
    top = mod.partition(".")[0]
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    if top == "numpy":
        if has_tensor(args):
            return ("break", (f"numpy call '{mod}.{name}' on a Tensor reads its value", "use the kiln.ops equivalent"))
        if "random" in mod:
            return ("break", (f"numpy random call '{name}'", "draw random numbers with kiln.ops"))
        return ("direct", None)
    if top in PURE_MODULES:
        return ("direct", None)
    where = f"{mod}." if mod else ""
    return ("break", (f"call into '{where}{name}' (C extension or library code)", "call it outside jit"))


def stdlib(fn) -> bool:
    return _module(fn).partition(".")[0] in sys.stdlib_module_names
