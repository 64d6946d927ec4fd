"""Random ops: shapes, dtypes, ranges, moments within statistical tolerance, seeding."""

import math

import numpy as np
import pytest

import kiln as ms
from kiln import Tensor, ops

N = 20000


def _np(t):
    return t.asnumpy()


def _close_moments(x, mean, std, n=None):
    n = n or x.size
    # 6 standard errors: a false failure is vanishingly rare
    assert abs(x.mean() - mean) < 6 * std / math.sqrt(n) + 1e-6
    assert abs(x.std() - std) < 6 * std / math.sqrt(2 * n) * 1.5 + 1e-6


def test_uniform_float_broadcast_and_range():
    lo = Tensor(np.array([[1.0], [-2.0]], np.float32))
    hi = Tensor(np.float32(3.0))
    out = ops.uniform((2, N // 2), lo, hi)
    assert out.shape == (2, N // 2) and out.dtype == ms.float32
    x = _np(out)
    assert (x[0] >= 1).all() and (x[0] < 3).all() and (x[1] >= -2).all() and (x[1] < 3).all()
    _close_moments(x[0].astype(np.float64), 2.0, 2 / math.sqrt(12))
    _close_moments(x[1].astype(np.float64), 0.5, 5 / math.sqrt(12))


def test_uniform_int():
    out = ops.uniform((N,), Tensor(2, ms.int32), Tensor(7, ms.int32), dtype=ms.int32)
    assert out.dtype == ms.int32
    x = _np(out)
    assert set(np.unique(x)) == {2, 3, 4, 5, 6}
    with pytest.raises(TypeError, match="Tensor"):
        ops.uniform((2,), 1.0, 2.0)


def test_standard_normal_and_normal():
    x = _np(ops.standard_normal((N,)))
    assert x.dtype == np.float32
    _close_moments(x.astype(np.float64), 0.0, 1.0)
    out = ops.normal((N, 2), Tensor(np.array([0.0, 10.0], np.float32)), Tensor(np.float32(3.0)))
    assert out.shape == (N, 2)
    y = _np(out).astype(np.float64)
    _close_moments(y[:, 0], 0.0, 3.0)
    _close_moments(y[:, 1], 10.0, 3.0)


def test_normal_is_differentiable_in_mean_and_std():
    mean = Tensor(np.float32(1.0))
    std = Tensor(np.float32(2.0))
    ms.set_seed(3)

    def f(m, s):
        return ops.normal((64,), m, s).sum()

    ms.set_seed(3)
    gm, gs = ms.grad(f, grad_position=(0, 1))(mean, std)
    ms.set_seed(3)
    z = (_np(ops.normal((64,), mean, std)) - 1.0) / 2.0  # the same draws: recover the noise
    np.testing.assert_allclose(gm.asnumpy(), 64.0, rtol=1e-6)
    np.testing.assert_allclose(gs.asnumpy(), z.sum(), rtol=1e-4, atol=1e-4)


def test_randint():
    out = ops.randint(-3, 4, (N,))
    assert out.dtype == ms.int64
    x = _np(out)
    assert x.min() == -3 and x.max() == 3
    counts = np.bincount(x + 3, minlength=7)
    assert (np.abs(counts - N / 7) < 6 * math.sqrt(N / 7)).all()
    assert ops.randint(0, 3, (2, 2), dtype=ms.int32).dtype == ms.int32
    with pytest.raises(ValueError, match="less than"):
        ops.randint(3, 3, (2,))
    with pytest.raises(ValueError, match="int"):
        ops.randint(0, 3, (2,), dtype=ms.float32)


def test_rand_randn_sizes_and_dtypes():
    assert ops.rand(2, 3).shape == (2, 3)
    assert ops.rand((2, 3)).shape == (2, 3)
    assert ops.rand([4]).shape == (4,)
    assert ops.rand(2, dtype=ms.float16).dtype == ms.float16
    assert ops.randn(3, 1).shape == (3, 1)
    assert ops.randn(2, dtype=ms.float64).dtype == ms.float64
    x = _np(ops.rand(N)).astype(np.float64)
    assert x.min() >= 0 and x.max() < 1
    _close_moments(x, 0.5, 1 / math.sqrt(12))
    _close_moments(_np(ops.randn(N)).astype(np.float64), 0.0, 1.0)
    with pytest.raises(ValueError, match="float"):
        ops.rand(2, dtype=ms.int32)


def test_like_variants():
    h = Tensor(np.zeros((3, 4), np.float16))
    assert ops.rand_like(h).dtype == ms.float16 and ops.rand_like(h).shape == (3, 4)
    assert ops.randn_like(h).dtype == ms.float16
    assert ops.randn_like(h, dtype=ms.float32).dtype == ms.float32
    i = Tensor(np.zeros((5,), np.int32))
    r = ops.randint_like(i, 0, 3)
    assert r.dtype == ms.int32 and r.shape == (5,) and set(np.unique(_np(r))) <= {0, 1, 2}
    with pytest.raises(ValueError, match="int"):
        ops.randint_like(h, 0, 3)


def test_shuffle_is_a_row_permutation():
    x = np.arange(12).reshape(6, 2)
    out = _np(ops.shuffle(Tensor(x)))
    assert out.shape == (6, 2)
    assert sorted(map(tuple, out)) == sorted(map(tuple, x))  # rows kept intact
    seen = {tuple(_np(ops.shuffle(Tensor(np.arange(6))))) for _ in range(20)}
    assert len(seen) > 1
    with pytest.raises(ValueError, match="at least 1 dimension"):
        ops.shuffle(Tensor(1.0))


def test_randperm():
    p = _np(ops.randperm(10, seed=-1))
    assert sorted(p) == list(range(10)) and p.dtype == np.int64
    # MindSpore: a non-negative seed fixes the permutation
    np.testing.assert_array_equal(_np(ops.randperm(10)), _np(ops.randperm(10, seed=0)))
    assert ops.randperm(4, seed=1, dtype=ms.int32).dtype == ms.int32
    with pytest.raises(ValueError, match="non-negative"):
        ops.randperm(-1)


def test_bernoulli():
    x = Tensor(np.zeros((N,), np.float32))
    b = _np(ops.bernoulli(x, 0.3))
    assert b.dtype == np.float32 and set(np.unique(b)) <= {0.0, 1.0}
    assert abs(b.mean() - 0.3) < 6 * math.sqrt(0.3 * 0.7 / N)
    p = Tensor(np.array([1.0, 0.0, 1.0], np.float32))
    np.testing.assert_array_equal(_np(ops.bernoulli(Tensor(np.zeros(3, np.float32)), p)), [1, 0, 1])
    assert ops.bernoulli(Tensor(np.array([1, 2], np.int32)), 1.0).dtype == ms.int32
    with pytest.raises(ValueError, match="p"):
        ops.bernoulli(x, 1.5)


def test_multinomial():
    probs = np.array([0.1, 0.6, 0.3], np.float32)
    out = ops.multinomial(Tensor(probs * 10), 6000)
    assert out.shape == (6000,) and out.dtype == ms.int32
    freq = np.bincount(_np(out), minlength=3) / 6000
    np.testing.assert_allclose(freq, probs, atol=0.03)
    rows = ops.multinomial(Tensor(np.array([[0.0, 1.0, 0.0, 0.0], [1, 1, 1, 1]], np.float32)), 4, replacement=False)
    r = _np(rows)
    assert r.shape == (2, 4) and r[0, 0] == 1
    assert all(sorted(row) == [0, 1, 2, 3] for row in r)  # without replacement: distinct categories
    with pytest.raises(ValueError, match="num_samples"):
        ops.multinomial(Tensor(np.ones(3, np.float32)), 5, replacement=False)


def test_set_seed_replays_and_successive_draws_differ():
    ms.set_seed(11)
    a = _np(ops.standard_normal((5,)))
    b = _np(ops.rand(5))
    c = _np(ops.standard_normal((5,)))
    ms.set_seed(11)
    np.testing.assert_array_equal(_np(ops.standard_normal((5,))), a)
    np.testing.assert_array_equal(_np(ops.rand(5)), b)
    np.testing.assert_array_equal(_np(ops.standard_normal((5,))), c)
    assert not np.array_equal(a, c)


def test_op_seed_gives_a_stream_that_set_seed_restarts():
    # MindSpore 2.10 (probed): a functional op's seeded stream advances call by call, set_seed restarts it, and the
    # global seed is combined with the op's; a Primitive instance's own stream carries on across set_seed
    ms.set_seed(7)
    a1, a2 = _np(ops.standard_normal((4,), seed=5)), _np(ops.standard_normal((4,), seed=5))
    assert not np.array_equal(a1, a2)
    ms.set_seed(7)
    np.testing.assert_array_equal(_np(ops.standard_normal((4,), seed=5)), a1)
    np.testing.assert_array_equal(_np(ops.standard_normal((4,), seed=5)), a2)
    ms.set_seed(8)
    assert not np.array_equal(_np(ops.standard_normal((4,), seed=5)), a1)
    instance = ops.StandardNormal(3, 4)
    ms.set_seed(7)
    c1 = _np(instance((4,)))
    ms.set_seed(7)
    assert not np.array_equal(_np(instance((4,))), c1)


def test_primitive_classes():
    ms.set_seed(2)
    s = ops.StandardNormal()((2, 3))
    assert s.shape == (2, 3) and s.dtype == ms.float32
    u = _np(ops.UniformReal()((100,)))
    assert (u >= 0).all() and (u < 1).all()
    i = ops.UniformInt()((50,), Tensor(1, ms.int32), Tensor(4, ms.int32))
    assert i.dtype == ms.int32 and set(np.unique(_np(i))) <= {1, 2, 3}
    # equal non-zero seeds: equal streams, each call advancing
    p, q = ops.StandardNormal(seed=3, seed2=4), ops.StandardNormal(seed=3, seed2=4)
    x1, x2 = _np(p((3,))), _np(p((3,)))
    np.testing.assert_array_equal(_np(q((3,))), x1)
    assert not np.array_equal(x1, x2)
    with pytest.raises(TypeError, match="seed"):
        ops.StandardNormal(seed=-1)
    perm = _np(ops.RandomShuffle(seed=1)(Tensor(np.arange(5))))
    assert sorted(perm) == list(range(5))


def test_op_seeded_primitive_in_graph_mode_draws_as_pynative():
    """A seeded random Primitive's stream is graph state: each compiled call draws new numbers, the same
    sequence PyNative draws."""

    class Draw(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.draw = ops.UniformInt(seed=10, seed2=10)
            self.low, self.high = Tensor(0, ms.int32), Tensor(1000, ms.int32)

        def construct(self):
            return self.draw((8,), self.low, self.high) + 0

    eager = Draw()
    expected = [_np(eager()) for _ in range(3)]
    assert not np.array_equal(expected[0], expected[1])
    compiled = Draw()
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        got = [_np(compiled()) for _ in range(3)]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    for g, e in zip(got, expected, strict=True):
        np.testing.assert_array_equal(g, e)


def test_seeded_functional_op_in_graph_mode_draws_as_pynative():
    import importlib

    rnd = importlib.import_module("kiln.ops.random")

    def draw():
        return ops.standard_normal((4,), seed=5) * 1

    rnd._streams.clear()
    expected = [_np(draw()) for _ in range(2)]
    rnd._streams.clear()
    compiled = ms.jit(draw)
    for e in expected:
        np.testing.assert_array_equal(_np(compiled()), e)


def test_random_poisson_shape_dtype_moments_and_checks():
    # MindSpore's ops.random_poisson: shape + rate.shape, one draw per rate entry; a Poisson's mean and variance are
    # both its rate
    rates = np.array([0.5, 7.0], np.float32)
    out = ops.random_poisson(Tensor(np.array([20000, 1]), ms.int64), Tensor(rates), seed=3, dtype=ms.int32)
    assert out.shape == (20000, 1, 2) and out.dtype == ms.int32
    draws = out.asnumpy().reshape(-1, 2)
    np.testing.assert_allclose(draws.mean(0), rates, rtol=0.05)
    np.testing.assert_allclose(draws.var(0), rates, rtol=0.1)
    assert (draws >= 0).all()
    assert ms.ops.functional.random_func.random_poisson is ops.random_poisson  # MindSpore's module path
    shape, rate = Tensor(np.array([3, 5]), ms.int32), Tensor(np.array([0.5]), ms.float32)
    for kwargs in ({"shape": (3, 5)}, {"shape": Tensor(np.array([3.0, 5.0]))}, {"rate": [0.5]},
                   {"rate": Tensor(np.array([True]))}, {"seed": 0.5}, {"dtype": ms.bool_}):  # fmt: skip
        with pytest.raises(TypeError):
            ops.random_poisson(**{"shape": shape, "rate": rate, "seed": 1, **kwargs})
    for bad in (Tensor(np.array([[1, 2], [3, 5]]), ms.int32), Tensor(np.array([-3, 5]), ms.int32)):
        with pytest.raises(ValueError):
            ops.random_poisson(bad, rate, seed=1)


class _SamplerNet(ms.nn.Cell):
    def __init__(self, num_true, num_sampled, unique, range_max, seed):
        super().__init__()
        self.sampler = ms.ops.operations.UniformCandidateSampler(
            num_true, num_sampled, unique, range_max, seed=seed, remove_accidental_hits=True
        )

    def construct(self, x):
        return self.sampler(x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_uniform_candidate_sampler_removes_accidental_hits(mode):
    # MindSpore 2.10 (probed, seeds 1-5): true classes {1, 2, 6}, 5 of 8 unique -> a permutation of {0, 3, 4, 5, 7}
    ms.set_context(mode=mode)
    try:
        true_classes = Tensor(np.array([[1, 2], [2, 6]], np.int32))
        for seed in range(1, 6):
            sampled, true_count, sampled_count = _SamplerNet(2, 5, True, 8, seed)(true_classes)
            assert sorted(sampled.asnumpy().tolist()) == [0, 3, 4, 5, 7]
            assert true_count.shape == (2, 2) and sampled_count.shape == (5,)
        # 4 of 4 classes cannot leave out the true one: it is kept, as MindSpore does
        sampled = _SamplerNet(1, 4, True, 4, 1)(Tensor(np.array([[1]], np.int32)))[0]
        assert sorted(sampled.asnumpy().tolist()) == [0, 1, 2, 3]
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def test_uniform_candidate_sampler_remove_accidental_hits_with_repeats_warns():
    # MindSpore applies it to a sample without repeats only: with unique=False the sample is as without it
    x = Tensor(np.array([[1]], np.int32))
    ms.set_seed(5)  # each call of a seeded sampler draws the next key of its stream: both calls start it afresh
    with pytest.warns(UserWarning, match="remove_accidental_hits"):
        sampled = ops.uniform_candidate_sampler(x, 1, 200, False, 4, seed=3, remove_accidental_hits=True)[0]
    ms.set_seed(5)
    plain = ops.uniform_candidate_sampler(x, 1, 200, False, 4, seed=3)[0]
    np.testing.assert_array_equal(sampled.asnumpy(), plain.asnumpy())


def _truncated_moments(mu, sigma, lo, hi):
    """Mean and standard deviation of N(mu, sigma) truncated to [lo, hi] (closed form)."""
    pdf = lambda t: math.exp(-t * t / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda t: 0.5 * math.erfc(-t / math.sqrt(2))  # noqa: E731
    a, b = (lo - mu) / sigma, (hi - mu) / sigma
    z = cdf(b) - cdf(a)
    m = (pdf(a) - pdf(b)) / z
    at, bt = (t * pdf(t) if math.isfinite(t) else 0.0 for t in (a, b))
    var = 1 + (at - bt) / z - m * m
    return mu + sigma * m, sigma * math.sqrt(var)


class _TruncatedNet(ms.nn.Cell):
    def __init__(self):
        super().__init__()
        self.op = ms.ops.operations.random_ops.ParameterizedTruncatedNormal(seed=3, seed2=4)

    def construct(self, shape, mean, stdevs, lo, hi):
        return self.op(shape, mean, stdevs, lo, hi)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("dtype", [ms.float32, ms.float64])
def test_parameterized_truncated_normal_moments_per_batch_entry(mode, dtype):
    # each batch entry its own parameters (a size-1 parameter is shared): a wide range, a narrow one, both tails
    mean, std = [0.0, 10.0, 0.0, 0.0], [1.0, 1.0, 2.0, 1.0]
    lo, hi = [1.0, 4.0, -1.0, -np.inf], [2.0, 5.0, 1.0, -4.0]
    nd = dtype.np
    ms.set_context(mode=mode)
    try:
        net = _TruncatedNet()
        args = [Tensor(np.array([4, 50000], np.int64))] + [Tensor(np.array(v, nd)) for v in (mean, std, lo, hi)]
        x, y = net(*args), net(*args)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    assert x.dtype == dtype and x.shape == (4, 50000)
    assert not np.array_equal(x.asnumpy(), y.asnumpy())  # the Primitive's stream advances
    for b in range(4):
        row = x.asnumpy()[b].astype(np.float64)
        assert row.min() >= lo[b] and row.max() <= hi[b]
        want_mean, want_std = _truncated_moments(mean[b], std[b], lo[b], hi[b])
        assert abs(row.mean() - want_mean) < 6 * want_std / math.sqrt(row.size)
        assert abs(row.std() - want_std) < 0.02 * want_std


@pytest.mark.parametrize(
    ("shape", "params", "error"),
    [
        (np.array([2, 3], np.int32), ([0.0, 0.0, 0.0], [1.0], [-1.0], [1.0]), ValueError),  # 3 means for 2 entries
        (np.array([2, 3], np.float32), ([0.0], [1.0], [-1.0], [1.0]), TypeError),  # a float shape
        (np.array([[2, 3]], np.int32), ([0.0], [1.0], [-1.0], [1.0]), ValueError),  # a 2-D shape
        (np.array([2, 3], np.int32), ([0.0], [1.0], [1.0], [-1.0]), ValueError),  # max below min
        (np.array([2, 3], np.int32), ([0.0], [-1.0], [-1.0], [1.0]), ValueError),  # negative stdevs
    ],
)
def test_parameterized_truncated_normal_errors(shape, params, error):
    op = ms.ops.operations.random_ops.ParameterizedTruncatedNormal()
    with pytest.raises(error, match="ParameterizedTruncatedNormal"):
        op(Tensor(shape), *(Tensor(np.array(p, np.float32)) for p in params))


def test_parameterized_truncated_normal_parameters_of_two_dtypes():
    op = ms.ops.operations.random_ops.ParameterizedTruncatedNormal()
    f32, f64 = Tensor(np.array([0.0], np.float32)), Tensor(np.array([1.0], np.float64))
    with pytest.raises(TypeError, match="ParameterizedTruncatedNormal"):
        op(Tensor(np.array([2, 3], np.int32)), f32, f64, f32, f32)
