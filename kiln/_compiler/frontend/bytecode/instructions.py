"""Symbolic (and concrete) execution of CPython 3.11-3.13 bytecode, one instruction at a time.

A `Frame` runs a code object over a value stack of real Python objects. In a symbolic run (a capture) the
Tensors on the stack hold Vars of the Trace being recorded, so every Kiln op appends an equation; calls into
user functions and Cells are inlined (a child Frame); what cannot be captured raises `GraphBreak`. In a
concrete run (the Python step between two graphs) the same handlers run on real values and calls are real.
The differences between the three CPython versions are kept to a few spots (call layout, FOR_ITER's exit,
the 3.13 super-instructions, formatting opcodes).
"""

from __future__ import annotations

import dis
import linecache
import operator
import sys
import types

from kiln._compiler.frontend.ast.node import Loc
from kiln._compiler.frontend.bytecode import calls as C
from kiln._compiler.ir import graph as G

PY = sys.version_info[:2]


class _Null:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NULL"


NULL = _Null()  # the NULL CPython pushes below a callable


class GraphBreak(Exception):  # noqa: N818  (a control signal, not an error)
    """The instruction being run cannot be captured; `reason` says why, `hint` how to avoid it."""

    def __init__(self, reason: str, hint: str = "") -> None:
        super().__init__(reason)
        self.reason, self.hint = reason, hint
        self.loc = None  # (file, line) of the innermost user instruction


class SeqIter:
    """An iterator over a known sequence whose position can be saved and rebuilt across a graph break."""

    __slots__ = ("items", "i")

    def __init__(self, items, i: int = 0) -> None:
        self.items, self.i = items, i

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= len(self.items):
            raise StopIteration
        v = self.items[self.i]
        self.i += 1
        return v


_BINARY = [
    operator.add, operator.and_, operator.floordiv, operator.lshift, operator.matmul, operator.mul, operator.mod,
    operator.or_, operator.pow, operator.rshift, operator.sub, operator.truediv, operator.xor,
    operator.iadd, operator.iand, operator.ifloordiv, operator.ilshift, operator.imatmul, operator.imul,
    operator.imod, operator.ior, operator.ipow, operator.irshift, operator.isub, operator.itruediv, operator.ixor,
]  # fmt: skip
_COMPARE = {
    "<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt, ">=": operator.ge,
}  # fmt: skip
_CONDITIONAL = {
    "POP_JUMP_IF_FALSE", "POP_JUMP_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE", "POP_JUMP_FORWARD_IF_TRUE",
    "POP_JUMP_BACKWARD_IF_FALSE", "POP_JUMP_BACKWARD_IF_TRUE", "JUMP_IF_FALSE_OR_POP", "JUMP_IF_TRUE_OR_POP",
}  # fmt: skip


class Code:
    """A code object decoded once: its instructions, offset -> index, exception table."""

    _cache: dict = {}

    def __init__(self, code: types.CodeType) -> None:
        self.code = code
        self.instrs = list(dis.get_instructions(code))
        self.index = {ins.offset: i for i, ins in enumerate(self.instrs)}
        self.table = [
            (e.start, e.end, self.index[e.target], e.depth, e.lasti) for e in dis._parse_exception_table(code)
        ]
        self.lines = []
        line = code.co_firstlineno
        for ins in self.instrs:
            if ins.positions is not None and ins.positions.lineno is not None:
                line = ins.positions.lineno
            self.lines.append(line)

    def loc(self, i: int):
        """The user's source location of instruction `i` (for equations recorded while it runs)."""
        locs = self.__dict__.setdefault("_locs", {})
        loc = locs.get(i)
        if loc is None:
            pos = self.instrs[i].positions
            line = self.lines[i]
            text = linecache.getline(self.code.co_filename, line).strip()
            col = pos.col_offset if pos is not None and pos.col_offset is not None else 0
            end = pos.end_col_offset if pos is not None else None
            loc = locs[i] = Loc(self.code.co_filename, line, col, end, text, self.code.co_qualname)
        return loc

    @classmethod
    def of(cls, code: types.CodeType) -> Code:
        c = cls._cache.get(code)
        if c is None:
            c = cls._cache[code] = Code(code)
        return c

    def unsupported(self) -> str | None:
        """Why this code cannot run in the interpreter (an opcode it lacks, a generator), or None."""
        if self.code.co_flags & 0x2A0:
            return "a generator or coroutine runs as Python"
        for ins, line in zip(self.instrs, self.lines, strict=True):
            if not hasattr(Frame, ins.opname):
                return f"bytecode {ins.opname} (line {line}) is not supported: the function runs as Python"
        return None

    def handler(self, offset: int):
        for start, end, target, depth, lasti in self.table:
            if start <= offset < end:
                return target, depth, lasti
        return None


