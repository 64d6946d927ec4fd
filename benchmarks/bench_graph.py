"""Graph mode against hand-written jax.jit, measured side by side in one process.

    python -m benchmarks.bench_graph [--repeat N]

(a) the seed MLP forward (64x784 -> 512 -> 512 -> 10), GRAPH_MODE vs jax.jit   (target <= 1.10x)
(b) a cache-hit call of a small @jit function                                   (target <= 25 us)
(c) LeNet5 train step (value_and_grad + Momentum, batch 32, NCHW): GRAPH_MODE Cell and @jit vs jax.jit
    (target <= 1.10x), and the speedup of Graph mode over PyNative
(d) first call (compile + run) of the LeNet5 step vs jax.jit's first call (target <= 1.5x), with Kiln's
    front end (parse, analysis = the trace, passes) reported separately (target < 25% of it)
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

os.environ.setdefault("KILN_CACHE_DIR", "off")  # first-call timings must not hit the on-disk cache

import kiln as ms  # noqa: E402
import kiln._compiler  # noqa: E402
from kiln import Parameter, Tensor, nn, ops  # noqa: E402
from kiln._backend import jax, jnp, lax  # noqa: E402
from kiln._compiler.api import jit  # noqa: E402

kiln._compiler.install_cell_runner(nn.Cell)


def _best(fn, repeat: int, inner: int) -> float:
    """Best mean seconds per call over `repeat` rounds of `inner` calls (results waited for)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(inner):
            out = fn()
        _block(out)
        best = min(best, (time.perf_counter() - t0) / inner)
    return best


def _block(out):
    if isinstance(out, Tensor):
        out._data.block_until_ready()
    elif isinstance(out, (tuple, list)):
        for o in out:
            _block(o)
    elif hasattr(out, "block_until_ready"):
        out.block_until_ready()


# -- (a) the seed MLP ------------------------------------------------------------------------------


class _Relu(nn.Cell):
    def construct(self, x):
        return ops.relu(x)


class NeuralNet(nn.Cell):
    def __init__(self):
        super().__init__()
        relu = nn.ReLU if hasattr(nn, "ReLU") else _Relu
        self.layers = nn.SequentialCell(nn.Dense(784, 512), relu(), nn.Dense(512, 512), relu(), nn.Dense(512, 10))

    def construct(self, data):
        data = data.reshape(data.shape[0], -1)
        return self.layers(data)


def bench_mlp(repeat: int) -> list:
    net = NeuralNet()
    x = Tensor(np.ones([64, 1, 28, 28], np.float32))
    ws = [p._data for p in net.get_parameters()]

    @jax.jit
    def ref(ws, x):
        h = x.reshape(x.shape[0], -1)
        for i in range(0, 6, 2):
            h = h @ ws[i].T + ws[i + 1]
            if i < 4:
                h = jnp.maximum(h, 0)
        return h

    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), np.asarray(ref(ws, x._data)), rtol=1e-4, atol=1e-4)
    t_kiln = _best(lambda: net(x), repeat, 50)
    t_jax = _best(lambda: ref(ws, x._data), repeat, 50)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    t_py = _best(lambda: net(x), repeat, 20)
    return [
        ("(a) MLP forward, GRAPH_MODE", t_kiln, t_kiln / t_jax, "<= 1.10x jax.jit"),
        ("(a) MLP forward, jax.jit", t_jax, 1.0, ""),
        ("(a) MLP forward, PyNative", t_py, t_py / t_jax, ""),
    ]


# -- (b) cache hit ----------------------------------------------------------------------------------


def bench_cache_hit(repeat: int) -> list:
    @jit
    def small(x, y):
        return x * y + 1

    @jax.jit
    def ref(x, y):
        return x * y + 1

    x, y = Tensor(np.ones(8, np.float32)), Tensor(np.ones(8, np.float32))
    small(x, y)
    ref(x._data, y._data)
    t_kiln = _best(lambda: small(x, y), repeat, 2000)
    t_jax = _best(lambda: ref(x._data, y._data), repeat, 2000)
    return [
        ("(b) cache-hit call of a small @jit fn", t_kiln, t_kiln / t_jax, "<= 25 us"),
        ("(b) the same through jax.jit", t_jax, 1.0, ""),
    ]


# -- (c, d) LeNet5 train step ----------------------------------------------------------------------


def _normal(shape, std, rng):
    return Parameter(Tensor((rng.standard_normal(shape) * std).astype(np.float32)))


class Conv(nn.Cell):
    def __init__(self, cin, cout, k, rng):
        super().__init__()
        self.weight = _normal((cout, cin, k, k), (1.0 / (cin * k * k)) ** 0.5, rng)

    def construct(self, x):
        return ops.conv2d(x, self.weight)


class Fc(nn.Cell):
    def __init__(self, cin, cout, rng):
        super().__init__()
        self.weight = _normal((cout, cin), 0.02 if cout != 10 else 0.05, rng)
        self.bias = Parameter(Tensor(np.zeros(cout, np.float32)))

    def construct(self, x):
        return ops.matmul(x, self.weight.T) + self.bias


class LeNet5(nn.Cell):
    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        use_nn = hasattr(nn, "Conv2d") and hasattr(nn, "MaxPool2d")
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False) if use_nn else Conv(1, 6, 5, rng)
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False) if use_nn else Conv(6, 16, 5, rng)
        self.fc1 = Fc(16 * 5 * 5, 120, rng)
        self.fc2 = Fc(120, 84, rng)
        self.fc3 = Fc(84, 10, rng)

    def construct(self, x):
        x = _pool(ops.relu(self.conv1(x)))
        x = _pool(ops.relu(self.conv2(x)))
        x = x.reshape(x.shape[0], -1)
        x = ops.relu(self.fc1(x))
        x = ops.relu(self.fc2(x))
        return self.fc3(x)


