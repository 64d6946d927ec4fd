"""A Tensor `if` whose branches give values of different shapes (issue 18, point 8): graph mode compiles the
program once per branch taken, guarded, and computes what PyNative computes, in value, result shape and
gradient, in GRAPH_MODE, `@jit` and bytecode capture (kiln/_compiler/specialise.py).

MindSpore 2.10's graph mode runs these programs too (checked with a script file: `f` below gives 5.0 and shape
(2,) at [1, 2, 3], 14.0 and shape (3,) at [-1, 2, -3]; its gradient [2, 4, 0] and [-2, 4, -6]).
"""

from __future__ import annotations

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln._compiler.errors import GraphCompileError
from tests._compiler.frontend.ast.modes import MODES, compiled

POS = np.array([1.0, 2.0, 3.0], np.float32)
NEG = np.array([-1.0, 2.0, -3.0], np.float32)
MIXED = np.array([-1.0, 2.0, 3.0], np.float32)  # positive sum, negative first item


def _prefix_if_positive(x):
    if x.sum() > 0:
        y = x[:2]
    else:
        y = x
    return (y * y).sum(), y


def _returns_in_branch(x):
    if x.sum() > 0:
        return x[:2] * 2
    return x * 3


def _ternary(x):
    y = x[1:] if x.sum() > 0 else x * 2
    return y.sum() * y.sum(), y


def _two_ifs(x, z):
    a = x[:1] if x.sum() > 0 else x
    if z.sum() > 0:
        b = z * 2
    else:
        b = z[1:]
    return (a * a).sum() + (b * b).sum(), a, b


def _in_helper(x):
    y = _prefix_if_positive(x)[1]
    return (y.exp()).sum()


def _nested(x):
    if x.sum() > 0:  # specialised because the inner if cannot join; then the inner one is
        if x[0] > 0:
            y = x[:1]
        else:
            y = x[:2]
    else:
        y = x
    return y * 2


def _helper_twice(x):  # one if reached twice per call: two sites
    return _returns_in_branch(x).sum() + _returns_in_branch(-x).sum(), _returns_in_branch(x)


def _unrolled(x):  # a Python loop unrolled at compile time: one site per trip
    for k in range(2):
        if x.sum() > k:
            x = x[:2]
    return x


CASES = [_prefix_if_positive, _returns_in_branch, _ternary, _in_helper, _nested, _helper_twice, _unrolled]


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _assert_same(got, want):
    got, want = (got, want) if isinstance(want, tuple) else ((got,), (want,))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert tuple(g.shape) == tuple(w.shape)
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)


@pytest.mark.parametrize("mode", MODES[1:])
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
def test_values_and_shapes_match_pynative(mode, fn):
    run = compiled(mode, fn)
    for x in (POS, NEG, MIXED, POS, NEG, MIXED):  # each path, twice: the executable for the path taken is reused
        _assert_same(run(Tensor(x)), fn(Tensor(x)))


@pytest.mark.parametrize("mode", MODES[1:])
def test_two_ifs_every_combination(mode):
    run = compiled(mode, _two_ifs)
    for x in (POS, NEG):
        for z in (POS, NEG, POS):
            _assert_same(run(Tensor(x), Tensor(z)), _two_ifs(Tensor(x), Tensor(z)))


def _loss(x):
    return _first(_prefix_if_positive(x))


@pytest.mark.parametrize("how", ["graph_grad", "jit_of_grad", "grad_of_jit", "bytecode_grad"])
@pytest.mark.parametrize("fn", [_loss, _returns_in_branch, _in_helper], ids=lambda f: f.__name__)
def test_gradients_match_pynative(how, fn):
    def scalar(x):
        return _first(fn(x)).sum()

    want = [ms.grad(scalar)(Tensor(x)).asnumpy() for x in (POS, NEG)]
    if how == "graph_grad":
        ms.set_context(mode=ms.GRAPH_MODE)

        class Grad(nn.Cell):
            def construct(self, x):
                return ms.grad(scalar)(x)

        run = Grad()
    elif how == "jit_of_grad":
        run = ms.jit(ms.grad(scalar))
    elif how == "grad_of_jit":
        run = ms.grad(ms.jit(scalar))
    else:
        run = ms.jit(ms.grad(scalar), capture_mode="bytecode")
    for x, w in zip((POS, NEG, POS), (*want, want[0]), strict=True):
        np.testing.assert_allclose(run(Tensor(x)).asnumpy(), w, rtol=1e-6)


