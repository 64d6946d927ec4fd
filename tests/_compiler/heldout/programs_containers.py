"""Held-out programs: Python lists, dicts and tuples built and mutated under Tensor if and while."""

import mindspore as ms
import numpy as np
from mindspore import Tensor, ops


def t(*values):
    return Tensor(np.array(values, np.float32))


def prog_list_append_in_both_branches(run):
    def f(x):
        out = [x]
        if x.sum() > 0:
            out.append(x * 2)
        else:
            out.append(x - 1)
        return out[1] + out[0]

    g = run(f)
    return g(t(1.0)), g(t(-1.0))


def prog_list_append_in_while(run):
    def f(x):
        items = []
        i = 0
        while i < 3:
            items.append(x * i)
            i += 1
        return ops.stack(items).sum(0)

    return run(f)(t(1.0, 2.0))


def prog_dict_update_in_tensor_if(run):
    def f(x):
        d = {"a": x, "b": x * 0}
        if x.mean() > 1:
            d["b"] = x + 10
        else:
            d["a"] = x - 10
        return d["a"] + d["b"]

    g = run(f)
    return g(t(2.0, 3.0)), g(t(0.0, 1.0))


def prog_tuple_rebuild_in_loop(run):
    def f(x):
        acc = (x,)
        for _ in range(3):
            acc = acc + (acc[-1] * 2,)
        return acc

    return run(f)(t(1.0))


def prog_list_setitem_in_branch(run):
    def f(x):
        vals = [x, x, x]
        if x.sum() < 0:
            vals[1] = -x
        return vals[0] + vals[1] * 2 + vals[2] * 3

    g = run(f)
    return g(t(1.0)), g(t(-1.0))


def prog_dict_return(run):
    def f(x):
        return {"double": x * 2, "square": x * x}

    return run(f)(t(3.0))


def prog_list_pop_and_insert(run):
    def f(x):
        xs = [x, x + 1, x + 2]
        last = xs.pop()
        xs.insert(0, last)
        return xs

    return run(f)(t(1.0))


def prog_star_unpacking(run):
    def f(x):
        a, *rest = (x, x * 2, x * 3)
        return a + sum(rest)

    return run(f)(t(1.0))


def prog_list_comprehension_over_range(run):
    def f(x):
        return ops.stack([x * i for i in range(4) if i % 2 == 1])

    return run(f)(t(1.0, 2.0))


def prog_global_list_append(run):
    seen = []

    def f(x):
        seen.append(x * 2)
        return x + 1

    out = run(f)(t(1.0))
    return out, len(seen)


def prog_dict_items_loop(run):
    def f(x):
        scales = {"a": 1.0, "b": 2.0, "c": 3.0}
        total = x * 0
        for _, v in scales.items():
            total = total + x * v
        return total

    return run(f)(t(1.0, 2.0))


def prog_list_extend_then_len(run):
    def f(x):
        xs = [x]
        xs.extend([x, x])
        n = len(xs)
        return ops.concat(xs), n

    return run(f)(Tensor(np.ones((1,), np.float32), ms.float32))
