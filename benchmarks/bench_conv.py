"""Convolution lowerings on the CPU: XLA's convolution against im2col + one dot, per layer and direction.

    python -m benchmarks.bench_conv [--layers lenet,thin,resnet] [--only xla_nchw,shifted] [--batch 32]
        [--repeat 5] [--match 3x3] [--flags]
    python -m benchmarks.bench_conv --versus-lax [--layers lenet,thin,resnet] [--batch 32] [--repeat 5]
    python -m benchmarks.bench_conv --step [--repeat 9] [--profile]
    python -m benchmarks.bench_conv --pool [--repeat 9]
    python -m benchmarks.bench_conv --transpose [--repeat 3]
    python -m benchmarks.bench_conv --phases [--repeat 10]
    python -m benchmarks.bench_conv --winograd [--repeat 10] [--batch 32]

Pure JAX, one process, every candidate's rounds interleaved with the others' and with a
(512x512)@(512x512) float32 dot, so each figure is also printed as a fraction of the matmul
GFLOP/s measured beside it (load-independent on a shared machine). For each conv layer of
LeNet5 (batch 32) and of ResNet-50's stages (at 56/28/14/7; batch `--batch`, default 32 as issue 22 asks),
forward, input gradient and weight gradient of:

- kiln: Kiln's Conv2D primitive as it lowers on this platform (`kiln._prims.nn.conv`), its gradients its own;
- xla_nchw: `lax.conv_general_dilated` in NCHW/OIHW (gradients by `jax.vjp`);
- xla_nhwc: the same in NHWC/HWIO with the data already in that layout (what the layout alone buys);
- patches: `lax.conv_general_dilated_patches` + one dot;
- im2col: strided slices stacked into columns + one dot (gradients by `jax.vjp`);
- shifted: Kiln's CPU lowering of thin layers (`kiln._prims.nn.conv.shifted_conv`): a sum of
  shifted input slices times per-offset weights, one fused elementwise loop (gradients by `jax.vjp` here;
  Kiln's own are shifted sums too, `shifted_input_grad` and `shifted_weight_grad`);
- matmul: a 1x1 convolution as one dot (1x1 layers only);
- kiln_no_winograd: `kiln` with its Winograd rule off (`WINOGRAD_MIN_CHANNELS` out of reach): Kiln before it;
- winograd, winograd4 (3x3 stride-1 layers): Winograd F(2x2, 3x3) and F(4x4, 3x3) in all three directions, over the
  batch in chunks (`kiln._prims.nn.conv.winograd_conv`, `winograd_input_grad`, `winograd_weight_grad`);
- kiln_eigen: `kiln` compiled with XLA's YNNPACK fusion types less its convolutions (`EIGEN_CONVOLUTIONS`): every
  convolution XLA's own (Eigen) one, dots still YNNPACK's (a per-program option: XLA has no per-convolution one);
- torch: PyTorch's convolution (`torch.nn.functional.conv2d` and `torch.nn.grad.conv2d_input` /
  `conv2d_weight`, oneDNN on the CPU) at its default thread count, when torch is installed: the eager framework
  issue 22 compares with, on the same layer in the same rounds (opt-in with `--only ...,torch`: torch's OpenMP
  threads spin after each call, which slowed the interleaved 512^3 matmul reference from ~350-450 to 145-260
  GFLOP/s on the 2-core machine, so the other candidates' fractions read high in such a run);
- s2d (stride-2 layers): space-to-depth, the padded input's four stride-2 phases as 4C channels, and one stride-1
  convolution with the kernel zero-padded to even sides and split the same way (more FLOPs, no stride);
- phases (stride-2 layers): the four phases' stride-1 convolutions with the kernel's taps of that phase, summed
  (the convolution's own FLOPs).

`--step` times a whole LeNet5 train step (batch 32, value_and_grad + momentum, jitted with Kiln's CPU compile
options) with each lowering choice of the first convolution (XLA's, shifted) and of the 2x2 max pools
(`reduce_window` with XLA's select-and-scatter gradient, Kiln's tiled reshape + first-maximum mask), rounds
interleaved, as ratios to the all-XLA step, and Kiln's own step (both convolutions through Conv2D's primitive as it
lowers on this platform, tiled pools; once more with the second layer's input gradient left to XLA's
convolution, the step before the banded-dot rule): a layer's lowering is chosen by what it does to the step, where
XLA fuses it with its neighbours, not by its time alone. With `--profile`, the XLA kernels of the all-XLA (tiled
pools) and of Kiln's two steps, each kernel's 10th-percentile time per step from `jax.profiler` (under
`taskset -c 0`: one core's).

`--pool` times max pooling forward + gradient of LeNet5's and ResNet-50's pools: XLA's `reduce_window` with
its select-and-scatter derivative against Kiln's MaxPool primitive (its CPU lowering and hand-written gradient).

`--phases` times Kiln's input gradient of stride-2 layers (batch 32) under conv.py's rule as it is and with the
phase rule off (`PHASE_MIN_CHANNELS` out of reach: the lhs-dilated convolution), two copies of each, rounds
interleaved: the median ratio per pair of copies, each round's ratios, and each as a fraction of the matmul. A layer
the rule leaves out runs one program both ways: its ratios are the run's noise.

`--winograd` times Kiln's weight gradient of ResNet-50's 3x3 stride-1 layers (batch `--batch`) with the Winograd rule
as it is and off (`WINOGRAD_MIN_CHANNELS` out of reach), then a ResNet-50-like train step (five bottleneck blocks at
56 and 28, no BatchNorm, batch `--batch` / 2, every convolution through Kiln's Conv2D primitive) the same two ways: two
copies of each, rounds interleaved in alternating order, the median ratio per pair of copies and each round's. A layer
the rule leaves out (7x7) runs one program both ways: its ratios are the run's noise.

`--transpose` compiles and times the transposed convolutions of two zoo networks, UNet++'s four 2x2 / 2
up-convolutions and WGAN's generator's three 4x4 / 2 (padding 1) layers (forward and both gradients, one jitted
program per network): autodiff of the input-dilated convolution XLA is given on the GPU, against Kiln's
Conv2DTranspose as it lowers on this platform with its own gradients (on the CPU: one dot for a transpose that
tiles its output, and the transposed convolution's gradients through Kiln's convolution rules). Per round: the
compile's CPU time (all threads; steadier than wall time on a loaded machine) and the fastest of 20 runs.

`--versus-lax` times each layer's forward and both gradients as one jitted program, Kiln's Conv2D primitive (as it
lowers on this platform, its own gradients) against plain `lax.conv_general_dilated` differentiated by `jax.vjp`:
each round's ratio, their median and the three results' relative difference (the check that Kiln's CPU rewrite does
not slow another platform: on an H200, session 20, the 16 layers of lenet,thin,resnet at batch 32 were 0.90-1.17x, the
ResNet-50 layers' results bit-identical to lax's: XLA's GPU compiler gives both programs the same convolutions).

`--flags` reruns the XLA candidates in subprocesses under each XLA CPU flag this jaxlib accepts
(flags are read when jax is imported) and prints their ratios to the matmul of their own process.
After the per-direction lines, a table per layer and candidate of forward + backward (the three directions'
FLOPs over their summed times) GFLOP/s and its fraction of the matmul's (for LeNet5's first layer, whose input is data,
also forward + weight gradient alone, `f+w`: a train step never computes its input gradient), and a final line: how
many layers meet the target with Kiln's lowering.
Target (issue 22): every layer forward + backward at >= 50% of the matmul GFLOP/s.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import subprocess
import sys

import numpy as np

from benchmarks.common import measure_interleaved, print_device, sync

# (name, batch, C_in, H=W, C_out, kernel, stride, padding[, group])
LENET = [
    ("lenet c1 1->6 5x5 @32", 32, 1, 32, 6, 5, 1, 0),
    ("lenet c2 6->16 5x5 @14", 32, 6, 14, 16, 5, 1, 0),
]
THIN = [  # the shapes the shifted-slice lowering is for, at and beyond its threshold
    ("rgb 3->6 5x5 @32", 32, 3, 32, 6, 5, 1, 0),
    ("rgb 3->64 7x7 /2 @56", 8, 3, 56, 64, 7, 2, 3),
    ("depthwise 3x3 x64 @56", 8, 64, 56, 64, 3, 1, 1, 64),
    ("depthwise 5x5 x128 @28", 8, 128, 28, 128, 5, 1, 2, 128),
]
RESNET = [  # batch 8 here; `--batch` (default 32) replaces it
    ("r50 s1 1x1 64->256 @56", 8, 64, 56, 256, 1, 1, 0),
    ("r50 s1 1x1 256->64 @56", 8, 256, 56, 64, 1, 1, 0),
    ("r50 s1 3x3 64->64 @56", 8, 64, 56, 64, 3, 1, 1),
    ("r50 s2 3x3 128 /2 @56", 8, 128, 56, 128, 3, 2, 1),
    ("r50 s2 1x1 256->512 /2 @56", 8, 256, 56, 512, 1, 2, 0),
    ("r50 s2 3x3 128->128 @28", 8, 128, 28, 128, 3, 1, 1),
    ("r50 s3 3x3 256->256 @14", 8, 256, 14, 256, 3, 1, 1),
    ("r50 s3 1x1 1024->256 @14", 8, 1024, 14, 256, 1, 1, 0),
    ("r50 s4 3x3 512->512 @7", 8, 512, 7, 512, 3, 1, 1),
    ("r50 s4 1x1 512->2048 @7", 8, 512, 7, 2048, 1, 1, 0),
]
# jaxlib 0.10.2's XLA hands dots and NHWC convolutions to YNNPACK by default (`__ynn_fusion` in the optimised HLO;
# a channels-first convolution gets a transpose in and out); its library-fusion flags take LIBRARY_FUSION_TYPE_*
# values (DOT, ELTWISE, REDUCE, INDIVIDUAL_DOT, INDIVIDUAL_CONVOLUTION), and an empty YNN list turns YNNPACK off.
XLA_FLAG_SETS = [
    "--xla_cpu_use_thunk_runtime=false",
    "--xla_cpu_use_onednn=true",
    "--xla_cpu_experimental_onednn_custom_call=true",
    "--xla_cpu_experimental_onednn_fusion_type=LIBRARY_FUSION_TYPE_INDIVIDUAL_CONVOLUTION",
    "--xla_cpu_use_xnnpack=true",
    "--xla_cpu_experimental_xnn_fusion_type=LIBRARY_FUSION_TYPE_INDIVIDUAL_CONVOLUTION",
    "--xla_cpu_experimental_xnn_graph_fusion_mode=XNN_GRAPH_FUSION_MODE_GREEDY",
    "--xla_cpu_experimental_ynn_fusion_type=",
    "--xla_cpu_multi_thread_eigen=false",
    "--xla_cpu_enable_fast_math=true",
]
MATMUL_FLOP = 2 * 512**3
# jaxlib 0.10.2's default YNNPACK fusion types are individual dots, individual convolutions and reductions: without
# the convolutions XLA runs them itself (Eigen). A compile option, so per program, not per convolution.
EIGEN_CONVOLUTIONS = {
    "xla_cpu_experimental_ynn_fusion_type": "LIBRARY_FUSION_TYPE_INDIVIDUAL_DOT,LIBRARY_FUSION_TYPE_REDUCE"
}


def candidates(jax, layer, only):
    """{candidate: (forward, input-gradient, weight-gradient) jitted thunks} for one layer."""
    from kiln._prims.nn import conv as kconv  # noqa: PLC0415  (Kiln is imported only in the main process)

    jnp, lax = jax.numpy, jax.lax
    _, n, c, size, o, k, s, p, g = (*layer, 1)[:9]
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((n, c, size, size), np.float32))
    w = jnp.asarray((rng.standard_normal((o, c // g, k, k)) / np.sqrt(c * k * k)).astype(np.float32))
    out = (size + 2 * p - k) // s + 1
    dy = jnp.asarray(rng.standard_normal((n, o, out, out), np.float32))
    pads = [(p, p), (p, p)]

    def xla(dn):
        def conv(a, b):
            return lax.conv_general_dilated(a, b, (s, s), pads, dimension_numbers=dn, feature_group_count=g)

        return conv

    def patches(a, b):
        cols = lax.conv_general_dilated_patches(a, (k, k), (s, s), pads, dimension_numbers=("NCHW", "OIHW", "NCHW"))
        cols = cols.reshape(n, g, -1, out, out)
        return jnp.einsum("ngkhw,gok->ngohw", cols, b.reshape(g, o // g, -1)).reshape(n, o, out, out)

    def im2col(a, b):
        a = jnp.pad(a, ((0, 0), (0, 0), (p, p), (p, p)))
        end = s * (out - 1) + 1
        cols = jnp.stack([a[:, :, i : i + end : s, j : j + end : s] for i in range(k) for j in range(k)], axis=2)
        cols = cols.reshape(n, g, -1, out, out)
        return jnp.einsum("ngkhw,gok->ngohw", cols, b.reshape(g, o // g, -1)).reshape(n, o, out, out)

    def matmul(a, b):
        return jnp.einsum("nchw,oc->nohw", a[:, :, ::s, ::s], b.reshape(o, c))

    def shifted(a, b):
        return kconv.shifted_conv(a, b, (s, s), pads, (1, 1), g)

    half = -(-k // 2)  # kernel taps per phase along an axis (stride-2 layers)
    side = 2 * (out + half - 1)  # the padded input's side whose phases hold every window

    def phase_split(a):  # (N, C, H, W) -> (N, C, 2, 2, side / 2, side / 2): the padded input's stride-2 phases
        a = jnp.pad(a, ((0, 0), (0, 0), (p, max(side - size - p, 0)), (p, max(side - size - p, 0))))[..., :side, :side]
        return a.reshape(n, c, side // 2, 2, side // 2, 2).transpose(0, 1, 3, 5, 2, 4)

    def s2d(a, b):
        xs = phase_split(a).reshape(n, 4 * c, side // 2, side // 2)
        b = jnp.pad(b, ((0, 0), (0, 0), (0, 2 * half - k), (0, 2 * half - k)))
        b = b.reshape(o, c, half, 2, half, 2).transpose(0, 1, 3, 5, 2, 4).reshape(o, 4 * c, half, half)
        return lax.conv_general_dilated(xs, b, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    def phases(a, b):
        split, total = phase_split(a), None
        for i, j in [(i, j) for i in range(min(k, 2)) for j in range(min(k, 2))]:  # phases with kernel taps
            sub = b[:, :, i::2, j::2]
            xs = split[:, :, i, j, : out + sub.shape[2] - 1, : out + sub.shape[3] - 1]
            y = lax.conv_general_dilated(xs, sub, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))
            total = y if total is None else total + y
        return total

    def directions(conv, a, b, g):
        fwd = jax.jit(conv)
        dx = jax.jit(lambda a_, b_, g_: jax.vjp(lambda t: conv(t, b_), a_)[1](g_)[0])
        dw = jax.jit(lambda a_, b_, g_: jax.vjp(lambda t: conv(a_, t), b_)[1](g_)[0])
        return (lambda: fwd(a, b), lambda: dx(a, b, g), lambda: dw(a, b, g))

    attrs = {"stride": (s, s), "pad_mode": "pad", "pad": (p,) * 4, "dilation": (1, 1), "group": g}
    attrs |= {"data_format": "NCHW"}

    def kiln_directions(options=None, rules=None):  # Conv2D's primitive: its lowering here and its own gradients
        fwd = jax.jit(lambda a_, b_: kconv.Conv2D.impl(a_, b_, None, **attrs), compiler_options=options)
        grads = jax.jit(lambda a_, b_, g_: kconv.Conv2D.custom_vjp(a_, b_, None, out=None, dout=g_, **attrs)[:2])
        dx = jax.jit(lambda a_, b_, g_: grads(a_, b_, g_)[0], compiler_options=options)
        dw = jax.jit(lambda a_, b_, g_: grads(a_, b_, g_)[1], compiler_options=options)
        with rule_constants(kconv, rules or {}):  # traced under these rules
            jax.block_until_ready((fwd(x, w), dx(x, w, dy), dw(x, w, dy)))
        return (lambda: fwd(x, w), lambda: dx(x, w, dy), lambda: dw(x, w, dy))

    def winograd(tile):  # F(tile x tile, 3x3) in every direction (`kiln._prims.nn.conv.winograd_*`)
        fwd = jax.jit(lambda a_, b_: kconv.winograd_conv(a_, b_, pads, tile))
        dx = jax.jit(lambda b_, g_: kconv.winograd_input_grad(g_, b_, pads, (size, size), tile))
        dw = jax.jit(lambda a_, g_: kconv.winograd_weight_grad(a_, g_, pads, tile))
        return (lambda: fwd(x, w), lambda: dx(w, dy), lambda: dw(x, dy))

    x_nhwc, w_hwio, dy_nhwc = x.transpose(0, 2, 3, 1), w.transpose(2, 3, 1, 0), dy.transpose(0, 2, 3, 1)
    table = {
        "kiln": kiln_directions,
        "xla_nchw": lambda: directions(xla(("NCHW", "OIHW", "NCHW")), x, w, dy),
        "xla_nhwc": lambda: directions(xla(("NHWC", "HWIO", "NHWC")), x_nhwc, w_hwio, dy_nhwc),
        "patches": lambda: directions(patches, x, w, dy),
        "im2col": lambda: directions(im2col, x, w, dy),
        "shifted": lambda: directions(shifted, x, w, dy),
    }
    table["kiln_eigen"] = lambda: kiln_directions(EIGEN_CONVOLUTIONS)
    table["kiln_no_winograd"] = lambda: kiln_directions(rules={"WINOGRAD_MIN_CHANNELS": 10**9})  # Kiln before it
    table["torch"] = lambda: torch_directions(layer, np.asarray(x), np.asarray(w), np.asarray(dy))
    if k == 3 and s == 1 and g == 1:
        table["winograd"] = lambda: winograd(2)
        table["winograd4"] = lambda: winograd(4)
    if k == 1 and g == 1:
        table["matmul"] = lambda: directions(matmul, x, w, dy)
    if s == 2 and g == 1:
        table["s2d"] = lambda: directions(s2d, x, w, dy)
        table["phases"] = lambda: directions(phases, x, w, dy)
    made = {name: make() for name, make in table.items() if name in only}
    return {name: fns for name, fns in made.items() if fns is not None}


def torch_directions(layer, x, w, dy):
    """PyTorch's (forward, input-gradient, weight-gradient) thunks for one layer, or None without torch."""
    try:
        import torch  # noqa: PLC0415  (optional: a comparison only, never a Kiln dependency)
    except ImportError:
        return None
    _, _, _, _, _, _, s, p, g = (*layer, 1)[:9]
    tx, tw, tdy = (torch.from_numpy(np.ascontiguousarray(v)) for v in (x, w, dy))
    conv, grad = torch.nn.functional.conv2d, torch.nn.grad
    return (  # no tensor requires grad: nothing is recorded
        lambda: conv(tx, tw, None, s, p, 1, g),
        lambda: grad.conv2d_input(tx.shape, tw, tdy, s, p, 1, g),
        lambda: grad.conv2d_weight(tx, tw.shape, tdy, s, p, 1, g),
    )


