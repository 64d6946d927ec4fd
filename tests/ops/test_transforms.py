"""vmap, jvp, vjp, jacfwd, jacrev, hessian and get_grad (kiln/ops/transforms.py), beyond the MindSpore goldens:
their interplay with the tape (gradients through them, gradients inside them), containers, Cells, errors."""

from __future__ import annotations

import numpy as np
import pytest

import kiln
from kiln import Tensor, nn, ops
from kiln._backend import jax


def _t(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


def test_vmap_matches_a_python_loop():
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((3, 2)).astype(np.float32)

    def f(row, m):
        return ops.tanh(ops.matmul(ops.expand_dims(row, 0), m))[0]

    got = ops.vmap(f, in_axes=(0, None))(_t(x), _t(w)).asnumpy()
    want = np.stack([np.tanh(r[None] @ w)[0] for r in x])
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_vmap_nested_in_axes_and_cell():
    net = nn.Dense(3, 2)
    x = np.random.default_rng(2).standard_normal((5, 3)).astype(np.float32)
    got = kiln.vmap(net)(_t(x)).asnumpy()
    np.testing.assert_allclose(got, net(_t(x)).asnumpy(), rtol=1e-5, atol=1e-6)

    def g(pair, scale):
        a, b = pair
        return a * scale + b

    out = ops.vmap(g, in_axes=((0, 1), None))((_t(np.ones((2, 3))), _t(np.arange(6).reshape(3, 2))), _t(2.0))
    np.testing.assert_allclose(out.asnumpy(), 2 + np.arange(6).reshape(3, 2).T)


def test_grad_through_vmap_and_vmap_of_grad():
    x = _t([1.0, 2.0, 3.0])
    g = kiln.grad(lambda a: ops.vmap(lambda e: e * e * e)(a).sum())(x)
    np.testing.assert_allclose(g.asnumpy(), 3 * np.array([1.0, 4.0, 9.0]))
    per_row = ops.vmap(kiln.grad(lambda r: (r * r).sum()))(_t(np.arange(6).reshape(2, 3)))
    np.testing.assert_allclose(per_row.asnumpy(), 2 * np.arange(6).reshape(2, 3))


def test_grad_through_jvp_output():
    x = _t([1.0, 2.0])
    # d/dx of the tangent output of x**3 along v = 1: d/dx (3 x^2) = 6 x
    g = kiln.grad(lambda a: ops.jvp(lambda e: e * e * e, a, _t([1.0, 1.0]))[1].sum())(x)
    np.testing.assert_allclose(g.asnumpy(), [6.0, 12.0])


def test_jvp_and_jacobians_has_aux():
    x = _t([1.0, 2.0])
    out, tangent, aux = ops.jvp(lambda a: (a * a, a + 1), x, _t([1.0, 0.0]), has_aux=True)
    np.testing.assert_allclose(tangent.asnumpy(), [2.0, 0.0])
    np.testing.assert_allclose(aux.asnumpy(), [2.0, 3.0])
    jac, aux = ops.jacrev(lambda a: (a * a, a.sum()), has_aux=True)(x)
    np.testing.assert_allclose(jac.asnumpy(), np.diag([2.0, 4.0]))
    np.testing.assert_allclose(aux.asnumpy(), 3.0)


def test_hessian():
    x = _t([1.0, 2.0])
    h = kiln.hessian(lambda a: (a * a * a).sum() + a[0] * a[1])(x)
    np.testing.assert_allclose(h.asnumpy(), [[6.0, 1.0], [1.0, 12.0]])


def test_vjp_with_weights_and_aux():
    net = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    x = _t([[1.0, 2.0]])
    out, pull = ops.vjp(net, x, weights=net.trainable_params())
    (gx,), gw = pull(_t([[1.0]]))
    np.testing.assert_allclose(out.asnumpy(), [[3.0]])
    np.testing.assert_allclose(gx.asnumpy(), [[1.0, 1.0]])
    np.testing.assert_allclose(gw[0].asnumpy(), [[1.0, 2.0]])
    value, pull, aux = ops.vjp(lambda a: (a * 2, a - 1), x, has_aux=True)
    np.testing.assert_allclose(pull(_t([[1.0, 1.0]]))[0].asnumpy(), [[2.0, 2.0]])
    np.testing.assert_allclose(aux.asnumpy(), [[0.0, 1.0]])


def test_get_grad_by_position_and_parameter():
    net = nn.Dense(2, 1)
    x = _t([[1.0, 2.0]])
    grads = kiln.grad(net, grad_position=0, weights=net.trainable_params(), return_ids=True)(x)
    np.testing.assert_allclose(ops.get_grad(grads, 0).asnumpy(), net.weight.asnumpy())
    np.testing.assert_allclose(ops.get_grad(grads, net.weight).asnumpy(), x.asnumpy())
    # RuntimeError: the error MindSpore documents for get_grad, in PyNative and in graphs
    with pytest.raises(RuntimeError, match="no gradient is identified"):
        ops.get_grad(grads, 5)


def test_vmap_errors_are_kilns():
    with pytest.raises(TypeError, match="'fn' must be callable"):
        ops.vmap(3)
    with pytest.raises(ValueError, match="in_axes has 1 entries"):
        ops.vmap(lambda a, b: a + b, in_axes=(0,))(_t([1.0]), _t([2.0]))


# -- inside a compiled graph: one nested graph, mapped (vmap) or pushed forward (jvp) when lowered --------


def _same_in_both_modes(fn, *args):
    """`fn(*args)` in PyNative and under jit: the same values (every Tensor of the result)."""
    eager, compiled = fn(*args), kiln.jit(fn)(*args)
    flat_e, flat_c = [], []
    for value, flat in ((eager, flat_e), (compiled, flat_c)):
        stack = [value]
        while stack:
            v = stack.pop()
            if isinstance(v, (tuple, list)):
                stack.extend(v)
            else:
                flat.append(v.asnumpy() if isinstance(v, Tensor) else v)
    assert len(flat_e) == len(flat_c)
    for a, b in zip(flat_e, flat_c, strict=True):
        np.testing.assert_allclose(b, a, rtol=1e-5, atol=1e-6)


def test_vmap_in_graph_equals_pynative_values_and_gradients():
    rng = np.random.default_rng(3)
    x, w = _t(rng.standard_normal((4, 3))), _t(rng.standard_normal((3, 2)))

    def f(row, m):
        return ops.tanh(ops.matmul(ops.expand_dims(row, 0), m))[0] + row.sum()

    _same_in_both_modes(lambda a, b: ops.vmap(f, in_axes=(0, None))(a, b), x, w)
    _same_in_both_modes(lambda a, b: ops.vmap(f, in_axes=(1, None), out_axes=1)(a.T, b), x, w)
    loss = kiln.grad(lambda a, b: ops.vmap(f, in_axes=(0, None))(a, b).sum(), grad_position=(0, 1))
    _same_in_both_modes(loss, x, w)
    net = nn.Dense(3, 2)
    _same_in_both_modes(lambda a: ops.vmap(net)(a), _t(rng.standard_normal((5, 2, 3))))


def test_vmap_in_graph_unbatched_output_and_number_outputs():
    x = _t(np.arange(6).reshape(2, 3))

    def f(row):
        return row * 2, 7

    doubled, sevens = kiln.jit(lambda a: ops.vmap(f, out_axes=(1, 0))(a))(x)
    np.testing.assert_allclose(doubled.asnumpy(), 2 * np.arange(6).reshape(2, 3).T)
    np.testing.assert_array_equal(sevens.asnumpy(), [7, 7])
    with pytest.raises(ValueError, match="one batch size"):
        kiln.jit(lambda a, b: ops.vmap(lambda p, q: p + q.sum())(a, b))(x, _t(np.ones((3, 2))))


def test_jvp_in_graph_equals_pynative():
    x, v = _t([0.5, 1.0, 2.0]), _t([1.0, -1.0, 0.5])
    _same_in_both_modes(lambda a, t: ops.jvp(lambda e: (ops.sin(e) * e, e * 2), a, t), x, v)
    _same_in_both_modes(lambda a, t: ops.jvp(lambda e: (e * e, e + 1), a, t, has_aux=True), x, v)
    # A float tangent of x**3 along v: 3 x^2 v; its gradient in x, 6 x v, through the compiled jvp
    g = kiln.jit(kiln.grad(lambda a, t: ops.jvp(lambda e: e * e * e, a, t)[1].sum()))(x, v)
    np.testing.assert_allclose(g.asnumpy(), 6 * x.asnumpy() * v.asnumpy(), rtol=1e-6)


def test_jvp_in_graph_of_integer_inputs_differentiates_them_as_reals():
    a, b = Tensor(np.ones((2, 3), np.int32)), Tensor(np.full((2, 3), 2, np.int32))
    for run in (lambda f: f, kiln.jit):
        value, tangent = run(lambda p, q: ops.jvp(lambda x, y: x * y, (p, q), (p, q)))(a, b)
        np.testing.assert_array_equal(value.asnumpy(), np.full((2, 3), 2))
        np.testing.assert_array_equal(tangent.asnumpy(), np.full((2, 3), 4))  # 1*2 + 2*1
        assert tangent.dtype == kiln.int32


def test_grad_of_an_integer_value_beside_integer_indices():
    # MindSpore differentiates an integer value as a real even when another integer argument is an index (zeros):
    # ScatterNd's updates get ones (the indices cannot be floats), in PyNative and in a graph
    idx = Tensor(np.array([[1, 0], [1, 1], [1, 0], [0, 1]], np.int32))
    upd = Tensor(np.array([-13, -3, 5, 2], np.int32))
    for run in (lambda f: f, kiln.jit):
        g_idx, g_upd = run(kiln.grad(lambda i, u: ops.scatter_nd(i, u * u, (2, 2)), (0, 1)))(idx, upd)
        np.testing.assert_array_equal(g_idx.asnumpy(), np.zeros((4, 2)))
        np.testing.assert_array_equal(g_upd.asnumpy(), 2 * upd.asnumpy())  # d(u^2)/du
        assert g_upd.dtype == kiln.int32


def test_jvp_and_vjp_want_tensors():
    with pytest.raises(TypeError, match=r"jvp: 'inputs' must be a Tensor"):
        ops.jvp(lambda a: a * 2, 1, 1)
    with pytest.raises(TypeError, match=r"jvp: 'v' must be a Tensor"):
        ops.jvp(lambda a: a * 2, _t([1.0]), 1.0)
    with pytest.raises(TypeError, match=r"vjp: 'inputs' must be a Tensor"):
        ops.vjp(lambda a: a * 2, 1)


class _TwoOutputs(nn.Cell):
    def construct(self, x, y):
        return 2 * x, y**3


@pytest.mark.parametrize("mode", ["pynative", "graph", "jit"])
def test_linearize_gives_the_output_and_a_jvp_function(mode):
    x, y = _t([[1, 2], [3, 4]]), _t([[0.5, 1], [2, 3]])
    v1, v2 = _t(np.ones((2, 2))), _t([[0, 1], [2, 3]])
    net = _TwoOutputs()
    want_out, want_tangent = ops.jvp(net, (x, y), (v1, v2))

    class Linearized(nn.Cell):
        def construct(self, a, b, ta, tb):
            out, jvp_fn = ops.linearize(net, (a, b))
            return out, jvp_fn((ta, tb))

    run = Linearized()
    if mode == "graph":
        kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        out, tangent = (kiln.jit(run.construct) if mode == "jit" else run)(x, y, v1, v2)
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    for got, want in zip([*out, *tangent], [*want_out, *want_tangent], strict=True):
        np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)


