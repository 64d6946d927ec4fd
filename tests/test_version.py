"""kiln/version.py: `mindspore.__version__` under Kiln names the MindSpore API Kiln follows (MindSpore code gates
1.x/2.x calls on it); Kiln's own release is KILN_VERSION."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import kiln
from kiln import version

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "api_goldens.json")


def _release(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".")[:3])


def test_version_is_the_mindspore_release_of_the_goldens():
    # The zoo's SegFormer compares mindspore.__version__ with 2.0.0 and, below it, calls ops.interpolate with
    # MindSpore 1.x's `sizes=` keyword (TypeError under Kiln when it reported its own 0.1.0).
    with open(GOLDEN) as f:
        mindspore_release = json.load(f)["mindspore"]
    assert kiln.__version__ == version.__version__ == mindspore_release
    assert _release(kiln.__version__) >= (2, 0, 0)
    assert _release(version.KILN_VERSION) < _release(kiln.__version__)


def test_mindspore_script_reads_the_api_version():
    code = (
        "from kiln.cli import alias\n"
        "alias.install()\n"
        "import mindspore as ms\n"
        "from mindspore.version import __version__\n"
        "print(ms.__version__, __version__)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == [kiln.__version__, kiln.__version__]


def test_run_check_prints_both_versions(capsys):
    kiln.run_check()
    out = capsys.readouterr().out
    assert version.KILN_VERSION in out and kiln.__version__ in out
