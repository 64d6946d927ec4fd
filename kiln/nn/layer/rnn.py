"""Recurrent layers: `nn.RNN`, `nn.LSTM`, `nn.GRU` and their one-step cells (MindSpore 2.x, PyTorch's math).

Parameter names, shapes, order and initialisation are MindSpore's: `weight_ih_l{k}[_reverse]` (gates x input),
`weight_hh_l{k}`, `bias_ih_l{k}`, `bias_hh_l{k}` for the layers (all input weights first, then the hidden
weights, then the biases), `weight_ih` / `weight_hh` / `bias_ih` / `bias_hh` for the cells, all drawn from
U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)). Gate order: LSTM (i, f, g, o), GRU (r, z, n).

A layer's time loop is one `RecurrentScan` primitive per layer (the backend's scan; a bidirectional layer's
two directions advance together in it, one batched step per time step): compiled once whatever the sequence
length, the same in PyNative and in graph mode, differentiated as a loop; `seq_length` freezes each
sample's state after its length and zeroes its later outputs.
"""

from __future__ import annotations

import math

import numpy as np

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, ParameterTuple, Tensor
from kiln.nn.cell import Cell
from kiln.ops._helpers import apply, prim

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _uniform(shape, stdv, dtype) -> Tensor:
    return Tensor(np.random.uniform(-stdv, stdv, shape).astype(np.float32), dtype=dtype)


def _linear(x, w, b):
    out = ops.matmul(x, ops.transpose(w, (1, 0)))
    return out if b is None else out + b


