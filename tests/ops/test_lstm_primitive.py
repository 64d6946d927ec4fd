"""P.LSTM (the operations-level LSTM over one flat weight) against MindSpore 2.10's CPU kernel: outputs, final
states and gradients (lstm_primitive_goldens_mindspore.npz, made by make_lstm_primitive_goldens_mindspore.py), in
PyNative and GRAPH_MODE; its argument and shape errors."""

import pathlib
import sys

import numpy as np
import pytest

import kiln as ms
from kiln.ops import operations as P

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from lstm_primitive_cases import CASES, inputs, run  # noqa: E402

GOLDENS = np.load(pathlib.Path(__file__).with_name("lstm_primitive_goldens_mindspore.npz"))
NAMES = ("output", "h_n", "c_n", "dx", "dh0", "dc0", "dw")


@pytest.mark.parametrize("mode", [ms.PYNATIVE_MODE, ms.GRAPH_MODE])
@pytest.mark.parametrize("case", list(CASES))
def test_lstm_primitive_matches_mindspore(case, mode):
    got = run(ms, case, mode)
    for name, value in zip(NAMES, got, strict=True):
        want = GOLDENS[f"{case}/{name}"]
        if name == "dw":
            # MindSpore's CPU gradient of the flat weight leaves off its unused second biases: it is the weight's
            # leading elements (every matrix, then one bias per layer and direction); those biases get none here
            np.testing.assert_array_equal(value[want.shape[0] :], 0)
            value = value[: want.shape[0]]
        assert value.shape == want.shape, (name, value.shape, want.shape)
        # within 12 ulp of the array's largest value (measured: at most 6, c_n of one_layer_no_bias; the kernels
        # order their sums differently and XLA's tanh and logistic are its own approximations, whose results also
        # moved by a few ulp between compilations)
        np.testing.assert_allclose(value, want, rtol=0, atol=_ulps(want, 12), err_msg=f"{case} {name}")


def _ulps(a, n):
    return n * float(np.spacing(np.abs(a).max().astype(np.float32)))


def _sigmoid(v):
    return 1 / (1 + np.exp(-v))


def _float64_lstm(case):
    """The forward in float64 NumPy, reading the flat weight in the layout of MindSpore's CPU kernel."""
    i, hid, layers, bias, bidirectional = CASES[case]
    d = 2 if bidirectional else 1
    x, h0, c0, w, *_ = (a.astype(np.float64) for a in inputs(case))
    flat, pos = w.reshape(-1), 0
    w_ih, w_hh, b = [], [], []
    for layer in range(layers):
        ins = i if layer == 0 else d * hid
        for _ in range(d):
            w_ih.append(flat[pos : pos + 4 * hid * ins].reshape(4 * hid, ins))
            pos += 4 * hid * ins
    for _ in range(layers * d):
        w_hh.append(flat[pos : pos + 4 * hid * hid].reshape(4 * hid, hid))
        pos += 4 * hid * hid
    for k in range(layers * d):
        b.append(flat[pos + 4 * hid * k : pos + 4 * hid * (k + 1)] if bias else np.zeros(4 * hid))
    h_n, c_n = [], []
    for layer in range(layers):
        outs = []
        for direction in range(d):
            k = layer * d + direction
            h, c, ys = h0[k], c0[k], []
            for t in range(x.shape[0])[:: -1 if direction else 1]:
                gi, gf, gg, go = np.split(x[t] @ w_ih[k].T + h @ w_hh[k].T + b[k], 4, -1)
                c = _sigmoid(gf) * c + _sigmoid(gi) * np.tanh(gg)
                h = _sigmoid(go) * np.tanh(c)
                ys.append(h)
            outs.append(np.stack(ys[:: -1 if direction else 1]))
            h_n.append(h)
            c_n.append(c)
        x = np.concatenate(outs, -1)
    return x, np.stack(h_n), np.stack(c_n)


@pytest.mark.parametrize("case", list(CASES))
def test_lstm_primitive_forward_against_float64(case):
    # Kiln and MindSpore both within 8 ulp of the largest value of the float64 forward (measured: Kiln at most
    # 5.8, MindSpore 2.55)
    got = run(ms, case, ms.PYNATIVE_MODE)[:3]
    for name, value, exact in zip(NAMES, got, _float64_lstm(case), strict=False):
        for who, v in (("kiln", value), ("mindspore", GOLDENS[f"{case}/{name}"])):
            assert np.abs(v - exact).max() <= _ulps(exact, 8), (case, name, who)


def test_lstm_primitive_checks_its_arguments_as_mindspore():
    # MindSpore 2.10's error classes, measured on its CPU build
    for kwargs, error in [
        (dict(has_bias=1), TypeError),
        (dict(dropout=0), TypeError),
        (dict(input_size=0), ValueError),
        (dict(dropout=1.5), ValueError),
        (dict(proj_size=4), ValueError),
    ]:
        args = dict(input_size=3, hidden_size=4, num_layers=1, has_bias=True, bidirectional=False, dropout=0.0)
        with pytest.raises(error):
            P.LSTM(**{**args, **kwargs})
    x, h0, c0, w, *_ = (ms.Tensor(a) for a in inputs("one_layer"))
    op = P.LSTM(*CASES["one_layer"], 0.0)
    with pytest.raises(ValueError, match=r"'w' must have 144 elements"):
        op(x, h0, c0, w[:100])
    with pytest.raises(ValueError, match=r"'h' must have shape \[1, 2, 4\]"):
        op(x, h0[:, :1], c0, w)
