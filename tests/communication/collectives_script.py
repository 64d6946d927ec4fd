"""Run by test_communication.py on 2 workers (`kiln run --nproc 2`): every collective across the two
processes against NumPy, groups, gradients through collectives, and the refusal inside a compiled graph.

Each rank prints one JSON line: {"rank": r, "errors": {name: max abs error or a message}}.
"""

import json

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

try:
    ms.jit(lambda t: comm_func.all_reduce(t)[0])(x)
    errors["graph_mode"] = "no error"
except NotImplementedError as e:
    errors["graph_mode"] = 0.0 if "PyNative mode only" in str(e) else str(e)

errors["seeded_draw"] = float(np.abs(check_draw[:3] - check_draw[3:]).max())
errors["local"] = abs(get_local_rank() - rank) + abs(get_local_rank_size() - 2)
errors["world_group"] = 0.0 if GlobalComm.WORLD_COMM_GROUP == "mccl_world_group" and GlobalComm.INITED else "bad"
release()
print(json.dumps({"rank": rank, "size": size, "errors": errors}), flush=True)
