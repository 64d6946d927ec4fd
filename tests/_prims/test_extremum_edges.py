"""The ops that take a maximum or minimum inside (BCE's lower bound, L2Normalize, normalize, ClipByNorm, Cdist with
p=inf, the inf-norms, Fmin, the ReLU RNN's scan, CTC's floor): derivatives at ties and edges against MindSpore 2.10,
off them against the backend's derivative of the former formula, and forward values bit for bit the former ones."""

import json
import os

import numpy as np
import pytest

import kiln
import kiln as ms
from kiln import Tensor, nn, ops
from kiln._backend import jax, jnp, lax
from kiln._prims import recurrent
from kiln._prims.nn import loss as loss_prims
from kiln._prims.nn import pool as pool_prims
from tests._prims import extremum_edge_cases

HERE = os.path.dirname(os.path.abspath(__file__))


def test_extremum_edge_derivatives_match_mindspore():
    # MindSpore 2.10 in both modes (goldens: make_extremum_edge_goldens_mindspore.py, cases: extremum_edge_cases.py).
    # Kiln gave BCE no gradient at p = 0 and 1 (MindSpore +-1e12: (p - y) / max(p (1 - p), 1e-12)) and half of it at
    # p = 1e-12, the labels a clamped log (MindSpore: unclamped, inf at p = 0); L2Normalize below its bound
    # t / sqrt(epsilon) (MindSpore: t / epsilon) and half at the tie; Cdist p=inf half to tied coordinates (MindSpore:
    # all to each); the inf-norm half to tied maxima (MindSpore: the first one) and 1/n to a zero vector (0); the
    # ReLU RNN 0.5 at a zero pre-activation (MindSpore and nn.RNNCell: 0); dilated, adaptive and with-argmax max
    # pools shared a window's tie (MindSpore: all to its first maximum, as the undilated MaxPool already gave).
    with open(os.path.join(HERE, "extremum_edge_goldens_mindspore.json")) as f:
        want = json.load(f)["cases"]
    got = extremum_edge_cases.run(kiln)
    assert sorted(got) == sorted(want)
    for case, grads in want.items():
        assert len(got[case]) == len(grads), case
        for g, w in zip(got[case], grads, strict=True):
            np.testing.assert_allclose(np.array(g), np.array(w), rtol=1e-6, atol=0, err_msg=case)


_RNG = np.random.RandomState(0)
_P = np.concatenate([_RNG.uniform(0, 1, 200), [0.0, 1.0, 1e-12, 1e-13, 1 - 1e-7, 0.5, np.nan]]).astype(np.float32)
_Y = _RNG.choice(np.float32([0.0, 0.5, 1.0]), _P.size).astype(np.float32)
_ROWS = np.concatenate([_RNG.randn(30, 5), np.zeros((1, 5)), [[0.5, 0, 0, 0, 0]], [[np.nan] + [1.0] * 4]])
_ROWS = (_ROWS * np.float32([[1.0], [0.01]] * 16 + [[1.0]])).astype(np.float32)  # half the rows below the bounds
_X1, _X2 = _RNG.randn(2, 6, 3).astype(np.float32), _RNG.randn(2, 5, 3).astype(np.float32)
_VEC = np.concatenate([_RNG.randn(40), [3.0, -3.0, 0.0, 1e-40]]).astype(np.float32)


def _bce(p, y):
    eps = jnp.asarray(1e-12, p.dtype)
    return -(y * jnp.log(jnp.maximum(p, eps)) + (1 - y) * jnp.log(jnp.maximum(1 - p, eps)))


def _l2_normalize(x):
    return x * lax.rsqrt(jnp.maximum(jnp.sum(jnp.square(x), axis=1, keepdims=True), 0.25))


def _clip_by_norm(x, clip):
    return x * clip / jnp.maximum(jnp.sqrt(jnp.sum(x * x, axis=1, keepdims=True)), clip)


def _clip_by_norm_face(x, clip):
    return nn.ClipByNorm(axis=1)(x, clip)


