"""Where a user's function is defined, for error messages."""

from __future__ import annotations


def defined_at(fn, name: str | None = None) -> str:
    """`fn` named with its definition site, 'name (File "path", line N)' as Python's tracebacks write it (so
    editors and terminals link it), or the bare name for a callable without Python code (a builtin, a partial).

    Args:
        fn: a function, bound method or other callable.
        name: the name to show; `fn`'s qualified name (or its type's name) by default.

    Returns:
        The description.
    """
    code = getattr(fn, "__code__", None)
    name = name or getattr(fn, "__qualname__", None) or type(fn).__name__
    return name if code is None else f'{name} (File "{code.co_filename}", line {code.co_firstlineno})'