def with_batch(layers, batch: int) -> list:
    """The layers with their batch replaced by `batch`."""
    return [(layer[0], batch, *layer[2:]) for layer in layers]


def layer_flop(layer) -> int:
    _, n, c, size, o, k, s, p, g = (*layer, 1)[:9]
    out = (size + 2 * p - k) // s + 1
    return 2 * n * out * out * o * (c // g) * k * k


TARGET_FRACTION = 0.5  # issue 22: forward + backward at >= 50% of the matmul GFLOP/s
# Layers whose input is the network's data: a train step never computes their input gradient (the f+b line counts it;
# an extra f+w line gives forward + weight gradient alone).
DATA_INPUT_LAYERS = ("lenet c1 1->6 5x5 @32",)


def run_layers(layers, only, repeat):
    """Print one line per layer and direction: each candidate's GFLOP/s and its fraction of the matmul's; then
    forward + backward per layer and how many layers meet `TARGET_FRACTION` with Kiln's lowering."""
    import jax  # noqa: PLC0415  (after XLA_FLAGS is final)

    a = jax.numpy.ones((512, 512), np.float32)
    dot = jax.jit(lambda u: u @ u)
    print(f"{'layer':30s} {'dir':3s} " + " ".join(f"{name:>17s}" for name in only) + "   matmul GFLOP/s")
    totals = {}  # layer name -> {candidate: summed seconds of the three directions}, and "matmul512": seconds
    for layer in layers:
        flop = layer_flop(layer)
        number = max(1, min(50, int(3e7 // flop)))
        table = candidates(jax, layer, only)
        for d, direction in enumerate(("fwd", "dx", "dw")):
            cases = {name: fns[d] for name, fns in table.items()}
            cases["matmul512"] = lambda: dot(a)
            times = measure_interleaved(cases, number=number, repeat=repeat, warmup=2)
            summed = totals.setdefault(layer[0], {})
            for name, t in times.items():
                summed[name] = summed.get(name, 0.0) + t
                if direction == "dx":
                    summed[(name, "dx")] = t
            peak = MATMUL_FLOP / times.pop("matmul512") / 1e9
            cells = []
            for name in only:
                if name in times:
                    rate = flop / times[name] / 1e9
                    cells.append(f"{rate:7.1f} ({rate / peak:5.0%})")
                else:
                    cells.append(f"{'-':>17s}")
            print(f"{layer[0]:30s} {direction:3s} " + " ".join(cells) + f"   {peak:6.1f}", flush=True)
    print_fwd_bwd(layers, only, totals)


def print_fwd_bwd(layers, only, totals) -> None:
    """Per layer, forward + backward GFLOP/s (3x the forward's FLOPs over the three directions' summed times)."""
    print(f"\nforward + backward, GFLOP/s (fraction of the matmul's); target >= {TARGET_FRACTION:.0%}")
    print(f"{'layer':30s}     " + " ".join(f"{name:>17s}" for name in only) + "   matmul GFLOP/s")
    met = 0
    for layer in layers:
        summed = totals[layer[0]]
        peak = 3 * MATMUL_FLOP / summed["matmul512"] / 1e9
        cells = []
        for name in only:
            if name not in summed:
                cells.append(f"{'-':>17s}")
                continue
            rate = 3 * layer_flop(layer) / summed[name] / 1e9
            cells.append(f"{rate:7.1f} ({rate / peak:5.0%})")
            met += name == "kiln" and rate / peak >= TARGET_FRACTION
        print(f"{layer[0]:30s} f+b " + " ".join(cells) + f"   {peak:6.1f}", flush=True)
        if layer[0] in DATA_INPUT_LAYERS:
            print_forward_and_weight_grad(layer, only, summed)
    if "kiln" in only:
        print(f"layers at >= {TARGET_FRACTION:.0%} of the matmul with Kiln's lowering: {met} of {len(layers)}")


def print_forward_and_weight_grad(layer, only, summed) -> None:
    """A first layer's forward + weight gradient (2x the forward's FLOPs over their two summed times): what a train
    step computes of it, its input gradient dropped (XLA removes it from the step's program)."""
    cells = []
    peak = 2 * MATMUL_FLOP / (summed["matmul512"] - summed[("matmul512", "dx")]) / 1e9
    for name in only:
        if name not in summed:
            cells.append(f"{'-':>17s}")
            continue
        rate = 2 * layer_flop(layer) / (summed[name] - summed[(name, "dx")]) / 1e9
        cells.append(f"{rate:7.1f} ({rate / peak:5.0%})")
    print(f"{'  (no dx: a train step)':30s} f+w " + " ".join(cells) + f"   {peak:6.1f}", flush=True)


@contextlib.contextmanager
def rule_constants(module, values: dict):
    """`module`'s constants set to `values` for the duration (a lowering rule switched while a step traces)."""
    saved = {name: getattr(module, name) for name in values}
    for name, value in values.items():
        setattr(module, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(module, name, value)


def kiln_conv2d(jax, attrs: dict, rules: dict | None = None, primitive: str = "Conv2D"):
    """Kiln's Conv2D primitive, or another of conv.py's (`primitive`: Conv2DTranspose), with its lowering on this
    platform and its hand-written gradients, as one differentiable JAX function of (x, w) without bias; `rules`
    overrides conv.py's rule constants while it traces."""
    from kiln._prims.nn import conv as kconv  # noqa: PLC0415  (Kiln is imported only in the main process)

    rules = rules or {}
    prim = getattr(kconv, primitive)

    @jax.custom_vjp
    def conv2d(x, w):
        with rule_constants(kconv, rules):
            return prim.impl(x, w, None, **attrs)

    def forward(x, w):
        return conv2d(x, w), (x, w)

    def backward(res, dout):
        with rule_constants(kconv, rules):
            return tuple(prim.custom_vjp(*res, None, out=None, dout=dout, **attrs)[:2])

    conv2d.defvjp(forward, backward)
    return conv2d


def lenet_step(jax, first_conv: str, pooling: str, second_conv: str = "xla", rules: dict | None = None):
    """A jitted LeNet5 train step (params, momenta, x, y) -> (loss, params, momenta) with the given lowerings:
    `first_conv` xla, shifted or kiln (Conv2D's primitive), `second_conv` xla or kiln, `pooling` reduce_window or
    tiled; `rules` overrides conv.py's rule constants for the kiln convolutions.

    Compiled with XLA's default options, as Kiln's optimised tier compiles a GRAPH_MODE/@jit step (`cache.
    compile_program`): with PyNative's classic emitters (`_CPU_OPTIONS`, what this step used until session 14) the
    patches' stacks took 22-28 us where Kiln's own step spent 65-99 us on them."""
    from kiln._prims.nn import conv as kconv  # noqa: PLC0415  (Kiln is imported only in the main process)
    from kiln._prims.nn import pool as kpool  # noqa: PLC0415

    jnp, lax = jax.numpy, jax.lax

    def xla_conv(x, w):
        return lax.conv_general_dilated(x, w, (1, 1), "VALID", dimension_numbers=("NCHW", "OIHW", "NCHW"))

    @jax.custom_vjp
    def shifted(x, w):  # Kiln's forward, XLA's gradients: as Conv2D's primitive lowers it
        return kconv.shifted_conv(x, w, (1, 1), [(0, 0), (0, 0)], (1, 1), 1)

    def shifted_fwd(x, w):
        return shifted(x, w), (x, w)

    def shifted_bwd(res, dy):
        return jax.vjp(xla_conv, *res)[1](dy)

    shifted.defvjp(shifted_fwd, shifted_bwd)

    def reduce_window(x):
        return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")

    @jax.custom_vjp
    def tiled(x):
        return kpool.tiled_max_pool(x, (2, 2), (x.shape[2] // 2, x.shape[3] // 2))

    def tiled_fwd(x):
        y = tiled(x)
        return y, (x, y)

    def tiled_bwd(res, dy):
        x, y = res
        return (kpool.tiled_max_pool_grad(x, y, dy, (2, 2), y.shape[2:]),)

    tiled.defvjp(tiled_fwd, tiled_bwd)
    valid = {"stride": (1, 1), "pad_mode": "valid", "pad": (0,) * 4, "dilation": (1, 1), "group": 1}
    kiln = kiln_conv2d(jax, valid | {"data_format": "NCHW"}, rules)
    conv1 = {"xla": xla_conv, "shifted": shifted, "kiln": kiln}[first_conv]
    conv2 = {"xla": xla_conv, "kiln": kiln}[second_conv]
    pool = {"reduce_window": reduce_window, "tiled": tiled}[pooling]

    def loss_fn(ws, x, y):
        k1, k2, w1, b1, w2, b2, w3, b3 = ws
        h = pool(jax.nn.relu(conv1(x, k1)))
        h = pool(jax.nn.relu(conv2(h, k2)))
        h = h.reshape(h.shape[0], -1)
        h = jax.nn.relu(h @ w1.T + b1)
        h = jax.nn.relu(h @ w2.T + b2)
        logp = jax.nn.log_softmax(h @ w3.T + b3)
        return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))

    def step(ws, moms, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(ws, x, y)
        moms = [0.9 * m + g for m, g in zip(moms, grads, strict=True)]
        return loss, [w - 0.01 * m for w, m in zip(ws, moms, strict=True)], moms

    return jax.jit(step)


def kernel_profile(jax, run, steps: int = 60) -> dict[str, float]:
    """{XLA kernel (thunk) name: 10th-percentile microseconds per step} of `run()` (one step, blocking), from
    `jax.profiler`'s host trace; kernels that ran in fewer than half the steps are left out. The low percentile
    of each kernel is its own time with the machine's other load mostly filtered out; run under `taskset -c 0`
    for one core's time per kernel, free of XLA's intra-op threads."""
    import glob  # noqa: PLC0415
    import tempfile  # noqa: PLC0415

    for _ in range(5):
        run()
    options = jax.profiler.ProfileOptions()
    options.python_tracer_level = 0
    with tempfile.TemporaryDirectory() as folder:
        with jax.profiler.trace(folder, profiler_options=options):
            for _ in range(steps):
                run()
        data = jax.profiler.ProfileData.from_file(glob.glob(f"{folder}/**/*.xplane.pb", recursive=True)[0])
    spans: dict[str, list] = {}
    for plane in data.planes:
        for line in plane.lines:
            for event in line.events:
                if not event.name.startswith(("$", "Thunk", "Pjit", "CommonPjRt")):
                    spans.setdefault(event.name, []).append(event.duration_ns / 1e3)
    return {name: float(np.percentile(us, 10)) for name, us in spans.items() if len(us) >= steps // 2}


def print_kernel_profile(jax, steps: dict, run_args: tuple, top: int = 12) -> None:
    """Print each step's XLA kernels (10th-percentile us per step), largest first, and their sum."""
    for name, step in steps.items():
        kernels = kernel_profile(jax, lambda step=step: step(*run_args)[0].block_until_ready())
        print(f"{name}: kernel sum {sum(kernels.values()):8.1f} us")
        for kernel, us in sorted(kernels.items(), key=lambda kv: -kv[1])[:top]:
            print(f"    {us:8.1f} us  {kernel}")


def run_step(repeat: int, profile: bool = False) -> None:
    """Print the LeNet5 train step's time under each (first conv, pooling) lowering, as a ratio to all-XLA, and
    with `profile` the kernels of the all-XLA step and of Kiln's."""
    import jax  # noqa: PLC0415

    rng = np.random.default_rng(0)
    shapes = [(6, 1, 5, 5), (16, 6, 5, 5), (120, 400), (120,), (84, 120), (84,), (10, 84), (10,)]
    ws = [jax.numpy.asarray(rng.standard_normal(s).astype(np.float32) * 0.1) for s in shapes]
    moms = [jax.numpy.zeros_like(w) for w in ws]
    x = jax.numpy.asarray(rng.standard_normal((32, 1, 32, 32)).astype(np.float32))
    y = jax.numpy.asarray(rng.integers(0, 10, 32).astype(np.int32))
    steps = {
        f"conv1 {c}, pool {p}": lenet_step(jax, c, p) for c in ("xla", "shifted") for p in ("reduce_window", "tiled")
    }
    steps["conv1+2 kiln, pool tiled"] = lenet_step(jax, "kiln", "tiled", "kiln")  # Kiln's step: every rule as is
    # The same with conv2's input gradient left to XLA's convolution (the banded-dot rule off): its step before it.
    steps["kiln, conv2 dx xla"] = lenet_step(jax, "kiln", "tiled", "kiln", {"BANDED_MAX_CHANNELS": 0})
    losses = {name: float(step(ws, moms, x, y)[0]) for name, step in steps.items()}
    cases = {name: (lambda step=step: step(ws, moms, x, y)[0]) for name, step in steps.items()}
    times = measure_interleaved(cases, number=20, repeat=repeat, warmup=2)
    base = times["conv1 xla, pool reduce_window"]
    print(f"LeNet5 train step, batch 32 (median of {repeat} interleaved rounds of 20 steps)")
    for name, t in times.items():
        print(f"{name:36s} {t * 1e3:8.2f} ms  {t / base:5.2f}x   loss {losses[name]:.6f}")
    if profile:
        chosen = ("conv1 xla, pool tiled", "kiln, conv2 dx xla", "conv1+2 kiln, pool tiled")
        print_kernel_profile(jax, {name: steps[name] for name in chosen}, (ws, moms, x, y))


def kiln_max_pool(jax, attrs: dict):
    """Kiln's MaxPool lowering with its hand-written gradient, as one differentiable JAX function."""
    from kiln._prims.nn import pool as kpool  # noqa: PLC0415  (Kiln is imported only in the main process)

    @jax.custom_vjp
    def max_pool(t):
        return kpool.MaxPool.impl(t, **attrs)

    def forward(t):
        out = kpool.MaxPool.impl(t, **attrs)
        return out, (t, out)

    def backward(res, dout):
        return tuple(kpool.MaxPool.custom_vjp(res[0], out=res[1], dout=dout, **attrs))

    max_pool.defvjp(forward, backward)
    return max_pool


POOLS = [  # (name, input shape, kernel, stride, padding)
    ("lenet pool1 2x2/2 @28", (32, 6, 28, 28), 2, 2, 0),
    ("lenet pool2 2x2/2 @10", (32, 16, 10, 10), 2, 2, 0),
    ("r50 stem pool 3x3/2 pad 1 @112", (8, 64, 112, 112), 3, 2, 1),
]


def run_pool(repeat: int) -> None:
    """Print each pool's forward + gradient time: reduce_window against Kiln's MaxPool, rounds interleaved."""
    import jax  # noqa: PLC0415

    jnp, lax = jax.numpy, jax.lax
    print(f"max pool forward + gradient (median of {repeat} interleaved rounds)")
    for name, shape, k, s, p in POOLS:
        x = jnp.asarray(np.maximum(np.random.default_rng(0).standard_normal(shape), 0).astype(np.float32))
        attrs = {"kernel_size": (k, k), "strides": (s, s), "pad_mode": "pad", "pad": (p,) * 4}
        attrs |= {"dilation": (1, 1), "ceil_mode": False}

        def reduce_window(t, k=k, s=s, p=p):
            return lax.reduce_window(t, -jnp.inf, lax.max, (1, 1, k, k), (1, 1, s, s), [(0, 0), (0, 0), (p, p), (p, p)])

        grads = {"reduce_window": reduce_window, "kiln": kiln_max_pool(jax, attrs)}
        grads = {label: jax.jit(jax.grad(lambda t, fn=fn: (fn(t) * 1.5).sum())) for label, fn in grads.items()}
        cases = {label: (lambda f=f, x=x: f(x)) for label, f in grads.items()}
        times = measure_interleaved(cases, number=max(1, int(2e6 // x.size)), repeat=repeat, warmup=2)
        ratio = times["kiln"] / times["reduce_window"]
        print(
            f"{name:32s} reduce_window {times['reduce_window'] * 1e3:8.2f} ms   Kiln {times['kiln'] * 1e3:8.2f} ms"
            f"   {ratio:5.2f}x",
            flush=True,
        )


STRIDED = [  # (name, batch, C_in, H=W, C_out, kernel, stride, padding): ResNet-50's 3x3 / 2 layers and others
    ("r50 3x3 128 /2 @56", 32, 128, 56, 128, 3, 2, 1),
    ("r50 3x3 256 /2 @28", 32, 256, 28, 256, 3, 2, 1),
    ("r50 3x3 512 /2 @14", 32, 512, 14, 512, 3, 2, 1),
    ("5x5 64 /2 @32", 32, 64, 32, 64, 5, 2, 2),
]


WINOGRAD_LAYERS = [(64, 56), (128, 28), (256, 14), (512, 7)]  # ResNet-50's 3x3 stride-1 layers (C -> C, side)
# A ResNet-50-like train step: (C_in, mid, C_out, stride of the first 1x1) bottleneck blocks, no BatchNorm
BOTTLENECKS = [(256, 64, 256, 1), (256, 64, 256, 1), (256, 128, 512, 2), (512, 128, 512, 1), (512, 128, 512, 1)]


def _on_off(fns: dict, repeat: int) -> str:
    """Time `fns` ({on, off, on_b, off_b}: thunks) in rounds of alternating order; the on/off ratios as a line."""
    import time  # noqa: PLC0415

    rounds: dict = {label: [] for label in fns}
    for r in range(repeat):
        for label, fn in list(fns.items())[:: 1 if r % 2 == 0 else -1]:
            start = time.perf_counter()
            fn().block_until_ready()
            rounds[label].append(time.perf_counter() - start)
    med = {label: float(np.median(t)) for label, t in rounds.items()}
    per = " ".join(f"{a / b:.2f}" for a, b in zip(rounds["on"], rounds["off"], strict=True))
    return (
        f"on/off {med['on'] / med['off']:.2f} and {med['on_b'] / med['off_b']:.2f} (copies: off"
        f" {med['off_b'] / med['off']:.2f}, on {med['on_b'] / med['on']:.2f}); on {med['on'] * 1e3:.0f} ms,"
        f" off {med['off'] * 1e3:.0f} ms; rounds {per}"
    )


def run_winograd(repeat: int, batch: int) -> None:
    """Print Kiln's 3x3 stride-1 weight gradient with the Winograd rule on / off per layer (batch `batch`), then a
    ResNet-50-like bottleneck train step (batch `batch` / 2, every convolution Kiln's) on / off: two copies of each,
    rounds interleaved in alternating order."""
    import jax  # noqa: PLC0415

    from kiln._prims.nn import conv as kconv  # noqa: PLC0415  (Kiln is imported only in the main process)

    jnp = jax.numpy
    off = {"WINOGRAD_MIN_CHANNELS": 10**9}
    rng = np.random.default_rng(0)
    print(f"Kiln's weight gradient, Winograd rule on / off (two copies each, {repeat} rounds)")
    for c, size in WINOGRAD_LAYERS:
        x = jnp.asarray(rng.standard_normal((batch, c, size, size)), jnp.float32)
        w = jnp.asarray(rng.standard_normal((c, c, 3, 3)) / np.sqrt(9 * c), jnp.float32)
        dy = jnp.asarray(rng.standard_normal((batch, c, size, size)), jnp.float32)
        attrs = {"stride": (1, 1), "pad_mode": "pad", "pad": (1,) * 4, "dilation": (1, 1), "group": 1}
        attrs |= {"data_format": "NCHW"}

        def make(rules, attrs=attrs, x=x, w=w, dy=dy):
            fn = jax.jit(lambda a_, b_, g_: kconv.Conv2D.custom_vjp(a_, b_, None, out=None, dout=g_, **attrs)[1])
            with rule_constants(kconv, rules):
                fn(x, w, dy).block_until_ready()  # traced, and compiled, under these rules
            return lambda: fn(x, w, dy)

        fns = {"on": make({}), "off": make(off), "on_b": make({}), "off_b": make(off)}
        print(f"3x3 {c} -> {c} @{size:<3d} {_on_off(fns, repeat)}", flush=True)

    def conv_attrs(k, s):
        pad = (k // 2,) * 4
        return {"stride": (s, s), "pad_mode": "pad", "pad": pad, "dilation": (1, 1), "group": 1, "data_format": "NCHW"}

    ws = []
    for c_in, mid, c_out, _ in BOTTLENECKS:
        for shape in ((mid, c_in, 1, 1), (mid, mid, 3, 3), (c_out, mid, 1, 1)):
            ws.append(jnp.asarray(rng.standard_normal(shape) / np.sqrt(np.prod(shape[1:])), jnp.float32))
    x = jnp.asarray(rng.standard_normal((batch // 2, 256, 56, 56)), jnp.float32)

    def make_step(rules):
        convs = [
            [kiln_conv2d(jax, conv_attrs(k, s), rules) for k, s in ((1, stride), (3, 1), (1, 1))]
            for _, _, _, stride in BOTTLENECKS
        ]

        def loss(ws, h):
            for i, ((c1, c3, c1b), (_, _, _, stride)) in enumerate(zip(convs, BOTTLENECKS, strict=True)):
                y = c1b(jax.nn.relu(c3(jax.nn.relu(c1(h, ws[3 * i])), ws[3 * i + 1])), ws[3 * i + 2])
                h = jax.nn.relu(y + (h if stride == 1 else h[:, :, ::2, ::2].repeat(2, 1)))
            return (h.mean((2, 3)) ** 2).mean()

        def step(ws, h):
            value, grads = jax.value_and_grad(loss)(ws, h)
            return value, [w - 0.01 * g for w, g in zip(ws, grads, strict=True)]

        step = jax.jit(step)
        jax.block_until_ready(step(ws, x))
        return lambda: step(ws, x)[0]

    fns = {"on": make_step({}), "off": make_step(off), "on_b": make_step({}), "off_b": make_step(off)}
    print(f"bottleneck step, batch {batch // 2}: {_on_off(fns, repeat)}", flush=True)


def run_phases(repeat: int) -> None:
    """Print, per stride-2 layer, Kiln's input gradient with the phase rule against without it (see --phases)."""
    import time  # noqa: PLC0415

    import jax  # noqa: PLC0415

    from kiln._prims.nn import conv as kconv  # noqa: PLC0415  (Kiln is imported only in the main process)

    jnp = jax.numpy
    a = jnp.ones((512, 512), np.float32)
    dot = jax.jit(lambda u: u @ u)
    off = {"PHASE_MIN_CHANNELS": 10**9}
    print(f"Kiln's stride-2 input gradient, phase rule on / off (two copies each, {repeat} interleaved rounds)")
    for layer in STRIDED:
        name, n, c, size, o, k, s, p = layer
        rng = np.random.default_rng(0)
        x = jnp.asarray(rng.standard_normal((n, c, size, size), np.float32))
        w = jnp.asarray((rng.standard_normal((o, c, k, k)) / np.sqrt(c * k * k)).astype(np.float32))
        out = (size + 2 * p - k) // s + 1
        dy = jnp.asarray(rng.standard_normal((n, o, out, out), np.float32))
        attrs = {"stride": (s, s), "pad_mode": "pad", "pad": (p,) * 4, "dilation": (1, 1), "group": 1}
        attrs |= {"data_format": "NCHW"}

        def make(rules, attrs=attrs, x=x, w=w, dy=dy):
            fn = jax.jit(lambda a_, b_, g_: kconv.Conv2D.custom_vjp(a_, b_, None, out=None, dout=g_, **attrs)[0])
            with rule_constants(kconv, rules):
                fn(x, w, dy).block_until_ready()  # traced, and compiled, under these rules
            return lambda: fn(x, w, dy)

        fns = {"on": make({}), "off": make(off), "on_b": make({}), "off_b": make(off)}
        rounds: dict = {label: [] for label in fns}
        matmul = []
        for _ in range(repeat):
            for label, fn in fns.items():
                start = time.perf_counter()
                fn().block_until_ready()
                rounds[label].append(time.perf_counter() - start)
            start = time.perf_counter()
            for _ in range(20):
                result = dot(a)
            result.block_until_ready()
            matmul.append((time.perf_counter() - start) / 20)
        med = {label: float(np.median(t)) for label, t in rounds.items()}
        peak = MATMUL_FLOP / float(np.median(matmul))
        flop = layer_flop(layer)
        per = " ".join(f"{u / v:.2f}/{y / z:.2f}" for u, v, y, z in zip(*rounds.values(), strict=True))
        print(
            f"{name:20s} on/off {med['on'] / med['off']:.2f} and {med['on_b'] / med['off_b']:.2f}"
            f" (copies {med['off_b'] / med['off']:.2f}, {med['on_b'] / med['on']:.2f}); of the matmul"
            f" on {flop / med['on'] / peak:.0%}, off {flop / med['off'] / peak:.0%}; rounds {per}",
            flush=True,
        )


UP_CONVS = [
    ((2, 64, 2, 2), (64, 32, 2, 2)),
    ((2, 32, 4, 4), (32, 16, 2, 2)),
    ((2, 16, 8, 8), (16, 8, 2, 2)),
    ((2, 8, 16, 16), (8, 4, 2, 2)),
]  # fmt: skip  (x, weight (C_in, C_out, kh, kw)) of UNet++ at 32x32
GAN_CONVS = [
    ((8, 64, 4, 4), (64, 32, 4, 4)),
    ((8, 32, 8, 8), (32, 16, 4, 4)),
    ((8, 16, 16, 16), (16, 3, 4, 4)),
]  # fmt: skip  WGAN's DCGAN generator (32x32, 16 features, batch 8): 4x4, stride 2, padding 1
TRANSPOSED_LAYERS = {
    "UNet++ up-convolutions 2x2 / 2": (UP_CONVS, (2, 2), (0, 0, 0, 0)),
    "WGAN generator 4x4 / 2, padding 1": (GAN_CONVS, (2, 2), (1, 1, 1, 1)),
}


def run_transpose(repeat: int) -> None:
    """Print compile CPU time and run time of zoo networks' transposed convolutions, autodiff of XLA's dilated
    convolution against Kiln's Conv2DTranspose with its gradients."""
    import time  # noqa: PLC0415

    import jax  # noqa: PLC0415

    from kiln._prims.nn import conv  # noqa: PLC0415

    jax.config.update("jax_enable_compilation_cache", False)  # every round compiles
    jnp = jax.numpy
    rng = np.random.default_rng(0)
    for title, (layers, stride, pad) in TRANSPOSED_LAYERS.items():
        params = [tuple(jnp.asarray(rng.standard_normal(s).astype(np.float32)) for s in shapes) for shapes in layers]
        attrs = {"stride": stride, "pad_mode": "pad", "pad": pad, "dilation": (1, 1), "group": 1,
                 "output_padding": (0, 0), "output_size": None, "data_format": "NCHW"}  # fmt: skip

        def dilated(x, w, stride=stride, pad=pad):
            pads, outs = conv.transpose_geometry(x.shape[2:], w.shape[2:], stride, (1, 1), "pad", pad, (0, 0), None)
            return conv._transpose(x, w, stride, pads, (1, 1), 1, tuple(outs), "NCHW")

        kiln = kiln_conv2d(jax, attrs, primitive="Conv2DTranspose")

        def program(up, params=params):
            return jax.jit(jax.value_and_grad(lambda ps: sum((up(x, w) ** 2).sum() for x, w in ps)))

        results: dict = {"dilated convolution": [], "Kiln's": []}
        values = {}
        for _ in range(repeat):
            for label, up in (("dilated convolution", dilated), ("Kiln's", kiln)):
                lowered = program(up).lower(params)
                cpu = time.process_time()
                compiled = lowered.compile()
                cpu = time.process_time() - cpu
                values[label] = compiled(params)
                runs = []
                for _ in range(20):
                    start = time.perf_counter()
                    jax.block_until_ready(compiled(params))
                    runs.append(time.perf_counter() - start)
                results[label].append((cpu, min(runs), lowered.as_text().count("\n")))
        pairs = zip(*(jax.tree.leaves(v) for v in values.values()), strict=True)
        difference = max(float(jnp.abs(a - b).max() / jnp.abs(b).max()) for a, b in pairs)
        print(f"{title}, forward + both gradients: compile CPU s and fastest run per round")
        for label, rounds in results.items():
            compiles = " ".join(f"{c:5.2f}" for c, _, _ in rounds)
            runs = " ".join(f"{1e6 * r:7.0f}" for _, r, _ in rounds)
            print(f"  {label:20s} compile CPU {compiles} s   run {runs} us   {rounds[0][2]} MLIR lines", flush=True)
        print(f"  largest difference of loss and gradients, relative to the largest value: {difference:.1e}")


def layer_attrs(layer) -> dict:
    """Conv2D's attributes for one layer (NCHW)."""
    _, _, _, _, _, _, s, p, g = (*layer, 1)[:9]
    return {"stride": (s, s), "pad_mode": "pad", "pad": (p,) * 4, "dilation": (1, 1), "group": g, "data_format": "NCHW"}


def _timed_rounds(cases: dict, repeat: int, round_seconds: float = 0.05) -> dict[str, list[float]]:
    """Seconds per call of each case in each of `repeat` rounds, the cases' rounds interleaved; calls per round
    chosen so that the slowest case's round takes about `round_seconds` (GPU calls are short: one call per round
    would time the host's launch and wait, not the kernels)."""
    import time  # noqa: PLC0415

    slowest = 0.0
    for fn in cases.values():
        sync(fn())  # compile
        t0 = time.perf_counter()
        sync(fn())
        slowest = max(slowest, time.perf_counter() - t0)
    number = max(1, min(200, int(round_seconds / max(slowest, 1e-6))))
    rounds: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, fn in cases.items():
            t0 = time.perf_counter()
            for _ in range(number):
                out = fn()
            sync(out)
            rounds[name].append((time.perf_counter() - t0) / number)
    return rounds


def versus_lax_layer(jax, layer, repeat: int) -> tuple[float, str]:
    """One layer of `run_versus_lax`: (median ratio kiln / lax, its printed line)."""
    jnp, lax = jax.numpy, jax.lax
    _, n, c, size, o, k, s, p, g = (*layer, 1)[:9]
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((n, c, size, size), np.float32))
    w = jnp.asarray((rng.standard_normal((o, c // g, k, k)) / np.sqrt(c * k * k)).astype(np.float32))
    out = (size + 2 * p - k) // s + 1
    dy = jnp.asarray(rng.standard_normal((n, o, out, out), np.float32))

    def plain(lhs, rhs):
        dn = ("NCHW", "OIHW", "NCHW")
        return lax.conv_general_dilated(lhs, rhs, (s, s), [(p, p)] * 2, dimension_numbers=dn, feature_group_count=g)

    def forward_backward(conv):
        def run(lhs, rhs, cotangent):
            y, pull = jax.vjp(conv, lhs, rhs)
            return (y, *pull(cotangent))

        return jax.jit(run)

    fns = {"kiln": forward_backward(kiln_conv2d(jax, layer_attrs(layer))), "lax": forward_backward(plain)}
    got, want = fns["kiln"](x, w, dy), fns["lax"](x, w, dy)
    diff = max(float(jnp.linalg.norm(u - v) / jnp.linalg.norm(v)) for u, v in zip(got, want, strict=True))
    rounds = _timed_rounds({name: (lambda f=f: f(x, w, dy)) for name, f in fns.items()}, repeat)
    ratios = [u / v for u, v in zip(rounds["kiln"], rounds["lax"], strict=True)]
    tk, tl = (float(np.median(rounds[name])) * 1e3 for name in ("kiln", "lax"))
    median = float(np.median(ratios))
    each = " ".join(f"{r:.2f}" for r in ratios)
    return median, f"{layer[0]:30s} {tk:8.3f}ms {tl:8.3f}ms {median:7.2f}x  {diff:8.1e}  {each}"


def run_versus_lax(layers, repeat: int) -> None:
    """Per layer, forward + both gradients as one jitted program: Kiln's Conv2D primitive (its lowering on this
    platform and its own gradients) against plain `lax.conv_general_dilated` differentiated by `jax.vjp`; the
    relative difference of the three results, each round's time ratio kiln / lax and their median."""
    import jax  # noqa: PLC0415

    head = f"{'layer':30s} {'kiln':>10s} {'lax':>10s} {'kiln/lax':>8s}"
    print(head + "  rel.diff  rounds (kiln/lax)")
    medians = []
    for layer in layers:
        median, line = versus_lax_layer(jax, layer, repeat)
        medians.append(median)
        print(line, flush=True)
    print(f"median of the layers' median ratios kiln/lax: {float(np.median(medians)):.2f}x (max {max(medians):.2f}x)")


def sweep_flags(args) -> None:
    """Rerun the XLA candidates under each flag set in a subprocess; flags the jaxlib rejects are reported."""
    for flags in ["", *XLA_FLAG_SETS]:
        env = dict(os.environ, XLA_FLAGS=flags)
        print(f"\n--- XLA_FLAGS={flags!r}", flush=True)
        cmd = [sys.executable, "-m", "benchmarks.bench_conv", "--layers", args.layers, "--repeat", str(args.repeat)]
        cmd += ["--batch", str(args.batch)]
        cmd += ["--only", "kiln,xla_nchw,xla_nhwc,shifted"]
        proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
        if proc.returncode:
            print(f"rejected or failed (rc {proc.returncode}): {proc.stderr.strip().splitlines()[-1:]}")
        else:
            print(proc.stdout.split("\n", 1)[1].rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="lenet,thin,resnet", help="comma-separated: lenet, thin, resnet")
    parser.add_argument(
        "--only", default="kiln,xla_nchw,xla_nhwc,patches,im2col,shifted,matmul", help="candidates to run"
    )
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32, help="batch of the ResNet-50 layers")
    parser.add_argument("--match", default="", help="only the layers whose name contains this (e.g. 3x3)")
    parser.add_argument("--flags", action="store_true", help="also sweep XLA CPU flags in subprocesses")
    parser.add_argument("--step", action="store_true", help="time the LeNet5 train step per lowering choice instead")
    parser.add_argument("--profile", action="store_true", help="with --step: also each step's XLA kernels")
    parser.add_argument("--pool", action="store_true", help="time max pooling forward + gradient instead")
    parser.add_argument(
        "--transpose", action="store_true", help="compile and time zoo networks' transposed convolutions instead"
    )
    parser.add_argument("--phases", action="store_true", help="time stride-2 input gradients, phase rule on and off")
    parser.add_argument("--winograd", action="store_true", help="3x3 weight gradients and a step, Winograd on and off")
    parser.add_argument(
        "--versus-lax", action="store_true", help="each layer's forward + backward: Kiln's Conv2D against plain lax"
    )
    args = parser.parse_args()
    print_device()
    if args.winograd:
        run_winograd(args.repeat, args.batch)
        return
    if args.phases:
        run_phases(args.repeat)
        return
    if args.transpose:
        run_transpose(args.repeat)
        return
    if args.step or args.pool:
        run_step(args.repeat, args.profile) if args.step else run_pool(args.repeat)
        return
    groups = {"lenet": LENET, "thin": THIN, "resnet": with_batch(RESNET, args.batch)}
    layers = [layer for group in args.layers.split(",") for layer in groups[group] if args.match in layer[0]]
    if args.versus_lax:
        run_versus_lax(layers, args.repeat)
        return
    print("GFLOP/s (fraction of the 512^3 matmul's GFLOP/s in the same rounds)")
    run_layers(layers, args.only.split(","), args.repeat)
    if args.flags:
        sweep_flags(args)


if __name__ == "__main__":
    main()
