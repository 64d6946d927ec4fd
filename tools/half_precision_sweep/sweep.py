"""Float16 elementwise ops across Kiln's modes and cache tiers, against MindSpore 2.10 and the correctly rounded value.

Each elementwise unary, binary and activation record of the op table (tests/ops/records/math.py) is run on float16
inputs (unary: every finite float16; binary: 65,536 pairs, half from the record's domain, half any finite float16):

- `pynative`: op by op in PyNative (the per-op kernels: XLA's classic emitters);
- `graph_quick`: in a GRAPH_MODE Cell between two multiplies by a float16 one (so that it fuses), every program in
  its quick tier (`KILN_TIERED=quick`: LLVM at -O0 and the classic emitters, what a cold first call runs);
- `graph_optimized`: the same Cell compiled fully at once (`KILN_TIERED=0`: the fusion emitters, what a warm cache
  and a later call run);
- `mindspore`: MindSpore 2.10's CPU kernel in PyNative (`mindspore.ops.<name>`, where it has a float16 kernel);
- the record's reference in float64, rounded once to float16 (the correctly rounded value, up to a double rounding).

Usage, from the repository root (each mode in a process of its own; the last step prints the table):

    PYTHONPATH=$PWD KILN_CACHE_DIR=off python -m tools.half_precision_sweep.sweep kiln pynative OUT
    PYTHONPATH=$PWD KILN_CACHE_DIR=off KILN_TIERED=quick python -m tools.half_precision_sweep.sweep kiln graph_quick OUT
    PYTHONPATH=$PWD KILN_CACHE_DIR=off KILN_TIERED=0 python -m tools.half_precision_sweep.sweep kiln graph_optimized OUT
    /work/msvenv/bin/python tools/half_precision_sweep/sweep.py mindspore OUT
    PYTHONPATH=$PWD python -m tools.half_precision_sweep.sweep table OUT

OUT is a folder; each step writes `<mode>.npz` there (the Kiln steps also `inputs.npz`, the first one to run).
"""

from __future__ import annotations

import os
import sys

import numpy as np

UNARY_N = 1  # inputs of a unary record
SEED = 26


def finite_float16() -> np.ndarray:
    """Every finite float16 value, in bit order."""
    x = np.arange(65536, dtype=np.uint16).view(np.float16)
    return x[np.isfinite(x)]


def ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """|a - b| in float16 units in the last place (0 where both are NaN; 2**20 where one only is NaN)."""
    a, b = np.asarray(a, np.float16), np.asarray(b, np.float16)

    def ordered(v):
        i = v.view(np.uint16).astype(np.int64)
        return np.where(i >= 0x8000, 0x8000 - i, i)

    d = np.abs(ordered(a) - ordered(b))
    na, nb = np.isnan(a), np.isnan(b)
    return np.where(na & nb, 0, np.where(na | nb, 1 << 20, d))


def _records():
    from tests.ops.records import math as table  # noqa: PLC0415  (Kiln's side only: MindSpore's has no tests.ops)

    keep = []
    for rec in [*table.ELEMENTWISE_UNARY, *table.ELEMENTWISE_BINARY, *table.ELEMENTWISE_MORE, *table.ACTIVATIONS]:
        n = len(rec.shapes)
        if n not in (1, 2) or rec.int_inputs or rec.extra.get("make_inputs") in (table.complex_inputs,):
            continue
        if all(np.dtype(d).kind in "iub" for d in rec.dtypes):
            continue
        keep.append(rec)
    return keep


