"""The in-place Tensor methods MindSpore 2.10 has (mul_, tanh_, remainder_, floor_divide_, copy_, index_add_,
index_fill_, masked_scatter_, scatter_, scatter_add_, uniform_, exponential_, bernoulli_): each writes its result
into the Tensor (same object, same dtype), returns it, and matches NumPy."""

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4)).astype(np.float32)
IDX = np.array([2, 0], np.int32)
SCATTER_IDX = np.array([[1, 0, 3, 2], [0, 2, 1, 3], [3, 1, 0, 2]], np.int64)


def _index_add(x, dim, index, source, alpha):
    out = x.copy()
    np.add.at(out, (slice(None),) * dim + (index,), alpha * source)
    return out


def _index_fill(x, dim, index, value):
    out = x.copy()
    out[(slice(None),) * dim + (index,)] = value
    return out


def _scatter(x, dim, index, src, add=False):
    out = x.copy()
    for pos in np.ndindex(index.shape):
        target = list(pos)
        target[dim] = index[pos]
        value = src[pos] if isinstance(src, np.ndarray) else src
        out[tuple(target)] = out[tuple(target)] + value if add else value
    return out


def _masked_scatter(x, mask, source):
    out = x.copy()
    out[mask] = source.reshape(-1)[: mask.sum()]
    return out


CASES = {
    "mul_": (lambda t: t.mul_(Tensor(X[0])), X * X[0]),
    "mul_scalar": (lambda t: t.mul_(2.5), X * np.float32(2.5)),
    "tanh_": (lambda t: t.tanh_(), np.tanh(X)),
    "remainder_": (lambda t: t.remainder_(0.7), np.remainder(X, np.float32(0.7))),
    "floor_divide_": (lambda t: t.floor_divide_(0.7), np.floor_divide(X, np.float32(0.7))),
    "copy_": (lambda t: t.copy_(Tensor(X[1])), np.broadcast_to(X[1], X.shape)),
    "copy_number": (lambda t: t.copy_(3.0), np.full(X.shape, 3.0, np.float32)),
    "index_add_": (
        lambda t: t.index_add_(0, Tensor(IDX), Tensor(X[:2]), alpha=2),
        _index_add(X, 0, IDX, X[:2], 2),
    ),
    "index_fill_": (lambda t: t.index_fill_(1, Tensor(IDX), -1.0), _index_fill(X, 1, IDX, -1.0)),
    "masked_scatter_": (
        lambda t: t.masked_scatter_(Tensor(X > 0), Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))),
        _masked_scatter(X, X > 0, np.arange(12, dtype=np.float32)),
    ),
    "scatter_": (
        lambda t: t.scatter_(1, Tensor(SCATTER_IDX), Tensor(-X)),
        _scatter(X, 1, SCATTER_IDX, -X),
    ),
    "scatter_value": (
        lambda t: t.scatter_(1, Tensor(SCATTER_IDX[:, :2]), 9.0),
        _scatter(X, 1, SCATTER_IDX[:, :2], 9.0),
    ),
    "scatter_reduce_add": (
        lambda t: t.scatter_(0, Tensor(SCATTER_IDX[:2] % 3), Tensor(X[:2]), reduce="add"),
        _scatter(X, 0, SCATTER_IDX[:2] % 3, X[:2], add=True),
    ),
    "scatter_add_": (
        lambda t: t.scatter_add_(0, Tensor(SCATTER_IDX[:2] % 3), Tensor(X[:2])),
        _scatter(X, 0, SCATTER_IDX[:2] % 3, X[:2], add=True),
    ),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_in_place_method_writes_its_result_into_the_tensor(name):
    call, expected = CASES[name]
    t = Tensor(X.copy())
    out = call(t)
    assert out is t
    assert t.dtype == ms.float32
    np.testing.assert_allclose(t.asnumpy(), expected, rtol=1e-5, atol=1e-6)


def test_in_place_method_keeps_an_int_tensor_int():
    t = Tensor(np.array([5, 7, 9], np.int32))
    t.remainder_(4)
    assert t.dtype == ms.int32
    np.testing.assert_array_equal(t.asnumpy(), [1, 3, 1])
    t.mul_(3)
    np.testing.assert_array_equal(t.asnumpy(), [3, 9, 3])


