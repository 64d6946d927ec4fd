"""The AST frontend (PSJit): a Python function's source -> Kiln IR.

Statements become nodes of the current graph in program order; control flow
is lowered in continuation-passing style: `if` ends the current graph with an
`if` node choosing between two child graphs that both jump to a join graph
(whose parameters are the variables the branches assign); loops become a
header graph (parameters: the loop-carried variables) that either runs the
body (which jumps back to the header) or exits to the after-loop graph.
`return`, `break` and `continue` are jumps, so they work anywhere.
"""

from __future__ import annotations

import ast
import builtins
import inspect
import linecache
import re
import textwrap
from dataclasses import dataclass, field

from kiln._compiler.errors import GraphSyntaxError, SourceUnavailable, where
from kiln._compiler.frontend.ast import ops as O
from kiln._compiler.frontend.ast.node import Apply, Const, FuncGraph, Loc, Node, Param


class _Undefined:
    """The value of a variable not assigned on every path."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<undefined>"


UNDEF = _Undefined()


class Namespace:
    """How a parsed function resolves free names: closure cells, then globals, then builtins."""

    __slots__ = ("globals", "cells", "name")

    def __init__(self, globals_: dict, cells: dict, name: str) -> None:
        self.globals, self.cells, self.name = globals_, cells, name


@dataclass
class ParsedFunction:
    """The IR of one Python function (its code object), shared by every call of it."""

    graph: FuncGraph
    fn: object
    file: str
    stages: list = field(default_factory=list)  # (stage name, text) when graphs are saved

    def graphs(self) -> list[FuncGraph]:
        return list(self.graph.walk())


@dataclass
class _Loop:
    header: FuncGraph
    after: FuncGraph
    carried: list[str]
    it_next: Node | None  # for-loops: the advanced iterator (continue jumps with it)


@dataclass
class _Managed:
    """A context manager of an open `with` block: its `__exit__` runs however the block is left."""

    manager: Node
    loop_depth: int  # how many loops enclose the `with` (a break/continue leaves those opened deeper)
    node: ast.AST


_UNSUPPORTED_STMT = {
    ast.Try: "try statement",
    ast.AsyncWith: "async with statement",
    ast.AsyncFor: "async for statement",
    ast.AsyncFunctionDef: "async function",
    ast.ClassDef: "class definition",
    ast.Delete: "del statement",
    ast.Import: "import statement",
    ast.ImportFrom: "import statement",
    ast.Match: "match statement",
}
if hasattr(ast, "TryStar"):
    _UNSUPPORTED_STMT[ast.TryStar] = "try statement"

_UNSUPPORTED_EXPR = {
    ast.Yield: "yield expression",
    ast.YieldFrom: "yield from expression",
    ast.Await: "await expression",
    ast.NamedExpr: "assignment expression (:=)",
    ast.Set: "set display",
    ast.SetComp: "set comprehension",
}


def _lambda_in_file(code) -> ast.Lambda | None:
    """The lambda node of `code` in its file's AST, or None when the file does not parse.

    Several lambdas can share a line (`f(lambda x: a(x), kiln=lambda x: b(x))`): the one whose body spans the
    positions of the code's instructions is `code`'s (the innermost such, for lambdas nested in lambdas).
    """
    text = "".join(linecache.getlines(code.co_filename))
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    want = list(code.co_varnames[: code.co_argcount])
    candidates = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Lambda)
        and node.lineno == code.co_firstlineno
        and [a.arg for a in node.args.args] == want
    ]
    if len(candidates) <= 1:
        return candidates[0] if candidates else None
    # zero-width positions (the entry instruction's) point at no expression
    spots = [
        (line, col)
        for line, end_line, col, end_col in code.co_positions()
        if line is not None and col is not None and (line, col) != (end_line, end_col)
    ]

    def spans_code(node: ast.Lambda) -> bool:
        body = node.body
        start, end = (body.lineno, body.col_offset), (body.end_lineno, body.end_col_offset)
        return all(start <= spot < end for spot in spots)

    inside = [node for node in candidates if spans_code(node)]
    if not inside:
        return None
    return min(inside, key=lambda n: (n.end_lineno - n.lineno, n.end_col_offset - n.col_offset))


# where a code object's source block starts, walking back from its first line (inspect.findsource's rule)
_BLOCK_START = re.compile(r"^(\s*def\s)|(\s*async\s+def\s)|(.*(?<!\w)lambda(:|\s))|^(\s*@)")


def _source_lines(code, module_globals: dict) -> tuple[list, int]:
    """`inspect.getsourcelines(code)` for a function's code, read through `linecache` with the function's own
    module globals (a loader's source included). inspect first finds the module by walking every loaded module
    and resolving its file's real path, which took a third of a fresh process's front end for LeNet5; code
    without a readable file goes to inspect, which raises OSError in its own words."""
    file = code.co_filename
    if file.startswith("<") and file.endswith(">"):
        return inspect.getsourcelines(code)
    linecache.checkcache(file)
    lines = linecache.getlines(file, module_globals)
    if not lines:
        return inspect.getsourcelines(code)
    start = code.co_firstlineno - 1
    while start > 0:
        if start >= len(lines):
            raise OSError("lineno is out of bounds")
        if _BLOCK_START.match(lines[start]):
            break
        start -= 1
    return inspect.getblock(lines[start:]), start + 1


def _source_of(fn) -> tuple[ast.AST, str, int, int]:
    """(function/lambda AST, file, first line, indent) of `fn`."""
    code = fn.__code__
    file = code.co_filename
    try:
        lines, first = _source_lines(code, fn.__globals__)  # its own code: a @wraps wrapper is not its __wrapped__
    except (OSError, TypeError) as err:
        raise SourceUnavailable(
            f"graph mode needs the source of '{fn.__qualname__}' ({file}:{code.co_firstlineno}), "
            f"but it is not available: {err}"
        ) from None
    text = "".join(lines)
    dedented = textwrap.dedent(text)
    indent = len(lines[0]) - len(lines[0].lstrip()) if lines else 0
    if indent and len(dedented.splitlines()[0]) == len(lines[0].rstrip("\n")):
        indent = 0
    try:
        tree = ast.parse(dedented)
    except SyntaxError:
        tree = None
    if fn.__name__ == "<lambda>":
        found = _lambda_in_file(code)
        if found is not None:
            return found, file, 1, 0  # the whole file's AST: its positions are the file's own
    if fn.__name__ == "<lambda>" or tree is None:
        # A lambda's source is the whole line; find the lambda by its argument names.
        if tree is None:
            try:
                tree = ast.parse(dedented.strip().rstrip(",").rstrip("\\"), mode="exec")
            except SyntaxError:
                raise GraphSyntaxError(
                    f"cannot isolate the source of the lambda at {file}:{code.co_firstlineno}; "
                    f"define it with 'def' or on its own line."
                ) from None
        want = list(code.co_varnames[: code.co_argcount])
        for node in ast.walk(tree):
            if isinstance(node, ast.Lambda) and [a.arg for a in node.args.args] == want:
                return node, file, first, indent
        raise GraphSyntaxError(f"cannot find the source of the lambda at {file}:{code.co_firstlineno}.")
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node, file, first, indent
    raise GraphSyntaxError(f"cannot find the definition of '{fn.__qualname__}' in {file}:{first}.")


def parse_function(fn) -> ParsedFunction:
    """Parse a Python function into a FuncGraph (raises GraphSyntaxError on unsupported syntax)."""
    tree, file, first, indent = _source_of(fn)
    code = fn.__code__
    cells = {}
    if fn.__closure__:
        cells = dict(zip(code.co_freevars, fn.__closure__, strict=True))
    ns = Namespace(fn.__globals__, cells, fn.__qualname__)
    b = _Builder(file, first - 1, indent, fn.__qualname__)
    b.read = _read_names(tree)
    if isinstance(tree, ast.AsyncFunctionDef):
        b.fail(tree, "async function")
    graph = b.function(tree, fn.__name__, None, ns)
    return ParsedFunction(graph, fn, file)


def _innermost_class(qualname: str) -> str | None:
    """The class whose body encloses the function of `qualname` (Python mangles private names with it): the nearest
    enclosing name not followed by `<locals>` ('C.m' and 'C.m.<locals>.f' give 'C'; 'f', 'g.<locals>.f' none)."""
    parts = qualname.split(".")
    for i in range(len(parts) - 2, -1, -1):
        if parts[i] != "<locals>" and parts[i + 1] != "<locals>":
            return parts[i]
    return None


# Calls that read local variables by name at run time: with one of them, every assigned name counts as read.
_READS_LOCALS = frozenset({"locals", "vars", "eval", "exec"})


def _read_names(tree: ast.AST) -> frozenset[str] | None:
    """Names the function (nested functions included) ever reads or deletes; None when it may read any local."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            if node.id in _READS_LOCALS:
                return None
            names.add(node.id)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):  # `n += 1` reads n
            names.add(node.target.id)
    return frozenset(names)