def test_one_executable_per_branch_taken():
    run = ms.jit(_prefix_if_positive)
    for x in (POS, NEG, POS, NEG, POS):
        run(Tensor(x))
    assert run.compile_count == 2


class _Counter(nn.Cell):
    """Adds 1 to a Parameter before the if and x's sum inside the branch taken."""

    def __init__(self):
        super().__init__()
        self.calls = Parameter(Tensor(np.zeros((), np.float32)), name="calls")
        self.total = Parameter(Tensor(np.zeros((), np.float32)), name="total")

    def construct(self, x):
        self.calls = self.calls + 1
        if x.sum() > 0:
            y = x[:2]
            self.total = self.total + y.sum()
        else:
            y = x
            self.total = self.total - y.sum()
        return y * self.calls


@pytest.mark.parametrize("mode", MODES)
def test_a_redone_run_applies_parameter_writes_once(mode):
    net = _Counter()
    if mode != "pynative":
        ms.set_context(mode=ms.GRAPH_MODE)
        if mode in ("jit", "bytecode"):
            ms.set_context(mode=ms.PYNATIVE_MODE)
            net.construct = ms.jit(net.construct, capture_mode="bytecode" if mode == "bytecode" else "ast")
    outs = [net(Tensor(x)) for x in (POS, NEG, NEG, POS)]
    assert float(net.calls.asnumpy()) == 4.0
    # +3 (1+2), +2 (-(-2)), +2, +3
    assert float(net.total.asnumpy()) == 10.0
    assert [tuple(o.shape) for o in outs] == [(2,), (3,), (3,), (2,)]
    np.testing.assert_allclose(outs[3].asnumpy(), POS[:2] * 4)


def _prints_then_differs(x):
    print("value", x)
    if x.sum() > 0:
        y = x[:2]
    else:
        y = x
    return y


@pytest.mark.parametrize("mode", ["graph", "jit"])
def test_a_program_that_prints_is_refused_naming_both_shapes(mode, capsys):
    run = compiled(mode, _prints_then_differs)
    with pytest.raises(GraphCompileError) as info:
        run(Tensor(POS))
    text = str(info.value)
    assert "test_specialise.py:" in text and "[2]" in text and "[3]" in text, text
    assert "value" not in capsys.readouterr().out  # nothing printed: it was refused before it ran


def test_bytecode_prints_once_per_call(capsys):
    run = ms.jit(_prints_then_differs, capture_mode="bytecode")
    run(Tensor(POS))
    run(Tensor(NEG))
    assert capsys.readouterr().out.count("value") == 2


def _differs_in_while(x):
    i = x.sum() * 0
    y = x
    while i < 2:  # a Tensor loop: each trip may take either branch
        if y.sum() > 0:
            z = y[:2]
        else:
            z = y
        y = y + z.sum()
        i = i + 1
    return y


def test_inside_a_tensor_while_it_stays_a_type_error():
    with pytest.raises(TypeError, match=r"(?s)Cannot join the two branches of the if at line \d+.*\[2\].*\[3\]"):
        ms.jit(_differs_in_while)(Tensor(POS))


def test_same_shapes_still_join_into_one_cond():
    def same(x):
        y = x[:2] if x.sum() > 0 else x[1:]
        return y

    run = ms.jit(same)
    for x in (POS, NEG):
        np.testing.assert_allclose(run(Tensor(x)).asnumpy(), same(Tensor(x)).asnumpy())
    assert run.compile_count == 1