def _pool(x):
    # 2x2/2 max pooling as reshape + max. ops.max_pool2d is not differentiable inside a trace yet
    # (kiln/_core/prims/nn/pool.py builds reduce_window's init value with jnp.array; see the report).
    n, c, h, w = x.shape
    return ops.amax(x.reshape(n, c, h // 2, 2, w // 2, 2), (3, 5))


class WithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net

    def construct(self, x, y):
        return ops.cross_entropy(self.net(x), y)


class TrainStep(nn.Cell):
    def __init__(self, net, lr=0.01, momentum=0.9):
        super().__init__()
        self.loss = WithLoss(net)
        self.opt = nn.Momentum(net.trainable_params(), learning_rate=lr, momentum=momentum)
        self.grad_fn = ms.value_and_grad(self.loss, None, self.opt.parameters)

    def construct(self, x, y):
        loss, grads = self.grad_fn(x, y)
        self.opt(grads)
        return loss


def _jax_lenet():
    def conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def pool(x):
        n, c, h, w = x.shape
        return jnp.max(x.reshape(n, c, h // 2, 2, w // 2, 2), axis=(3, 5))

    def loss_fn(ws, x, y):
        c1, c2, w1, b1, w2, b2, w3, b3 = ws
        h = pool(jax.nn.relu(conv(x, c1)))
        h = pool(jax.nn.relu(conv(h, c2)))
        h = h.reshape(h.shape[0], -1)
        h = jax.nn.relu(h @ w1.T + b1)
        h = jax.nn.relu(h @ w2.T + b2)
        logits = h @ w3.T + b3
        logp = jax.nn.log_softmax(logits)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(ws, moms, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(ws, x, y)
        moms = [0.9 * m + g for m, g in zip(moms, grads, strict=True)]
        ws = [w - 0.01 * m for w, m in zip(ws, moms, strict=True)]
        return loss, ws, moms

    return step


def bench_lenet(repeat: int) -> list:
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, 32).astype(np.int32))
    rows = []

    # (d) first calls: Kiln GRAPH_MODE (front end = parse + analysis/trace + passes, then XLA) vs jax.jit
    ms.set_context(mode=ms.GRAPH_MODE)
    step_graph = TrainStep(LeNet5())
    t0 = time.perf_counter()
    _block(step_graph(x, y))
    first_kiln = time.perf_counter() - t0
    ex = step_graph._kiln_graph_cache.entries[next(iter(step_graph._kiln_graph_cache.entries))][0]
    front = ex.trace_s
    ref_step = _jax_lenet()
    ws = [p._data + 0 for p in step_graph.opt.parameters]
    moms = [jnp.zeros_like(w) for w in ws]
    jitted = jax.jit(ref_step, donate_argnums=(0, 1))
    t0 = time.perf_counter()
    _block(jitted(ws, moms, x._data, y._data)[0])
    first_jax = time.perf_counter() - t0
    rows.append(("(d) LeNet5 step first call, GRAPH_MODE", first_kiln, first_kiln / first_jax, "<= 1.5x jax.jit"))
    rows.append(("(d)   of which Kiln front end (parse+trace)", front, front / first_kiln, "< 25% of first call"))
    rows.append(("(d) LeNet5 step first call, jax.jit", first_jax, 1.0, ""))

    # (c) steady state
    state = {"ws": [p._data + 0 for p in step_graph.opt.parameters], "moms": moms}
    state["moms"] = [jnp.zeros_like(w) for w in state["ws"]]

    def jax_step():
        loss, state["ws"], state["moms"] = jitted(state["ws"], state["moms"], x._data, y._data)
        return loss

    t_jax = _best(jax_step, repeat, 30)
    t_graph = _best(lambda: step_graph(x, y), repeat, 30)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    step_jit = TrainStep(LeNet5())
    jitted_call = jit(step_jit.construct)
    jitted_call(x, y)
    t_jit = _best(lambda: jitted_call(x, y), repeat, 30)
    step_py = TrainStep(LeNet5())
    rows.append(("(c) LeNet5 train step, GRAPH_MODE", t_graph, t_graph / t_jax, "<= 1.10x jax.jit"))
    rows.append(("(c) LeNet5 train step, @jit", t_jit, t_jit / t_jax, "<= 1.10x jax.jit"))
    rows.append(("(c) LeNet5 train step, jax.jit", t_jax, 1.0, ""))
    try:
        t_py = _best(lambda: step_py(x, y), max(1, repeat // 2), 3)
        rows.append(("(c) LeNet5 train step, PyNative", t_py, t_py / t_graph, "(x GRAPH_MODE time)"))
    except Exception as err:  # noqa: BLE001  (report, keep the other figures)
        print(f"PyNative LeNet5 step failed: {str(err).splitlines()[0][:160]}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rows = bench_lenet(args.repeat) + bench_mlp(args.repeat) + bench_cache_hit(args.repeat)
    print(f"{'benchmark':46s} {'time':>12s} {'ratio':>8s}  target")
    for name, seconds, ratio, target in rows:
        t = f"{seconds * 1e6:.1f} us" if seconds < 1e-3 else f"{seconds * 1e3:.2f} ms"
        print(f"{name:46s} {t:>12s} {ratio:8.2f}  {target}")


if __name__ == "__main__":
    main()
