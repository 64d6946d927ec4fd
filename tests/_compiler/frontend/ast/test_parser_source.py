"""The AST frontend reads a function's source lines as `inspect.getsourcelines` gives them, without inspect's walk
over every loaded module (parser._source_lines)."""

from __future__ import annotations

import functools
import inspect

import pytest

from kiln._compiler.frontend.ast import parser


def _decorated(fn):
    @functools.wraps(fn)
    def wrapper(*args):
        return fn(*args)

    return wrapper


@_decorated
def _plain(x):
    return x + 1


class _Holder:
    @staticmethod
    def method(x, y):
        return x * y

    def construct(self, x):
        def inner(z):
            return z - 1

        return inner(x)


_LAMBDA = (lambda x: x * 2, lambda y: y)[0]


def _inner_of_construct():
    code = _Holder.construct.__code__
    return next(c for c in code.co_consts if inspect.iscode(c))


@pytest.mark.parametrize(
    "code",
    [_plain.__wrapped__.__code__, _plain.__code__, _Holder.method.__code__, _Holder.construct.__code__,
     _inner_of_construct(), _LAMBDA.__code__, parser.parse_function.__code__],
    ids=["decorated", "wrapper", "staticmethod", "method", "nested", "lambda", "library"],
)  # fmt: skip
def test_source_lines_are_inspects(code):
    assert parser._source_lines(code, globals()) == inspect.getsourcelines(code)


def test_code_without_a_file_raises_oserror_as_inspect_does():
    ns: dict = {}
    exec(compile("def made(x):\n    return x\n", "<made>", "exec"), ns)
    with pytest.raises(OSError):
        parser._source_lines(ns["made"].__code__, ns)
