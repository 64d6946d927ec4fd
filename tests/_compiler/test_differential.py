"""The central test: every corpus program gives the same outputs, gradients and Parameter state
in PyNative and in Graph mode (set_context(mode=GRAPH_MODE) and @jit)."""

import copy
import importlib.util
import sys

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor
from kiln._compiler.api import jit

from . import corpus


def _assert_same(a, b, path="out"):
    if isinstance(a, Tensor) or isinstance(b, Tensor):
        assert isinstance(a, Tensor) and isinstance(b, Tensor), f"{path}: {type(a)} vs {type(b)}"
        assert a.shape == b.shape and a.dtype == b.dtype, f"{path}: {a.shape}/{a.dtype} vs {b.shape}/{b.dtype}"
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-5, err_msg=path)
    elif isinstance(a, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b), f"{path}: {a!r} vs {b!r}"
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same(x, y, f"{path}[{i}]")
    elif isinstance(a, dict):
        assert a.keys() == b.keys(), path
        for k in a:
            _assert_same(a[k], b[k], f"{path}[{k!r}]")
    else:
        assert a == b, f"{path}: {a!r} vs {b!r}"


def _inputs(seed, shape=(3, 4)):
    rng = np.random.default_rng(seed)
    return [Tensor(rng.standard_normal(shape).astype(np.float32)) for _ in range(2)]


def _copies(args):
    return [Tensor(a.asnumpy()) for a in args]


