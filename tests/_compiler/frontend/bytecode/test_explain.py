"""explain(): graphs, breaks (reason, file:line, how to avoid), guards, recompiles; KILN_LOG; `kiln explain`."""

import io

import kiln as ms
from kiln._compiler.frontend.bytecode import explain

from .helpers import t


def with_break(x, n):
    y = ms.ops.exp(x) * n
    v = y.sum().item()
    return y / v


def test_explain_lists_graphs_breaks_guards_recompiles(monkeypatch, capsys):
    monkeypatch.setenv("KILN_LOG", "graph_breaks,recompiles")
    f = ms.jit(with_break, capture_mode="bytecode")
    f(t(3), 2)
    f(t(5), 2)
    err = capsys.readouterr().err
    line = with_break.__code__.co_firstlineno + 2
    assert f"test_explain.py:{line}: Tensor.item()" in err
    assert "recompiling 'with_break'" in err and "shape (3,)" in err
    e = explain(f)
    text = str(e)
    assert e.graph_count == 4 and e.break_count == 1 and len(e.recompiles) >= 1
    assert "to avoid:" in text and "guard: global 'ms'" in text
    assert f"break at {__file__}:{line}" in text


SCRIPT = """
import numpy as np
import kiln as ms

@ms.jit
def step(x):
    y = x * 2
    print("host", float(y.sum().asnumpy()))
    return y + 1

step(ms.Tensor(np.ones(3, np.float32)))
"""


def test_cli_explain(tmp_path, capsys):
    from kiln.cli.explain import run_explain
    from kiln.cli.main import main

    script = tmp_path / "prog.py"
    script.write_text(SCRIPT)
    out = io.StringIO()
    assert run_explain(str(script), [], force_bytecode=True, out=out) == 0
    text = out.getvalue()
    assert "bytecode capture of 'step': 2 graph(s), 1 graph break(s)" in text
    assert f"{script}:8" in text and "asnumpy" in text
    assert capsys.readouterr().out.startswith("host 6.0")
    assert ms.jit.__kwdefaults__["capture_mode"] == "ast"
    assert main(["explain", "--bytecode", str(script)]) == 0
    assert "graph break" in capsys.readouterr().out
