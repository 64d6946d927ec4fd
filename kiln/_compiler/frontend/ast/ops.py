"""The IR's built-in operations (MindIR's "meta" primitives).

Each `Op` is a name plus flags; its meaning lives in `semantics.py` (the interpreter).
Calls of Python values (ops, Primitives, Cells, user functions) are `Apply`
nodes whose head is not an `Op`.
"""

from __future__ import annotations

import operator


class Op:
    """A built-in IR operation.

    Args:
        name: printed name.
        pure: no side effects (passes may fold, share or drop it).
        fold: Python function computing it on constants (constant folding), if any.
    """

    __slots__ = ("name", "pure", "fold")

    def __init__(self, name: str, pure: bool = True, fold=None) -> None:
        self.name, self.pure, self.fold = name, pure, fold

    def __repr__(self) -> str:
        return self.name


BINARY = {
    "Add": operator.add, "Sub": operator.sub, "Mult": operator.mul, "Div": operator.truediv,
    "FloorDiv": operator.floordiv, "Mod": operator.mod, "Pow": operator.pow, "MatMult": operator.matmul,
    "LShift": operator.lshift, "RShift": operator.rshift, "BitAnd": operator.and_, "BitOr": operator.or_,
    "BitXor": operator.xor,
}  # fmt: skip
COMPARE = {
    "Eq": operator.eq, "NotEq": operator.ne, "Lt": operator.lt, "LtE": operator.le, "Gt": operator.gt,
    "GtE": operator.ge, "Is": operator.is_, "IsNot": operator.is_not,
    "In": lambda a, b: a in b, "NotIn": lambda a, b: a not in b,
}  # fmt: skip
UNARY = {"USub": operator.neg, "UAdd": operator.pos, "Invert": operator.invert, "Not": operator.not_}

OPS: dict[str, Op] = {}
for _table in (BINARY, COMPARE, UNARY):
    for _name, _fn in _table.items():
        OPS[_name] = Op(_name, True, _fn)


def _op(name: str, pure: bool = True) -> Op:
    OPS[name] = Op(name, pure)
    return OPS[name]


RESOLVE = _op("resolve")  # resolve(name): a global, closure or builtin name
GETATTR = _op("getattr", pure=False)  # reads may observe earlier setattr writes
SETATTR = _op("setattr", pure=False)
GETITEM = _op("getitem")
SETITEM = _op("setitem")  # functional: returns the updated container
MAKE_TUPLE = _op("make_tuple")
MAKE_LIST = _op("make_list")
MAKE_DICT = _op("make_dict")
MAKE_SLICE = _op("make_slice")
UNPACK = _op("unpack")  # unpack(x, n): the n items of x, length checked
MAKE_CLOSURE = _op("make_closure")  # make_closure(graph, *defaults)
CALL_STAR = _op("call_star", pure=False)  # call_star(callee, args_tuple, kwargs_dict)
SUPER = _op("super")
ITER_INIT = _op("iter_init")
ITER_HAS = _op("iter_has")
ITER_GET = _op("iter_get")
ITER_NEXT = _op("iter_next")
AND = _op("and", pure=False)  # and(a, closure_b): short-circuit
OR = _op("or", pure=False)
IFEXP = _op("ifexp", pure=False)  # ifexp(cond, closure_a, closure_b)
COMPREHENSION = _op("comprehension", pure=False)  # (kind, iterable, elt_closure, cond_closure | None)
FORMAT = _op("format")  # format(value, conversion, spec)
JOIN_STR = _op("join_str")
PRINT = _op("print", pure=False)
ASSERT = _op("assert", pure=False)
RAISE = _op("raise", pure=False)
JUMP = _op("jump", pure=False)  # tail call: jump(graph, *args)
IF = _op("if", pure=False)  # tail: if(cond, true_graph, false_graph)
