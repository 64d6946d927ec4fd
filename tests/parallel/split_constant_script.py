"""A GRAPH_MODE program holding as a constant a Tensor split across the processes of a 2-process job.

Under SEMI_AUTO_PARALLEL, a MatMul whose strategy splits the columns of its second input over the job's 4 devices
gives, in PyNative, a result split across both processes. Cells keep it as a constant attribute and read it in
GRAPH_MODE inside a branch on a tensor condition and inside a `while` loop on a tensor (a conditional and a loop of
the program). Each rank prints `rank R: NAME: VALUES` (or `error: ...`).
"""

import mindspore as ms
import numpy as np
from mindspore import Parameter, Tensor, nn, ops
from mindspore.communication import get_rank, init

init()
rank = get_rank()
ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.SEMI_AUTO_PARALLEL, full_batch=True)
X = np.arange(8, dtype=np.float32).reshape(2, 4) / 4
W = np.arange(16, dtype=np.float32).reshape(4, 4) / 8


class Split(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(W), name="w")
        self.mm = ops.MatMul().shard(((1, 1), (1, 4)))

    def construct(self, x):
        return self.mm(x, self.w)


class Branches(nn.Cell):
    def __init__(self, constant):
        super().__init__()
        self.constant = constant

    def construct(self, x):
        if x.sum() > 0:
            return x * self.constant
        return x - self.constant


class Loop(nn.Cell):
    def __init__(self, constant):
        super().__init__()
        self.constant = constant

    def construct(self, x):
        i = Tensor(0, ms.int32)
        while i < x.shape[0] + 1:
            x = x + self.constant
            i = i + 1
        return x


def show(name, value):
    try:
        text = str(value().asnumpy().ravel().tolist())
    except Exception as err:  # noqa: BLE001  (the test reads the message)
        text = f"error: {type(err).__name__}: {err}".replace("\n", " ")
    print(f"rank {rank}: {name}: {text}", flush=True)


split = Split()(Tensor(X))
print(f"rank {rank}: split across processes: {not split._data.is_fully_addressable}", flush=True)
ms.set_context(mode=ms.GRAPH_MODE)
show("branch", lambda: Branches(split)(Tensor(X)))
show("loop", lambda: Loop(split)(Tensor(X)))
