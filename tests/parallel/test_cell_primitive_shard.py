"""Strategies set on the primitives nn cells hold take effect (SEMI_AUTO_PARALLEL, 4 virtual CPU devices).

cell_primitive_shard_script.py shards `conv.conv2d`, `bn.bn_train`, `relu.relu`, `pool.max_pool`, `dense.matmul` and
`dense.bias_add` as zoo networks do (FCN8s, Wide&Deep), and EmbeddingLookup's slice modes set MindSpore's strategies on
its `gatherv2`: each layer's output is split over the 4 devices where the unsharded layer's stays on one, with equal
values (also for strategies set after a compiled function over the layer ran, and for a pickled or deep-copied sharded
network), and a network trained 3 steps with the strategies ends where the
unsharded one ends (losses and every parameter, BatchNorm's moving statistics included), in PyNative and GRAPH_MODE.
The script runs twice on one compile-cache folder: the second run finds the first's programs there (a program split
over several devices is not kept: reloaded on one device, it aborted the process).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, "cell_primitive_shard_script.py")


def _run(cache_dir) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("RANK_ID", "RANK_SIZE", "MS_WORKER_NUM")}
    env.update(JAX_PLATFORMS="cpu", XLA_FLAGS="--xla_force_host_platform_device_count=4", PYTHONPATH=ROOT,
               KILN_CACHE_DIR=str(cache_dir))  # fmt: skip
    proc = subprocess.run([sys.executable, SCRIPT], cwd=ROOT, env=env, text=True, capture_output=True, timeout=300)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _check(report: dict) -> None:
    for layer in ("conv2d", "relu", "max_pool", "dense"):
        assert report[layer]["diff"] == 0.0, (layer, report[layer])
        assert report[layer]["devices"] == [1, 4], (layer, report[layer])  # unsharded: one device; sharded: all 4
    assert report["conv2d"]["spec"][0] == "d0"  # the batch split as conv2d's strategy says
    held = [k for k in report if k.startswith("held_")]
    assert len(held) == 8, held
    split = lambda spec: any(a is not None for a in spec)  # noqa: E731
    for layer in held:  # layers holding primitives since session 25: a strategy on one splits the output
        plain, sharded = report[layer]["specs"]
        assert report[layer]["diff"] < 1e-5 and report[layer]["devices"] == 4, (layer, report[layer])
        assert not split(plain) and split(sharded), (layer, report[layer])
    assert report["relu"]["spec"][:2] == ["d0", "d1"] and report["max_pool"]["spec"][:2] == ["d0", "d1"]
    assert report["dense"]["spec"] == ["d0", "d1"]  # rows as matmul's input strategy, columns as its weight's
    assert report["dense_graph"]["devices"] == 4 and report["dense_graph"]["spec"] == ["d0", "d1"]
    assert report["dense_graph"]["diff"] < 1e-6
    # set after the first call compiled the function: the second call compiles again, split as they say
    assert report["dense_graph_sharded_after"]["devices"] == [1, 4], report["dense_graph_sharded_after"]
    assert report["dense_graph_sharded_after"]["spec"] == ["d0", "d1"]
    assert report["dense_graph_sharded_after"]["diff"] < 1e-6
    for copied in ("pickled", "deepcopied"):  # a sharded Primitive's class is made by shard: it pickles all the same
        assert report[copied]["devices"] == 4 and report[copied]["spec"] == ["d0", "d1"], report[copied]
        assert report[copied]["diff"] < 1e-6
    for mode in ("pynative", "graph"):
        train = report[f"train_{mode}"]
        assert train["loss_diff"] < 1e-5 and train["state_diff"] < 1e-5, (mode, train)
    # EmbeddingLookup's slice modes: MindSpore's strategies on gatherv2 over device_num=4 devices, the plain values
    want = {
        "table_row_slice": [[4, 1], [1, 1]],
        "table_column_slice": [[1, 4], [1, 1]],
        "batch_slice": [[1, 1], [4, 1]],
    }
    for slice_mode, strategy in want.items():
        lookup = report[f"lookup_{slice_mode}"]
        assert lookup["strategy"] == strategy and lookup["diff"] == 0.0 and lookup["devices"] == 4, lookup
    assert report["lookup_table_column_slice"]["spec"] == [None, None, ["d0", "d1"]]  # the table's columns split
    assert report["lookup_batch_slice"]["spec"] == [["d0", "d1"]]  # the ids' rows split
    for slice_mode in ("table_row_slice", "table_column_slice"):
        for mode in ("pynative", "graph"):
            train = report[f"train_lookup_{slice_mode}_{mode}"]
            assert train["loss_diff"] < 1e-4 and train["state_diff"] < 1e-5, (slice_mode, mode, train)


def test_strategies_on_held_primitives_take_effect(tmp_path):
    first = _run(tmp_path / "cache")
    _check(first)
    second = _run(tmp_path / "cache")  # the compile cache the first run filled
    _check(second)
    assert second["train_graph"]["losses"] == first["train_graph"]["losses"]
