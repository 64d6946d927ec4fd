"""Run the fault catalogue's snippets on MindSpore 2.10 and print what happens, to re-check its `mindspore` column.

    python -m venv /tmp/msvenv && /tmp/msvenv/bin/pip install mindspore==2.10.0 "numpy<2"
    /tmp/msvenv/bin/python tests/faults/catalogue_mindspore.py [CASE_ID ...]

Each case runs in the same process, after the catalogue's PRELUDE, with a fresh scratch directory.
"""

import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import mindspore as ms  # noqa: E402
from cases import CASES, PRELUDE  # noqa: E402


def outcome(case) -> str:
    env = {"ms": ms}
    exec(PRELUDE, env)
    with tempfile.TemporaryDirectory() as tmp:
        env["tmp"] = tmp
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                code = case.code
                if "\n" not in code and not code.startswith("out ="):
                    code = f"out = {code}"
                exec(code, env)
                _sync(env.get("out"))  # PyNative runs asynchronously: an error surfaces at the next sync
            except BaseException as e:  # noqa: BLE001
                lines = [ln for ln in str(e).splitlines() if ln.strip() and not ln.startswith("---")]
                return f"{type(e).__name__}: {' | '.join(lines[:2])[:300]}"
        out = env.get("out")
        shown = "" if out is None else f" -> {str(out)[:80]!r}"
        warned = f" [warnings: {[str(w.message)[:80] for w in caught]}]" if caught else ""
        return f"runs{shown}{warned}"


def _sync(out) -> None:
    for value in out if isinstance(out, (tuple, list)) else (out,):
        if hasattr(value, "asnumpy"):
            value.asnumpy()
    ms.runtime.synchronize()


def main(ids) -> None:
    for case in CASES:
        if case.kiln_only or (ids and case.id not in ids):
            continue
        ms.set_context(mode=ms.PYNATIVE_MODE)
        print(f"{case.id}: {outcome(case)}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