def _cdist_inf(a, b):
    return jnp.max(jnp.abs(a[..., :, None, :] - b[..., None, :, :]), axis=-1)


# each op's face in Kiln and its former formula in the backend, on (inputs, the former formula's inputs)
EDGE_FORWARDS = {
    "binary_cross_entropy": (lambda p, y: ops.binary_cross_entropy(p, y, reduction="none"), _bce, (_P, _Y)),
    "L2Normalize": (lambda x: ops.L2Normalize(axis=1, epsilon=0.25)(x), _l2_normalize, (_ROWS,)),
    "normalize": (
        lambda x: ops.normalize(x, 2.0, 1, 0.5),
        lambda x: x / jnp.maximum(jnp.linalg.norm(x, ord=2.0, axis=1, keepdims=True), 0.5),
        (_ROWS,),
    ),
    "ClipByNorm": (_clip_by_norm_face, _clip_by_norm, (_ROWS, np.float32(3.0))),
    "cdist p=inf": (lambda a, b: ops.cdist(a, b, float("inf")), _cdist_inf, (_X1, _X2)),
    "norm inf": (lambda x: ops.norm(x, float("inf")), lambda x: jnp.linalg.norm(x, ord=jnp.inf), (_VEC,)),
    "norm -inf": (lambda x: ops.norm(x, float("-inf")), lambda x: jnp.linalg.norm(x, ord=-jnp.inf), (_VEC,)),
    "norm inf per row": (
        lambda x: ops.norm(x, float("inf"), dim=1, keepdim=True),
        lambda x: jnp.linalg.norm(x, ord=jnp.inf, axis=1, keepdims=True),
        (_ROWS,),
    ),
    "fmin": (ops.fmin, jnp.fmin, (_VEC, _VEC[::-1].copy())),
}


@pytest.mark.parametrize("case", sorted(EDGE_FORWARDS))
def test_edge_ops_forward_is_the_former_formula_bit_for_bit(case):
    # the derivative rules change derivatives only: a NaN is a NaN, every other value keeps its bits
    kiln_fn, backend_fn, inputs = EDGE_FORWARDS[case]
    want = np.asarray(jax.jit(backend_fn)(*map(jnp.asarray, inputs)))
    for got in (kiln_fn(*map(Tensor, inputs)), ms.jit(kiln_fn)(*map(Tensor, inputs))):
        got = got.asnumpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=case)
        number = ~np.isnan(want)
        np.testing.assert_array_equal(got[number].view(np.uint32), want[number].view(np.uint32), err_msg=case)


def test_rnn_relu_step_and_ctc_forward_are_the_former_bit_for_bit(monkeypatch):
    # the ReLU RNN's step takes the backend's maximum with 0 where v <= 0 and v elsewhere, CTC's floor math.maximum
    gx = jnp.asarray(np.concatenate([_VEC, -_VEC, [np.nan, -np.nan]]).astype(np.float32).reshape(10, 9))
    gh = gx[::-1]
    new, _ = recurrent.STEPS["RNN_RELU"]((gh, gh), gx, gh * 0.5)
    np.testing.assert_array_equal(
        np.asarray(new).view(np.uint32), np.asarray(jnp.maximum(gx + gh * 0.5, 0)).view(np.uint32)
    )
    log_probs = jax.nn.log_softmax(jnp.asarray(_RNG.randn(12, 3, 5).astype(np.float32)), axis=2)
    args = (log_probs, jnp.asarray([[1, 2, 2], [3, 1, 0], [4, 4, 4]]), jnp.asarray([12, 10, 5]), jnp.asarray([3, 2, 3]))
    ctc = jax.jit(lambda lp, t, il, tl: loss_prims._ctc(lp, t, il, tl, 0, False))
    now = [np.asarray(v) for v in ctc(*args)]
    monkeypatch.setattr(loss_prims, "maximum", jnp.maximum)
    former = jax.jit(lambda lp, t, il, tl: loss_prims._ctc(lp, t, il, tl, 0, False))
    for a, b in zip(now, former(*args), strict=True):
        np.testing.assert_array_equal(a, np.asarray(b))