def _step(mode: str, x, state, w_ih, w_hh, b_ih, b_hh):
    """One time step of `mode` for x (N, I) and state h (N, H) (LSTM: (h, c)); returns the new state."""
    if mode == "LSTM":
        h, c = state
        gates = _linear(x, w_ih, b_ih) + _linear(h, w_hh, b_hh)
        i, f, g, o = ops.split(gates, gates.shape[-1] // 4, -1)
        c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
        return ops.sigmoid(o) * ops.tanh(c), c
    if mode == "GRU":
        gi, gh = _linear(x, w_ih, b_ih), _linear(state, w_hh, b_hh)
        size = gi.shape[-1] // 3
        i_r, i_z, i_n = ops.split(gi, size, -1)
        h_r, h_z, h_n = ops.split(gh, size, -1)
        r, z = ops.sigmoid(i_r + h_r), ops.sigmoid(i_z + h_z)
        n = ops.tanh(i_n + r * h_n)
        return (1 - z) * n + z * state
    pre = _linear(x, w_ih, b_ih) + _linear(state, w_hh, b_hh)
    return ops.relu(pre) if mode == "RNN_RELU" else ops.tanh(pre)


def _in_dtype(t, dtype):
    """`t` cast to `dtype` (no cast when it already has it)."""
    return t if t.dtype == dtype else ops.cast(t, dtype)


def _check_dims(cls: str, input_size, hidden_size) -> None:
    for name, v in (("input_size", input_size), ("hidden_size", hidden_size)):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise ValueError(f"For '{cls}', '{name}' must be a positive int, but got {v!r}.")


def _check_state(cls: str, states: tuple, want: tuple) -> None:
    """A ValueError naming the expected and given shapes when an initial state is not (layers * directions,
    batch, hidden_size): the recurrence would otherwise fail inside its loop, in terms of its internal op."""
    for name, h in zip(("h_0", "c_0"), states, strict=False):
        shape = tuple(getattr(h, "shape", ()))
        if shape != want:
            raise ValueError(
                f"For '{cls}', '{name}' of 'hx' must have shape (num_layers * num_directions, batch, hidden_size) = "
                f"{list(want)}, but got {list(shape)}."
            )


class _CellBase(Cell):
    def __init__(self, mode, input_size, hidden_size, has_bias=True, dtype=mstype.float32) -> None:
        super().__init__()
        _check_dims(type(self).__name__, input_size, hidden_size)
        if not isinstance(has_bias, bool):
            raise TypeError(f"For '{type(self).__name__}', 'has_bias' must be a bool, but got {type(has_bias)}.")
        self.mode, self.input_size, self.hidden_size, self.has_bias = mode, input_size, hidden_size, has_bias
        gate = _GATES[mode] * hidden_size
        stdv = 1 / math.sqrt(hidden_size)
        # Unnamed, as MindSpore's: each takes a `Parameter#<n>` number before its attribute names it, which keeps
        # the numbers of a script's later unnamed Parameters equal to MindSpore's.
        self.weight_ih = Parameter(_uniform((gate, input_size), stdv, dtype))
        self.weight_hh = Parameter(_uniform((gate, hidden_size), stdv, dtype))
        if has_bias:
            self.bias_ih = Parameter(_uniform((gate,), stdv, dtype))
            self.bias_hh = Parameter(_uniform((gate,), stdv, dtype))
        else:
            self.bias_ih = self.bias_hh = None

    def _run(self, x, hx):
        unbatched = x.ndim == 1
        if unbatched:
            x = ops.expand_dims(x, 0)
            hx = tuple(ops.expand_dims(h, 0) for h in hx) if isinstance(hx, (tuple, list)) else ops.expand_dims(hx, 0)
        if x.ndim != 2 or x.shape[-1] != self.input_size:
            raise ValueError(f"For '{type(self).__name__}', 'x' must be (batch, {self.input_size}), but got "
                             f"{tuple(x.shape)}.")  # fmt: skip
        w_ih, w_hh = ops.cast(self.weight_ih, x.dtype), ops.cast(self.weight_hh, x.dtype)
        b_ih = None if self.bias_ih is None else ops.cast(self.bias_ih, x.dtype)
        b_hh = None if self.bias_hh is None else ops.cast(self.bias_hh, x.dtype)
        out = _step(self.mode, x, hx, w_ih, w_hh, b_ih, b_hh)
        if unbatched:
            out = tuple(ops.squeeze(o, 0) for o in out) if isinstance(out, tuple) else ops.squeeze(out, 0)
        return out


class RNNCell(_CellBase):
    """h' = nonlinearity(x W_ih^T + b_ih + h W_hh^T + b_hh), nonlinearity 'tanh' or 'relu'."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, nonlinearity: str = "tanh",
                 dtype=mstype.float32) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNNCell', 'nonlinearity' must be 'tanh' or 'relu', but got {nonlinearity!r}.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", input_size, hidden_size, has_bias,
                         dtype)  # fmt: skip
        self.nonlinearity = nonlinearity

    def construct(self, x, hx):
        return self._run(x, hx)


class LSTMCell(_CellBase):
    """One LSTM step: `(h', c') = LSTMCell(x, (h, c))`."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=mstype.float32) -> None:
        super().__init__("LSTM", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx):
        if not isinstance(hx, (tuple, list)) or len(hx) != 2:
            raise TypeError("For 'LSTMCell', 'hx' must be a tuple (h, c) of two Tensors.")
        return self._run(x, tuple(hx))


class GRUCell(_CellBase):
    """One GRU step: `h' = GRUCell(x, h)`."""

    def __init__(self, input_size: int, hidden_size: int, has_bias: bool = True, dtype=mstype.float32) -> None:
        super().__init__("GRU", input_size, hidden_size, has_bias, dtype)

    def construct(self, x, hx):
        return self._run(x, hx)


class _RNNBase(Cell):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
                 bidirectional=False, dtype=mstype.float32) -> None:  # fmt: skip
        super().__init__()
        cls = type(self).__name__
        _check_dims(cls, input_size, hidden_size)
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError(f"For '{cls}', 'num_layers' must be a positive int, but got {num_layers!r}.")
        if not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"For '{cls}', 'dropout' must be a float in [0, 1), but got {dropout!r}.")
        for name, v in (("has_bias", has_bias), ("batch_first", batch_first), ("bidirectional", bidirectional)):
            if not isinstance(v, bool):
                raise TypeError(f"For '{cls}', '{name}' must be a bool, but got {type(v).__name__}.")
        self.mode, self.is_lstm = mode, mode == "LSTM"
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.has_bias, self.batch_first, self.dropout, self.bidirectional = (
            has_bias,
            batch_first,
            dropout,
            bidirectional,
        )
        self.num_directions = 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        stdv = 1 / math.sqrt(hidden_size)
        w_ih, w_hh, b_ih, b_hh = [], [], [], []
        for layer in range(num_layers):
            for direction in range(self.num_directions):
                in_size = input_size if layer == 0 else hidden_size * self.num_directions
                sfx = f"l{layer}" + ("_reverse" if direction == 1 else "")
                w_ih.append(Parameter(_uniform((gate, in_size), stdv, dtype), name=f"weight_ih_{sfx}"))
                w_hh.append(Parameter(_uniform((gate, hidden_size), stdv, dtype), name=f"weight_hh_{sfx}"))
                if has_bias:
                    b_ih.append(Parameter(_uniform((gate,), stdv, dtype), name=f"bias_ih_{sfx}"))
                    b_hh.append(Parameter(_uniform((gate,), stdv, dtype), name=f"bias_hh_{sfx}"))
        self.w_ih_list = ParameterTuple(w_ih)
        self.w_hh_list = ParameterTuple(w_hh)
        self.b_ih_list = ParameterTuple(b_ih)
        self.b_hh_list = ParameterTuple(b_hh)

    def _weights(self, k: int, dtype):
        cast = [ops.cast(self.w_ih_list[k], dtype), ops.cast(self.w_hh_list[k], dtype)]
        if self.has_bias:
            return (*cast, ops.cast(self.b_ih_list[k], dtype), ops.cast(self.b_hh_list[k], dtype))
        return (*cast, None, None)

    def _layer(self, x, state, seq_length, layer: int):
        """Run every direction of `layer` over time-major x as one RecurrentScan.

        Returns (outputs (T, N, D * H), final h (D, N, H), final c (D, N, H); c is zeros for RNN and GRU).
        The directions advance together, one batched step per time step; the backward direction runs each
        sample's steps from its last to its first in the loop itself.
        """
        first = layer * self.num_directions
        weights = []
        for k in range(first, first + self.num_directions):
            w_ih, w_hh, b_ih, b_hh = self._weights(k, x.dtype)
            if b_ih is None:  # adding zero leaves every value as it is
                b_ih, b_hh = ops.zeros((w_ih.shape[0],), x.dtype), ops.zeros((w_hh.shape[0],), x.dtype)
            weights += [w_ih, w_hh, b_ih, b_hh]
        h0, c0 = state if self.is_lstm else (state, ops.zeros_like(state))
        if seq_length is None:
            seq_length = ops.fill(mstype.int32, (x.shape[1],), x.shape[0])
        reverse = (False, True)[: self.num_directions]
        return apply(prim("RecurrentScan"), (x, seq_length, h0, c0, *weights), (self.mode, reverse))

    def construct(self, x, hx=None, seq_length=None):
        cls = type(self).__name__
        if not isinstance(x, Tensor) or x.ndim != 3:
            raise ValueError(f"For '{cls}', 'x' must be a 3-D Tensor, but got {getattr(x, 'shape', type(x))}.")
        if x.shape[-1] != self.input_size:
            raise ValueError(f"For '{cls}', the last dimension of 'x' must be input_size={self.input_size}, but got "
                             f"x shape {list(x.shape)}.")  # fmt: skip
        if self.batch_first:
            x = ops.swapaxes(x, 0, 1)
        batch = x.shape[1]
        n_states = self.num_layers * self.num_directions
        if hx is None:
            zeros = ops.zeros((n_states, batch, self.hidden_size), x.dtype)
            hx = (zeros, zeros) if self.is_lstm else zeros
        elif self.is_lstm and (not isinstance(hx, (tuple, list)) or len(hx) != 2):
            raise TypeError(f"For '{cls}', 'hx' must be a tuple (h_0, c_0).")
        else:
            _check_state(cls, hx if self.is_lstm else (hx,), (n_states, batch, self.hidden_size))
            # The layer computes in x's dtype (its weights are cast to it): so does the initial state, as under
            # `to_float`, where MindSpore casts every op's inputs (a float32 state given to a float16 layer).
            hx = tuple(_in_dtype(h, x.dtype) for h in hx) if self.is_lstm else _in_dtype(hx, x.dtype)
        if seq_length is not None:
            if tuple(seq_length.shape) != (batch,):
                raise ValueError(f"For '{cls}' batch size of x and seq_length must be equal, but got {batch} of x "
                                 f"and {seq_length.shape[0] if seq_length.ndim else 0} of seq_length.")  # fmt: skip
            seq_length = ops.cast(seq_length, mstype.int32)
        layer_in = x
        h_n, c_n = [], []
        for layer in range(self.num_layers):
            first = layer * self.num_directions
            last = first + self.num_directions
            state = (hx[0][first:last], hx[1][first:last]) if self.is_lstm else hx[first:last]
            output, h, c = self._layer(layer_in, state, seq_length, layer)
            h_n.append(h)
            c_n.append(c)
            if self.dropout and self.training and layer < self.num_layers - 1:
                output = ops.dropout(output, float(self.dropout))
            layer_in = output
        if self.batch_first:
            output = ops.swapaxes(output, 0, 1)
        h_n = h_n[0] if len(h_n) == 1 else ops.concat(h_n, 0)
        if self.is_lstm:
            return output, (h_n, c_n[0] if len(c_n) == 1 else ops.concat(c_n, 0))
        return output, h_n


