"""List a module's public names in this interpreter: `python names.py [--kiln] MODULE... > names.json`.

Run by MindSpore's interpreter (`dump`: each module's `__all__`, or its public attributes where it has none) or by
Kiln's with `--kiln`, where `mindspore` is aliased to Kiln as `kiln run` does it (`check`: which names resolve).
"""

from __future__ import annotations

import importlib
import io
import json
import sys


def public_names(module: str) -> list[str] | None:
    """`module`'s `__all__` (identifiers only), or its public attributes, less the names it lists but does not
    define (MindSpore 2.10's `mint.__all__` lists `all_reduce`, which `mindspore.mint` lacks); None when the module
    does not import."""
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - a module that fails to import has no names
        return None
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    listed = sorted({n for n in names if isinstance(n, str) and n.isidentifier() and not n.startswith("_")})
    return resolving(module, listed)


def resolving(module: str, names: list[str]) -> list[str] | None:
    """The `names` that are attributes (or submodules) of `module`; None when the module does not import."""
    try:
        mod = importlib.import_module(module)
    except Exception:  # noqa: BLE001 - a module Kiln lacks resolves nothing
        return None
    found = []
    for name in names:
        try:
            if hasattr(mod, name):
                found.append(name)
            else:
                importlib.import_module(f"{module}.{name}")
                found.append(name)
        except Exception:  # noqa: BLE001, S112 - an unresolved name is the finding
            continue
    return found


def main() -> None:
    real_stdout, sys.stdout = sys.stdout, io.StringIO()  # modules that print on import must not corrupt the answer
    if "--kiln" in sys.argv:
        from kiln.cli import alias  # noqa: PLC0415 - only on Kiln's side; MindSpore's interpreter has no Kiln

        alias.install()
        wanted = json.load(sys.stdin)
        answer = {m: resolving(m, names) for m, names in wanted.items()}
    else:
        answer = {m: public_names(m) for m in sys.argv[1:]}
    sys.stdout = real_stdout
    json.dump(answer, real_stdout)


if __name__ == "__main__":
    main()
