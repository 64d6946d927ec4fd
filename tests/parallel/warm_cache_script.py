"""Values made by programs of no array input, in a job of 2 processes, read and used by later programs.

`ops.ones`, `ops.zeros` and `ops.fill` take no array: their PyNative program runs on the default device. A Cell
keeps one as a constant attribute and reads it in GRAPH_MODE inside a branch on a tensor condition. Run twice on
one cache folder (`kiln run --nproc 2`, KILN_CACHE_DIR), the second run loads these programs from the disk. Each
rank prints `rank R: NAME: VALUES` (or `error: ...`), and `rank R: local NAME: True/False` for each value made
(whether it lies on this process's devices).
"""

import mindspore as ms
import numpy as np
from mindspore import Tensor, nn, ops
from mindspore.communication import get_rank, init

init()
rank = get_rank()


class Branches(nn.Cell):
    """Closes over a constant Tensor inside both branches of a tensor `if` (a conditional in the program)."""

    def __init__(self, constant):
        super().__init__()
        self.constant = constant

    def construct(self, x):
        if x.sum() > 0:
            return x * self.constant
        return x - self.constant


def show(name, value):
    """Print NAME's value (a Tensor), or the error reading it gave."""
    try:
        text = str(value().asnumpy().ravel().tolist())
    except Exception as err:  # noqa: BLE001  (the test reads the message)
        text = f"error: {type(err).__name__}: {err}".replace("\n", " ")
    print(f"rank {rank}: {name}: {text}", flush=True)


made = {
    "ones": ops.ones((3,), ms.float32),
    "zeros": ops.zeros((2, 2), ms.float32),
    "fill": ops.fill(ms.float32, (3,), 2.5),
}
ms.set_context(mode=ms.GRAPH_MODE)
x = Tensor(np.array([1.0, 2.0, 3.0], np.float32))
show("branch", lambda: Branches(made["fill"])(x))
for name, value in made.items():
    print(f"rank {rank}: local {name}: {value._data.is_fully_addressable}", flush=True)
    show(name, lambda value=value: value)
