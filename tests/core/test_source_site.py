"""defined_at names a function with the file and line Python's tracebacks would show."""

import functools
import inspect

from kiln._core.source_site import defined_at


def _user_function(x):
    return x


def test_function_is_named_with_its_file_and_line():
    line = inspect.getsourcelines(_user_function)[1]
    assert defined_at(_user_function) == f'_user_function (File "{__file__}", line {line})'


def test_given_name_replaces_the_qualified_name():
    assert defined_at(_user_function, "Net.construct").startswith('Net.construct (File "')


def test_callable_without_code_is_named_only():
    assert defined_at(len) == "len"
    assert defined_at(functools.partial(_user_function, 1)) == "partial"