def _jacobian_cases():
    x = _t([[1.0, 2.0], [3.0, 4.0]])
    y = _t([[-2.0, 3.0], [-1.0, 2.0]])
    return [
        (lambda a, b: a * a * b, 0, False, (x, y)),
        (lambda a, b: a * a * b, (0, 1), False, (x, y)),
        (lambda a, b: (a * b, (a + b).sum()), (1, 0), False, (x, y)),
        (lambda a, b: (ops.sin(a) * b, a - b, b.sum()), 0, True, (x, y)),
        (lambda a, k: a * k, 0, False, (x, 3)),
    ]


def _leaves(value) -> list:
    if isinstance(value, (tuple, list)):
        return [type(value).__name__] + [leaf for v in value for leaf in _leaves(v)]
    return [np.asarray(value.asnumpy())] if isinstance(value, Tensor) else [value]


@pytest.mark.parametrize("kind", ["jacfwd", "jacrev"])
@pytest.mark.parametrize("case", range(5))
def test_jacobians_in_graphs_match_pynative(kind, case):
    fn, position, has_aux, args = _jacobian_cases()[case]
    transform = getattr(ops, kind)(fn, position, has_aux)
    eager = _leaves(transform(*args))

    class Net(nn.Cell):
        def construct(self, *a):
            return transform(*a)

    compiled = [_leaves(kiln.jit(transform)(*args))]
    kiln.set_context(mode=kiln.GRAPH_MODE)
    try:
        compiled.append(_leaves(Net()(*args)))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    for got in compiled:
        assert len(got) == len(eager)
        for g, e in zip(got, eager, strict=True):
            if isinstance(e, np.ndarray):
                np.testing.assert_allclose(g, e, rtol=1e-6)
            else:
                assert g == e