_POOLS = {
    "dilated": lambda x: pool_prims._max_pool(
        x, kernel_size=(2, 2), strides=(1, 1), pad_mode="pad", pad=(1, 1, 1, 1), dilation=(2, 2), ceil_mode=False
    ),
    "with argmax": lambda x: pool_prims._max_pool_argmax(
        x, kernel_size=(3, 3), strides=(2, 2), pad_mode="pad", pad=(1, 1, 1, 1), dilation=(1, 1), ceil_mode=True
    ),
    "adaptive": lambda x: pool_prims._adaptive_max(x, output_size=(3, 4)),
}


@pytest.mark.parametrize("case", sorted(_POOLS))
def test_max_pools_read_at_the_first_maximum_keep_their_values_bit_for_bit(case, monkeypatch):
    # ties of signed zeros and NaNs included: the entry at the first maximum has the max reduction's bits
    x = _RNG.choice(np.float32([-1.0, -0.0, 0.0, 1.0, 2.0, np.nan]), (2, 3, 9, 10), p=[0.2, 0.2, 0.2, 0.2, 0.15, 0.05])
    now = jax.tree_util.tree_leaves(jax.jit(_POOLS[case])(jnp.asarray(x)))
    monkeypatch.setattr(pool_prims, "first_extreme", lambda x, axis: (jnp.max(x, axis), jnp.argmax(x, axis)))
    former = jax.tree_util.tree_leaves(jax.jit(_POOLS[case])(jnp.asarray(x)))
    for a, b in zip(now, former, strict=True):  # the values (as bits), and the indices
        a, b = np.asarray(a), np.asarray(b)
        bits = np.uint32 if a.dtype == np.float32 else a.dtype
        np.testing.assert_array_equal(a.view(bits), b.view(bits), err_msg=case)


def _off_the_edges():
    p = _RNG.uniform(0.01, 0.99, 64).astype(np.float32)
    rows = (_RNG.randn(8, 5) * np.float32([[1.0], [0.05]] * 4)).astype(np.float32)  # norms above and below the bounds
    # L2Normalize's derivative below its bound is MindSpore's (not the former formula's): norms above 0.5 only
    big = rows[::2] + np.sign(rows[::2])
    x1, x2 = _RNG.randn(2, 4, 3).astype(np.float32), _RNG.randn(2, 5, 3).astype(np.float32)
    vec = _RNG.randn(30).astype(np.float32)
    return {
        "binary_cross_entropy": (
            lambda a, b: ops.binary_cross_entropy(a, b, reduction="none"),
            _bce,
            (p, _RNG.uniform(0, 1, 64).astype(np.float32)),
        ),
        "L2Normalize": (lambda x: ops.L2Normalize(axis=1, epsilon=0.25)(x), _l2_normalize, (big,)),
        "L2Normalize 3-d": (
            lambda x: ops.L2Normalize(axis=(1, 2), epsilon=1e-4)(x),
            lambda x: x * lax.rsqrt(jnp.maximum(jnp.sum(jnp.square(x), axis=(1, 2), keepdims=True), 1e-4)),
            (big.reshape(2, 2, 5),),
        ),
        "ClipByNorm": (_clip_by_norm_face, _clip_by_norm, (rows, np.float32(3.0))),
        "normalize": (
            lambda x: ops.normalize(x, 2.0, 1, 0.5),
            lambda x: x / jnp.maximum(jnp.linalg.norm(x, ord=2.0, axis=1, keepdims=True), 0.5),
            (rows,),
        ),
        "cdist p=inf": (lambda a, b: ops.cdist(a, b, float("inf")), _cdist_inf, (x1, x2)),
        "norm inf": (lambda x: ops.norm(x, float("inf")), lambda x: jnp.linalg.norm(x, ord=jnp.inf), (vec,)),
        "norm -inf": (lambda x: ops.norm(x, float("-inf")), lambda x: jnp.linalg.norm(x, ord=-jnp.inf), (vec,)),
        "norm p=3": (lambda x: ops.norm(x, 3.0), lambda x: jnp.sum(jnp.abs(x) ** 3) ** (1 / 3), (vec,)),
        "fmin": (ops.fmin, jnp.fmin, (vec, vec[::-1].copy())),
    }