def _assigned(stmts: list[ast.stmt]) -> list[str]:
    """Names bound by `stmts` (not inside nested functions), in order of first binding."""
    out: dict[str, None] = {}

    def target(t):
        if isinstance(t, ast.Name):
            out.setdefault(t.id)
        elif isinstance(t, (ast.Tuple, ast.List)):
            for e in t.elts:
                target(e)
        elif isinstance(t, ast.Starred):
            target(t.value)
        elif isinstance(t, ast.Subscript):
            target(t.value)

    def visit(s):
        if isinstance(s, ast.Assign):
            for t in s.targets:
                target(t)
        elif isinstance(s, (ast.AugAssign, ast.AnnAssign)):
            target(s.target)
        elif isinstance(s, ast.For):
            target(s.target)
        elif isinstance(s, ast.With):
            for item in s.items:
                if item.optional_vars is not None:
                    target(item.optional_vars)
        elif isinstance(s, ast.FunctionDef):
            out.setdefault(s.name)
            return
        for field_name in ("body", "orelse"):
            for child in getattr(s, field_name, ()) or ():
                if isinstance(child, ast.stmt):
                    visit(child)

    for s in stmts:
        visit(s)
    return list(out)


class _Builder:
    def __init__(self, file: str, line_offset: int, indent: int, func: str) -> None:
        self.file, self.line_offset, self.indent, self.func = file, line_offset, indent, func
        self.g: FuncGraph | None = None
        self.env: dict[str, Node] = {}
        self.terminated = False
        self.loops: list[_Loop] = []
        self.withs: list[_Managed] = []
        self.globals_declared: set[str] = set()
        self.read: frozenset[str] | None = None  # names the function ever reads (None: any)
        self.owner_class = _innermost_class(func)

    def mangled(self, attr: str) -> str:
        """`attr` as Python compiles it in this function: a private name (`self.__padding` in a method of class
        CausalConv2d) is `_CausalConv2d__padding`, where `__init__` stored it."""
        owner = (self.owner_class or "").lstrip("_")
        if owner and attr.startswith("__") and not attr.endswith("__"):
            return f"_{owner}{attr}"
        return attr

    # -- helpers ---------------------------------------------------------------------------
    def _carried(self, body: list[ast.stmt]) -> list[str]:
        """The variables a loop carries: those its body assigns, less any the function never reads (an inner
        `for _ in ...` target need not be carried, and is not an unassigned variable after a Tensor loop)."""
        names = _assigned(body)
        return names if self.read is None else [n for n in names if n in self.read]

    def loc(self, node: ast.AST) -> Loc | None:
        if not hasattr(node, "lineno"):
            return None
        line = node.lineno + self.line_offset
        end_line = getattr(node, "end_lineno", node.lineno) + self.line_offset
        col = node.col_offset + self.indent
        end_col = (node.end_col_offset + self.indent) if end_line == line and node.end_col_offset is not None else None
        text = linecache.getline(self.file, line) or ""
        return Loc(self.file, line, col, end_col, text, self.func)

    def fail(self, node: ast.AST, construct: str, hint: str = ""):
        loc = self.loc(node)
        msg = f"{construct} is not supported in graph mode (jit_syntax_level STRICT)"
        msg += f": {hint}\n" if hint else ".\n"
        raise GraphSyntaxError(msg + where(loc))

    def emit(self, head, args: list[Node], node: ast.AST | None, kw: tuple[str, ...] = ()) -> Apply:
        head_node = head if isinstance(head, Node) else Const(head)
        loc = self.loc(node) if node is not None else None
        a = Apply(self.g, [head_node, *args], loc, kw)
        self.g.nodes.append(a)
        return a

    def tail(self, head, args: list[Node], node: ast.AST | None) -> Apply:
        """End the current graph with a tail `jump`/`if` (not listed among its nodes)."""
        a = Apply(self.g, [Const(head), *args], self.loc(node) if node is not None else None)
        self.g.output = a
        self.terminated = True
        return a

    def jump(self, target: FuncGraph, names: list[str], node: ast.AST | None, extra: tuple = ()) -> Apply:
        vals = [*extra, *(self.env.get(n) or Const(UNDEF) for n in names)]
        return self.tail(O.JUMP, [Const(target), *vals], node)

    def new_graph(self, kind: str, node: ast.AST | None, parent: FuncGraph | None = None) -> FuncGraph:
        parent = parent or self.g
        name = f"{self.func}.{kind}"
        return FuncGraph(name, parent, kind, self.loc(node) if node is not None else None)

    # -- functions ---------------------------------------------------------------------------
    def function(self, node, name: str, parent: FuncGraph | None, ns: Namespace | None) -> FuncGraph:
        g = FuncGraph(name if parent is None else f"{self.func}.{name}", parent, "fn", self.loc(node), ns)
        saved = (self.g, self.env, self.terminated, self.loops, self.withs)
        self.g, self.env, self.terminated, self.loops = g, dict(self.env) if parent else {}, False, []
        self.withs = []
        self._params(node.args, g)
        if isinstance(node, ast.Lambda):
            g.output = self.expr(node.body)
        else:
            for dec in node.decorator_list if parent is not None else ():
                self.fail(dec, "a decorator on a nested function")
            self.stmts(node.body)
            if not self.terminated:  # falls off the end of the graph it ends in (after a loop: the after-graph)
                self.g.output = Const(None)
        self.g, self.env, self.terminated, self.loops, self.withs = saved
        return g

    def _params(self, args: ast.arguments, g: FuncGraph) -> None:
        for a in [*args.posonlyargs, *args.args]:
            self.env[a.arg] = g.add_param(a.arg, self.loc(a))
        if args.vararg is not None:
            g.vararg = Param(g, args.vararg.arg, self.loc(args.vararg))
            self.env[args.vararg.arg] = g.vararg
        for a in args.kwonlyargs:
            p = Param(g, a.arg, self.loc(a))
            g.kwonly.append(p)
            self.env[a.arg] = p
        if args.kwarg is not None:
            g.kwarg = Param(g, args.kwarg.arg, self.loc(args.kwarg))
            self.env[args.kwarg.arg] = g.kwarg
        g.n_defaults = len(args.defaults)

    def closure(self, node, name: str) -> Apply:
        """A nested def or lambda as a closure value (defaults evaluated here)."""
        defaults = [self.expr(d) for d in node.args.defaults]
        kw_defaults = [(a.arg, d) for a, d in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True) if d]
        kw_nodes = [self.expr(d) for _, d in kw_defaults]
        placeholder = Apply(self.g, [], self.loc(node))
        if name and not isinstance(node, ast.Lambda):
            self.env[name] = placeholder  # lets the function call itself
        sub = self.function(node, name or "lambda", self.g, None)
        sub.kind = "lambda" if isinstance(node, ast.Lambda) else "fn"
        placeholder.inputs = [Const(O.MAKE_CLOSURE), Const(sub), *defaults, *kw_nodes]
        placeholder.meta = {"kw_defaults": tuple(k for k, _ in kw_defaults)}
        self.g.nodes.append(placeholder)
        return placeholder

    def thunk(self, build, node: ast.AST, params: tuple[str, ...] = (), binder=None) -> Apply:
        """A closure whose body is the expression built by `build()` in a fresh graph."""
        g = FuncGraph(f"{self.func}.lambda", self.g, "lambda", self.loc(node))
        saved = (self.g, self.env)
        self.g, self.env = g, dict(self.env)
        for p in params:
            self.env[p] = g.add_param(p)
        if binder is not None:
            binder()
        g.output = build()
        self.g, self.env = saved
        return self.emit(O.MAKE_CLOSURE, [Const(g)], node)

    # -- statements ---------------------------------------------------------------------------
    def stmts(self, body: list[ast.stmt]) -> None:
        for s in body:
            if self.terminated:
                return  # code after return/break/continue never runs
            self.stmt(s)

    def stmt(self, s: ast.stmt) -> None:
        self._visit(s, "s", _UNSUPPORTED_STMT, "statement")

    def _visit(self, tree: ast.AST, prefix: str, unsupported: dict, what: str):
        """Parse `tree` with its method (`s_If`, `e_Call`...); a syntax graph mode refuses fails at its line."""
        kind = type(tree)
        if kind in unsupported:
            self.fail(tree, unsupported[kind])
        method = getattr(self, f"{prefix}_{kind.__name__}", None)
        if method is None:
            self.fail(tree, f"'{kind.__name__}' {what}")
        return method(tree)

    def s_Expr(self, s: ast.Expr) -> None:
        if isinstance(s.value, ast.Constant) and isinstance(s.value.value, str):
            return  # docstring
        self.expr(s.value)

    def s_Pass(self, s) -> None:
        pass

    def s_Assign(self, s: ast.Assign) -> None:
        value = self.expr(s.value)
        for t in s.targets:
            self.store(t, value, s)

    def s_AnnAssign(self, s: ast.AnnAssign) -> None:
        if s.value is not None:
            self.store(s.target, self.expr(s.value), s)

    def s_AugAssign(self, s: ast.AugAssign) -> None:
        current = self.expr(_as_load(s.target))
        value = self.emit(O.OPS[type(s.op).__name__], [current, self.expr(s.value)], s)
        self.store(s.target, value, s)

    def s_Return(self, s: ast.Return) -> None:
        value = self.expr(s.value) if s.value is not None else Const(None, self.loc(s))
        self._exit_managers(0, s)  # as Python does: the value first, then every open block's __exit__
        self.g.output = value
        self.g.return_loc = self.loc(s)
        self.terminated = True

    def s_Global(self, s: ast.Global) -> None:
        self.globals_declared.update(s.names)

    def s_Nonlocal(self, s: ast.Nonlocal) -> None:
        self.fail(s, "nonlocal statement")

    def s_Assert(self, s: ast.Assert) -> None:
        msg = self.expr(s.msg) if s.msg is not None else Const(None)
        self.emit(O.ASSERT, [self.expr(s.test), msg], s)

    def s_Raise(self, s: ast.Raise) -> None:
        exc = self.expr(s.exc) if s.exc is not None else Const(None)
        self.emit(O.RAISE, [exc], s)
        self.g.output = Const(None)
        self.terminated = True

    def s_FunctionDef(self, s: ast.FunctionDef) -> None:
        self.closure(s, s.name)

    def s_If(self, s: ast.If) -> None:
        cond = self.expr(s.test)
        names = _assigned(s.body + s.orelse)
        owner, env0 = self.g, dict(self.env)
        tg = self.new_graph("if_true", s.body[0] if s.body else s)
        fg = self.new_graph("if_false", s.orelse[0] if s.orelse else s)
        join = self.new_graph("join", s)
        ifnode = self.tail(O.IF, [cond, Const(tg), Const(fg)], s.test)
        ifnode.meta = {"join": join}
        falls = 0
        for g, body in ((tg, s.body), (fg, s.orelse)):
            self.g, self.env, self.terminated = g, dict(env0), False
            self.stmts(body)
            if not self.terminated:
                self.jump(join, names, body[-1] if body else s)
                falls += 1
        if falls == 0:
            owner.children.remove(join)
            ifnode.meta["join"] = None
            self.terminated = True
            return
        self.g, self.env, self.terminated = join, env0, False
        for n in names:
            self.env[n] = join.add_param(n)

    def _loop(self, s, carried: list[str], iterate: bool):
        """Header/body/exit/after graphs of a loop; returns (header, body, after)."""
        owner = self.g
        header = self.new_graph("loop_header", s)
        after = self.new_graph("loop_after", s, parent=owner)
        return owner, header, after

    def s_For(self, s: ast.For) -> None:
        iterable = self.expr(s.iter)
        it0 = self.emit(O.ITER_INIT, [iterable], s.iter)
        carried = self._carried([s])
        owner, header, after = self._loop(s, carried, True)
        env0 = dict(self.env)
        self.jump(header, carried, s, extra=(it0,))
        # header: has another item?
        self.g, self.env, self.terminated = header, dict(env0), False
        it = header.add_param("__iter")
        for n in carried:
            self.env[n] = header.add_param(n)
        has = self.emit(O.ITER_HAS, [it], s.iter)
        self._test_loop(s, has, s.iter, header, after, carried)
        item = self.emit(O.ITER_GET, [it], s.target)
        it_next = self.emit(O.ITER_NEXT, [it], s.iter)
        self.store(s.target, item, s)
        self.loops.append(_Loop(header, after, carried, it_next))
        self.stmts(s.body)
        self.loops.pop()
        if not self.terminated:
            self.jump(header, carried, s.body[-1], extra=(it_next,))
        self._enter_after(after, env0, carried)

    def s_While(self, s: ast.While) -> None:
        carried = self._carried(s.body + s.orelse)
        owner, header, after = self._loop(s, carried, False)
        env0 = dict(self.env)
        self.jump(header, carried, s)
        self.g, self.env, self.terminated = header, dict(env0), False
        for n in carried:
            self.env[n] = header.add_param(n)
        cond = self.expr(s.test)
        self._test_loop(s, cond, s.test, header, after, carried)
        self.loops.append(_Loop(header, after, carried, None))
        self.stmts(s.body)
        self.loops.pop()
        if not self.terminated:
            self.jump(header, carried, s.body[-1])
        self._enter_after(after, env0, carried)

    def _test_loop(self, s, test, where, header: FuncGraph, after: FuncGraph, carried: list[str]) -> None:
        """End a loop header with `if test` between the body and an exit that jumps to `after` (the carried
        variables as they are in the header); continue in the body."""
        body = self.new_graph("loop_body", s.body[0])
        exit_g = self.new_graph("loop_exit", s)
        hnode = self.tail(O.IF, [test, Const(body), Const(exit_g)], where)
        hnode.meta = {"loop": True, "header": header, "after": after, "join": None}
        header_env = dict(self.env)
        self.g, self.env, self.terminated = exit_g, dict(header_env), False
        # the loop's `else` runs on this exit only (a `break` jumps to `after` past it)
        self.stmts(s.orelse)
        if not self.terminated:
            self.jump(after, carried, s.orelse[-1] if s.orelse else s)
        self.g, self.env, self.terminated = body, dict(header_env), False

    def _enter_after(self, after: FuncGraph, env0: dict, carried: list[str]) -> None:
        self.g, self.env, self.terminated = after, dict(env0), False
        for n in carried:
            self.env[n] = after.add_param(n)

    def s_With(self, s: ast.With) -> None:
        """`with m as v: body` runs `v = m.__enter__()`, the body, then `m.__exit__(None, None, None)`; a
        return/break/continue in the body runs the `__exit__` calls before leaving (see `_exit_managers`).
        Several items nest, as Python nests them."""
        opened = len(self.withs)
        for item in s.items:
            manager = self.expr(item.context_expr)
            enter = self.emit(O.GETATTR, [manager, Const("__enter__")], item.context_expr)
            enter.meta = {"context_manager": True}  # a missing method is Python's TypeError, not AttributeError
            value = self.emit(enter, [], item.context_expr)
            if item.optional_vars is not None:
                self.store(item.optional_vars, value, s)
            self.withs.append(_Managed(manager, len(self.loops), item.context_expr))
        self.stmts(s.body)
        if not self.terminated:
            self._exit_managers(opened, s.body[-1])
        del self.withs[opened:]

    def _exit_managers(self, keep: int, node: ast.AST) -> None:
        """Call `__exit__(None, None, None)` on the open context managers past the first `keep`, innermost
        first, in the current graph (the `with` blocks that the statement at `node` leaves)."""
        for managed in reversed(self.withs[keep:]):
            leave = self.emit(O.GETATTR, [managed.manager, Const("__exit__")], managed.node)
            leave.meta = {"context_manager": True}
            self.emit(leave, [Const(None), Const(None), Const(None)], node)

    def _loop_managers(self) -> int:
        """How many open `with` blocks lie outside the innermost loop (a break/continue leaves the others)."""
        depth = len(self.loops)
        return sum(1 for managed in self.withs if managed.loop_depth < depth)

    def s_Break(self, s: ast.Break) -> None:
        loop = self.loops[-1]
        self._exit_managers(self._loop_managers(), s)
        self.jump(loop.after, loop.carried, s)

    def s_Continue(self, s: ast.Continue) -> None:
        loop = self.loops[-1]
        self._exit_managers(self._loop_managers(), s)
        extra = (loop.it_next,) if loop.it_next is not None else ()
        self.jump(loop.header, loop.carried, s, extra=extra)

    # -- assignment targets ------------------------------------------------------------------
    def store(self, t: ast.expr, value: Node, stmt: ast.AST) -> None:
        if isinstance(t, ast.Name):
            if t.id in self.globals_declared:
                self.fail(t, f"assigning the global variable '{t.id}'")
            self.env[t.id] = value
        elif isinstance(t, (ast.Tuple, ast.List)):
            stars = [i for i, e in enumerate(t.elts) if isinstance(e, ast.Starred)]
            # `a, *rest, z = x`: the count is (items before the star, items after it)
            count = (stars[0], len(t.elts) - stars[0] - 1) if stars else len(t.elts)
            items = self.emit(O.UNPACK, [value, Const(count)], stmt)
            for i, e in enumerate(t.elts):
                target = e.value if isinstance(e, ast.Starred) else e
                self.store(target, self.emit(O.GETITEM, [items, Const(i)], e), stmt)
        elif isinstance(t, ast.Attribute):
            self.emit(O.SETATTR, [self.expr(t.value), Const(self.mangled(t.attr)), value], t)
        elif isinstance(t, ast.Subscript):
            container = self.expr(t.value)
            new = self.emit(O.SETITEM, [container, self.index(t.slice), value], t)
            self.store(t.value, new, stmt)
        else:
            self.fail(t, f"assignment to {type(t).__name__}")

    # -- expressions ---------------------------------------------------------------------------
    def expr(self, e: ast.expr) -> Node:
        return self._visit(e, "e", _UNSUPPORTED_EXPR, "expression")

    def e_Constant(self, e: ast.Constant) -> Node:
        return Const(e.value, self.loc(e))

    def e_Name(self, e: ast.Name) -> Node:
        node = self.env.get(e.id)
        if node is not None and e.id not in self.globals_declared:
            return node
        return self.emit(O.RESOLVE, [Const(e.id)], e)

    def e_Attribute(self, e: ast.Attribute) -> Node:
        return self.emit(O.GETATTR, [self.expr(e.value), Const(self.mangled(e.attr))], e)

    def e_Subscript(self, e: ast.Subscript) -> Node:
        return self.emit(O.GETITEM, [self.expr(e.value), self.index(e.slice)], e)

    def index(self, s: ast.expr) -> Node:
        if isinstance(s, ast.Slice):
            parts = [self.expr(p) if p is not None else Const(None) for p in (s.lower, s.upper, s.step)]
            return self.emit(O.MAKE_SLICE, parts, s)
        if isinstance(s, ast.Tuple):
            return self.emit(O.MAKE_TUPLE, [self.index(x) for x in s.elts], s)
        return self.expr(s)

    def e_Slice(self, e: ast.Slice) -> Node:
        return self.index(e)

    def e_BinOp(self, e: ast.BinOp) -> Node:
        return self.emit(O.OPS[type(e.op).__name__], [self.expr(e.left), self.expr(e.right)], e)

    def e_UnaryOp(self, e: ast.UnaryOp) -> Node:
        return self.emit(O.OPS[type(e.op).__name__], [self.expr(e.operand)], e)

    def e_BoolOp(self, e: ast.BoolOp) -> Node:
        op = O.AND if isinstance(e.op, ast.And) else O.OR

        def build(i: int) -> Node:
            if i == len(e.values) - 1:
                return self.expr(e.values[i])
            first = self.expr(e.values[i])
            return self.emit(op, [first, self.thunk(lambda: build(i + 1), e.values[i + 1])], e)

        return build(0)

    def e_Compare(self, e: ast.Compare) -> Node:
        left = self.expr(e.left)

        def build(i: int, lhs: Node) -> Node:
            rhs = self.expr(e.comparators[i])
            cmp = self.emit(O.OPS[type(e.ops[i]).__name__], [lhs, rhs], e)
            if i == len(e.ops) - 1:
                return cmp
            return self.emit(O.AND, [cmp, self.thunk(lambda: build(i + 1, rhs), e.comparators[i + 1])], e)

        return build(0, left)

    def e_IfExp(self, e: ast.IfExp) -> Node:
        cond = self.expr(e.test)
        a = self.thunk(lambda: self.expr(e.body), e.body)
        b = self.thunk(lambda: self.expr(e.orelse), e.orelse)
        return self.emit(O.IFEXP, [cond, a, b], e)

    def e_Tuple(self, e: ast.Tuple) -> Node:
        return self._sequence(e, O.MAKE_TUPLE)

    def e_List(self, e: ast.List) -> Node:
        return self._sequence(e, O.MAKE_LIST)

    def _sequence(self, e, op) -> Node:
        if any(isinstance(x, ast.Starred) for x in e.elts):
            parts = []
            for x in e.elts:
                if isinstance(x, ast.Starred):
                    parts.append(self.emit(O.CALL_STAR, [Const(tuple), Const((("p",),)), self.expr(x.value)], x))
                else:
                    parts.append(self.emit(O.MAKE_TUPLE, [self.expr(x)], x))
            total = parts[0]
            for p in parts[1:]:
                total = self.emit(O.OPS["Add"], [total, p], e)
            if op is O.MAKE_LIST:
                total = self.emit(O.CALL_STAR, [Const(list), Const((("p",),)), total], e)
            return total
        return self.emit(op, [self.expr(x) for x in e.elts], e)

    def e_Dict(self, e: ast.Dict) -> Node:
        if any(k is None for k in e.keys):
            self.fail(e, "'**' inside a dict display")
        keys = [self.expr(k) for k in e.keys]
        return self.emit(O.MAKE_DICT, [*keys, *(self.expr(v) for v in e.values)], e)

    def e_Lambda(self, e: ast.Lambda) -> Node:
        return self.closure(e, "")

    def e_JoinedStr(self, e: ast.JoinedStr) -> Node:
        parts = []
        for v in e.values:
            if isinstance(v, ast.FormattedValue):
                spec = self.expr(v.format_spec) if v.format_spec is not None else Const("")
                parts.append(self.emit(O.FORMAT, [self.expr(v.value), Const(v.conversion), spec], v))
            else:
                parts.append(self.expr(v))
        return self.emit(O.JOIN_STR, parts, e)

    def e_FormattedValue(self, e: ast.FormattedValue) -> Node:
        return self.e_JoinedStr(ast.JoinedStr(values=[e], lineno=e.lineno, col_offset=e.col_offset))

    def _comprehension(self, e, kind: str, elt_build, generators: list | None = None) -> Node:
        generators = e.generators if generators is None else generators
        gen = generators[0]
        if gen.is_async:
            self.fail(e, "async comprehension")
        iterable = self.expr(gen.iter)

        def bind():
            item = self.env["__item"]
            self.store(gen.target, item, e)

        if len(generators) > 1:
            # `for a in x for b in a`: each item of the first loop gives the list of the inner loops' items,
            # spliced in order ("*"), with the first loop's variables in scope as Python nests them
            inner = generators[1:]
            elt = self.thunk(lambda: self._comprehension(e, "list", elt_build, inner), e, ("__item",), bind)
            kind += "*"
        else:
            elt = self.thunk(elt_build, e, ("__item",), bind)
        cond = Const(None)
        if gen.ifs:
            test = gen.ifs[0]
            if len(gen.ifs) > 1:  # `if a if b`: `a and b`, spanning both
                test = ast.BoolOp(op=ast.And(), values=gen.ifs, **_pos(gen.ifs[0], gen.ifs[-1]))
            cond = self.thunk(lambda: self.expr(test), test, ("__item",), bind)
        return self.emit(O.COMPREHENSION, [Const(kind), iterable, elt, cond], e)

    def e_ListComp(self, e: ast.ListComp) -> Node:
        return self._comprehension(e, "list", lambda: self.expr(e.elt))

    def e_GeneratorExp(self, e: ast.GeneratorExp) -> Node:
        # Graph mode evaluates a generator expression at once, into a list (as MindSpore's graph mode does).
        return self._comprehension(e, "list", lambda: self.expr(e.elt))

    def e_DictComp(self, e: ast.DictComp) -> Node:
        return self._comprehension(
            e, "dict", lambda: self.emit(O.MAKE_TUPLE, [self.expr(e.key), self.expr(e.value)], e)
        )

    def e_Starred(self, e: ast.Starred) -> Node:
        self.fail(e, "starred expression here")

    def e_Call(self, e: ast.Call) -> Node:
        if isinstance(e.func, ast.Name) and e.func.id == "super" and not e.args and "super" not in self.env:
            first = self.g
            while first.parent is not None and first.kind != "fn":
                first = first.parent
            root = first
            while root.parent is not None:
                root = root.parent
            if not root.params:
                self.fail(e, "super() without arguments outside a method")
            cls = self.emit(O.RESOLVE, [Const("__class__")], e)
            return self.emit(O.SUPER, [cls, self.env.get(root.param_names[0], root.params[0])], e)
        callee = self.expr(e.func)
        starred = any(isinstance(a, ast.Starred) for a in e.args) or any(k.arg is None for k in e.keywords)
        if starred:
            layout, values = [], []
            for a in e.args:
                if isinstance(a, ast.Starred):
                    layout.append(("s",))
                    values.append(self.expr(a.value))
                else:
                    layout.append(("p",))
                    values.append(self.expr(a))
            for k in e.keywords:
                layout.append(("d",) if k.arg is None else ("k", k.arg))
                values.append(self.expr(k.value))
            return self.emit(O.CALL_STAR, [callee, Const(tuple(layout)), *values], e)
        args = [self.expr(a) for a in e.args]
        kwvals = [self.expr(k.value) for k in e.keywords]
        return self.emit(callee, [*args, *kwvals], e, tuple(k.arg for k in e.keywords))


def _as_load(t: ast.expr) -> ast.expr:
    """The same target read as an expression (for augmented assignment)."""
    return t


def _pos(first: ast.AST, last: ast.AST | None = None) -> dict:
    """The source span from `first`'s start to `last`'s end (`first`'s by default), for a node Kiln builds."""
    last = first if last is None else last
    return {"lineno": first.lineno, "col_offset": first.col_offset, "end_lineno": last.end_lineno,
            "end_col_offset": last.end_col_offset}  # fmt: skip


BUILTINS = builtins