class RNN(_RNNBase):
    """Elman RNN (tanh or relu): `output, h_n = RNN(x, hx, seq_length)`.

    Args:
        input_size, hidden_size, num_layers=1, nonlinearity='tanh', has_bias=True, batch_first=False,
        dropout=0.0, bidirectional=False, dtype=float32.
    """

    def __init__(self, *args, **kwargs) -> None:
        names = ("input_size", "hidden_size", "num_layers", "nonlinearity", "has_bias", "batch_first", "dropout",
                 "bidirectional", "dtype")  # fmt: skip
        kw = dict(zip(names, args)) | kwargs
        nonlinearity = kw.pop("nonlinearity", "tanh")
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"For 'RNN', 'nonlinearity' must be 'tanh' or 'relu', but got {nonlinearity!r}.")
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", **kw)
        self.nonlinearity = nonlinearity


class LSTM(_RNNBase):
    """Long short-term memory: `output, (h_n, c_n) = LSTM(x, (h_0, c_0), seq_length)`.

    Args:
        input_size, hidden_size, num_layers=1, has_bias=True, batch_first=False, dropout=0.0,
        bidirectional=False, dtype=float32.
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(_RNNBase):
    """Gated recurrent unit: `output, h_n = GRU(x, h_0, seq_length)` (arguments as `LSTM`)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__("GRU", *args, **kwargs)
