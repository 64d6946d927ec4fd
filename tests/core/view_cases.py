"""Views in PyNative: which results of indexing and of the shape ops share their source's entries, written once for
both frameworks. `run(ms)` takes the `mindspore` module (for the goldens) or `kiln`, and returns {case: array as
nested lists}. A case named `VIEW/result` writes into the result and records the source; `VIEW/source` writes the
source after the result was taken and records the result (`.../copy_source` and `.../assign_source` write the whole
source by Tensor.copy_ and ops.assign). The `graph ...` cases run in a @jit function.

MindSpore 2.10 CPU behaviours recorded here that Kiln does not follow (its kernels', not a view rule's): Tensor.add_
and mul_ leave their tensor unchanged; `y[...] = v` on a shape-op view and `x[...] = v`, `x[index tensor] = v`,
`x[mask] = v` on a source make a new array (not seen through views); copy_ into a view of part of a tensor fails
(InplaceCopy's size check) and ops.assign into a view is refused.
"""

import numpy as np

BASE = np.arange(12, dtype=np.float32).reshape(3, 4)


def _views(ms) -> dict:
    ops, Tensor = ms.ops, ms.Tensor
    like = Tensor(np.zeros((4, 3), np.float32))
    return {
        "x[1]": lambda x: x[1],
        "x[1:]": lambda x: x[1:],
        "x[::2]": lambda x: x[::2],
        "x[None]": lambda x: x[None],
        "x[..., 1]": lambda x: x[..., 1],
        "x[0:2, 1:3]": lambda x: x[0:2, 1:3],
        "reshape": lambda x: x.reshape(4, 3),
        "ops.reshape": lambda x: ops.reshape(x, (2, 6)),
        "view": lambda x: x.view(4, 3),
        "view_as": lambda x: x.view_as(like),
        "flatten": lambda x: x.flatten(),
        "ops.flatten": lambda x: ops.flatten(x, start_dim=0),
        "ravel": lambda x: x.ravel(),
        "squeeze": lambda x: x.reshape(3, 1, 4).squeeze(1),
        "ops.squeeze": lambda x: ops.squeeze(x.reshape(1, 3, 4), 0),
        "unsqueeze": lambda x: x.unsqueeze(0),
        "expand_dims": lambda x: x.expand_dims(1),
        "ops.expand_dims": lambda x: ops.expand_dims(x, 2),
        "transpose": lambda x: x.transpose(1, 0),
        "ops.transpose": lambda x: ops.transpose(x, (1, 0)),
        "T": lambda x: x.T,
        "swapaxes": lambda x: x.swapaxes(0, 1),
        "permute": lambda x: x.permute(1, 0),
        "movedim": lambda x: x.movedim(0, 1),
        "narrow": lambda x: x.narrow(1, 1, 2),
        "ops.narrow": lambda x: ops.narrow(x, 0, 1, 2),
        "chunk": lambda x: x.chunk(2, 1)[1],
        "split": lambda x: x.split(2, 1)[0],
        "ops.split": lambda x: ops.split(x, [1, 2], 0)[1],
        "unbind": lambda x: x.unbind(0)[1],
        "ops.unbind": lambda x: ops.unbind(x, 1)[1],
        "diagonal": lambda x: x.diagonal(),
        "broadcast_to": lambda x: x.broadcast_to((2, 3, 4)),
        "Tensor(x)": lambda x: Tensor(x),
        "astype same": lambda x: x.astype(ms.float32),
        "reshape T [1]": lambda x: x.reshape(2, 6).T[1],
        "ops.Reshape()": lambda x: ops.Reshape()(x, (4, 3)),
        "ops.Transpose()": lambda x: ops.Transpose()(x, (1, 0)),
        "ops.ExpandDims()": lambda x: ops.ExpandDims()(x, 0),
        "ops.Split()": lambda x: ops.Split(1, 2)(x)[0],
        "mint.reshape": lambda x: ms.mint.reshape(x, (4, 3)),
        "mint.narrow": lambda x: ms.mint.narrow(x, 1, 1, 2),
        "mint.permute": lambda x: ms.mint.permute(x, (1, 0)),
    }


