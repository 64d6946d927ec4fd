"""Cell attribute and container rules, run on MindSpore 2.10 and Kiln (`run(ms)`): each case gives "OK" or the
exception type. make_cell_goldens_mindspore.py writes cell_goldens_mindspore.json from MindSpore."""

import numpy as np


def run(ms):
    nn, Tensor, Parameter = ms.nn, ms.Tensor, ms.Parameter
    ta = Tensor(np.ones([2, 3]))
    out = {}

    class A(nn.Cell):
        def construct(self, x):
            return x

    def case(name, fn):
        try:
            result = fn()
        except Exception as e:  # noqa: BLE001
            out[name] = type(e).__name__
        else:
            out[name] = "OK" if result is None else result

    def param_none_cell():
        m = nn.Cell()
        m.weight = Parameter(ta, name="weight")
        m.weight = None
        m.weight = A()

    def param_cell():
        m = nn.Cell()
        m.weight = Parameter(ta, name="weight")
        m.weight = A()

    def cell_param():
        m = nn.Cell()
        m.c = A()
        m.c = Parameter(ta, name="w")

    case("param->None->cell", param_none_cell)
    case("param->cell", param_cell)
    case("cell->param", cell_param)
    case("call base Cell", lambda: nn.Cell()())
    m = nn.Cell()
    p = Parameter(ta, name="weight")
    case("param ''", lambda: m.insert_param_to_cell("", p))
    case("param a.b", lambda: m.insert_param_to_cell("a.b", p))
    case("child ''", lambda: m.insert_child_to_cell("", A()))
    case("child a.b", lambda: m.insert_child_to_cell("a.b", A()))
    case("child tensor", lambda: m.insert_child_to_cell("buffer", ta))
    case("param tensor", lambda: m.insert_param_to_cell("w", ta))
    case("child param", lambda: m.insert_child_to_cell("m", p))

    def child_over_param():
        c = nn.Cell()
        c.insert_param_to_cell("x", p)
        c.insert_child_to_cell("x", A())

    def param_over_attr():
        c = nn.Cell()
        c.aa = 3
        c.insert_param_to_cell("aa", Parameter(ta, name="q"))

    case("child over param name", child_over_param)
    case("param over attr", param_over_attr)
    a, b, c = A(), A(), A()
    s = nn.SequentialCell([a, b, c])

    def seq_set():
        s[1] = c
        return [s[1] is c, len(s)]

    def seq_del():
        del s[0]
        return [len(s), s[0] is c]

    def seq_del_slice():
        del s[:]
        return [len(s), bool(s)]

    def seq_set_float():
        s[1.0] = a

    case("seq setitem", seq_set)
    case("seq delitem", seq_del)
    case("seq delslice", seq_del_slice)
    case("seq setitem float", seq_set_float)
    cl = nn.CellList([a, b])

    def cl_del():
        del cl[0]
        return [len(cl), cl[0] is b]

    def cl_iadd():
        nonlocal cl
        cl += [a, c]
        return [len(cl), cl[2] is c]

    def cl_append_after_del():
        del cl[0]
        cl.append(a)
        return [len(cl), cl[-1] is a]

    case("celllist delitem", cl_del)
    case("celllist iadd", cl_iadd)
    case("celllist append after del", cl_append_after_del)

    def flags():
        net = nn.SequentialCell([A(), nn.SequentialCell([A()])])
        net.add_flags_recursive(hint=True)
        net.add_flags(level=2)
        return [net[1][0].hint, net.level, [list(kv) for kv in sorted(net.get_flags().items())], net.get_scope()]

    case("flags", flags)

    def init_parameters_data():
        # a parameter shared by two cells is one key; every parameter stays the one the cells hold
        net = nn.SequentialCell([nn.Dense(2, 3), nn.ReLU(), nn.Dense(3, 2)])
        net[2].extra = net[0].bias
        before = list(net.get_parameters())
        done = net.init_parameters_data()
        after = list(net.get_parameters())
        return [
            sorted(p.name for p in done),
            [k is v for k, v in done.items()],
            [a is b for a, b in zip(before, after)],
            net[2].extra is net[0].bias,
        ]

    case("init_parameters_data", init_parameters_data)

    def attr_before_init(value):
        # the zoo's CBAM ResNet sets `self.in_channels = 64` before super().__init__()
        class Early(nn.Cell):
            def __init__(self):
                self.early = value()
                super().__init__()
                self.dense = nn.Dense(2, 3)

            def construct(self, x):
                return self.dense(x) * self.early

        net = Early()
        return [net.early, list(net(Tensor(np.ones((1, 2), np.float32))).shape), sorted(net.parameters_dict())]

    case("int before __init__", lambda: attr_before_init(lambda: 3))
    case("Parameter before __init__", lambda: attr_before_init(lambda: Parameter(ta, name="w")))
    case("Cell before __init__", lambda: attr_before_init(A))
    return out
