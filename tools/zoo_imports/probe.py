"""Try import pairs in this interpreter: `python probe.py [--kiln] [--chains] < pairs.json > verdicts.json`.

Run as a script by the interpreter under test (MindSpore's virtual environment, or Kiln's with `--kiln`, where
`mindspore` is aliased to Kiln exactly as `kiln run` does it). It reads [[module, name], ...] on stdin (with
`--chains`, attribute chains ["mindspore.nn.Dense", ...]) and writes one verdict per row: "ok", "unavailable:
REASON" (Kiln resolves the name to a stand-in that raises NotImplementedError when used) or "ExceptionType: first
line of the message".
"""

from __future__ import annotations

import importlib
import io
import json
import sys


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"


def check(module: str, name: str | None) -> str:
    """The verdict for `import module` (name None) or `from module import name`, as Python resolves them."""
    try:
        mod = importlib.import_module(module)
        if name is None or name == "*":
            return "ok"
        if hasattr(mod, name):
            value = getattr(mod, name)
        else:  # `from package import submodule` imports the submodule
            value = importlib.import_module(f"{module}.{name}")
    except BaseException as exc:  # noqa: BLE001 - a probe reports every failure, SystemExit included
        return _first_line(exc)
    reason = getattr(value, "__kiln_unavailable__", None)
    return f"unavailable: {reason}" if isinstance(reason, str) else "ok"


def check_chain(chain: str) -> str:
    """The verdict for reading attribute chain `chain`: its longest importable module prefix, then attributes."""
    parts = chain.split(".")
    for end in range(len(parts), 0, -1):
        try:
            value = importlib.import_module(".".join(parts[:end]))
            break
        except ImportError:
            continue
        except BaseException as exc:  # noqa: BLE001 - a module that fails to import is the verdict
            return _first_line(exc)
    else:
        return f"ModuleNotFoundError: no module {parts[0]!r}"
    try:
        for name in parts[end:]:
            value = getattr(value, name)
    except BaseException as exc:  # noqa: BLE001 - a probe reports every failure
        return _first_line(exc)
    reason = getattr(value, "__kiln_unavailable__", None)
    return f"unavailable: {reason}" if isinstance(reason, str) else "ok"


def main() -> None:
    pairs = json.load(sys.stdin)
    if "--kiln" in sys.argv:
        from kiln.cli import alias  # noqa: PLC0415 - only on Kiln's side; MindSpore's interpreter has no Kiln

        alias.install()
    real_stdout = sys.stdout
    sys.stdout = io.StringIO()  # modules that print on import must not corrupt the JSON answer
    if "--chains" in sys.argv:
        verdicts = [check_chain(chain) for chain in pairs]
    else:
        verdicts = [check(module, name) for module, name in pairs]
    sys.stdout = real_stdout
    json.dump(verdicts, real_stdout)


if __name__ == "__main__":
    main()