def test_jacobian_in_a_graph_of_a_function_writing_a_parameter_is_refused():
    w = kiln.Parameter(_t([1.0, 2.0]), name="w")

    def writes(a):
        ops.assign(w, a)
        return a * w

    with pytest.raises(RuntimeError, match="jacrev: inside a compiled graph the function must not write"):
        kiln.jit(ops.jacrev(writes))(_t([3.0, 4.0]))


class _Counted(nn.Cell):
    """out = 2 * x, counting its calls in a Parameter (as a BatchNorm's moving statistics are written)."""

    def __init__(self):
        super().__init__()
        self.calls = kiln.Parameter(_t([0.0]), name="calls", requires_grad=False)

    def construct(self, x):
        ops.assign_add(self.calls, _t([1.0]))
        return x * 2


class _VjpTwice(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x):
        out, vjp_fn = ops.vjp(self.net, x)
        return out, vjp_fn(ops.ones_like(out)), vjp_fn(ops.ones_like(out) * 3)


@pytest.mark.parametrize("mode", [kiln.PYNATIVE_MODE, kiln.GRAPH_MODE])
def test_vjp_fn_repeats_no_state_write_of_the_forward(mode):
    kiln.set_context(mode=mode)
    try:
        net = _Counted()
        out, g1, g3 = _VjpTwice(net)(_t([1.0, 5.0]))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(out.asnumpy(), [2.0, 10.0])
    np.testing.assert_allclose(g1[0].asnumpy(), [2.0, 2.0])
    np.testing.assert_allclose(g3[0].asnumpy(), [6.0, 6.0])
    np.testing.assert_allclose(net.calls.asnumpy(), [1.0])  # the forward's write, once (it was 3: once per call)


