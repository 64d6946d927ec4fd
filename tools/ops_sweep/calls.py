"""The sweep's calls, run inside one framework: `python calls.py KIND OUT` under MindSpore's
interpreter, or under `kiln run` (where `import mindspore` is Kiln). Results are pickled to OUT after each name, so
a run that crashes (MindSpore segfaults on some inputs) is resumed by the caller after that name (OUT.skip).

Each name is called on every input set of `INPUTS`; a result is stored as plain data: ("T", dtype, shape, array) for a
Tensor, ("L", [...]) for a sequence, ("V", value) for a Python number, ("E", exception type, first words) when it
raised, ("O", type name) otherwise. KIND is `ops`, `methods`, `primitives` or `numpy` (`mindspore.numpy`'s
functions); `graph-KIND` (Kiln only) stores (PyNative result, result of the same call in `jit`).
"""

from __future__ import annotations

import os
import pickle
import sys
import warnings

import numpy as np

warnings.filterwarnings("ignore")
import mindspore as ms  # noqa: E402  (Kiln under `kiln run`)
from mindspore import Tensor, ops  # noqa: E402

_rng = np.random.default_rng(0)
_A = _rng.uniform(-2, 2, (3, 4)).astype(np.float32)
_B = _rng.uniform(-2, 2, (3, 4)).astype(np.float32)
_P = _rng.uniform(0.1, 2, (3, 4)).astype(np.float32)
_U = _rng.uniform(0.05, 0.95, (3, 4)).astype(np.float32)
_I = _rng.integers(-5, 6, (3, 4)).astype(np.int32)
_J = _rng.integers(1, 6, (3, 4)).astype(np.int32)
_M = _rng.uniform(-1, 1, (4, 4))
_S = (_M @ _M.T + 4 * np.eye(4)).astype(np.float32)  # symmetric positive definite

# The input sets, each built afresh per call (an in-place op must not change the next call's input)
INPUTS = {
    "a": lambda: (Tensor(_A),), "p": lambda: (Tensor(_P),), "u": lambda: (Tensor(_U),), "i": lambda: (Tensor(_I),),
    "s": lambda: (Tensor(_S),), "ab": lambda: (Tensor(_A), Tensor(_B)), "pu": lambda: (Tensor(_P), Tensor(_U)),
    "ij": lambda: (Tensor(_I), Tensor(_J)), "ss": lambda: (Tensor(_S), Tensor(_S)), "a0": lambda: (Tensor(_A), 0),
    "a1": lambda: (Tensor(_A), 1), "a2": lambda: (Tensor(_A), 2),
}  # fmt: skip

# Random draws, host-side effects and graph-syntax helpers: nothing to compare
_SKIP_WORDS = ("random", "rand", "dropout", "multinomial", "uniform", "normal", "shuffle", "bernoulli", "gumbel",
               "rrelu", "sampler", "print", "dump", "summary", "send", "receive", "allreduce", "allgather", "all_",
               "broadcast", "reducescatter", "reduce_scatter", "alltoall", "barrier", "hook", "pyfunc", "custom",
               "depend", "updatestate", "exponential_", "data_ptr")  # fmt: skip
_SKIP = {"deprecated", "constexpr", "primitive_attr", "prim_attr_register", "jit", "grad", "value_and_grad", "vjp",
         "jvp", "vmap", "stop_gradient", "scalar_to_tensor", "iter_converter", "ms_hasnext", "ms_next",
         "zip_operation", "tail", "make_tuple", "tuple_to_array", "kernel", "isconstant", "asnumpy", "numpy",
         "assign_value", "init_data", "set_dtype", "register_hook", "tolist", "item", "itemset", "set_const_arg",
         "data_sync", "offload", "storage", "move_to", "untyped_storage", "to_dlpack", "flush_from_cache"}  # fmt: skip


def skipped(name: str) -> bool:
    low = name.lower()
    return name in _SKIP or any(word in low for word in _SKIP_WORDS)


