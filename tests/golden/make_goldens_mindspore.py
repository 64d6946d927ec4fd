"""Record MindSpore 2.10's observable behaviour into mindspore_behaviour.json.

Run it with the MindSpore environment (never from the Kiln test suite):

    /work/msenv/bin/python tests/golden/make_goldens_mindspore.py

What it records, each as data that tests/golden/test_mindspore_behaviour.py replays in Kiln:
dtype inference of Tensor(<Python value>), promotion of binary ops over dtype pairs and
with Python scalars, output dtypes of reductions and index-returning ops, dtypes of the
creation ops, the default parameters of nn.Dense / nn.Conv2d / nn.BatchNorm2d (names,
shapes, dtypes, requires_grad, and statistics of the initial values), and the exception
TYPE raised for a few bad inputs. No message text is recorded.

A MindSpore CPU kernel failure can leave the process in a state where the next op fails
too, so every probe runs in a worker process that is restarted after any exception.
"""

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "mindspore_behaviour.json")

# ---- the probes: (kind, id, python source evaluated with np, ms, ops, nn, Tensor in scope) ----
TENSOR_VALUES = [
    "1", "-7", "2**40", "1.5", "True", "[1, 2]", "[1, 2.5]", "(1, 2.0)", "[True, False]", "[True, 1]",
    "[True, 1.5]", "[[1], [2]]", "np.float64(2)", "np.int32(2)", "np.array([1, 2], np.int16)",
    "np.array([1.0], np.float16)", "np.array([1, 2], np.uint8)", "np.array(True)", "np.float32(1.5)",
    "[np.float32(1.5), np.float32(2)]", "np.array([[1.5]])",
]  # fmt: skip

