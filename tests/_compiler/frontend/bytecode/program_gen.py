"""Seeded random programs for the bytecode-capture differential corpus.

Each program mixes Tensor ops with host reads (`asnumpy()`, `item()`, `float(t)`), numpy, Tensor conditions,
dict and list logic, closures, `*args/**kwargs`, comprehensions, try/except, `with`, f-strings, the walrus
operator, prints, and writes to a global list and a global dict; it returns its Tensors and Python values.
"""

from __future__ import annotations

import numpy as np

PRELUDE = """
import numpy as np
import kiln as ms
from kiln import Tensor, ops

G_LIST = []
G_CFG = {"gain": 1.5}


def _h(v, *rest, scale=1.0, **extra):
    out = v * scale
    for r in rest:
        out = out + r
    return out + len(extra)


class _Ctx:
    def __enter__(self):
        return 2.0

    def __exit__(self, *exc):
        return False
"""

# Statement templates: {k} a small constant, {i} the statement's index. Indented by 4 inside the function.
STATEMENTS = [
    "x = x * {k} + y",
    "s = float(x.sum().asnumpy())\nc = c + round(s, 1)",
    "if x.sum() > 0:\n    x = x - {k}\nelse:\n    x = x + {k}",
    "acc.append(x.mean())",
    'cfg["k{i}"] = c * 2',
    "arr = np.tanh(x.asnumpy())\ny = y + Tensor(arr.astype(np.float32))",
    "x = _h(x, y, scale={k}, tag={i})",
    "vals = [x * j for j in range(3)]\nx = vals[-1] - vals[0]",
    'try:\n    c = c + cfg["missing{i}"]\nexcept KeyError:\n    c = c - 1',
    "with _Ctx() as m:\n    x = x * m",
    'msg = f"{{c:.2f}}-{{len(acc)}}"\nprint("msg", msg)',
    "if (n := len(acc)) > 1:\n    x = x + n",
    'print("sum", x.sum())',
    "G_LIST.append(c)",
    "def _clo(v):\n    return v * c + {k}\nx = _clo(x)",
    "if c > 3:\n    x = x * 0.5",
    "k{i} = int(ops.argmax(x).item())\nx = x + k{i}",
    'x = x * G_CFG["gain"]',
    "y = ops.relu(y) - {k}",
    "acc.extend([c, len(cfg)])",
    "d = {{key: val for key, val in cfg.items() if key.startswith('k')}}\nc = c + len(d)",
    "if x.shape[0] > 3:\n    x = x[:3] * 1.0 + x[-3:]\n    y = y[:3]",
]


def make_program(seed: int, n_statements: int = 6) -> str:
    """Source of `prog(x, y, c, cfg, acc)` (prelude included)."""
    rng = np.random.default_rng(seed)
    lines = [PRELUDE, "", "def prog(x, y, c, cfg, acc):"]
    picks = rng.choice(len(STATEMENTS), size=n_statements, replace=False)
    for i, p in enumerate(picks):
        k = float(rng.choice([0.5, 1.0, 2.0]))
        body = STATEMENTS[p].format(k=k, i=i)
        lines.extend("    " + line for line in body.splitlines())
    lines.append("    return x, y, c, acc")
    return "\n".join(lines) + "\n"