def plain(value):
    if isinstance(value, Tensor):
        array = value.asnumpy()
        if array.dtype.kind not in "biufc":  # (bfloat16 and other extension dtypes)
            array = array.astype(np.float64)
        return ("T", str(value.dtype), tuple(value.shape), array)
    if isinstance(value, (tuple, list)):
        return ("L", [plain(v) for v in value])
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return ("V", value.item() if isinstance(value, np.generic) else value)
    return ("O", type(value).__name__)


def _call(fn, args):
    try:
        return plain(fn(*args))
    except BaseException as err:  # noqa: BLE001  (a refusal is a result too)
        return ("E", type(err).__name__, str(err)[:300])


def _targets(kind: str) -> list[tuple[str, object]]:
    if kind == "ops":
        names = sorted(n for n in dir(ops) if not n.startswith("_") and n[0].islower())
        found = [(n, getattr(ops, n)) for n in names]
        return [(n, f) for n, f in found if callable(f) and not isinstance(f, type)]
    if kind == "numpy":
        import mindspore.numpy as mnp  # noqa: PLC0415

        names = sorted(n for n in dir(mnp) if not n.startswith("_") and n[0].islower())
        found = [(n, getattr(mnp, n)) for n in names]
        return [(n, f) for n, f in found if callable(f) and not isinstance(f, type)]
    if kind == "methods":
        names = sorted(n for n in dir(Tensor) if not n.startswith("_") and callable(getattr(Tensor, n, None)))
        return [(n, None) for n in names if not n.endswith("_")]  # (in-place methods: their own sweep)
    if kind == "primitives":
        from mindspore.ops import operations as P  # noqa: PLC0415

        names = sorted(n for n in dir(P) if n[0].isupper() and isinstance(getattr(P, n), type))
        return [(n, getattr(P, n)) for n in names if not n.startswith(("Apply", "Sparse", "Fused", "Assign"))]
    raise SystemExit(f"unknown sweep {kind!r}")


def _callable(kind: str, name: str, target):
    """What a call of `name` runs on an input set's values (None: a class that needs constructor arguments)."""
    if kind in ("ops", "numpy"):
        return target
    if kind == "methods":
        return lambda *args: getattr(args[0], name)(*args[1:])
    try:
        return target()
    except BaseException:  # noqa: BLE001  (a class that needs constructor arguments: not swept)
        return None


def _results(kind: str, name: str, target) -> dict:
    out = {}
    graph = kind.startswith("graph-")
    fn = _callable(kind.removeprefix("graph-"), name, target)
    if fn is None:
        return out
    for key, make in INPUTS.items():
        if not graph:
            out[key] = _call(fn, make())
            continue
        # the same call inside `jit`, its Tensor inputs as the compiled function's arguments (numbers as constants)
        eager = _call(fn, make())
        if eager[0] == "E":
            continue
        args = make()
        where = [i for i, a in enumerate(args) if isinstance(a, Tensor)]

        def compiled(*tensors, _args=args, _fn=fn, _where=where):
            full = list(_args)
            for i, t in zip(_where, tensors, strict=True):
                full[i] = t
            return _fn(*full)

        out[key] = (eager, _call(ms.jit(compiled), [args[i] for i in where]))
    return out


def main() -> None:
    kind, path = sys.argv[1], sys.argv[2]
    ms.set_context(mode=ms.PYNATIVE_MODE)
    results = pickle.load(open(path, "rb")) if os.path.exists(path) else {}
    skip = set(open(path + ".skip").read().split()) if os.path.exists(path + ".skip") else set()
    for name, target in _targets(kind.removeprefix("graph-")):
        if name in results or name in skip or skipped(name):
            continue
        with open(path + ".current", "w") as f:  # the name a crash happened in
            f.write(name)
        results[name] = _results(kind, name, target)
        with open(path + ".part", "wb") as f:
            pickle.dump(results, f)
        os.replace(path + ".part", path)
    os.remove(path + ".current") if os.path.exists(path + ".current") else None


if __name__ == "__main__":
    main()