@pytest.mark.parametrize("fn", corpus.FUNCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("seed", [0, 1])
def test_function(fn, seed):
    args = _inputs(seed)
    expected = fn(*_copies(args))
    got = jit(fn)(*_copies(args))
    _assert_same(expected, got)
    if fn in corpus.NO_GRAD:
        return

    def loss(x, y):
        out = fn(x, y)
        leaves = [t for t in (out if isinstance(out, (tuple, list)) else (out,)) if isinstance(t, Tensor)]
        return sum(t.sum() for t in leaves if t.dtype.kind == "f") if leaves else x.sum() * 0

    grad_ref = ms.grad(loss, grad_position=(0, 1))(*_copies(args))

    @jit
    def graph_grad(x, y):
        return ms.grad(loss, grad_position=(0, 1))(x, y)

    _assert_same(grad_ref, graph_grad(*_copies(args)), "grad")


def _cell_pair(cls):
    ms.set_seed(7)
    net = cls()
    twin = copy.deepcopy(net)
    return net, twin


def _state(net):
    return {name: p.asnumpy().copy() for name, p in net.parameters_and_names()}


@pytest.mark.parametrize("cls", corpus.CELLS, ids=lambda c: c.__name__)
def test_cell_graph_mode(cls):
    net, twin = _cell_pair(cls)
    n_in = 4
    xs = [Tensor(np.random.default_rng(i).standard_normal((3, n_in)).astype(np.float32)) for i in range(3)]
    expected = [net(x) for x in xs]
    ms.set_context(mode=ms.GRAPH_MODE)
    got = [twin(x) for x in xs]
    _assert_same(expected, got)
    ref_state, got_state = _state(net), _state(twin)
    for k in ref_state:
        np.testing.assert_allclose(ref_state[k], got_state[k], rtol=1e-5, atol=1e-6, err_msg=k)


@pytest.mark.parametrize("cls", corpus.CELLS, ids=lambda c: c.__name__)
def test_cell_value_and_grad_with_weights(cls):
    net, twin = _cell_pair(cls)
    x = Tensor(np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32))

    def forward(model):
        return lambda inp: model(inp).sum()

    ref = ms.value_and_grad(forward(net), None, net.trainable_params())(x)
    grad_fn = ms.value_and_grad(forward(twin), None, twin.trainable_params())

    @jit
    def step(inp):
        return grad_fn(inp)

    got = step(x)
    _assert_same(ref, got)
    ref_state, got_state = _state(net), _state(twin)
    for k in ref_state:
        np.testing.assert_allclose(ref_state[k], got_state[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_train_step_with_optimizer_matches_pynative():
    def make():
        ms.set_seed(11)
        net = corpus.Child()
        opt = ms.nn.Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9)
        grad_fn = ms.value_and_grad(lambda x: (net(x) ** 2).mean(), None, opt.parameters)

        def step(x):
            loss, grads = grad_fn(x)
            opt(grads)
            return loss

        return net, step

    net_a, step_a = make()
    net_b, step_b = make()
    step_b = jit(step_b)
    for i in range(3):
        x = Tensor(np.random.default_rng(i).standard_normal((3, 4)).astype(np.float32))
        _assert_same(step_a(x), step_b(x))
    ref, got = _state(net_a), _state(net_b)
    for k in ref:
        np.testing.assert_allclose(ref[k], got[k], rtol=1e-5, atol=1e-6, err_msg=k)
    assert step_b.compile_count == 1


# -- randomly generated programs -------------------------------------------------------------------

_UNARY = ["ops.tanh({})", "ops.relu({})", "({} * 0.5)", "ops.sigmoid({})", "({} - 1.0)", "ops.abs({})"]
_BINARY = ["({} + {})", "({} * {})", "({} - {})", "ops.maximum({}, {})"]


def _gen_program(rng, index):
    lines = [f"def prog_{index}(a, b):"]
    names = ["a", "b"]

    def expr():
        if rng.random() < 0.5:
            return _UNARY[rng.integers(len(_UNARY))].format(names[rng.integers(len(names))])
        x, y = names[rng.integers(len(names))], names[rng.integers(len(names))]
        return _BINARY[rng.integers(len(_BINARY))].format(x, y)

    def block(indent, depth):
        for _ in range(rng.integers(1, 4)):
            kind = rng.random()
            pad = "    " * indent
            if kind < 0.25 and depth < 2:
                var = names[rng.integers(len(names))]
                cond = f"{var}.sum() > {rng.normal():.2f}" if rng.random() < 0.7 else f"{int(rng.integers(3))} > 1"
                lines.append(f"{pad}if {cond}:")
                target = names[rng.integers(len(names))]
                lines.append(f"{pad}    {target} = {expr()}")
                outer = list(names)
                block(indent + 1, depth + 1)
                names[:] = outer  # names bound inside the branch are not defined after it
                lines.append(f"{pad}else:")
                lines.append(f"{pad}    {target} = {expr()}")
            elif kind < 0.35 and depth < 2:
                lines.append(f"{pad}for i in range({int(rng.integers(1, 3))}):")
                lines.append(f"{pad}    a = {expr()} + i")
            else:
                new = f"v{len(names)}"
                lines.append(f"{pad}{new} = {expr()}")
                names.append(new)

    block(1, 0)
    lines.append(f"    return {' + '.join(names[-2:])}")
    return "\n".join(lines) + "\n"


def _generated(tmp_path_factory, count=12, seed=1234):
    rng = np.random.default_rng(seed)
    source = "from kiln import ops\n\n" + "\n".join(_gen_program(rng, i) for i in range(count))
    path = tmp_path_factory.mktemp("gen") / "kiln_generated_programs.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("kiln_generated_programs", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return [getattr(module, f"prog_{i}") for i in range(count)]


def test_generated_programs(tmp_path_factory):
    for fn in _generated(tmp_path_factory):
        for seed in range(2):
            args = _inputs(seed, (2, 3))
            _assert_same(fn(*_copies(args)), jit(fn)(*_copies(args)), fn.__name__)
            ref = ms.grad(fn, grad_position=(0, 1))(*_copies(args))
            got = jit(lambda x, y, f=fn: ms.grad(f, grad_position=(0, 1))(x, y))(*_copies(args))
            _assert_same(ref, got, fn.__name__ + " grad")
