"""Run by test_communication.py on 2 workers: rank 1 dies (SIGKILL) after a first all-reduce while rank 0
waits in a second one; the launcher must stop rank 0 and fail."""

import os
import signal
import time

import numpy as np

import kiln as ms
from kiln.communication import comm_func, get_rank, init

init()
x = ms.Tensor(np.ones(3, np.float32))
comm_func.all_reduce(x)[0].asnumpy()
print(f"first all-reduce done at {time.time():.3f}", flush=True)
if get_rank() == 1:
    os.kill(os.getpid(), signal.SIGKILL)
comm_func.all_reduce(x)[0].asnumpy()  # never completes: rank 1 is gone
time.sleep(600)
