"""The top-level package: submodules MindSpore's `import mindspore` makes reachable are reachable after
`import kiln`, imported on first access."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_submodules_reachable_from_the_package_without_importing_them_first():
    code = (
        "import sys, kiln\n"
        "assert 'kiln.numpy' not in sys.modules  # not imported by `import kiln`\n"
        "print(int(kiln.numpy.arange(4).sum()), kiln.mindrecord.FileWriter.__name__, kiln.log.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["6", "FileWriter", "kiln.log"]


def test_unknown_attribute_is_an_attribute_error():
    import kiln

    with pytest.raises(AttributeError, match="no attribute 'no_such_name'"):
        kiln.no_such_name  # noqa: B018
