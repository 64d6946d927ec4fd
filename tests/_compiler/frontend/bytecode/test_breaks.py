"""Graph breaks: a host read ends the graph, runs in Python, and capture resumes after it."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops
from kiln._compiler.frontend.bytecode import Unsupported, explain

from .helpers import check, t


def one_host_read(x):
    y = x * 2
    v = float(y.sum().asnumpy())
    return y + v


def test_one_host_read_runs_as_two_graphs_and_one_step():
    f = check(one_host_read, (t(2, 3),), (t(2, 3),))
    e = explain(f)
    assert e.last_call == {"graphs": 2, "steps": 1}
    assert e.break_count == 1
    b = e.breaks[0]
    assert "asnumpy" in b.reason and b.line == one_host_read.__code__.co_firstlineno + 2
    assert b.file.endswith("test_breaks.py") and b.hint


def item_and_branch(x, y):
    s = (x * y).sum()
    if s > 0:  # a Tensor decides a Python branch
        out = x - y
    else:
        out = x + y
    n = int(ops.argmax(x).item())
    return out * n, n


def test_tensor_condition_and_item():
    a, b = t(4), t(4, seed=1)
    check(item_and_branch, (a, b), (-a, b), (a, b))


def numpy_on_tensor(x):
    h = ops.exp(x)
    m = np.mean(h.asnumpy())
    arr = np.asarray(h) * 2
    return h / m, Tensor(arr) + 1


def test_numpy_on_tensor_breaks():
    f = check(numpy_on_tensor, (t(3),), (t(3, seed=2),))
    assert explain(f).break_count >= 1


def _inner_read(x):
    a = x + 1
    print("inner", a.sum().asnumpy())
    return a * 3


def nested_break(x):
    y = x * 2
    z = _inner_read(y)
    return z - y


def test_break_inside_called_function():
    f = check(nested_break, (t(2),), (t(2),))
    e = explain(f)
    assert e.break_count == 1 and "_inner_read" in str(e) or "inner" in str(e)
    assert e.last_call["graphs"] >= 2


def loop_with_break(x, n):
    acc = []
    for i in range(n):
        x = x * 0.5 + i
        acc.append(float(x.sum().asnumpy()))
    return x, acc


def test_break_in_loop():
    check(loop_with_break, (t(3), 3), (t(3, seed=1), 3), (t(3), 2))


def c_extension(x):
    import time

    y = x + 1
    stamp = time.perf_counter() > 0
    return y * 2, stamp


def test_c_extension_call_breaks():
    f = check(c_extension, (t(2),), (t(2),))
    assert any("perf_counter" in b.reason for b in explain(f).breaks)


def fullgraph_fn(x):
    y = x + 1
    v = y.asnumpy()  # the break
    return y * v.sum()


def test_fullgraph_names_file_line_and_reason():
    f = ms.jit(fullgraph_fn, capture_mode="bytecode", fullgraph=True)
    with pytest.raises(Unsupported) as info:
        f(t(2))
    msg = str(info.value)
    line = fullgraph_fn.__code__.co_firstlineno + 2
    assert f'test_breaks.py", line {line}' in msg
    assert "asnumpy" in msg and "v = y.asnumpy()" in msg


def test_fullgraph_without_break_runs():
    f = ms.jit(lambda x: x * 2 + 1, capture_mode="bytecode", fullgraph=True)
    np.testing.assert_allclose(f(t(2)).asnumpy(), (t(2) * 2 + 1).asnumpy())


def text_of_tensors(x):
    y = x + 1
    return (
        "{}".format(y),  # noqa: UP032  (the str.format call is what is tested)
        "{k}|{0}".format(x, k=y),  # noqa: UP032  (keyword arguments survive the call becoming a Python step)
        str(y),
        repr(y),
        "%s" % (y,),  # noqa: UP031
        "-".join(["a", format(y)]),
        y * 2,
    )


def test_text_of_a_tensor_holds_its_value_not_a_symbolic_placeholder():
    # each formatting call reads the Tensor's value: a graph break, never the text of a symbolic Tensor
    f = check(text_of_tensors, (t(3),), (t(3, seed=1),))
    assert all("symbolic" not in s for s in f(t(3))[:6])