class Return(Exception):  # noqa: N818
    def __init__(self, value) -> None:
        self.value = value


class Frame:
    """One function activation being interpreted.

    Args:
        tx: the run (symbolic capture or concrete Python step) this frame belongs to.
        fn: the function (its globals, closure, name).
        locals_: local variables by name; cells: cell objects by name (cell and free variables).
        stack: the value stack; pc: instruction index to start at.
    """

    def __init__(self, tx, fn, locals_: dict, cells: dict, stack: list, pc: int, parent: Frame | None = None):
        self.tx, self.fn = tx, fn
        self.code = Code.of(fn.__code__)
        self.globals = fn.__globals__
        b = self.globals.get("__builtins__", __builtins__)
        self.builtins = b if isinstance(b, dict) else b.__dict__
        self.locals, self.cells, self.stack, self.pc = locals_, cells, stack, pc
        self.parent = parent
        self.kw_names: tuple = ()
        self.kw_pc = 0
        self.cur = pc
        self.handling: list = []  # exceptions being handled (for a bare raise)

    # -- stack ---------------------------------------------------------------------------------
    def push(self, v) -> None:
        self.stack.append(v)

    def pop(self):
        return self.stack.pop()

    def popn(self, n: int) -> list:
        if n == 0:
            return []
        vals = self.stack[-n:]
        del self.stack[-n:]
        return vals

    def where(self) -> tuple:
        return (self.code.code.co_filename, self.code.lines[self.cur])

    # -- the loop ------------------------------------------------------------------------------
    def run(self):
        instrs = self.code.instrs
        tx = self.tx
        first = True
        trace = G.current() if tx.symbolic else None
        while True:
            self.cur = i = self.pc
            ins = instrs[i]
            if trace is not None:
                trace.loc = self.code.loc(i)
            if tx.should_stop(self, ins, first):
                raise tx.Stop(self)
            first = False
            self.pc = i + 1
            handler = getattr(self, ins.opname, None)
            try:
                if handler is None:
                    raise GraphBreak(f"unsupported bytecode {ins.opname}", "rewrite the statement")
                handler(ins)
            except Return as r:
                return r.value
            except GraphBreak as gb:
                if gb.loc is None:
                    gb.loc = self.where()
                raise
            except tx.passthrough:
                raise
            except Exception as err:  # noqa: BLE001  (a Python exception of the program: its handlers)
                if tx.symbolic and C.needs_value(err):
                    brk = GraphBreak(f"{ins.opname} needs a Tensor's value ({type(err).__name__})", C.HOST_HINT)
                    brk.loc = self.where()
                    raise brk from None
                h = self.code.handler(ins.offset)
                if h is None:
                    raise
                target, depth, lasti = h
                self.kw_names = ()
                del self.stack[depth:]
                if lasti:
                    self.push(ins.offset)
                self.push(err)
                self.pc = target

    # -- no-ops and stack manipulation -----------------------------------------------------------
    def NOP(self, ins):  # noqa: N802
        pass

    RESUME = CACHE = EXTENDED_ARG = PRECALL = COPY_FREE_VARS = NOP

    def PUSH_NULL(self, ins):  # noqa: N802
        self.push(NULL)

    def POP_TOP(self, ins):  # noqa: N802
        self.pop()

    def END_FOR(self, ins):  # noqa: N802
        self.pop()
        if PY < (3, 13):
            self.pop()

    def COPY(self, ins):  # noqa: N802
        self.push(self.stack[-ins.arg])

    def SWAP(self, ins):  # noqa: N802
        s, n = self.stack, ins.arg
        s[-1], s[-n] = s[-n], s[-1]

    # -- loads and stores ----------------------------------------------------------------------
    def LOAD_CONST(self, ins):  # noqa: N802
        self.push(ins.argval)

    def RETURN_CONST(self, ins):  # noqa: N802
        raise Return(ins.argval)

    def RETURN_VALUE(self, ins):  # noqa: N802
        raise Return(self.pop())

    def LOAD_FAST(self, ins):  # noqa: N802
        name = ins.argval
        if name not in self.locals:
            if name in self.cells:  # 3.13 loads a cell variable's cell with LOAD_FAST (closures)
                self.push(self.cells[name])
                return
            raise UnboundLocalError(f"cannot access local variable '{name}' where it is not associated with a value")
        self.push(self.locals[name])

    LOAD_FAST_CHECK = LOAD_FAST

    def LOAD_FAST_AND_CLEAR(self, ins):  # noqa: N802
        self.push(self.locals.pop(ins.argval, NULL))

    def LOAD_FAST_LOAD_FAST(self, ins):  # noqa: N802
        a, b = ins.argval
        self.push(self.locals[a])
        self.push(self.locals[b])

    def STORE_FAST(self, ins):  # noqa: N802
        v = self.pop()
        if v is NULL:
            self.locals.pop(ins.argval, None)
        else:
            self.locals[ins.argval] = v

    def STORE_FAST_LOAD_FAST(self, ins):  # noqa: N802
        a, b = ins.argval
        self.locals[a] = self.pop()
        self.push(self.locals[b])

    def STORE_FAST_STORE_FAST(self, ins):  # noqa: N802
        a, b = ins.argval
        self.locals[a] = self.pop()
        self.locals[b] = self.pop()

    def DELETE_FAST(self, ins):  # noqa: N802
        del self.locals[ins.argval]

    def LOAD_GLOBAL(self, ins):  # noqa: N802
        name = ins.argval
        if name in self.globals:
            v = self.tx.read_global(self.globals, name)
        elif name in self.builtins:
            v = self.tx.read_global(self.builtins, name)
        else:
            raise NameError(f"name '{name}' is not defined")
        if ins.arg & 1 and PY < (3, 13):
            self.push(NULL)
        self.push(v)
        if ins.arg & 1 and PY >= (3, 13):
            self.push(NULL)

    def STORE_GLOBAL(self, ins):  # noqa: N802
        self.tx.write_global(self.globals, ins.argval, self.pop())

    def DELETE_GLOBAL(self, ins):  # noqa: N802
        raise GraphBreak("del of a global", "")

    def MAKE_CELL(self, ins):  # noqa: N802
        name = ins.argval
        if name in self.locals:
            self.cells[name] = self.tx.fresh_obj(types.CellType(self.locals.pop(name)))
        elif name not in self.cells:
            self.cells[name] = self.tx.fresh_obj(types.CellType())

    def LOAD_CLOSURE(self, ins):  # noqa: N802
        self.push(self.cells[ins.argval])

    def LOAD_DEREF(self, ins):  # noqa: N802
        cell = self.cells[ins.argval]
        try:
            v = self.tx.read_cell(self, cell)
        except ValueError:
            raise NameError(f"free variable '{ins.argval}' referenced before assignment") from None
        self.push(v)

    LOAD_CLASSDEREF = LOAD_DEREF

    def STORE_DEREF(self, ins):  # noqa: N802
        self.tx.write_cell(self, self.cells[ins.argval], self.pop())

    # -- attributes ----------------------------------------------------------------------------
    def LOAD_ATTR(self, ins):  # noqa: N802
        obj = self.pop()
        v = self.tx.read_attr(obj, ins.argval)
        if PY >= (3, 12) and ins.arg & 1:
            self._push_method(v)
        else:
            self.push(v)

    def LOAD_METHOD(self, ins):  # noqa: N802
        self._push_method(self.tx.read_attr(self.pop(), ins.argval))

    def _push_method(self, v) -> None:
        if PY >= (3, 13):
            self.push(v)
            self.push(NULL)
        else:
            self.push(NULL)
            self.push(v)

    def LOAD_SUPER_ATTR(self, ins):  # noqa: N802
        self_, cls, sup = self.popn(3)
        target = sup(cls, self_) if ins.arg & 2 else sup()
        v = getattr(target, ins.argval)
        if ins.arg & 1:
            self._push_method(v)
        else:
            self.push(v)

    def STORE_ATTR(self, ins):  # noqa: N802
        obj = self.pop()
        self.tx.write_attr(obj, ins.argval, self.pop())

    def DELETE_ATTR(self, ins):  # noqa: N802
        self.tx.write_attr(self.pop(), ins.argval, C.MISSING)

    # -- operators -----------------------------------------------------------------------------
    def BINARY_OP(self, ins):  # noqa: N802
        b = self.pop()
        a = self.pop()
        op = _BINARY[ins.arg]
        if ins.arg >= 13 and type(a) in (list, dict, set) and not self.tx.is_local(a):
            self.push(self.tx.mutate(a, "__" + op.__name__ + "__", (b,)))
            return
        self.push(self.tx.operate(op, a, b))

    def BINARY_SUBSCR(self, ins):  # noqa: N802
        key = self.pop()
        obj = self.pop()
        self.push(self.tx.subscript(obj, key))

    def BINARY_SLICE(self, ins):  # noqa: N802
        stop = self.pop()
        start = self.pop()
        obj = self.pop()
        self.push(self.tx.subscript(obj, slice(start, stop)))

    def STORE_SUBSCR(self, ins):  # noqa: N802
        key = self.pop()
        obj = self.pop()
        value = self.pop()
        self.tx.mutate(obj, "__setitem__", (key, value))

    def STORE_SLICE(self, ins):  # noqa: N802
        stop = self.pop()
        start = self.pop()
        obj = self.pop()
        value = self.pop()
        self.tx.mutate(obj, "__setitem__", (slice(start, stop), value))

    def DELETE_SUBSCR(self, ins):  # noqa: N802
        key = self.pop()
        self.tx.mutate(self.pop(), "__delitem__", (key,))

    def BUILD_SLICE(self, ins):  # noqa: N802
        self.push(slice(*self.popn(ins.arg)))

    def UNARY_NEGATIVE(self, ins):  # noqa: N802
        self.push(self.tx.operate(operator.neg, self.pop()))

    def UNARY_POSITIVE(self, ins):  # noqa: N802
        self.push(self.tx.operate(operator.pos, self.pop()))

    def UNARY_INVERT(self, ins):  # noqa: N802
        self.push(self.tx.operate(operator.invert, self.pop()))

    def UNARY_NOT(self, ins):  # noqa: N802
        self.push(not self.tx.truth(self.pop()))

    def TO_BOOL(self, ins):  # noqa: N802
        self.push(self.tx.truth(self.pop()))

    def COMPARE_OP(self, ins):  # noqa: N802
        b = self.pop()
        a = self.pop()
        name = ins.argval
        r = self.tx.operate(_COMPARE[name], a, b)
        if PY >= (3, 13) and ins.arg & 16:
            r = self.tx.truth(r)
        self.push(r)

    def IS_OP(self, ins):  # noqa: N802
        b = self.pop()
        a = self.pop()
        self.push((a is not b) if ins.arg else (a is b))

    def CONTAINS_OP(self, ins):  # noqa: N802
        b = self.pop()
        a = self.pop()
        self.tx.read_container(b)
        r = self.tx.operate(operator.contains, b, a)
        self.push((not self.tx.truth(r)) if ins.arg else self.tx.truth(r))

    # -- jumps ---------------------------------------------------------------------------------
    def _jump(self, ins):
        self.pc = self.code.index[ins.argval]

    JUMP_FORWARD = JUMP_BACKWARD = JUMP_BACKWARD_NO_INTERRUPT = JUMP = JUMP_NO_INTERRUPT = _jump

    def _cond(self, ins, want: bool, pop: bool = True):
        v = self.pop()
        if self.tx.truth(v) == want:
            self._jump(ins)
            if not pop:
                self.push(v)

    def POP_JUMP_IF_FALSE(self, ins):  # noqa: N802
        self._cond(ins, False)

    def POP_JUMP_IF_TRUE(self, ins):  # noqa: N802
        self._cond(ins, True)

    POP_JUMP_FORWARD_IF_FALSE = POP_JUMP_BACKWARD_IF_FALSE = POP_JUMP_IF_FALSE
    POP_JUMP_FORWARD_IF_TRUE = POP_JUMP_BACKWARD_IF_TRUE = POP_JUMP_IF_TRUE

    def JUMP_IF_FALSE_OR_POP(self, ins):  # noqa: N802
        self._cond(ins, False, pop=False)

    def JUMP_IF_TRUE_OR_POP(self, ins):  # noqa: N802
        self._cond(ins, True, pop=False)

    def POP_JUMP_IF_NONE(self, ins):  # noqa: N802
        if self.pop() is None:
            self._jump(ins)

    def POP_JUMP_IF_NOT_NONE(self, ins):  # noqa: N802
        if self.pop() is not None:
            self._jump(ins)

    POP_JUMP_FORWARD_IF_NONE = POP_JUMP_BACKWARD_IF_NONE = POP_JUMP_IF_NONE
    POP_JUMP_FORWARD_IF_NOT_NONE = POP_JUMP_BACKWARD_IF_NOT_NONE = POP_JUMP_IF_NOT_NONE

    # -- iteration -----------------------------------------------------------------------------
    def GET_ITER(self, ins):  # noqa: N802
        self.push(self.tx.iterate(self.pop()))

    def FOR_ITER(self, ins):  # noqa: N802
        it = self.stack[-1]
        try:
            v = next(it)
        except StopIteration:
            self.pop()
            self.pc = self.code.index[ins.argval]
            instrs = self.code.instrs
            if PY >= (3, 12) and instrs[self.pc].opname == "END_FOR":
                self.pc += 1
                if PY >= (3, 13) and instrs[self.pc].opname == "POP_TOP":
                    self.pc += 1
            return
        self.push(v)

    def UNPACK_SEQUENCE(self, ins):  # noqa: N802
        seq = self.tx.unpackable(self.pop())
        if len(seq) != ins.arg:
            raise ValueError(f"expected {ins.arg} values to unpack, got {len(seq)}")
        self.stack.extend(reversed(seq))

    def UNPACK_EX(self, ins):  # noqa: N802
        seq = self.tx.unpackable(self.pop())
        before, after = ins.arg & 0xFF, ins.arg >> 8
        if len(seq) < before + after:
            raise ValueError(f"not enough values to unpack (expected at least {before + after}, got {len(seq)})")
        mid = list(seq[before : len(seq) - after])
        vals = [*seq[:before], mid, *seq[len(seq) - after :]]
        self.tx.fresh_obj(mid)
        self.stack.extend(reversed(vals))

    # -- building containers -------------------------------------------------------------------
    def BUILD_TUPLE(self, ins):  # noqa: N802
        self.push(tuple(self.popn(ins.arg)))

    def BUILD_LIST(self, ins):  # noqa: N802
        self.push(self.tx.fresh_obj(self.popn(ins.arg)))

    def BUILD_SET(self, ins):  # noqa: N802
        self.push(self.tx.fresh_obj(set(self.popn(ins.arg))))

    def BUILD_MAP(self, ins):  # noqa: N802
        items = self.popn(2 * ins.arg)
        self.push(self.tx.fresh_obj({items[i]: items[i + 1] for i in range(0, len(items), 2)}))

    def BUILD_CONST_KEY_MAP(self, ins):  # noqa: N802
        keys = self.pop()
        self.push(self.tx.fresh_obj(dict(zip(keys, self.popn(ins.arg), strict=True))))

    def BUILD_STRING(self, ins):  # noqa: N802
        self.push("".join(self.popn(ins.arg)))

    def LIST_APPEND(self, ins):  # noqa: N802
        v = self.pop()
        self.stack[-ins.arg].append(v)

    def SET_ADD(self, ins):  # noqa: N802
        v = self.pop()
        self.stack[-ins.arg].add(v)

    def MAP_ADD(self, ins):  # noqa: N802
        v = self.pop()
        k = self.pop()
        self.stack[-ins.arg][k] = v

    def LIST_EXTEND(self, ins):  # noqa: N802
        v = self.tx.unpackable(self.pop())
        self.stack[-ins.arg].extend(v)

    def SET_UPDATE(self, ins):  # noqa: N802
        v = self.tx.unpackable(self.pop())
        self.stack[-ins.arg].update(v)

    def DICT_UPDATE(self, ins):  # noqa: N802
        v = self.pop()
        self.tx.read_container(v)
        self.stack[-ins.arg].update(v)

    def DICT_MERGE(self, ins):  # noqa: N802
        v = self.pop()
        self.tx.read_container(v)
        d = self.stack[-ins.arg]
        for k in v:
            if k in d:
                raise TypeError(f"got multiple values for keyword argument '{k}'")
        d.update(v)

    def LIST_TO_TUPLE(self, ins):  # noqa: N802
        self.push(tuple(self.pop()))

    def CALL_INTRINSIC_1(self, ins):  # noqa: N802
        v = self.pop()
        kind = ins.argrepr
        if kind == "INTRINSIC_LIST_TO_TUPLE":
            self.push(tuple(v))
        elif kind == "INTRINSIC_UNARY_POSITIVE":
            self.push(self.tx.operate(operator.pos, v))
        elif kind == "INTRINSIC_STOPITERATION_ERROR":
            raise v
        else:
            raise GraphBreak(f"unsupported intrinsic {kind}", "")

    # -- formatting ----------------------------------------------------------------------------
    def FORMAT_VALUE(self, ins):  # noqa: N802
        spec = self.pop() if (ins.arg & 0x04) else ""
        v = self.pop()
        conv = ins.arg & 0x03
        v = (None, str, repr, ascii)[conv](v) if conv else v
        self.push(self.tx.format(v, spec))

    def CONVERT_VALUE(self, ins):  # noqa: N802
        self.push((None, str, repr, ascii)[ins.arg](self.pop()))

    def FORMAT_SIMPLE(self, ins):  # noqa: N802
        self.push(self.tx.format(self.pop(), ""))

    def FORMAT_WITH_SPEC(self, ins):  # noqa: N802
        spec = self.pop()
        self.push(self.tx.format(self.pop(), spec))

    # -- calls ---------------------------------------------------------------------------------
    def KW_NAMES(self, ins):  # noqa: N802
        self.kw_names = self.code.code.co_consts[ins.arg]
        self.kw_pc = self.cur  # a segment ending at the CALL ends here instead (the names are not on the stack)

    def CALL(self, ins):  # noqa: N802
        # the names stay set while the call runs: a graph break inside it resumes at KW_NAMES (kw_pc), not at a
        # CALL that would take the keyword arguments as positional ones
        self._call(ins.arg, self.kw_names)
        self.kw_names = ()

    def CALL_KW(self, ins):  # noqa: N802
        names = self.pop()
        self._call(ins.arg, names)

    def _call(self, argc: int, names: tuple) -> None:
        args = self.popn(argc)
        b = self.pop()
        a = self.pop()
        if a is NULL:
            fn = b
        elif b is NULL:
            fn = a
        else:
            fn, args = a, [b, *args]
        kwargs = {}
        if names:
            kwargs = dict(zip(names, args[len(args) - len(names) :], strict=True))
            args = args[: len(args) - len(names)]
        if fn is super and not args and not kwargs:  # zero-argument super() reads the calling frame
            args = [self.cells["__class__"].cell_contents, self.locals[self.code.code.co_varnames[0]]]
        self.push(self.tx.call(self, fn, args, kwargs))

    def CALL_FUNCTION_EX(self, ins):  # noqa: N802
        kwargs = self.pop() if ins.arg & 1 else {}
        args = self.pop()
        a = self.pop()
        b = self.pop()
        fn = b if PY >= (3, 13) or a is NULL else a
        if PY >= (3, 13) and a is not NULL:
            fn, args = b, (a, *args)
        self.tx.read_container(args)
        self.tx.read_container(kwargs)
        self.push(self.tx.call(self, fn, list(args), dict(kwargs)))

    def MAKE_FUNCTION(self, ins):  # noqa: N802
        code = self.pop()
        flags = ins.arg if PY < (3, 13) else 0
        closure = self.pop() if flags & 0x08 else None
        annotations = self.pop() if flags & 0x04 else None
        kwdefaults = self.pop() if flags & 0x02 else None
        defaults = self.pop() if flags & 0x01 else None
        if closure is None and code.co_freevars:  # 3.13: SET_FUNCTION_ATTRIBUTE sets it next
            closure = tuple(types.CellType() for _ in code.co_freevars)
        fn = types.FunctionType(code, self.globals, code.co_name, defaults, closure)
        fn.__qualname__ = code.co_qualname
        if kwdefaults:
            fn.__kwdefaults__ = kwdefaults
        if annotations:
            fn.__annotations__ = dict(zip(annotations[::2], annotations[1::2], strict=True))
        self.push(self.tx.fresh_obj(fn))

    def SET_FUNCTION_ATTRIBUTE(self, ins):  # noqa: N802
        fn = self.pop()
        v = self.pop()
        if ins.arg == 0x08:
            fn = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__, v)
            fn.__qualname__ = fn.__code__.co_qualname
            self.tx.fresh_obj(fn)
        elif ins.arg == 0x01:
            fn.__defaults__ = v
        elif ins.arg == 0x02:
            fn.__kwdefaults__ = v
        self.push(fn)

    # -- exceptions and with -------------------------------------------------------------------
    def RAISE_VARARGS(self, ins):  # noqa: N802
        if ins.arg == 0:
            if not self.handling:
                raise RuntimeError("No active exception to reraise")
            raise self.handling[-1]
        cause = self.pop() if ins.arg == 2 else None
        exc = self.pop()
        if isinstance(exc, type):
            exc = exc()
        if ins.arg == 2:
            exc.__cause__ = cause
        raise exc

    def LOAD_ASSERTION_ERROR(self, ins):  # noqa: N802
        self.push(AssertionError)

    def PUSH_EXC_INFO(self, ins):  # noqa: N802
        exc = self.pop()
        self.push(self.handling[-1] if self.handling else None)
        self.handling.append(exc)
        self.push(exc)

    def POP_EXCEPT(self, ins):  # noqa: N802
        self.pop()
        if self.handling:
            self.handling.pop()

    def CHECK_EXC_MATCH(self, ins):  # noqa: N802
        typ = self.pop()
        self.push(isinstance(self.stack[-1], typ))

    def RERAISE(self, ins):  # noqa: N802
        exc = self.pop()
        if ins.arg:
            self.pop()
        raise exc

    def BEFORE_WITH(self, ins):  # noqa: N802
        mgr = self.pop()
        enter, exit_ = self.tx.with_methods(mgr)
        self.push(exit_)
        self.push(self.tx.call(self, enter, [], {}))

    def WITH_EXCEPT_START(self, ins):  # noqa: N802
        exc = self.stack[-1]
        self.push(self.tx.call(self, self.stack[-4], [type(exc), exc, exc.__traceback__], {}))

    def IMPORT_NAME(self, ins):  # noqa: N802
        fromlist = self.pop()
        level = self.pop()
        self.push(__import__(ins.argval, self.globals, None, fromlist, level))

    def IMPORT_FROM(self, ins):  # noqa: N802
        mod = self.stack[-1]
        try:
            self.push(getattr(mod, ins.argval))
        except AttributeError:
            name = f"{mod.__name__}.{ins.argval}"
            if name not in sys.modules:
                raise ImportError(f"cannot import name '{ins.argval}' from '{mod.__name__}'") from None
            self.push(sys.modules[name])

    def GET_LEN(self, ins):  # noqa: N802
        self.tx.read_container(self.stack[-1])
        self.push(len(self.stack[-1]))