def _inputs(rec, rng) -> list[np.ndarray]:
    if len(rec.shapes) == 1:
        return [finite_float16()]
    lo, hi = rec.domain
    n = 65536
    out = []
    maker = rec.extra.get("make_inputs")
    inside = maker(rng, np.dtype(np.float16), [(n // 2,), (n // 2,)]) if maker else None
    for i in range(2):
        dom = inside[i] if inside is not None else rng.uniform(lo, hi, n // 2).astype(np.float16)
        anything = rng.choice(finite_float16(), n // 2)
        out.append(np.concatenate([np.asarray(dom, np.float16), anything]))
    return out


def run_kiln(mode: str, out_dir: str) -> None:
    import kiln  # noqa: PLC0415
    from kiln import Tensor, nn  # noqa: PLC0415
    from kiln._pynative import dispatch  # noqa: PLC0415

    rng = np.random.default_rng(SEED)
    recs = _records()
    path = os.path.join(out_dir, "inputs.npz")
    if os.path.exists(path):
        saved = dict(np.load(path))
    else:
        saved = {}
        for rec in recs:
            for i, a in enumerate(_inputs(rec, rng)):
                saved[f"{rec.name}/{i}"] = a
        names = [r.name for r in recs]
        plain = [r.name for r in recs if r.kiln is getattr(kiln.ops, r.name, None)]
        saved["__names__"] = np.array(names)
        saved["__plain__"] = np.array(plain)
        np.savez(path, **saved)
    one = Tensor(np.float16(1))

    class Fused(nn.Cell):
        def __init__(self, fn) -> None:
            super().__init__()
            self.fn = fn

        def construct(self, *args):
            out = self.fn(*[a * args[-1] for a in args[:-1]])
            if isinstance(out, tuple):
                out = out[0]
            return out * args[-1]

    results = {}
    dispatch.LAZY = False
    for rec in recs:
        args = [Tensor(saved[f"{rec.name}/{i}"]) for i in range(len(rec.shapes))]
        try:
            if mode == "pynative":
                out = rec.kiln(*args)
                out = out[0] if isinstance(out, tuple) else out
            else:
                kiln.set_context(mode=kiln.GRAPH_MODE)
                try:
                    out = Fused(rec.kiln)(*args, one)
                finally:
                    kiln.set_context(mode=kiln.PYNATIVE_MODE)
            value = out.asnumpy()
        except Exception as err:  # noqa: BLE001  (an op without a float16 form: left out of the table)
            print(f"{rec.name}: {type(err).__name__}: {str(err)[:100]}", file=sys.stderr)
            continue
        if value.dtype == np.float16:
            results[rec.name] = value
    np.savez(os.path.join(out_dir, f"{mode}.npz"), **results)


def run_mindspore(out_dir: str) -> None:
    import mindspore as ms  # noqa: PLC0415

    saved = np.load(os.path.join(out_dir, "inputs.npz"))
    ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    results = {}
    for name in saved["__plain__"]:
        fn = getattr(ms.ops, str(name), None)
        if fn is None:
            continue
        n = 2 if f"{name}/1" in saved else 1
        try:
            out = fn(*[ms.Tensor(saved[f"{name}/{i}"]) for i in range(n)])
            out = out[0] if isinstance(out, tuple) else out
            value = out.asnumpy()
        except Exception as err:  # noqa: BLE001  (no float16 CPU kernel)
            print(f"{name}: {type(err).__name__}: {str(err)[:100]}", file=sys.stderr)
            continue
        if value.dtype == np.float16:
            results[str(name)] = value
    np.savez(os.path.join(out_dir, "mindspore.npz"), **results)


def table(out_dir: str) -> None:
    recs = {r.name: r for r in _records()}
    saved = np.load(os.path.join(out_dir, "inputs.npz"))
    runs = {}
    for mode in ("pynative", "graph_quick", "graph_optimized", "mindspore"):
        p = os.path.join(out_dir, f"{mode}.npz")
        runs[mode] = dict(np.load(p)) if os.path.exists(p) else {}

    def cell(a, b) -> str:
        if a is None or b is None:
            return "-"
        d = ulps(a, b)
        return f"{int((d > 0).sum())}/{int(d.max()) if d.max() < (1 << 20) else 'NaN'}"

    print("op | pyn vs g_quick | pyn vs g_opt | g_quick vs g_opt | pyn vs MS | g_opt vs MS | pyn vs CR | g_opt vs CR")
    for name in saved["__names__"]:
        name = str(name)
        p, q, o, m = (runs[k].get(name) for k in ("pynative", "graph_quick", "graph_optimized", "mindspore"))
        if p is None:
            continue
        args = [saved[f"{name}/{i}"].astype(np.float64) for i in range(2 if f"{name}/1" in saved else 1)]
        with np.errstate(all="ignore"):
            try:
                cr = np.asarray(recs[name].ref(*args), np.float64).astype(np.float16)
            except Exception:  # noqa: BLE001
                cr = None
        finite = None if cr is None else np.isfinite(cr)

        def vs_cr(v, cr=cr, finite=finite):
            return "-" if cr is None else cell(v[finite], cr[finite])

        print(f"{name} | {cell(p, q)} | {cell(p, o)} | {cell(q, o)} | {cell(p, m)} | {cell(o, m)} | {vs_cr(p)} | "
              f"{vs_cr(o) if o is not None else '-'}")  # fmt: skip


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "kiln":
        run_kiln(sys.argv[2], sys.argv[3])
    elif what == "mindspore":
        run_mindspore(sys.argv[2])
    else:
        table(sys.argv[2])
