"""Cell arguments that used to be accepted and ignored (issue 20): `parameters_and_names(name_prefix=)`,
`cells_and_names(cells=)`, `register_forward_hook(always_call=)` (kiln/nn/cell.py), checked against what
MindSpore 2.10 gives for the same calls."""

from __future__ import annotations

import numpy as np
import pytest

from kiln import Parameter, Tensor, nn


class _Net(nn.Cell):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Dense(2, 2)
        self.s = Parameter(Tensor(np.ones(1, np.float32)), name="s")

    def construct(self, x):
        return self.fc(x) * self.s


def test_parameters_and_names_prefix():
    net = _Net()
    assert [n for n, _ in net.parameters_and_names()] == ["s", "fc.weight", "fc.bias"]
    assert [n for n, _ in net.parameters_and_names(name_prefix="pre")] == ["pre.s", "pre.fc.weight", "pre.fc.bias"]
    assert [n for n, _ in net.parameters_and_names(name_prefix="pre", expand=False)] == ["pre.s"]
    assert [p.name for p in net.get_parameters()] == ["s", "fc.weight", "fc.bias"]  # the names are unchanged


def test_cells_and_names_skips_and_records_visited_cells():
    net = _Net()
    assert [n for n, _ in net.cells_and_names(name_prefix="pre")] == ["pre", "pre.fc"]
    seen = {net.fc}
    assert [n for n, _ in net.cells_and_names(cells=seen)] == [""]
    assert seen == {net.fc, net}
    assert [n for n, _ in net.cells_and_names(cells=set())] == ["", "fc"]


def test_forward_hook_always_call_runs_when_construct_raises():
    class Failing(nn.Cell):
        def construct(self, x):
            raise ValueError("construct failed")

    cell = Failing()
    calls = []
    cell.register_forward_hook(lambda c, args, out: calls.append(("always", out)), always_call=True)
    cell.register_forward_hook(lambda c, args, out: calls.append(("plain", out)))
    with pytest.raises(ValueError, match="construct failed"):
        cell(Tensor(np.ones(1, np.float32)))
    assert calls == [("always", None)]

    def broken(c, args, out):
        raise RuntimeError("hook failed")

    cell.register_forward_hook(broken, always_call=True)
    with pytest.warns(UserWarning, match="hook failed"), pytest.raises(ValueError, match="construct failed"):
        cell(Tensor(np.ones(1, np.float32)))


def test_forward_hook_always_call_runs_once_on_success():
    net = _Net()
    calls = []
    net.register_forward_hook(lambda c, args, out: calls.append(out.shape), always_call=True)
    net(Tensor(np.ones((1, 2), np.float32)))
    assert calls == [(1, 2)]
