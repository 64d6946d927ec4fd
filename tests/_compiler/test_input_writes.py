"""A Tensor argument written in place by a compiled program (`x.add_(y)`, `AssignAdd`, `ops.assign`) holds the written
value in the caller after the call, as in PyNative and MindSpore 2.10 (issue 18): straight-line, in a Tensor `if`
branch and in a Tensor `while` body, on the first call and on cache hits, in GRAPH_MODE, `@jit` and bytecode
capture. A `raise` after such a write keeps it; `Tensor(x)` made after it copies the written value.

MindSpore 2.10's graph mode (checked with a script file) writes the input back after straight-line and branch
writes, but leaves it unwritten after a Tensor `while` loop's writes; Kiln writes it back there too, as PyNative does.
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, mutable, nn
from kiln.ops import operations as P
from tests._compiler.frontend.ast.modes import MODES, WRITES, compiled


def _straight(write):
    def fn(x, y):
        write(x, y)
        return y * 2

    return fn


def _in_branch(write):
    def fn(x, y):
        if x < y:
            write(x, y)
        return y * 2

    return fn


def _in_loop(write):
    def fn(x, y):
        i = y - y
        while i < 3:
            write(x, y)
            i = i + 1
        return y * 2

    return fn


def _int(v) -> int:
    return int(v.asnumpy())


@pytest.mark.parametrize("write", list(WRITES))
@pytest.mark.parametrize("make, a, b, expected", [
    (_straight, 2, 5, 7), (_in_branch, 2, 5, 7), (_in_branch, 6, 5, 6), (_in_loop, 2, 5, 17),
])  # fmt: skip
@pytest.mark.parametrize("mode", MODES)
def test_a_written_argument_is_written_back_to_the_callers_tensor(mode, make, a, b, expected, write):
    fn = compiled(mode, make(WRITES[write]))
    for _ in range(3):  # the first call compiles; the others are cache hits
        x, y = Tensor(a, dtype=ms.int32), Tensor(b, dtype=ms.int32)
        out = fn(x, y)
        assert (_int(x), _int(out), _int(y)) == (expected, 2 * b, b)


@pytest.mark.parametrize("mode", MODES)
def test_each_call_writes_its_own_argument(mode):
    fn = compiled(mode, lambda x, y: x.add_(y) * 1)
    first, second = Tensor([1.0, 2.0]), Tensor([10.0, 20.0])
    fn(first, Tensor([1.0, 1.0]))
    fn(second, Tensor([1.0, 1.0]))
    fn(first, Tensor([5.0, 5.0]))
    np.testing.assert_array_equal(first.asnumpy(), [7.0, 8.0])
    np.testing.assert_array_equal(second.asnumpy(), [11.0, 21.0])


@pytest.mark.parametrize("mode", ("graph", "jit"))
def test_a_tensor_in_a_list_argument_and_a_keyword_argument_are_written_back(mode):
    def fn(xs, y, z=None):
        xs[1].add_(y)
        z.add_(y)
        return y * 1

    run = compiled(mode, fn)
    for _ in range(2):
        a, b, z = Tensor(1.0), Tensor(2.0), Tensor(3.0)
        if mode == "graph":  # a Cell's construct takes positional arguments
            run([a, b], Tensor(10.0), z)
        else:
            run([a, b], Tensor(10.0), z=z)
        assert (float(a.asnumpy()), float(b.asnumpy()), float(z.asnumpy())) == (1.0, 12.0, 13.0)


def test_a_mutable_scalar_argument_written_in_the_graph_leaves_the_caller_unchanged():
    @ms.jit
    def fn(n, x):
        n = n + 1
        x.add_(1.0)
        return n

    x = Tensor(1.0)
    out = fn(mutable(2), x)
    assert type(out) is int and out == 3  # a mutable int stays a Python int through the graph, as in MindSpore
    assert float(x.asnumpy()) == 2.0


def test_a_cell_writing_its_input_in_graph_mode_keeps_its_parameter_writes():
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.count = ms.Parameter(Tensor(0, ms.int32), name="count")

        def construct(self, x):
            P.AssignAdd()(self.count, Tensor(1, ms.int32))
            x.add_(self.count)
            return x * 1

    ms.set_context(mode=ms.GRAPH_MODE)
    net = Net()
    x = Tensor(10, ms.int32)
    for expected in (11, 13, 16):
        assert _int(net(x)) == expected
        assert _int(x) == expected
    assert _int(net.count) == 3


@pytest.mark.parametrize("mode", MODES)
def test_tensor_of_an_argument_written_in_a_branch_copies_the_written_value(mode):
    def fn(x, y):
        if x < y:
            x.add_(y)
            z = Tensor(x)
        else:
            z = x * 1
        return z

    for a, expected in ((2, 5), (4, 4)):
        x = Tensor(a, dtype=ms.int32)
        assert _int(compiled(mode, fn)(x, Tensor(3, dtype=ms.int32))) == expected
        assert _int(x) == expected


def _raise_after_branch(x, y):
    if x < y:
        x.add_(y)
    if x > 4:
        raise ValueError("too big")
    return x * 1


def _raise_in_branch(x, y):
    if x < y:
        x.add_(y)
        if x > 4:
            raise ValueError("too big")
        x.add_(100)
    return x * 1


def _raise_before_write(x, y):
    if x < y:
        if y > 2:
            raise ValueError("too big")
        x.add_(y)
    return x * 1


@pytest.mark.parametrize("fn, a, b, after", [
    (_raise_after_branch, 2, 3, 5), (_raise_in_branch, 2, 3, 5), (_raise_before_write, 2, 3, 2),
])  # fmt: skip
@pytest.mark.parametrize("mode", MODES)
def test_a_raise_keeps_the_writes_to_an_argument_made_before_it(mode, fn, a, b, after):
    run = compiled(mode, fn)
    for _ in range(2):
        x = Tensor(a, dtype=ms.int32)
        with pytest.raises(ValueError, match="too big"):
            run(x, Tensor(b, dtype=ms.int32))
        assert _int(x) == after
    x = Tensor(0, dtype=ms.int32)  # a call that does not raise, after the failed ones
    out = run(x, Tensor(1, dtype=ms.int32))
    assert _int(x) == _int(out)