@pytest.mark.parametrize("case", sorted(_off_the_edges()))
def test_edge_ops_gradients_off_the_edges_are_the_backends(case):
    # away from ties and bounds the new rules are the derivative of the former formula, in both modes
    kiln_fn, backend_fn, inputs = _off_the_edges()[case]
    w = _RNG.uniform(-1, 1, np.shape(backend_fn(*map(jnp.asarray, inputs)))).astype(np.float32)
    positions = tuple(range(len(inputs)))
    want = jax.grad(lambda *a: jnp.sum(backend_fn(*a) * w), argnums=positions)(*map(jnp.asarray, inputs))
    grad = ms.grad(lambda *a: (kiln_fn(*a) * Tensor(w)).sum(), grad_position=positions)
    for got in (grad(*map(Tensor, inputs)), ms.jit(grad)(*map(Tensor, inputs))):
        got = got if isinstance(got, tuple) else (got,)
        for g, v in zip(got, want, strict=True):
            np.testing.assert_allclose(g.asnumpy(), np.asarray(v), rtol=2e-5, atol=1e-6, err_msg=case)


def test_rnn_relu_gradients_off_zero_are_the_backends():
    # nn.RNN(relu) against the same recurrence written with the backend's maximum, pre-activations away from 0
    x = _RNG.randn(2, 6, 3).astype(np.float32)
    rnn = nn.RNN(3, 4, nonlinearity="relu", batch_first=True)
    w_ih, w_hh, b_ih, b_hh = (p.asnumpy() for p in rnn.get_parameters())

    def former(x):
        h, outs = jnp.zeros((2, 4)), []
        for t in range(6):
            h = jnp.maximum(x[:, t] @ w_ih.T + b_ih + h @ w_hh.T + b_hh, 0)
            outs.append(h)
        return jnp.stack(outs, axis=1)

    w = _RNG.uniform(-1, 1, (2, 6, 4)).astype(np.float32)
    want = jax.grad(lambda a: jnp.sum(former(a) * w))(jnp.asarray(x))
    grad = ms.grad(lambda a: (rnn(a)[0] * Tensor(w)).sum())
    for got in (grad(Tensor(x)), ms.jit(grad)(Tensor(x))):
        np.testing.assert_allclose(got.asnumpy(), np.asarray(want), rtol=1e-5, atol=1e-6)


def test_fmin_derivative_mirrors_fmax():
    # MindSpore 2.10 has no CPU Fmin to take goldens from: fmin(x, y) = -fmax(-x, -y), whose tie (x == y) and NaN
    # rule is MindSpore's Fmax's (kink_derivative_cases.py), so x takes a tie and a number beats a NaN (PyTorch's
    # fmin rule too); the backend's fmin gave a tie to y
    x = np.array([0.0, 1.0, 0.5, np.nan, 2.0, 0.0, 1.0, -0.25, np.nan], np.float32)
    y = np.array([0.0, 0.5, 0.5, 1.0, 2.0, -0.0, np.nan, -1.0, np.nan], np.float32)
    w = Tensor(np.arange(1, 10, dtype=np.float32))
    want = ms.grad(lambda a, b: (-ops.fmax(-a, -b) * w).sum(), grad_position=(0, 1))(Tensor(x), Tensor(y))
    grad = ms.grad(lambda a, b: (ops.fmin(a, b) * w).sum(), grad_position=(0, 1))
    for got in (grad(Tensor(x), Tensor(y)), ms.jit(grad)(Tensor(x), Tensor(y))):
        for g, v in zip(got, want, strict=True):
            np.testing.assert_array_equal(g.asnumpy(), v.asnumpy())
