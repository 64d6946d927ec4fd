"""What tools/gpu_check.sh measures beside the benchmarks, on a GPU: float32 matmul and convolution errors against
float64 NumPy and their cost (full float32 against TF32, interleaved rounds in one process), the MLP forward's
per-call cost against jax.jit (what Kiln adds: host time without waiting, a profile), and where the warm first
GRAPH_MODE LeNet5 step goes (cold, warm, warm with the device's first-use costs paid before, warm profiled).

    PYTHONPATH=. python tools/gpu_probe.py [all|precision|mlp|warm]
"""

import cProfile
import io
import os
import pstats
import subprocess
import sys
import tempfile
import time
import traceback

import numpy as np

WHAT = sys.argv[1] if len(sys.argv) > 1 else "all"


def section(name):
    print(f"\n##### {name}", flush=True)


def best_ms(fn, calls, sync):
    t0 = time.perf_counter()
    for _ in range(calls):
        out = fn()
    sync(out)
    return (time.perf_counter() - t0) / calls * 1e3


def warm_worker(prewarm: bool) -> None:
    t0 = time.perf_counter()
    import kiln as ms  # noqa: PLC0415  (timed: the import is part of a first step's cost)
    from kiln import Tensor, nn  # noqa: PLC0415
    from kiln._backend import jax, jnp, lax  # noqa: PLC0415
    from kiln.demo.lenet import LeNet5 as KilnLeNet5  # noqa: PLC0415

    t_import = time.perf_counter() - t0
    t_dev = 0.0
    if prewarm:  # the device's own first-use costs: CUDA context, cuBLAS and cuDNN handles, their modules
        t1 = time.perf_counter()
        a = jnp.ones((32, 1, 32, 32), jnp.float32)
        w = jnp.ones((6, 1, 5, 5), jnp.float32)
        jax.block_until_ready(
            jax.jit(lambda a, w: lax.conv(a, w, (1, 1), "VALID").sum() + (a[0, 0] @ a[0, 0]).sum())(a, w)
        )
        t_dev = time.perf_counter() - t1

    class LeNet5(KilnLeNet5):
        def __init__(self):
            super().__init__()

    t1 = time.perf_counter()
    ms.set_context(mode=ms.GRAPH_MODE)
    ms.set_seed(0)
    net = LeNet5()
    loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    opt = nn.Momentum(net.trainable_params(), learning_rate=0.01, momentum=0.9)
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
    rng = np.random.default_rng(0)
    x = Tensor(rng.standard_normal((32, 1, 32, 32)).astype(np.float32))
    y = Tensor(rng.integers(0, 10, 32).astype(np.int32))
    t2 = time.perf_counter()
    prof = cProfile.Profile() if os.environ.get("PROBE_PROFILE") else None
    if prof:
        prof.enable()
    step(x, y).asnumpy()
    if prof:
        prof.disable()
    t3 = time.perf_counter()
    t4 = time.perf_counter()
    step(x, y).asnumpy()
    t5 = time.perf_counter()
    print(
        f"RESULT prewarm={prewarm} import {t_import * 1e3:.0f} ms, device warm-up {t_dev * 1e3:.0f} ms, "
        f"build {(t2 - t1) * 1e3:.1f} ms, first step {(t3 - t2) * 1e3:.1f} ms, second step {(t5 - t4) * 1e3:.2f} ms",
        flush=True,
    )
    if prof:
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("cumulative").print_stats(28)
        print(s.getvalue()[:6000])


if WHAT == "warm-worker":
    warm_worker(os.environ.get("PROBE_PREWARM") == "1")
    sys.exit(0)

import kiln as ms  # noqa: E402
from kiln import Tensor, nn, ops  # noqa: E402
from kiln._backend import jax, jnp  # noqa: E402
from kiln.device_context.gpu import op_precision  # noqa: E402

print(
    "devices",
    jax.devices(),
    "platforms",
    jax.config.jax_platforms,
    "matmul precision",
    jax.config.jax_default_matmul_precision,
    flush=True,
)