DTYPES = ["bool_", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64", "bfloat16"]
PAIRS = [
    ("int32", "float16"), ("int8", "uint8"), ("int16", "uint8"), ("uint8", "int32"), ("bool_", "int32"),
    ("bool_", "float32"), ("int64", "float32"), ("int32", "int64"), ("float16", "float32"),
    ("float32", "float64"), ("int8", "int16"), ("int64", "float16"), ("bool_", "float16"), ("uint8", "float16"),
    ("int32", "int32"), ("float16", "bfloat16"), ("bfloat16", "float32"), ("int32", "bfloat16"),
]  # fmt: skip
SCALARS = ["2", "2.5", "True"]
SCALAR_TENSOR_DTYPES = ["int32", "int64", "uint8", "bool_", "float16", "float32"]

REDUCTIONS = {
    "sum": "ops.sum(x)",
    "sum_axis": "ops.sum(x, 0)",
    "mean": "ops.mean(x)",
    "prod": "ops.prod(x)",
    "amax": "ops.amax(x)",
    "argmax": "ops.argmax(x)",
    "argmax_axis": "ops.argmax(x, 0)",
    "cumsum": "ops.cumsum(x, 0)",
    "tensor_sum": "x.sum()",
    "tensor_mean": "x.mean()",
    "mean_axis": "ops.mean(x, 1)",
}
REDUCTION_DTYPES = ["int32", "int64", "bool_", "uint8", "float16", "float32"]
REDUCTION_INPUT = "[[1, 2, 3], [4, 5, 7]]"
# Signed integers also with negative values (how an integer mean rounds).
SIGNED_REDUCTIONS = {"mean_negative": "ops.mean(x, 1)", "tensor_mean_negative": "x.mean()"}
SIGNED_INPUT = "[[-1, -2, -2], [-1, 2, 0]]"

INDEX_OPS = {
    "argmax": "ops.argmax(x, 1)",
    "argmin": "ops.argmin(x, 1)",
    "max_axis": "ops.max(x, 1)",
    "min_axis": "ops.min(x, 1)",
    "topk": "ops.topk(x, 2)",
    "sort": "ops.sort(x)",
    "argsort": "ops.argsort(x)",
}

CREATION = {
    "zeros": "ops.zeros((2, 2))",
    "ones": "ops.ones((2, 2))",
    "full_int": "ops.full((2, 2), 1)",
    "full_float": "ops.full((2, 2), 1.5)",
    "eye": "ops.eye(3)",
    "arange_int": "ops.arange(5)",
    "arange_float": "ops.arange(0.0, 5.0)",
    "arange_mixed": "ops.arange(0, 5, 0.5)",
    "linspace": "ops.linspace(0, 1, 5)",
    "zeros_like_int": "ops.zeros_like(Tensor(np.ones(2, np.int32)))",
    "one_hot": "ops.one_hot(Tensor(np.array([0, 1]), ms.int32), 3, Tensor(1.0), Tensor(0.0))",
}

ERRORS = {
    "add_shape_mismatch": "ops.add(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 5), np.float32)))",
    "mul_shape_mismatch": "ops.mul(Tensor(np.ones((3,), np.float32)), Tensor(np.ones((4,), np.float32)))",
    "reshape_bad_size": "ops.reshape(Tensor(np.ones((2, 3), np.float32)), (4, 2))",
    "matmul_mismatch": "ops.matmul(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 5), np.float32)))",
    "MatMul_mismatch": "ops.MatMul()(Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((4, 5), np.float32)))",
    "bias_add_mismatch": "ops.bias_add(Tensor(np.ones((2, 3, 4, 4), np.float32)), Tensor(np.ones((5,), np.float32)))",
    "squeeze_non_one_axis": "ops.squeeze(Tensor(np.ones((2, 3), np.float32)), 0)",
    "concat_mismatch": "ops.concat((Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 4), np.float32))), 0)",
    "softmax_axis_out_of_range": "ops.softmax(Tensor(np.ones((2, 3), np.float32)), 3)",
    "sum_axis_out_of_range": "ops.sum(Tensor(np.ones((2, 3), np.float32)), 2)",
    "transpose_bad_perm": "ops.transpose(Tensor(np.ones((2, 3), np.float32)), (0, 0))",
    "expand_dims_axis_out_of_range": "ops.expand_dims(Tensor(np.ones((2, 3), np.float32)), 5)",
    "dense_wrong_in_channels": "nn.Dense(3, 4)(Tensor(np.ones((2, 5), np.float32)))",
    "index_out_of_range": "Tensor(np.ones((3, 2), np.float32))[5]",
}

# Layers: a network with one of each, so parameter names carry MindSpore's dotted prefixes.
LAYER_NET = """
class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 4)
        self.fc_nobias = nn.Dense(3, 4, has_bias=False)
        self.conv = nn.Conv2d(3, 8, 3)
        self.conv_bias = nn.Conv2d(3, 8, (3, 5), has_bias=True)
        self.bn = nn.BatchNorm2d(8)
    def construct(self, x):
        return x
"""
# Large layers whose initial values give the initialisers' statistics.
INIT_STATS = {
    "dense_weight": ("nn.Dense(400, 300)", "weight", 400),
    "dense_bias": ("nn.Dense(400, 300)", "bias", 400),
    "conv2d_weight": ("nn.Conv2d(64, 32, 3)", "weight", 64 * 9),
    "conv2d_bias": ("nn.Conv2d(64, 32, 3, has_bias=True)", "bias", 64 * 9),
    "conv1d_weight": ("nn.Conv1d(32, 64, 5)", "weight", 32 * 5),
    "embedding": ("nn.Embedding(200, 64)", "embedding_table", None),
}


def probes():
    out = []
    for v in TENSOR_VALUES:
        out.append(("tensor_dtype", v, f"Tensor({v})"))
    for op in ("add", "mul", "div"):
        for a, b in PAIRS:
            src = f"ops.{op}(Tensor(np.ones(2), ms.{a}), Tensor(np.full(2, 2), ms.{b}))"
            out.append(("promotion", f"{op}|{a}|{b}", src))
    for dt in SCALAR_TENSOR_DTYPES:
        for s in SCALARS:
            for sym, name in (("+", "add"), ("*", "mul"), ("/", "div")):
                out.append(("scalar_promotion", f"{name}|{dt}|{s}", f"Tensor(np.ones(2), ms.{dt}) {sym} {s}"))
    for dt in REDUCTION_DTYPES:
        for name, expr in REDUCTIONS.items():
            out.append(("reduction", f"{name}|{dt}", f"(lambda x: {expr})(Tensor({REDUCTION_INPUT}, ms.{dt}))"))
    for dt in ("int32", "int64"):
        for name, expr in SIGNED_REDUCTIONS.items():
            out.append(("reduction", f"{name}|{dt}", f"(lambda x: {expr})(Tensor({SIGNED_INPUT}, ms.{dt}))"))
    for name, expr in INDEX_OPS.items():
        src = f"(lambda x: {expr})(Tensor(np.array([[1.0, 3.0, 2.0], [0.5, -1.0, 4.0]], np.float32)))"
        out.append(("index_dtype", name, src))
    for name, expr in CREATION.items():
        out.append(("creation", name, expr))
    for name, expr in ERRORS.items():
        out.append(("error", name, expr))
    return out


# ---- worker ------------------------------------------------------------------------------------
def _describe(value):
    import numpy as np  # noqa: F401
    from mindspore import Tensor

    if isinstance(value, Tensor):
        arr = value.asnumpy()
        entry = {"dtype": str(value.dtype), "shape": list(value.shape)}
        if arr.size <= 16 and arr.dtype.kind in "biuf" and str(value.dtype) != "BFloat16":
            entry["value"] = arr.astype(float).tolist() if arr.dtype.kind == "f" else arr.astype(int).tolist()
        return entry
    if isinstance(value, (tuple, list)):
        return {"tuple": [_describe(v) for v in value]}
    return {"python": type(value).__name__}


def worker(start: int) -> None:
    import numpy as np
    import mindspore as ms
    from mindspore import Tensor, nn, ops

    ms.set_context(mode=ms.PYNATIVE_MODE)
    scope = {"np": np, "ms": ms, "ops": ops, "nn": nn, "Tensor": Tensor}
    items = probes()
    for i in range(start, len(items)):
        kind, pid, src = items[i]
        try:
            result = {"ok": _describe(eval(src, scope))}
            failed = False
        except Exception as err:  # the exception type is the datum
            result = {"error": type(err).__name__}
            failed = True
        print(json.dumps({"index": i, "kind": kind, "id": pid, "source": src, **result}), flush=True)
        if failed:
            return  # MindSpore may be in a bad state now: the parent restarts a fresh worker


def layers_worker() -> None:
    import numpy as np
    import mindspore as ms
    from mindspore import nn

    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_seed(0)
    scope = {"nn": nn}
    exec(LAYER_NET, scope)
    net = scope["Net"]()
    params = [
        {
            "name": name,
            "shape": list(p.shape),
            "dtype": str(p.dtype),
            "requires_grad": bool(p.requires_grad),
            "all_equal_to": float(p.asnumpy().flat[0]) if np.all(p.asnumpy() == p.asnumpy().flat[0]) else None,
        }
        for name, p in net.parameters_and_names()
    ]
    trainable = [p.name for p in net.trainable_params()]
    stats = {}
    for key, (ctor, attr, fan_in) in INIT_STATS.items():
        layer = eval(ctor, {"nn": nn})
        arr = getattr(layer, attr).asnumpy().astype(np.float64)
        stats[key] = {
            "layer": ctor,
            "param": attr,
            "fan_in": fan_in,
            "shape": list(arr.shape),
            "mean": float(arr.mean()),
            "std": float(arr.std()),
            "min": float(arr.min()),
            "max": float(arr.max()),
        }
    print(json.dumps({"parameters": params, "trainable": trainable, "init_stats": stats}), flush=True)


# ---- parent ----------------------------------------------------------------------------------------
def run_all() -> dict:
    import mindspore

    results = []
    start, total = 0, len(probes())
    while start < total:
        proc = subprocess.run(
            [sys.executable, __file__, "--worker", str(start)], capture_output=True, text=True, check=False
        )
        lines = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
        if not lines:
            raise RuntimeError(f"worker produced nothing at probe {start}:\n{proc.stderr[-2000:]}")
        results.extend(lines)
        start = lines[-1]["index"] + 1
    proc = subprocess.run([sys.executable, __file__, "--layers"], capture_output=True, text=True, check=True)
    layers = json.loads([line for line in proc.stdout.splitlines() if line.startswith("{")][-1])
    grouped: dict = {"mindspore_version": mindspore.__version__, "layers": layers}
    for r in results:
        entry = {"id": r["id"], "source": r["source"]}
        entry.update({k: r[k] for k in ("ok", "error") if k in r})
        grouped.setdefault(r["kind"], []).append(entry)
    return grouped


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker(int(sys.argv[2]))
    elif len(sys.argv) > 1 and sys.argv[1] == "--layers":
        layers_worker()
    else:
        data = run_all()
        with open(OUT, "w") as fh:
            json.dump(data, fh, indent=1, sort_keys=True)
            fh.write("\n")
        print(f"wrote {OUT}")
