"""Exceptions of the graph compiler, and the user-facing location block."""

from __future__ import annotations

import functools
import os
import sys
import types

from kiln._backend import callbacks


class GraphSyntaxError(SyntaxError, RuntimeError):
    """Python syntax that graph mode (STRICT) cannot compile; the message names file, line and construct.

    Also a RuntimeError: MindSpore raises one for unsupported syntax, and its users' scripts catch that class."""

    def __str__(self) -> str:
        return self.args[0] if self.args else "graph syntax error"


class SourceUnavailable(GraphSyntaxError):
    """The function's source cannot be read (exec'd code, a REPL line): it runs as Python on symbolic tensors."""


class GraphCompileError(RuntimeError):
    """A program that parses but cannot be compiled (type join, unsupported use of a value)."""


class HostShapeChanged(Exception):  # noqa: N818  (control flow of the compile cache, not an error the user sees)
    """A host step gave a result of another shape than its program was compiled for (a data-dependent shape, e.g.
    masked_select's count): nothing of the run is applied, and the call is traced and compiled again."""

    # one call compiled again this many times (a host step in a loop whose shape changes per trip) is refused
    MAX_RETRACES = 4

    def __init__(self, message: str, site: tuple | None = None) -> None:
        super().__init__(message)
        self.site = site  # the host step's key in guards.HOST_SHAPES

    def refused(self) -> GraphCompileError:
        """The error of a call whose host step changes shape again after each retrace."""
        return GraphCompileError(
            f"{self.args[0]}, again after {self.MAX_RETRACES} recompiles of one call: a host step whose result shape "
            f"differs between its runs in one call (e.g. in a loop) cannot be compiled. Run it in PyNative mode, or "
            f"give its result a fixed shape (e.g. a mask instead of a selection)."
        )


def host_shape_changed(err: BaseException) -> HostShapeChanged | None:
    """The HostShapeChanged a host step raised, when `err` is the backend's report of it."""
    if isinstance(err, HostShapeChanged):
        return err
    held = callbacks.held(err)
    return callbacks.user_error(err) if isinstance(held, HostShapeChanged) else None


class TensorMethodUnavailable(GraphCompileError, AttributeError):
    """A Tensor method that reads the Tensor's value on the host (`asnumpy()`, `item()`, ...) called in a graph
    under jit_syntax_level STRICT or COMPATIBLE: such a graph's Tensors have no such method (LAX runs it as a
    host step)."""


class RaisesWithRunTimeMessage(Exception):  # noqa: N818  (control flow of the compiler, not an error the user sees)
    """Every path of the call raises the user's exception, whose arguments hold Tensor values known only at run time
    (`raise ValueError(f"bad {x}")`): the call runs eagerly instead, so the exception carries the real values."""

    _kiln_annotated = True  # passes through the interpreter's error annotation unchanged

    def __init__(self, exc: BaseException) -> None:
        super().__init__("a raise whose message is known at run time")
        self.exc = exc


class UnassignedVariable(UnboundLocalError):
    """The program reads a local variable on a path where it is not assigned (Python's UnboundLocalError),
    found while compiling: one branch of a Tensor `if` assigns it, or only the body of a Tensor loop."""


def located(err: BaseException, location: str, message: str | None = None) -> BaseException:
    """A new exception of `err`'s type saying `message` (`str(err)` by default), then the `location` lines.

    An exception whose str() is the repr of its argument (KeyError) would show those lines escaped, on one line:
    it keeps `err`'s arguments (what the user raised) and takes the location as a note, printed as written.
    A class whose constructor takes no single text (a user's class with its own signature, UnicodeDecodeError)
    cannot be made again: `err` itself is returned, the location added as a note."""
    kind = type(err)
    try:
        if _repr_like(kind):
            new = kind(*err.args)
            new.add_note(location)
            return new
        return kind(f"{str(err) if message is None else message}\n\n{location}")
    except Exception:  # noqa: BLE001  (whatever the class's own constructor raises)
        err.add_note(location)
        return err


@functools.cache
def _repr_like(kind: type) -> bool:
    text = "a\nb"
    try:
        return str(kind(text)) != text
    except Exception:  # noqa: BLE001  (a constructor with its own signature: its text is taken as it comes)
        return False


def no_derivative(op: str, site: str) -> str:
    """The message of a gradient that reaches `op`, a user's Python function with no bprop, called at `site` (the
    tape's and a compiled graph's words for one error)."""
    return (
        f"For '{op}': the gradient reaches an op that has no derivative (it runs the user's Python function; "
        f"MindSpore: its bprop is not defined). The op was called at:\n{site}\n"
        "Cut the gradient with ops.stop_gradient on its output, or give ops.Custom a 'bprop'."
    )


