"""Gradient-hook cases run on both MindSpore 2.10 and Kiln (`run(ms)` with either module as `ms`).

Each case returns a dict of plain lists: the gradients and a log of what the hooks saw (None kept), so
that tests/pynative/test_hooks.py can compare Kiln with hook_goldens_mindspore.json, which
make_hook_goldens_mindspore.py writes by running this file on MindSpore.
"""

import numpy as np


def _val(x):
    if x is None:
        return None
    if isinstance(x, (tuple, list)):
        return [_val(v) for v in x]
    return np.asarray(x.asnumpy(), dtype=np.float64).tolist()


def run(ms):
    nn, ops, Tensor, Parameter = ms.nn, ms.ops, ms.Tensor, ms.Parameter
    GradOperation = ms.ops.GradOperation
    ms.set_context(mode=ms.PYNATIVE_MODE)
    f32 = ms.float32
    out = {}

    class Two(nn.Cell):
        """Tensor inputs x, y and a number k; two outputs."""

        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.array([2.0, 3.0]), f32), name="w")

        def construct(self, x, y, k):
            return x * self.w * y * k, x + y

    x = Tensor(np.array([1.0, 2.0]), f32)
    y = Tensor(np.array([3.0, 4.0]), f32)

    # 1. grad_input / grad_output of a cell with several inputs and outputs; an unused output's gradient is None
    log = []
    net = Two()
    net.register_backward_pre_hook(lambda cell, go: log.append(["pre", _val(go)]))
    net.register_backward_hook(lambda cell, gi, go: log.append(["bwd", _val(gi), _val(go)]))

    def first_only(a, b):
        p, _ = net(a, b, 2.0)
        return p

    def both(a, b):
        p, q = net(a, b, 2.0)
        return p + q * 3

    out["first_only_grads"] = _val(ms.grad(first_only, (0, 1))(x, y))
    out["both_grads"] = _val(ms.grad(both, (0, 1))(x, y))
    out["grad_x_only"] = _val(ms.grad(first_only, 0)(x, y))
    out["two_log"] = log

    # 2. one cell called twice: its hooks run once per call, the later call first
    log2 = []
    net2 = Two()
    net2.register_backward_hook(lambda cell, gi, go: log2.append([_val(gi), _val(go)]))

    def twice(a, b):
        p, _ = net2(a, b, 2.0)
        c, _ = net2(p, b, 1.0)
        return c

    out["twice_grads"] = _val(ms.grad(twice, (0, 1))(x, y))
    out["twice_log"] = log2

    # 3. hooks chain: pre-hooks on grad_output, then backward hooks on grad_input; removal
    class Mul(nn.Cell):
        def construct(self, a, b):
            return a * b

    class Outer(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mul = Mul()

        def construct(self, a, b):
            m = self.mul(a, b)
            return m + m

    outer = Outer()
    h1 = outer.mul.register_backward_pre_hook(lambda cell, go: go[0] * 3)
    h2 = outer.mul.register_backward_pre_hook(lambda cell, go: (go[0] * 5,))
    h3 = outer.mul.register_backward_hook(lambda cell, gi, go: (gi[0] * 7, gi[1] + 1))
    grad_all = GradOperation(get_all=True)
    out["chain"] = _val(grad_all(outer)(x, y))
    h2.remove()
    out["chain_minus_pre"] = _val(grad_all(outer)(x, y))
    h3.remove()
    h3.remove()
    out["chain_minus_bwd"] = _val(grad_all(outer)(x, y))
    h1.remove()
    out["chain_none"] = _val(grad_all(outer)(x, y))

    # 4. tensor hooks on an intermediate used twice, several hooks, the function's output itself
    seen = []

    def fn(a, b):
        z = a * b
        z.register_hook(lambda g: seen.append(_val(g)))
        z.register_hook(lambda g: g * 2)
        h = z.register_hook(lambda g: g * 100)
        h.remove()
        return z * z + z * b

    out["inter_grads"] = _val(ms.grad(fn, (0, 1))(x, y))

    def out_hook(a):
        s = (a * a).sum()
        s.register_hook(lambda g: g * 7)
        return s

    value, g = ms.value_and_grad(out_hook)(x)
    out["output_hook"] = [_val(value), _val(g)]
    out["inter_seen"] = seen

    # 5. leaves: a Parameter used twice (one call, summed), a Parameter not reached (zeros), a hooked input
    leaf_seen = []
    w1 = Parameter(Tensor(np.array([1.0, 2.0]), f32), name="w1")
    w2 = Parameter(Tensor(np.array([1.0, 2.0]), f32), name="w2")
    w1.register_hook(lambda g: leaf_seen.append(["w1", _val(g)]))
    w2.register_hook(lambda g: leaf_seen.append(["w2", _val(g)]))
    w1.register_hook(lambda g: g * 2)

    def uses_w1(a):
        return (a * w1 * w1).sum()

    out["leaf_grads"] = _val(ms.grad(uses_w1, None, (w1, w2))(x))
    xin = Tensor(np.array([1.0, 2.0]), f32)
    handle = xin.register_hook(lambda g: g * 5)
    out["input_hook"] = _val(ms.grad(lambda a: a * a * 3)(xin))
    out["n_hooks"] = [len(xin.hooks())]
    handle.remove()
    out["input_hook_removed"] = _val(ms.grad(lambda a: a * a * 3)(xin))
    out["n_hooks"].append(len(xin.hooks()))

    # 6. HookBackward and InsertGradientOf
    hb_seen = []

    def hb_fn(g):
        hb_seen.append(_val(g))

    hook = ops.HookBackward(hb_fn)

    def with_hb(a):
        b = hook(a * a)
        return b * 3

    out["hook_backward"] = _val(ms.grad(with_hb)(x))
    out["hook_backward_seen"] = hb_seen

    def clip_grad(g):
        return ops.clip_by_value(g, -1.0, 1.0)

    clip = ops.InsertGradientOf(clip_grad)

    def with_clip(a):
        return clip(a * 4) * 2

    out["insert_gradient_of"] = _val(ms.grad(with_clip)(x))

    # 7. forward pre-hooks with kwargs, prepend; forward hook with kwargs
    order = []

    class Scale(nn.Cell):
        def construct(self, a, scale=1.0):
            return a * scale

    sc = Scale()
    sc.register_forward_pre_hook(lambda cell, args: order.append("plain"))
    sc.register_forward_pre_hook(lambda cell, args: order.append("first"), prepend=True)
    sc.register_forward_pre_hook(
        lambda cell, args, kwargs: (args, {"scale": kwargs.get("scale", 1.0) * 10}), with_kwargs=True
    )
    sc.register_forward_hook(lambda cell, args, kwargs, output: output + kwargs["scale"], with_kwargs=True)
    out["forward_kwargs"] = _val(sc(x, scale=2.0))
    out["forward_order"] = order
    out.update(_grad_semantics(ms))
    return out


def _typed(values):
    return [[str(v.dtype).lower().replace("mindspore.", ""), _val(v)] for v in values]


def _grad_semantics(ms):
    """Not hooks: how PyNative gradients treat dtypes, sensitivities, kwargs and non-Tensor arguments."""
    Tensor, P = ms.Tensor, ms.ops
    f32 = np.float32
    with_sens = P.GradOperation(get_all=True, sens_param=True)
    get_all = P.GradOperation(get_all=True)
    out = {}
    x = Tensor(np.ones((2, 3), f32))
    # through a cast to an integer type; an integer input; sensitivities of another dtype than the output
    out["grad_cast_to_int"] = _typed(with_sens(lambda a: P.Cast()(a, ms.int32))(x, Tensor(np.ones((2, 3), np.int32))))
    xi = Tensor(np.array([[[1, 2, 3], [4, 5, 6]]]))
    sens_i64 = Tensor(np.ones((1, 3, 2), np.int64))
    out["grad_int_transpose"] = _typed(with_sens(lambda a: P.Transpose()(a, (0, 2, 1)))(xi, sens_i64))
    mask = Tensor(np.array([True, False]))
    out["grad_bool_input"] = _typed(get_all(lambda p, q: p + q)(Tensor(np.array([1.0, 2.0], f32)), mask))
    i8, u8 = Tensor(np.array([1, 2], np.int8)), Tensor(np.array([3, 4], np.uint8))
    out["grad_int8_uint8"] = _typed(with_sens(lambda p, q: p + q)(i8, u8, Tensor(np.array([5, 6], np.int16))))
    # no Tensor output; a first argument that is not a Tensor; Tensors passed by keyword
    out["grad_no_tensor_output"] = _val(P.GradOperation()(lambda p: [1, 2])(x))
    out["grad_dict_first"] = [len(P.GradOperation()(lambda d: 2 * d["a"] + 1)({"a": Tensor(2.0)}))]
    out["grad_int_first"] = [len(P.GradOperation()(lambda a, b: a * b)(1, 2))]
    out["grad_kwargs_get_all"] = _typed(get_all(lambda a, b=None: a * b)(Tensor(2.0), b=Tensor(3.0)))
    out["grad_kwargs_grad"] = _val(ms.grad(lambda a, b=None: a * b)(Tensor(2.0), b=Tensor(3.0)))
    # one tensor object passed twice: each position gets the gradient of all its uses
    t = Tensor(np.array([1.0], f32))
    out["grad_same_tensor_twice"] = _val(ms.grad(lambda a, b: a * 2 + b * 3, (0, 1))(t, t))
    out["grad_same_tensor_first_only"] = _val(ms.grad(lambda a, b: a * 2 + b * 3, 0)(t, t))

    # a Parameter frozen (requires_grad = False) during the forward gets a zero gradient
    class Freezes(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.p1 = ms.Parameter(Tensor(2.0, ms.float32), name="p1")
            self.p2 = ms.Parameter(Tensor(3.0, ms.float32), name="p2")

        def construct(self, a):
            z = a * self.p1 * self.p2
            self.p2.requires_grad = False
            return z

    net = Freezes()
    out["grad_frozen_in_forward"] = _val(ms.grad(net, weights=[net.p1, net.p2])(Tensor(np.array([4.0], f32))))
    return out
