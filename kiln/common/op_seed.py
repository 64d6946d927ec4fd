"""Seeds of random kernels (MindSpore's `mindspore.common.seed`): the global seed and per-op seed pairs.

`_get_graph_seed(op_seed, kernel_name)` gives the (graph seed, op seed) pair a random kernel is built with, as zoo
layers that build their own random Primitives ask for it: (0, 0) when neither seed is set (the kernel seeds itself),
else the global seed (87654321 standing for a global seed of 0) and an op seed that is `op_seed` on the kernel's
first use and advances on each later use of the same (kernel, op_seed), so that two dropout layers built with one
seed draw different masks while a rerun of the program draws the same ones.
"""

from __future__ import annotations

from kiln._core.random_state import get_seed
from kiln.common.api import set_seed

__all__ = ["get_seed", "set_seed"]

_DEFAULT_GRAPH_SEED = 87654321
_SEED_MODULUS = 2**31 - 1
_uses: dict[tuple[str, int], int] = {}


def _get_graph_seed(op_seed: int | None, kernel_name: str) -> tuple[int, int]:
    """The (graph seed, op seed) pair for one more random kernel `kernel_name` built with `op_seed`.

    Args:
        op_seed: the op-level seed (None or 0: not set).
        kernel_name: the random kernel's name (`"dropout"`, `"normal"`, ...).

    Returns:
        (0, 0) when neither the global nor the op seed is set; else both seeds, reduced below 2**31 - 1.

    Raises:
        ValueError: `op_seed` is negative or not an int.
    """
    global_seed = get_seed()
    global_seed = _DEFAULT_GRAPH_SEED if global_seed == 0 else (global_seed or 0)
    op_seed = 0 if op_seed is None else op_seed
    if isinstance(op_seed, bool) or not isinstance(op_seed, int) or op_seed < 0:
        raise ValueError(f"{kernel_name}: 'seed' must be an int >= 0, but got {op_seed!r}.")
    if global_seed == 0 and op_seed == 0:
        return 0, 0
    key = (kernel_name, op_seed)
    use = _uses.get(key, 0)
    _uses[key] = use + 1
    # Later uses step through a Weyl sequence from op_seed: distinct for each use, the same in every run.
    advanced = (op_seed + use * 0x9E3779B1) % _SEED_MODULUS
    return global_seed % _SEED_MODULUS, advanced
