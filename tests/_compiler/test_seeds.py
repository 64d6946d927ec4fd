"""The seeds' examples: the same network in PyNative, GRAPH_MODE, @jit on a function and on construct."""

import numpy as np
import pytest

import kiln as ms
from kiln import Parameter, Tensor, nn, ops
from kiln._compiler.api import jit


class _Flatten(nn.Cell):
    def construct(self, x):
        return x.reshape(x.shape[0], -1)


class _ReLU(nn.Cell):
    def construct(self, x):
        return ops.relu(x)


def _layers():
    flatten = nn.Flatten() if hasattr(nn, "Flatten") else _Flatten()
    relu = nn.ReLU if hasattr(nn, "ReLU") else _ReLU
    return flatten, nn.SequentialCell(nn.Dense(784, 512), relu(), nn.Dense(512, 512), relu(), nn.Dense(512, 10))


class NeuralNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flat, self.layers = _layers()

    def construct(self, data):
        data = self.flat(data)
        return self.layers(data)


class JitNet(NeuralNet):
    @jit
    def construct(self, data):
        data = self.flat(data)
        return self.layers(data)


def _input():
    return Tensor(np.random.default_rng(0).standard_normal((64, 1, 28, 28)).astype(np.float32))


def test_graph_mode_matches_pynative():
    ms.set_seed(0)
    net = NeuralNet()
    x = _input()
    expected = net(x).asnumpy()
    ms.set_context(mode=ms.GRAPH_MODE)
    got = net(x)
    assert got.shape == (64, 10)
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-5, atol=1e-5)
    net(x)
    assert net._kiln_graph_cache.compiles == 1


def test_jit_on_function_and_transform():
    ms.set_seed(0)
    net = NeuralNet()
    x = _input()
    expected = net(x).asnumpy()

    @jit
    def execute_network(x):
        return net(x)

    np.testing.assert_allclose(execute_network(x).asnumpy(), expected, rtol=1e-5, atol=1e-5)

    def run(x):
        return net(x)

    np.testing.assert_allclose(jit(run)(x).asnumpy(), expected, rtol=1e-5, atol=1e-5)


def test_jit_builds_network_inside():
    # The seed creates the network inside the jitted function: it becomes a constant of the graph.
    @jit
    def run(x):
        model = NeuralNet()
        return model(x)

    out = run(_input())
    assert out.shape == (64, 10)


def test_jit_on_construct_in_both_modes():
    ms.set_seed(0)
    net = JitNet()
    x = _input()
    ref = NeuralNet()
    for (_, p), (_, q) in zip(net.parameters_and_names(), ref.parameters_and_names(), strict=True):
        q.set_data(p)
    expected = ref(x).asnumpy()
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-5)
    ms.set_context(mode=ms.GRAPH_MODE)
    np.testing.assert_allclose(net(x).asnumpy(), expected, rtol=1e-5, atol=1e-5)


def test_tensor_cal():
    @jit
    def tensor_cal(x, y, z):
        return ops.matmul(x, y) + z

    x = Tensor(np.ones(shape=[2, 3]), ms.float32)
    y = Tensor(np.ones(shape=[3, 4]), ms.float32)
    z = Tensor(np.ones(shape=[2, 4]), ms.float32)
    np.testing.assert_array_equal(tensor_cal(x, y, z).asnumpy(), np.full((2, 4), 4.0, np.float32))
    pij = jit(tensor_cal.__wrapped__, mode="PIJit")  # bytecode capture (no fallback warning any more)
    np.testing.assert_array_equal(pij(x, y, z).asnumpy(), np.full((2, 4), 4.0, np.float32))


class BiasNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.weight = Parameter(Tensor(np.random.default_rng(1).standard_normal((32, 8)).astype(np.float32)), "weight")
        self.bias = Parameter(Tensor(np.zeros([4], np.float32)), name="bias")
        self.matmul = ops.MatMul()
        self.bias_add = ops.BiasAdd()

    def construct(self, x1):
        x = self.matmul(x1, self.weight)
        x = self.bias_add(x, self.bias)
        return x


def test_seed003_bias_add_error(tmp_path):
    ms.set_context(mode=ms.GRAPH_MODE, save_graphs_path=str(tmp_path))
    x = Tensor(np.arange(3 * 32).reshape(3, 32), ms.float32)
    with pytest.raises(ValueError) as info:
        BiasNet()(x)
    msg = str(info.value)
    assert "For 'BiasAdd'" in msg and "[4]" in msg and "[3, 8]" in msg
    assert "test_seeds.py" in msg and "x = self.bias_add(x, self.bias)" in msg
    caret_line = msg.split("x = self.bias_add(x, self.bias)\n")[1].splitlines()[0]
    assert caret_line.strip() == "^" * len("self.bias_add(x, self.bias)")
    fail = (tmp_path / "analyze_fail.ir").read_text()
    marked = fail.split("#------------------------> here\n")[1].splitlines()[0]
    assert "BiasAdd" in marked and "test_seeds.py" in marked


class Counted(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(4, 3)
        self.counted = Parameter(Tensor(np.zeros(1)), requires_grad=False)

    def construct(self, x):
        if self.counted != Tensor(np.ones(1)):
            print("\nThis string is only printed once\n")
            self.counted = Tensor(np.ones(1))
        return self.fc(x)


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
def test_seed003_counted(mode, capfd):
    ms.set_context(mode=mode)
    net = Counted()
    x = Tensor(np.ones((2, 4), np.float32))
    for _ in range(3):
        net(x)
    out = capfd.readouterr().out
    assert out.count("This string is only printed once") == 1
    np.testing.assert_array_equal(net.counted.asnumpy(), np.ones(1))