def where(loc, header: str = "") -> str:
    """`x.py:3, in f` plus the source line and a caret under the expression.

    The place is written `file:line`, without quotes: a message holding both quote characters is shown escaped
    by `repr` (and so by pytest's `str(excinfo)`), and Python's own messages often hold `'`."""
    if loc is None:
        return ""
    func = f", in {loc.func}" if loc.func else ""
    head = f"{header}  {loc.file}:{loc.line}{func}\n"
    return head + loc.caret()


_KILN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_BACKEND_MARKERS = (os.sep + "jax" + os.sep, os.sep + "jaxlib" + os.sep)


def _internal(filename: str) -> bool:
    return filename.startswith(_KILN_DIR) or any(m in filename for m in _BACKEND_MARKERS)


def user_stacklevel() -> int:
    """The `warnings.warn` stacklevel that points at the first caller outside Kiln (from the caller of this)."""
    frame, level = sys._getframe(2), 2
    while frame is not None and frame.f_code.co_filename.startswith(_KILN_DIR):
        frame, level = frame.f_back, level + 1
    return level


def user_frame(skip: int = 0, hint: tuple | None = None) -> tuple:
    """The innermost frame outside Kiln on the stack (None when all are Kiln's): while the call into Kiln runs, its
    `f_lasti` is the user's expression. `skip`: how many frames, from the caller up, are known to be Kiln's: passed
    over without reading them. Returns (frame or None, the hint to pass next time).

    A caller that reaches Kiln the same way call after call (a training step's ops) passes the hint its last call
    returned: the frame is looked for there first.

    `hint` is (depth, code of the frame below the user's, code of the user's frame). A frame read is a frame object,
    copied when its function returns, so the hint reads at most two frames where the walk reads every Kiln frame
    up to the user's (some twenty under a network of Cells). When the user's frame is right above the `skip` frames
    known to be Kiln's, the hint is exact (the walk would stop at that frame); deeper, the two frames at the
    boundary must be running the same code as when the walk found them."""
    if hint is not None:
        depth, below_code, user_code = hint
        try:
            if below_code is None:  # the user's frame is the first one the walk reads
                frame = sys._getframe(depth)
            else:
                below = sys._getframe(depth - 1)
                frame = below.f_back if below.f_code is below_code else None
        except ValueError:  # a shallower stack
            frame = None
        if frame is not None and frame.f_code is user_code:
            return frame, hint
    depth = 1 + skip
    try:
        frame = sys._getframe(depth)
    except ValueError:  # a shallower stack than the caller expects
        frame, depth = sys._getframe(1), 1
    below = None
    while frame is not None and frame.f_code.co_filename.startswith(_KILN_DIR):
        below, frame, depth = frame, frame.f_back, depth + 1
    if frame is None:
        return None, None
    return frame, (depth, None if below is None else below.f_code, frame.f_code)


def line_of(code: types.CodeType, lasti: int) -> int | None:
    """The source line of the instruction at byte offset `lasti` of `code`."""
    for start, end, line in code.co_lines():
        if start <= lasti < end:
            return line
    return None


def outside_frames(tb: types.TracebackType | None) -> types.TracebackType | None:
    """The frames of `tb` outside Kiln and the backend (the user's), chained in the same order."""
    frames = []
    while tb is not None:
        if not _internal(tb.tb_frame.f_code.co_filename):
            frames.append(tb)
        tb = tb.tb_next
    new = None
    for t in reversed(frames):
        new = types.TracebackType(new, t.tb_frame, t.tb_lasti, t.tb_lineno)
    return new


def for_user(err: BaseException) -> BaseException:
    """`err` with Kiln's and the backend's frames removed from its traceback (all kept with KILN_DEBUG=1).

    Chained backend exceptions (the backend's own traceback notes) are dropped too: the message already
    says what happened and where in the user's code. The backend's failure of a user's function that a
    compiled program called on the host is that function's own exception.
    """
    user = callbacks.user_error(err)
    if user is not None:
        err = user
    if os.environ.get("KILN_DEBUG", "") not in ("", "0"):
        return err
    new = outside_frames(err.__traceback__)
    err.__cause__ = None
    err.__suppress_context__ = True
    notes = getattr(err, "__notes__", None)
    if notes:
        err.__notes__ = [n for n in notes if "JAX" not in n and "jax" not in n]
    return err.with_traceback(new)