if WHAT in ("all", "precision"):
    section("precision: errors against float64 NumPy")
    try:
        rng = np.random.default_rng(0)
        a = rng.standard_normal((64, 64)).astype(np.float32)
        ref = a.astype(np.float64) @ a.T.astype(np.float64)
        xi = rng.standard_normal((8, 16, 32, 32)).astype(np.float32)
        wi = rng.standard_normal((32, 16, 3, 3)).astype(np.float32)
        conv_ref = np.asarray(
            jax.lax.conv(
                jnp.asarray(xi, jnp.float64), jnp.asarray(wi, jnp.float64), (1, 1), "SAME", precision="highest"
            )
        )
        conv = nn.Conv2d(16, 32, 3, pad_mode="same", has_bias=False)
        conv.weight.set_data(Tensor(wi))
        for mm, cv in ((False, True), (True, True), (False, False)):
            op_precision.matmul_allow_tf32(mm)
            op_precision.conv_allow_tf32(cv)
            out = ops.matmul(Tensor(a), Tensor(a.T)).asnumpy()
            bad = int((~np.isclose(out, ref, rtol=1e-4, atol=1e-4)).sum())
            cout = conv(Tensor(xi)).asnumpy()
            print(
                f"matmul_allow_tf32={mm} conv_allow_tf32={cv}: matmul max err {np.abs(out - ref).max():.3g} "
                f"({bad} of 4096 off at 1e-4), conv max err {np.abs(cout - conv_ref).max():.3g}",
                flush=True,
            )
        op_precision.matmul_allow_tf32(False)
        op_precision.conv_allow_tf32(True)
    except Exception:
        traceback.print_exc()

    section("precision: cost, Kiln GRAPH steps, matmul_allow_tf32 False vs True, interleaved rounds")
    try:
        from benchmarks.bench_graph import NeuralNet
        from benchmarks.bench_transformer import kiln_cell_step

        def sync(o):
            jax.block_until_ready(o._data if isinstance(o, Tensor) else o)

        ms.set_context(mode=ms.GRAPH_MODE)
        tstep, _ = kiln_cell_step(ms.GRAPH_MODE)
        ms.set_context(mode=ms.GRAPH_MODE)
        mlp = NeuralNet()
        xb = Tensor(np.ones((64, 1, 28, 28), np.float32))
        big = nn.SequentialCell([nn.Dense(4096, 4096), nn.ReLU(), nn.Dense(4096, 4096)])
        xbig = Tensor(np.random.default_rng(1).standard_normal((4096, 4096)).astype(np.float32))
        cases = {
            "transformer step": (tstep, 50),
            "MLP forward b64": (lambda: mlp(xb), 200),
            "Dense 4096x4096 x2 fwd": (lambda: big(xbig), 20),
        }
        res = {k: {False: [], True: []} for k in cases}
        for _ in range(3):
            for tf32 in (False, True):
                op_precision.matmul_allow_tf32(tf32)
                for name, (fn, n) in cases.items():
                    for _ in range(3):
                        sync(fn())
                    res[name][tf32].append(best_ms(fn, n, sync))
        op_precision.matmul_allow_tf32(False)
        for name, r in res.items():
            ratios = [f / t for f, t in zip(r[False], r[True])]
            print(
                f"{name}: float32 {min(r[False]):.4f} ms, tf32 {min(r[True]):.4f} ms, float32/tf32 per round "
                + ", ".join(f"{q:.2f}x" for q in ratios),
                flush=True,
            )
        ms.set_context(mode=ms.PYNATIVE_MODE)
    except Exception:
        traceback.print_exc()

if WHAT in ("all", "mlp"):
    section("MLP forward: Kiln GRAPH_MODE vs jax.jit per call, interleaved; what Kiln adds")
    try:
        from benchmarks.bench_graph import NeuralNet

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
        sync = lambda o: jax.block_until_ready(o._data if isinstance(o, Tensor) else o)  # noqa: E731
        xd = x._data
        for _ in range(20):
            sync(net(x)), sync(ref(ws, xd))
        kl, jx, kd = [], [], []
        for _ in range(7):
            kl.append(best_ms(lambda: net(x), 500, sync))
            jx.append(best_ms(lambda: ref(ws, xd), 500, sync))
        print("per call ms, kiln:", " ".join(f"{v:.4f}" for v in kl), "| jax:", " ".join(f"{v:.4f}" for v in jx))
        print("ratios per round:", " ".join(f"{a / b:.2f}x" for a, b in zip(kl, jx)), flush=True)

        # the host side alone: calls without waiting (dispatch cost), both
        def dispatch_us(fn, n=2000):
            t0 = time.perf_counter()
            for _ in range(n):
                out = fn()
            t1 = time.perf_counter()
            sync(out)
            return (t1 - t0) / n * 1e6

        print(
            f"host time per call without waiting: kiln {dispatch_us(lambda: net(x)):.1f} us, "
            f"jax {dispatch_us(lambda: ref(ws, xd)):.1f} us",
            flush=True,
        )
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(2000):
            out = net(x)
        sync(out)
        prof.disable()
        s = io.StringIO()
        pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(18)
        print(s.getvalue()[:5000], flush=True)
        ms.set_context(mode=ms.PYNATIVE_MODE)
    except Exception:
        traceback.print_exc()

if WHAT in ("all", "warm"):
    section("warm first GRAPH LeNet5 TrainOneStepCell step: where it goes")
    folder = tempfile.mkdtemp()
    env = {**os.environ, "KILN_CACHE_DIR": folder, "KILN_CACHE_SOURCE_KEY": "probe"}
    me = [sys.executable, os.path.abspath(__file__), "warm-worker"]
    for label, extra in (
        ("cold", {}),
        ("warm", {}),
        ("warm, device pre-warmed", {"PROBE_PREWARM": "1"}),
        ("warm, profiled", {"PROBE_PROFILE": "1"}),
    ):
        try:
            out = subprocess.run(me, env={**env, **extra}, capture_output=True, text=True, timeout=60)
            print(f"--- {label}:", out.stdout[-6000:], out.stderr[-1500:] if out.returncode else "", flush=True)
        except Exception:
            traceback.print_exc()
