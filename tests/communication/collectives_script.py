"""Run by test_communication.py on 2 workers (`kiln run --nproc 2`): every collective across the two
processes against NumPy, groups, gradients through collectives; the same collectives and gradients inside
compiled graphs equal PyNative; data-parallel training in GRAPH_MODE equals one process on the full batch.

Each rank prints one JSON line: {"rank": r, "errors": {name: max abs error or a message}}.
"""

import json
import os
import sys

import numpy as np

import kiln as ms
from kiln import nn, ops
from kiln.communication import (
    GlobalComm,
    comm_func,
    create_group,
    get_group_size,
    get_local_rank,
    get_local_rank_size,
    get_rank,
    init,
    release,
)

ms.set_seed(7)  # before init(), as many MindSpore scripts do
init()
rank, size = get_rank(), get_group_size()
errors = {}
draw = ops.StandardNormal()((3,))  # the same seed on both ranks: the same draw
check_draw = comm_func.all_gather_into_tensor(draw)[0].asnumpy()


def check(name, got, want):
    got = got.asnumpy() if hasattr(got, "asnumpy") else np.asarray(got)
    want = np.asarray(want)
    errors[name] = float(np.abs(got - want).max()) if got.shape == want.shape else f"shape {got.shape} != {want.shape}"


base = [np.arange(6, dtype=np.float32).reshape(2, 3) + 10 * r for r in range(size)]
tall = [np.arange(12, dtype=np.float32).reshape(4, 3) + 100 * r for r in range(size)]
x, y4 = ms.Tensor(base[rank]), ms.Tensor(tall[rank])

check("all_reduce", comm_func.all_reduce(x)[0], sum(base))
check("AllReduce/max", ops.AllReduce(ops.ReduceOp.MAX)(x), np.maximum(*base))
check("AllReduce/min", ops.AllReduce(ops.ReduceOp.MIN)(x), np.minimum(*base))
check("AllReduce/prod", ops.AllReduce(ops.ReduceOp.PROD)(x), base[0] * base[1])
check("all_gather", comm_func.all_gather_into_tensor(x)[0], np.concatenate(base))
check("AllGather", ops.AllGather()(x), np.concatenate(base))
check("reduce_scatter", comm_func.reduce_scatter_tensor(y4)[0], sum(tall)[2 * rank : 2 * rank + 2])
check("ReduceScatter/max", ops.ReduceScatter(ops.ReduceOp.MAX)(y4), np.maximum(*tall)[2 * rank : 2 * rank + 2])
check("broadcast", comm_func.broadcast(x, src=1), base[1])
check("Broadcast", ops.Broadcast(0)((x, y4))[1], tall[0])
check("AlltoAll", ops.AlltoAll(2, 0, 1)(y4), np.concatenate([t[2 * rank : 2 * rank + 2] for t in tall], axis=1))
out, handle = comm_func.all_reduce(x, async_op=True)
handle.wait()
check("all_reduce/async", out, sum(base))
comm_func.barrier()
ops.Barrier()()

create_group("reversed", [1, 0])
errors["group_rank"] = abs(get_rank("reversed") - (1 - rank))
check("group/all_gather", comm_func.all_gather_into_tensor(x, group="reversed")[0], np.concatenate(base[::-1]))

# Gradients through collectives, as MindSpore defines them.
w = ms.Parameter(ms.Tensor(np.full((4,), 1.0 + rank, np.float32)), name="w")
g = ms.grad(lambda w: comm_func.all_reduce(w * w)[0].sum())(w)
check("grad/all_reduce", g, size * 2 * w.asnumpy())
g = ms.grad(lambda w: (comm_func.all_gather_into_tensor(w)[0] ** 2).sum())(w)
check("grad/all_gather", g, size * 2 * w.asnumpy())

reducer = nn.DistributedGradReducer([w, w], mean=False)
grads = (ms.Tensor(np.full((2,), rank + 1.0, np.float32)), ms.Tensor(np.full((3,), 2.0 * rank, np.float32)))
s0, s1 = reducer(grads)
check("reducer/sum", np.concatenate([s0.asnumpy(), s1.asnumpy()]), [3.0, 3.0, 2.0, 2.0, 2.0])


# The same collectives inside compiled graphs (one XLA program over both processes) equal PyNative.
def collectives(x, y4):
    return (
        comm_func.all_reduce(x)[0],
        ops.AllReduce(ops.ReduceOp.MAX)(x * 2),
        ops.AllReduce(ops.ReduceOp.PROD)(x),
        comm_func.all_gather_into_tensor(x)[0],
        ops.ReduceScatter()(y4),
        ops.ReduceScatter(ops.ReduceOp.MIN)(y4),
        comm_func.broadcast(x, src=1),
        ops.Broadcast(0)((y4,))[0],
        ops.AlltoAll(2, 0, 1)(y4),
        comm_func.all_gather_into_tensor(x, group="reversed")[0],
    )