class _ConvPool(nn.Cell):
    def __init__(self, weight):
        super().__init__()
        self.conv, self.pool, self.weight = ops.Conv2D(3, 3), ops.MaxPool(2, 2), Tensor(weight)

    def construct(self, x):
        return self.pool(ops.relu(self.conv(x, self.weight)))


@pytest.mark.parametrize("mode", ["pynative", "graph"])
def test_forward_mode_of_a_cell_with_declared_derivatives_equals_jax(mode):
    # Conv2D and MaxPool declare their reverse rules; in GRAPH_MODE the Cell's compiled graph used them as a backend
    # custom_vjp, which has no forward mode: ops.jvp / jacfwd of the Cell raised the backend's error
    rng = np.random.default_rng(3)
    x, v = (rng.standard_normal((1, 2, 6, 6)).astype(np.float32) for _ in range(2))
    w = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    net = _ConvPool(w)

    def ref(a):
        y = jax.nn.relu(jax.lax.conv_general_dilated(a, w, (1, 1), "VALID"))
        return jax.lax.reduce_window(y, -np.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    kiln.set_context(mode=kiln.GRAPH_MODE if mode == "graph" else kiln.PYNATIVE_MODE)
    try:
        _, tangent = ops.jvp(net, Tensor(x), Tensor(v))
        jacobian = ops.jacfwd(net)(Tensor(x))
    finally:
        kiln.set_context(mode=kiln.PYNATIVE_MODE)
    np.testing.assert_allclose(tangent.asnumpy(), jax.jvp(ref, (x,), (v,))[1], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(jacobian.asnumpy(), jax.jacfwd(ref)(x), rtol=1e-5, atol=1e-5)


# The ops the backend cannot differentiate forward: the Bessel K and Y functions run on the host (SciPy), as does a
# pyfunc Custom op. Their reverse-mode derivatives are written by hand; forward mode used to end in
# "Kiln failed internally ... This is a bug in Kiln" (PyNative) or the backend's own words (GRAPH_MODE).
_HOST_OPS = {
    "BesselK0": ops.bessel_k0,
    "BesselK0e": ops.bessel_k0e,
    "BesselK1": ops.bessel_k1,
    "BesselK1e": ops.bessel_k1e,
    "BesselY0": ops.bessel_y0,
    "BesselY1": ops.bessel_y1,
    "PyFunc": ops.Custom(lambda a: np.cumsum(a), out_shape=lambda s: s, out_dtype=lambda d: d, func_type="pyfunc"),
}


# (The PyFunc in a compiled graph ended in the backend's own TypeError about its custom batching rule.)
@pytest.mark.parametrize(("name", "graph"), [(n, g) for n in _HOST_OPS for g in (False, True)])
def test_forward_mode_through_a_host_op_names_the_op(name, graph):
    op = _HOST_OPS[name]

    def f(x):
        return op(x) * 2.0

    def run(x, v):
        return ops.jvp(f, x, v)

    x, v = Tensor(np.array([0.5, 1.5], np.float32)), Tensor(np.ones(2, np.float32))
    with pytest.raises(NotImplementedError, match=rf"For '{name}', forward-mode differentiation .* reverse mode"):
        (kiln.jit(run) if graph else run)(x, v)
    with pytest.raises(NotImplementedError, match=rf"For '{name}', forward-mode"):
        jac = ops.jacfwd(f)
        (kiln.jit(jac) if graph else jac)(x)
    if name == "PyFunc":  # no derivative at all (its reverse mode has its own error)
        return
    # reverse mode works: the derivatives against a central difference of the op itself
    g = ops.grad(lambda t: f(t).sum())(x).asnumpy()
    eps = np.float32(1e-3)
    fd = (f(x + eps).asnumpy() - f(x - eps).asnumpy()) / (2 * eps)
    np.testing.assert_allclose(g, fd, rtol=2e-2)


@pytest.mark.parametrize("graph", [False, True], ids=["pynative", "graph"])
def test_forward_mode_past_a_host_op_no_tangent_reaches(graph):
    # the PyFunc's input is cut by stop_gradient: forward mode runs it and differentiates the rest
    op = _HOST_OPS["PyFunc"]

    def f(x):
        return x * 3.0 + op(ops.stop_gradient(x))

    def run(x, v):
        return ops.jvp(f, x, v)

    x, v = Tensor(np.array([0.5, 1.5], np.float32)), Tensor(np.array([1.0, -2.0], np.float32))
    out, tangent = (kiln.jit(run) if graph else run)(x, v)
    np.testing.assert_allclose(out.asnumpy(), x.asnumpy() * 3.0 + np.cumsum(x.asnumpy()), rtol=1e-6)
    np.testing.assert_allclose(tangent.asnumpy(), v.asnumpy() * 3.0, rtol=1e-6)
