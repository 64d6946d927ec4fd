"""Analysis failures: `analyze_fail.ir` with the failing node marked, and an error at the user's line."""

from __future__ import annotations

import os

from kiln._compiler.errors import (
    GraphCompileError,
    GraphSyntaxError,
    TensorMethodUnavailable,
    UnassignedVariable,
    located,
    where,
)
from kiln._compiler.frontend.ast.printer import print_graphs
from kiln._compiler.specialise import ShapeJoinError
from kiln.context import _context

_PASS_THROUGH = ("_Retry",)


def _save_dir() -> str:
    return _context.get("save_graphs_path") or "."


def annotate(ctx, node, err: BaseException) -> BaseException:
    """The exception to raise for `err` raised while evaluating `node` (annotated once, innermost first)."""
    if getattr(err, "_kiln_annotated", False) or type(err).__name__ in _PASS_THROUGH:
        return err
    if ctx.range_loop_attempts:  # the loop is unrolled instead: the error is not the user's (yet)
        return err
    if isinstance(err, (KeyboardInterrupt, SystemExit, GraphSyntaxError, RecursionError)):
        return err  # a RecursionError is reported once, by the call that went too deep
    frames = list(ctx.frames)
    marked = {f.current.id for f in frames if f.current is not None}
    path = _write_fail_ir(frames, marked)
    internal = _internal_failure(err)
    msg = _first_message(err)
    if internal:
        msg = (
            f"Kiln internal error while compiling the expression below ({type(err).__name__}: {msg}). This is a "
            f"bug in Kiln, not in your program: please report it with this message; KILN_DEBUG=1 shows Kiln's frames."
        )
    lines = [msg, "", "The failing expression (graph mode):", where(node.loc)]
    callers = [f.current for f in reversed(frames[:-1])]
    callers = [c for c in callers if c is not None and c is not node and c.loc is not None]
    if len(callers) > 6:  # deep (recursive) call chains: the innermost and outermost calls
        hidden = len(callers) - 6
        callers = [*callers[:3], f"  ... {hidden} more calls ...", *callers[-3:]]
    for c in callers:
        lines.append(c if isinstance(c, str) else where(c.loc, "  called from:\n"))
    if path:
        lines.append(f"The IR with the failing node marked is in {path}.")
    location = "\n".join(x for x in lines[2:] if x is not None)
    text = f"{msg}\n\n{location}"
    new = GraphCompileError(text) if internal else _same_kind(err, msg, location)
    new._kiln_annotated = True
    new.__cause__ = None
    return new


_COMPILER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_GRAPH_FILE = os.path.join(os.path.dirname(os.path.dirname(_COMPILER_DIR)), "_core", "graph.py")
_USER_OPS = os.path.join(_COMPILER_DIR, "ast", "semantics.py")
_CALLS = os.path.join(_COMPILER_DIR, "ast", "calls.py")
_BUG_TYPES = (AttributeError, KeyError, IndexError, AssertionError, UnboundLocalError, ZeroDivisionError)


def _internal_failure(err: BaseException) -> bool:
    """A failure of the compiler itself: a Python error type raised from the compiler's own code."""
    if not isinstance(err, _BUG_TYPES) or isinstance(err, (UnassignedVariable, GraphCompileError)):
        return False
    if _users_class(type(err)):  # the compiler raises no class of the program's
        return False
    tb = err.__traceback__
    last = None
    while tb is not None:
        last = tb.tb_frame.f_code
        tb = tb.tb_next
    if last is None:
        return False
    # semantics.py evaluates the user's own getattr/getitem/arithmetic, and calls.call_python the builtins the
    # program calls (getattr, list.pop): their errors are the program's.
    if last.co_filename == _USER_OPS or (last.co_filename == _CALLS and last.co_name == "call_python"):
        return False
    return last.co_filename.startswith(_COMPILER_DIR) or last.co_filename == _GRAPH_FILE


def _first_message(err: BaseException) -> str:
    text = str(err).strip()
    if type(err).__module__.startswith("jax"):
        text = text.split("\n\n")[0]
        return f"{type(err).__name__}: {text}"
    return text or type(err).__name__


def _same_kind(err: BaseException, msg: str, location: str) -> BaseException:
    kind, text = type(err), f"{msg}\n\n{location}"
    if isinstance(err, UnassignedVariable):
        return UnboundLocalError(text)
    if isinstance(err, ShapeJoinError):  # still names the if a retrace may specialise
        return err.with_text(text)
    if kind is KeyError:  # (its str() quotes its argument: the location lines would print escaped)
        return located(err, location)
    if kind in (ValueError, TypeError, NameError, AttributeError, IndexError, AssertionError,
                RuntimeError, ZeroDivisionError, NotImplementedError, GraphCompileError,
                TensorMethodUnavailable):  # fmt: skip
        return kind(text)
    if _users_class(kind):  # the program's own exception class (a KeyError subclass too) reaches it as raised
        return located(err, location, msg)
    if isinstance(err, TypeError):
        return TypeError(text)
    if isinstance(err, ValueError):
        return ValueError(text)
    if kind.__module__ == "builtins" and isinstance(err, Exception):  # the program's own `raise RuntimeWarning(...)`
        return located(err, location, msg)
    return GraphCompileError(text)


# Where exception classes the program did not write come from (the backend's errors become Python's own kinds)
_LIBRARIES = frozenset({"builtins", "kiln", "jax", "jaxlib", "numpy", "ml_dtypes"})


def _users_class(kind: type) -> bool:
    return kind.__module__.partition(".")[0] not in _LIBRARIES


def _write_fail_ir(frames, marked: set[int]) -> str | None:
    graphs = []
    for f in frames:
        root = f.graph
        while root.parent is not None:
            root = root.parent
        if root not in graphs:
            graphs.append(root)
    header = (
        "# The IR of the graphs being analysed when analysis failed.\n"
        "# The node marked '------------------------> here' is the one that failed;\n"
        "# the other marks are the calls that led to it.\n"
        "# " + "=" * 70 + "\n"
    )
    text = print_graphs(graphs, marked, header)
    try:
        directory = _save_dir()
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, "analyze_fail.ir")
        with open(path, "w") as fh:
            fh.write(text)
        return path
    except OSError:
        return None
