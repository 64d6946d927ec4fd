"""Run network_faults.py's cases on Kiln or MindSpore in one mode and print one JSON line per case.

    PYTHONPATH=$PWD python tests/faults/network_survey.py kiln pynative|graph|jit [CASE ...] > kiln_MODE.jsonl
    /work/msvenv/bin/python tests/faults/network_survey.py mindspore graph > ms_graph.jsonl
    python tests/faults/network_survey.py table kiln_pynative.jsonl kiln_graph.jsonl kiln_jit.jsonl

Scores each error: its class, whether the message or the last user frame blames the `# FAULT` line,
whether the message names the file, the shapes/dtypes of SHAPES, and how many traceback lines are not
the user's (framework or backend internals).
"""

import importlib
import json
import os
import re
import signal
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
USER = os.path.join(HERE, "network_faults.py")
BACKEND_WORDS = ("jax", "Jax", "JAX", "jaxlib", "XLA", "Traced", "ShapedArray", "C++ Call Stack", "ccsrc")


def fault_line(name):
    lines = open(USER).read().splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith(f"def {name}("))
    for i in range(start, len(lines)):
        if "# FAULT" in lines[i]:
            return i + 1
    return None


def shape_forms(frag):
    forms = {frag}
    if frag.startswith("("):
        inner = frag[1:-1].rstrip(",")
        forms |= {f"[{inner}]", f"{{{inner}}}", f"({inner})"}
    if frag[0].isupper():
        forms |= {frag.lower(), frag.replace("Float", "float").replace("Int", "int")}
    return forms


def score(name, err, tb_text, frames, msg):
    want = fault_line(name)
    user_frames = [f for f in frames if f.filename == USER]
    deepest = user_frames[-1].lineno if user_frames else None
    named_line = bool(re.search(rf"network_faults\.py.{{0,12}}\b{want}\b", msg)) or bool(
        re.search(rf"line {want}\b", msg)
    )
    internal = [f for f in frames if f.filename not in (USER, __file__)]
    frags = importlib.import_module("network_faults").SHAPES.get(name, ())
    return {
        "exc": type(err).__name__,
        "blames": "msg" if named_line else ("tb" if deepest == want else f"tb:{deepest}"),
        "file_in_msg": "network_faults.py" in msg,
        "shapes": sum(any(f in msg for f in shape_forms(fr)) for fr in frags),
        "of": len(frags),
        "internal_frames": len(internal),
        "tb_lines": len(tb_text.splitlines()),
        "msg_lines": len(msg.splitlines()),
        "backend": [w for w in BACKEND_WORDS if w in tb_text],
        "msg": msg[:400],
    }


def table(paths) -> None:
    """One row per case, one column per file: class, blamed line, shapes named, internal frames / traceback lines."""
    runs = [[json.loads(line) for line in open(p)] for p in paths]
    print("| case | " + " | ".join(f"{r[0]['fw']} {r[0]['mode']}" for r in runs) + " |")
    print("|---" * (len(runs) + 1) + "|")
    for rows in zip(*runs, strict=True):
        cells = []
        for r in rows:
            if r["exc"] is None:
                cells.append("runs")
                continue
            blame = {"msg": "line in msg", "tb": "line in tb"}.get(r["blames"], "WRONG line")
            cells.append(f"{r['exc']}, {blame}, {r['shapes']}/{r['of']}, {r['internal_frames']}f/{r['tb_lines']}l")
        print(f"| {rows[0]['case'][2:]} | " + " | ".join(cells) + " |")


def main():
    if sys.argv[1] == "table":
        return table(sys.argv[2:])
    framework, mode = sys.argv[1], sys.argv[2]
    only = sys.argv[3:]
    ms = importlib.import_module("kiln" if framework == "kiln" else "mindspore")
    faults = importlib.import_module("network_faults")
    faults.bind(ms)
    if mode == "graph":
        ms.set_context(mode=ms.GRAPH_MODE)

    def run_eager(fn, *args):
        return fn(*args)

    def run_jit(fn, *args):
        @ms.jit
        def step(*a):
            return fn(*a)

        return step(*args)

    run = run_jit if mode == "jit" else run_eager

    def on_alarm(signum, frame):
        raise TimeoutError("hang: no result in 240 s")

    signal.signal(signal.SIGALRM, on_alarm)
    for name in faults.CASES:
        if only and name not in only:
            continue
        signal.alarm(240)
        try:
            out = getattr(faults, name)(run)
            for value in out if isinstance(out, (tuple, list)) else (out,):
                if hasattr(value, "asnumpy"):
                    value.asnumpy()
            row = {"exc": None, "msg": f"runs -> {str(out)[:200]!r}"}
        except BaseException as err:  # noqa: BLE001
            tb_text = "".join(traceback.format_exception(type(err), err, err.__traceback__))
            frames = []
            e = err
            seen = set()
            while e is not None and id(e) not in seen:  # the chain Python prints
                seen.add(id(e))
                frames += traceback.extract_tb(e.__traceback__)
                e = e.__cause__ if e.__cause__ is not None else (None if e.__suppress_context__ else e.__context__)
            row = score(name, err, tb_text, frames, "\n".join([str(err), *getattr(err, "__notes__", ())]))
        finally:
            signal.alarm(0)
        row.update(case=name, mode=mode, fw=framework)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