def test_scatter_overloads_value_keyword_and_multiply():
    """MindSpore 2.10's documented overloads: scatter_(dim, index, value) (by keyword too) and reduce='multiply'
    (its CPU build has no kernel for them: checked against NumPy)."""
    idx = np.array([[0, 1], [2, 3], [1, 0]], np.int64)
    src = RNG.standard_normal((3, 2)).astype(np.float32)
    cases = [
        (lambda t: t.scatter_(1, Tensor(idx), value=2.0), _scatter(X, 1, idx, 2.0)),
        (lambda t: t.scatter_(1, Tensor(idx), value=3.0, reduce="add"), _scatter(X, 1, idx, 3.0, add=True)),
    ]
    mul = X.copy()
    for pos in np.ndindex(idx.shape):
        mul[pos[0], idx[pos]] *= src[pos]
    cases.append((lambda t: t.scatter_(1, Tensor(idx), Tensor(src), reduce="multiply"), mul))
    for call, want in cases:
        t = Tensor(X.copy())
        assert call(t) is t
        np.testing.assert_allclose(t.asnumpy(), want, rtol=1e-6)


def test_scatter_with_an_unknown_reduce_is_refused():
    with pytest.raises(ValueError, match="reduce"):
        Tensor(X.copy()).scatter_(1, Tensor(SCATTER_IDX), Tensor(X), reduce="max")


@pytest.mark.parametrize(
    ("fill", "check"),
    [
        (lambda t: t.uniform_(2.0, 3.0), lambda v: (v >= 2).all() and (v < 3).all() and abs(v.mean() - 2.5) < 0.05),
        (lambda t: t.exponential_(2.0), lambda v: (v >= 0).all() and abs(v.mean() - 0.5) < 0.05),
        (lambda t: t.bernoulli_(0.25), lambda v: set(np.unique(v)) <= {0.0, 1.0} and abs(v.mean() - 0.25) < 0.05),
    ],
    ids=["uniform_", "exponential_", "bernoulli_"],
)
def test_in_place_random_fills_draw_from_their_distribution(fill, check):
    ms.set_seed(3)
    t = Tensor(np.zeros((100, 100), np.float32))
    assert fill(t) is t
    assert check(t.asnumpy())


def test_in_place_methods_in_a_compiled_function_match_pynative():
    def step(x, y):
        z = x.copy()
        z.mul_(y)
        z.tanh_()
        return z.remainder_(0.5)

    eager = step(Tensor(X), Tensor(X[0]))
    compiled = ms.jit(step)(Tensor(X), Tensor(X[0]))
    np.testing.assert_allclose(compiled.asnumpy(), eager.asnumpy(), rtol=1e-6)


def _fd_grad(f, x, eps=1e-3):
    out = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = eps
        out[i] = (float(f(Tensor(x + e)).asnumpy()) - float(f(Tensor(x - e)).asnumpy())) / (2 * eps)
    return out


_MASK = Tensor(X > 0)
_GRAD_CASES = {
    "add_": lambda x: (lambda y: (y.add_(x), (y * y).sum())[1])(x * 1),
    "mul_": lambda x: (lambda y: (y.mul_(x), y.sum())[1])(x + 1),
    "sub_div_": lambda x: (lambda y: (y.sub_(x, alpha=2), y.div_(2), (y * y).sum())[2])(x * 3),
    "copy_": lambda x: (lambda y: (y.copy_(x * x), (y * x).sum())[1])(x * 1),
    "assign_value": lambda x: (lambda y: (y.assign_value(x * x), (y * x).sum())[1])(x * 1),
    "exp_": lambda x: (lambda y: (y.exp_(), y.sum())[1])(x * 1),
    "tanh_": lambda x: (lambda y: (y.tanh_(), (y * x).sum())[1])(x * 1),
    "sigmoid_": lambda x: (lambda y: (y.sigmoid_(), (y * x).sum())[1])(x * 1),
    "clamp_": lambda x: (lambda y: (y.clamp_(-1, 1), (y * x).sum())[1])(x * 1),
    "masked_fill_": lambda x: (lambda y: (y.masked_fill_(_MASK, 0.5), (y * y).sum())[1])(x * 1),
    "fill_": lambda x: (lambda y: (y.fill_(2.0), (y * x).sum())[1])(x * 1),
    "index_add_": lambda x: (lambda y: (y.index_add_(1, Tensor(IDX), x[:, :2]), (y * y).sum())[1])(x * 1),
    "view_mul_": lambda x: (lambda y: (y[0].mul_(3), (y * x).sum())[1])(x * 1),
}


@pytest.mark.parametrize("name", sorted(_GRAD_CASES))
def test_gradient_flows_through_an_in_place_method(name):
    """ms.grad of a function writing into an intermediate with an in-place method: the written value's gradient,
    as central differences give it (the method's result was once cut off from the gradient: `y.mul_(x)` gave the
    gradient of y as it was before)."""
    f = _GRAD_CASES[name]
    got = ms.grad(f)(Tensor(X.copy())).asnumpy()
    np.testing.assert_allclose(got, _fd_grad(f, X.astype(np.float64)), rtol=1e-3, atol=2e-3)