def _first(y) -> tuple:
    return (0,) * y.ndim


def run(ms) -> dict:
    """Every case's recorded array."""
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ops, Tensor, Parameter = ms.ops, ms.Tensor, ms.Parameter
    out = {}
    for name, view in _views(ms).items():
        x = Tensor(BASE)
        y = view(x)
        y[_first(y)] = -1.0
        out[f"{name}/result"] = [x.asnumpy().tolist(), y.asnumpy().tolist()]
        x = Tensor(BASE)
        y = view(x)
        x[0, 1] = 100.0
        x[1, 1] = 101.0
        out[f"{name}/source"] = y.asnumpy().tolist()
        x = Tensor(BASE)
        y = view(x)
        x.copy_(Tensor(-BASE))
        out[f"{name}/copy_source"] = y.asnumpy().tolist()
        x = Tensor(BASE)
        y = view(x)
        ops.assign(x, Tensor(BASE * 2))
        out[f"{name}/assign_source"] = y.asnumpy().tolist()
    for name, index in (
        ("x[[0, 2]]", [0, 2]),
        ("x[index tensor]", Tensor(np.array([0, 1]))),
        ("x[mask]", Tensor(BASE > 4)),
    ):
        x = Tensor(BASE)
        y = x[index]
        y[_first(y)] = -1.0
        out[f"{name}/result"] = [x.asnumpy().tolist(), y.asnumpy().tolist()]
        x = Tensor(BASE)
        y = x[index]
        x[0, 0] = 100.0
        x[1, 1] = 101.0
        out[f"{name}/source"] = y.asnumpy().tolist()
    # two views of one source: a write through either is seen by the other
    x = Tensor(BASE)
    a, b = x[0], x.reshape(2, 6)
    a[1] = -1.0
    b[1, 0] = -2.0
    out["siblings"] = [x.asnumpy().tolist(), a.asnumpy().tolist(), b.asnumpy().tolist()]
    # a rebound name: `x = x + 1` makes a new tensor, the view stays on the old one
    x = Tensor(BASE)
    y = x.reshape(4, 3)
    old = x
    x = x + 1
    y[0, 0] = -1.0
    out["rebound"] = [old.asnumpy().tolist(), x.asnumpy().tolist()]
    for name, view in (("p[1]", lambda p: p[1]), ("p.reshape", lambda p: p.reshape(4, 3))):
        p = Parameter(Tensor(BASE), name="p")
        y = view(p)
        y[_first(y)] = -1.0
        out[f"param {name}/result"] = p.asnumpy().tolist()
        for how in ("assign", "setitem", "set_data"):
            p = Parameter(Tensor(BASE), name="p")
            y = view(p)
            if how == "assign":
                ops.assign(p, Tensor(BASE * 3))
            elif how == "setitem":
                p[1, 0] = 50.0
            else:
                p.set_data(Tensor(BASE * 3))
            out[f"param {name}/{how}"] = y.asnumpy().tolist()

    @ms.jit
    def times_one(x):
        return x * 1.0

    y = times_one(Tensor(BASE))
    r = y.reshape(4, 3)
    r[0, 1] = -1.0
    out["jit result/result"] = y.asnumpy().tolist()
    y = times_one(Tensor(BASE))
    r = y[1]
    y[1, 2] = 100.0
    out["jit result/source"] = r.asnumpy().tolist()

    @ms.jit
    def chained(x):
        x[1][2] = -1.0
        return x

    @ms.jit
    def kept(x):
        row = x[1]
        row[2] = -1.0
        return x

    @ms.jit
    def reshaped(x):
        y = x.reshape(4, 3)
        y[0, 1] = -1.0
        return x, y

    out["graph chained"] = chained(Tensor(BASE)).asnumpy().tolist()
    out["graph kept"] = kept(Tensor(BASE)).asnumpy().tolist()
    out["graph reshaped"] = [t.asnumpy().tolist() for t in reshaped(Tensor(BASE))]
    return out