from kiln._backend import distributed as D  # noqa: E402

programs = []
_spmd_jit = D.spmd_jit
D.spmd_jit = lambda fun: programs.append(fun) or _spmd_jit(fun)  # count the graphs compiled over both ranks
eager, graph = collectives(x, y4), ms.jit(collectives)(x, y4)
errors["graph/one_program"] = abs(len(programs) - 1)
for k, (e, gr) in enumerate(zip(eager, graph)):
    check(f"graph/{k}", gr, e.asnumpy())
errors["graph/all_reduce_value"] = float(np.abs(graph[0].asnumpy() - sum(base)).max())


# Gradients through collectives in a graph equal PyNative's (and MindSpore's rules).
def loss(w):
    return (comm_func.all_reduce(w * w)[0] * comm_func.all_gather_into_tensor(w)[0][:4]).sum()


check("graph/grad", ms.jit(ms.grad(loss))(w), ms.grad(loss)(w).asnumpy())

# Data-parallel training in GRAPH_MODE across the two processes equals one process on the full batch.
rng = np.random.default_rng(11)
batch_x = rng.standard_normal((8, 4)).astype(np.float32)
batch_y = rng.standard_normal((8, 2)).astype(np.float32)


def train(data_parallel: bool):
    ms.reset_auto_parallel_context()
    if data_parallel:
        ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True)
    net = nn.Dense(4, 2)
    init_rng = np.random.default_rng(5)
    for p in net.trainable_params():
        p.set_data(ms.Tensor(init_rng.standard_normal(p.shape).astype(np.float32)))
    step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.Momentum(net.trainable_params(), 0.1, 0.9))
    for _ in range(3):
        if data_parallel:
            step(ms.Tensor(batch_x[4 * rank : 4 * rank + 4]), ms.Tensor(batch_y[4 * rank : 4 * rank + 4]))
        else:
            step(ms.Tensor(batch_x), ms.Tensor(batch_y))
    return np.concatenate([p.asnumpy().ravel() for p in net.trainable_params()]), net


ms.set_context(mode=ms.GRAPH_MODE)
before = len(programs)
(dp_params, dp_net), (full_params, full_net) = train(True), train(False)
errors["graph/dp_one_program"] = abs(len(programs) - before - 1)  # the data-parallel step; not the other
ms.set_context(mode=ms.PYNATIVE_MODE)
ms.reset_auto_parallel_context()
diff = float(np.abs(dp_params - full_params).max())
errors["graph/dp_train"] = 0.0 if diff < 1e-6 and dp_params.size == 10 else f"{diff} ({dp_params.size} values)"
both = comm_func.all_gather_into_tensor(ms.Tensor(dp_params))[0].asnumpy()
errors["graph/dp_same_on_ranks"] = float(np.abs(both[:10] - both[10:]).max())

errors["seeded_draw"] = float(np.abs(check_draw[:3] - check_draw[3:]).max())
errors["local"] = abs(get_local_rank() - rank) + abs(get_local_rank_size() - 2)
errors["world_group"] = 0.0 if GlobalComm.WORLD_COMM_GROUP == "mccl_world_group" and GlobalComm.INITED else "bad"
# A strategy across processes splits one global value: a tensor that differs between the ranks is refused.
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL)
try:
    ops.MatMul().shard(((2, 1), (1, 1)))(x, ms.Tensor(np.ones((3, 2), np.float32)))
    errors["semi_auto_differing_input"] = "no error"
except ValueError as e:
    errors["semi_auto_differing_input"] = 0.0 if "not the same on every process" in str(e) else str(e)
ms.reset_auto_parallel_context()

# Checkpoints (when a directory is given): each rank saves its own, with its half of a row-sliced table;
# rank 0 also saves the merged parameters (its one-process full-batch run and the gathered table).
if len(sys.argv) > 1:
    table = np.arange(24, dtype=np.float32).reshape(8, 3)
    mine = ms.Tensor(table[4 * rank : 4 * rank + 4])
    ms.save_checkpoint(dp_net, os.path.join(sys.argv[1], f"rank_{rank}.ckpt"), append_dict={"table": mine})
    gathered = comm_func.all_gather_into_tensor(mine)[0]
    if rank == 0:
        ms.save_checkpoint(full_net, os.path.join(sys.argv[1], "merged.ckpt"), append_dict={"table": gathered})
    comm_func.barrier()

release()
print(json.dumps({"rank": rank, "size": size, "errors": errors}), flush=True)
