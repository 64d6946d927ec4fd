"""Programs that must give the same results in PyNative and in Graph mode (one per supported construct)."""

import numpy as np

import kiln as ms
from kiln import Parameter, Tensor, nn, ops

SCALE = 3


def arith(x, y):
    return x * 2 + y - 1 / (y + 3) - x**2 + (-x) + abs(y) * 0.5


def int_ops(x, y):
    return x // 2 + x % 3, x @ y.T


def compare_bool(x, y):
    m = (x > 0) & (y < 1) | (x == y)
    return ops.select(m, x, y), not (1 < 2 < 0)


def containers(x, y):
    t = (x, y)
    lst = [x, y, x + y]
    d = {"a": x, "b": y}
    a, b = t
    lst[1] = lst[1] * 3
    d["c"] = d["a"] - d["b"]
    return t[0] + t[-1], lst, d["c"], a * b, len(lst)


def slicing(x, y):
    return x[0, 1:3], x[:, ::2], x[..., 0], x[None].shape, y[-1]


def set_slices(x, y):
    x[0, 1:3] = 5.0
    x[1] = y[0]
    return x


def const_if(x, y, flag=True):
    if flag and SCALE > 2:
        z = x * SCALE
    elif SCALE == 1:
        z = y
    else:
        z = x - y
    return z


def tensor_if(x, y):
    if x.sum() > y.sum():
        z = x * 2
        w = y
    else:
        z = y - 1
        w = x
    return z + w


def tensor_elif(x, y):
    s = x.sum()
    if s > 100:
        out = x
    elif s > 0:
        out = y * 2
    else:
        out = x - y
    return out


def nested_tensor_if(x, y):
    out = x
    if x.mean() > 0:
        if y.mean() > 0:
            out = x + y
        else:
            out = x - y
    return out * 2


def return_in_branches(x, y):
    if x.sum() < y.sum():
        return x * 3
    else:
        return y + 1


def early_return(x, y):
    if x.max() > 5:
        return x
    x = x + y
    return x * 2


def ifexp(x, y):
    a = x if SCALE > 1 else y
    b = x * 2 if y.sum() > 0 else y * 3
    return a + b


def while_const(x, y):
    i = 0
    while i < 3:
        x = x + y
        i += 1
    return x, i


def while_tensor(x, y):
    n = ops.cast(ops.abs(y).sum(), ms.int64) % 4 + 1
    i = Tensor(0, ms.int64)
    while i < n:
        x = x * 1.5
        i = i + 1
    return x


def for_range(x, y):
    acc = x
    for i in range(4):
        acc = acc + y * i
    return acc


def for_sequences(x, y):
    acc = x * 0
    for t in (x, y):
        acc = acc + t
    for i, t in enumerate([x, y, x]):
        acc = acc - t * i
    for a, b in zip((x, y), (y, x)):
        acc = acc + a * b
    for row in y:
        acc = acc + row
    return acc


def break_continue(x, y):
    acc = x
    for i in range(6):
        if i == 1:
            continue
        if i == 4:
            break
        acc = acc + y * i
    return acc


def tensor_break(x, y):
    for i in range(4):
        if x.sum() > 40:
            break
        x = x * 2 + i
    return x


def nested_functions(x, y):
    k = 2.0

    def inner(a, b=1.0):
        return a * k + b

    f = lambda a: inner(a) - y  # noqa: E731
    return f(x), inner(y, b=3.0)


def comprehensions(x, y):
    sq = [x * i for i in range(3) if i != 1]
    gen = sum(t.sum() for t in (x, y))
    d = {i: y * i for i in range(2)}
    return sq, gen, d[1]


def builtins_use(x, y):
    a = len((x, y)) + min(3, 4) + max(1, 2) + abs(-2)
    b = all((True, 1)) and not any((0, False))
    c = int(3.7) + float(2) + bool(1)
    d = isinstance(x, Tensor) and hasattr(x, "shape") and x.ndim == 2
    return x * a, b, c, d


def fstrings(x, y):
    name = f"layer{SCALE}_{x.shape[0]:02d}"
    return name, y


def kwargs_and_star(x, y):
    def f(a, *rest, scale=1.0, **kw):
        return a * scale + sum(rest) + kw.get("shift", 0)

    args = (y, y)
    return f(x, *args, scale=2.0, shift=1.0)


def _helper(a, b):
    return ops.relu(a) * b


def calls_user(x, y):
    return _helper(x, y) + _helper(y, x)


FUNCTIONS = [
    arith, int_ops, compare_bool, containers, slicing, set_slices, const_if, tensor_if, tensor_elif,
    nested_tensor_if, return_in_branches, early_return, ifexp, while_const, while_tensor, for_range,
    for_sequences, break_continue, tensor_break, nested_functions, comprehensions, builtins_use, fstrings,
    kwargs_and_star, calls_user,
]  # fmt: skip
NO_GRAD = {int_ops, while_tensor, builtins_use, fstrings, set_slices}


# -- Cells ------------------------------------------------------------------------------------------


class Block(nn.Cell):
    def __init__(self, n=4):
        super().__init__()
        self.fc = nn.Dense(n, n)

    def construct(self, x):
        return ops.tanh(self.fc(x))


class Base(nn.Cell):
    def __init__(self):
        super().__init__()
        self.scale = 2.0

    def construct(self, x):
        return x * self.scale


class Child(Base):
    def __init__(self):
        super().__init__()
        self.blocks = nn.CellList([Block(4), Block(4)])
        self.w = Parameter(Tensor(np.linspace(-1, 1, 4).astype(np.float32)), name="w")
        self.use_w = True

    def helper(self, x):
        return x + self.w if self.use_w else x

    def construct(self, x):
        x = super().construct(x)
        for block in self.blocks:
            x = block(x)
        x = self.helper(x)
        if x.sum() > 0:
            x = x * self.w
        return x.sum(axis=1)


class Stateful(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 2)
        self.steps = Parameter(Tensor(np.zeros(1, np.float32)), name="steps", requires_grad=False)
        self.acc = Parameter(Tensor(np.zeros((3, 2), np.float32)), name="acc", requires_grad=False)

    def construct(self, x):
        y = self.fc(x)
        ops.assign_add(self.steps, Tensor(np.ones(1, np.float32)))
        if y.mean() > 0:
            self.acc = self.acc + y
        else:
            ops.assign(self.acc, self.acc - 1)
        return y * self.steps


CELLS = [Child, Stateful, Block]