def test_dtype_difference_is_still_a_type_error():
    def dtypes(x):
        y = x if x.sum() > 0 else x.astype(ms.int32)
        return y

    with pytest.raises(TypeError, match="Cannot join the two branches"):
        ms.jit(dtypes)(Tensor(POS))


def test_random_draw_before_the_if_is_not_drawn_twice():
    def noisy(x):
        n = ops.uniform((3,), Tensor(0.0), Tensor(1.0))
        y = x[:2] if x.sum() > 0 else x
        return y.sum() + n.sum() * 0, n

    ms.set_seed(3)
    eager = [noisy(Tensor(x))[1].asnumpy() for x in (NEG, POS)]
    ms.set_seed(3)
    run = ms.jit(noisy)
    graph = [run(Tensor(x))[1].asnumpy() for x in (NEG, POS)]
    # the run redone for NEG (the true branch was assumed first) draws what one run draws
    np.testing.assert_array_equal(graph[0], eager[0])
    np.testing.assert_array_equal(graph[1], eager[1])


def test_a_condition_that_differs_between_vmap_examples_is_refused():
    def per_row(x):
        return ms.vmap(lambda r: _returns_in_branch(r).sum())(x)

    rows = Tensor(np.stack([POS, NEG]))
    with pytest.raises(GraphCompileError, match="each branch"):
        ms.jit(per_row)(rows)


def _raises_only_in_the_true_branch(x):
    if x.sum() > 0:
        y = x[:2]
        if y.sum() < 2:
            raise ValueError("small prefix")
    else:
        y = x
    return y


@pytest.mark.parametrize("mode", MODES)
def test_a_raise_in_the_branch_not_taken_does_not_fire(mode):
    run = compiled(mode, _raises_only_in_the_true_branch)
    # NEG takes the false branch; the program first compiled assumes the true one, where [-1, 2] would raise
    np.testing.assert_allclose(run(Tensor(NEG)).asnumpy(), NEG)
    np.testing.assert_allclose(run(Tensor(POS)).asnumpy(), POS[:2])
    with pytest.raises(ValueError, match="small prefix"):
        run(Tensor(np.array([0.5, 0.5, 3.0], np.float32)))


def _lists_of_two_lengths(x):
    short, long = [1, 2], [3, 4, 5]
    chosen = short if x.sum() > 0 else long
    return chosen[1] + chosen[0], chosen, x * len(chosen)


@pytest.mark.parametrize("mode", MODES)
def test_lists_of_different_lengths_from_the_branches_run_as_in_pynative(mode):
    """MindSpore's control/test_list_join_to_dyn_len_list.py: it joins them into a list of dynamic length (3 for the
    true branch); a program specialised on the branch taken gives each branch's own list."""
    for x in (POS, NEG, POS):
        want = _lists_of_two_lengths(Tensor(x))
        got = compiled(mode, _lists_of_two_lengths)(Tensor(x))
        assert (got[0], got[1]) == (want[0], want[1])
        np.testing.assert_array_equal(got[2].asnumpy(), want[2].asnumpy())


def _pick_constants(x):
    dtype = ms.int32 if x.sum() > 0 else ms.int64
    name = "pos" if x.sum() > 0 else "neg"
    return dtype, name, x.astype(dtype)


@pytest.mark.parametrize("mode", MODES)
def test_unequal_constants_of_one_type_specialise_on_the_branch_taken(mode):
    # two dtypes or two strings cannot be one graph value; each program takes its branch, as Python does
    run = compiled(mode, _pick_constants)
    for x in (POS, NEG):
        dtype, name, cast = run(Tensor(x))
        want = _pick_constants(Tensor(x))
        assert (dtype, name) == want[:2] and cast.dtype == want[0]
        np.testing.assert_allclose(cast.asnumpy(), x.astype(np.int64 if name == "neg" else np.int32))
