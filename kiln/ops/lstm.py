"""`LSTM`, the operations-level LSTM Primitive (`P.LSTM`): a stacked, perhaps bidirectional LSTM over a time-major
sequence whose weights are one flat Tensor, as the zoo's crnn_seq2seq_ocr and LPCNet call it.

Each layer runs as the `RecurrentScan` primitive nn.LSTM uses. The flat weight is read in the layout of MindSpore
2.10's CPU kernel (measured against it): every layer's and direction's input matrix (4H, in), then every hidden
matrix (4H, H), then one gate bias (4H) each, in the order (layer, direction), gates i, f, g, o. The size counts two
biases per layer and direction, as MindSpore's does; the CPU kernel reads the first of each pair only, so the rest of
the weight is unused (and gets no gradient here).
"""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._core.primitive import op_error
from kiln._core.tensor import Tensor
from kiln._core.unsupported import warn_once
from kiln.ops import array, math
from kiln.ops._helpers import apply, prim
from kiln.ops.primitive import Primitive

__all__ = ["LSTM"]


def _typed(name: str, value, kind: type):
    """`value` if it is a `kind` (a bool is no int, an int no float, as MindSpore checks them), else TypeError."""
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise TypeError(f"For 'LSTM', '{name}' must be a {kind.__name__}, but got {type(value).__name__} {value!r}.")
    return value


def _positive(name: str, value) -> int:
    if _typed(name, value, int) <= 0:
        raise ValueError(f"For 'LSTM', '{name}' must be a positive int, but got {value}.")
    return value


class LSTM(Primitive):
    """A stacked LSTM over a time-major sequence, its weights one flat Tensor.

    Args:
        input_size (int): the features of the input.
        hidden_size (int): the features of the hidden state.
        num_layers (int): the stacked layers.
        has_bias (bool): whether the gates have biases.
        bidirectional (bool): whether each layer also runs from the last step to the first.
        dropout (float): in [0, 1]; MindSpore's CPU kernel applies none, nor does Kiln (it warns once).
        proj_size (int): a projection of the hidden state, in [0, hidden_size); only 0 is implemented.

    Inputs: x (T, N, input_size), h and c (num_layers * D, N, hidden_size), w (the flat weight, size as above).
    Outputs: (output (T, N, D * hidden_size), h_n, c_n, reserve, state); reserve and state are (1, 1) zeros, as
    nothing reads them outside MindSpore's own kernels.
    """

    def __init__(
        self,
        input_size: int,
        hidden_size: int,
        num_layers: int,
        has_bias: bool,
        bidirectional: bool,
        dropout: float,
        proj_size: int = 0,
    ) -> None:
        super().__init__()
        _positive("input_size", input_size)
        _positive("hidden_size", hidden_size)
        if not 0 <= _typed("proj_size", proj_size, int) < hidden_size:
            raise ValueError(f"For 'LSTM', 'proj_size' must be in [0, {hidden_size}), but got {proj_size}.")
        _positive("num_layers", num_layers)
        _typed("has_bias", has_bias, bool)
        _typed("bidirectional", bidirectional, bool)
        if not 0.0 <= _typed("dropout", dropout, float) <= 1.0:
            raise ValueError(f"For 'LSTM', 'dropout' must be in [0.0, 1.0], but got {dropout}.")
        attrs = dict(input_size=input_size, hidden_size=hidden_size, num_layers=num_layers, has_bias=has_bias,
                     bidirectional=bidirectional, dropout=dropout, proj_size=proj_size)  # fmt: skip
        for name, value in attrs.items():
            self.add_prim_attr(name, value)
        self.num_directions = 2 if bidirectional else 1

    def _layer_inputs(self, layer: int) -> int:
        return self.input_size if layer == 0 else self.hidden_size * self.num_directions

    def weight_size(self) -> int:
        """The flat weight's element count (two biases per layer and direction, as MindSpore counts them)."""
        h, d = self.hidden_size, self.num_directions
        bias = 8 * h if self.has_bias else 0
        return sum(d * (4 * h * (self._layer_inputs(layer) + h) + bias) for layer in range(self.num_layers))

    def _check(self, x, h, c, w) -> None:
        for name, t in (("x", x), ("h", h), ("c", c), ("w", w)):
            if not isinstance(t, Tensor):
                raise op_error(self.name, f"'{name}' must be a Tensor, but got {type(t).__name__}.", TypeError)
        if x.ndim != 3 or x.shape[2] != self.input_size:
            raise op_error(self.name, f"'x' must be (seq_len, batch, {self.input_size}), but got {list(x.shape)}.")
        state = [self.num_layers * self.num_directions, x.shape[1], self.hidden_size]
        for name, t in (("h", h), ("c", c)):
            if list(t.shape) != state:
                raise op_error(self.name, f"'{name}' must have shape {state}, but got {list(t.shape)}.")
        if w.size != self.weight_size():
            raise op_error(self.name, f"'w' must have {self.weight_size()} elements for these sizes, but got "
                                      f"{w.size} (shape {list(w.shape)}).")  # fmt: skip

    def __call__(self, x, h, c, w):
        self._check(x, h, c, w)
        if self.proj_size:
            raise NotImplementedError("P.LSTM: proj_size > 0 is not implemented in Kiln; use proj_size=0.")
        if self.dropout and self.num_layers > 1:
            warn_once(("P.LSTM dropout",), "P.LSTM: dropout between layers is not applied (nor is it by "
                      "MindSpore's CPU kernel); the layers run without it.")  # fmt: skip
        hid, d, layers = self.hidden_size, self.num_directions, self.num_layers
        flat = array.reshape(math.cast(w, x.dtype), (-1,))
        pos, w_ih, w_hh = 0, [], []
        for layer in range(layers):
            for _ in range(d):
                size = 4 * hid * self._layer_inputs(layer)
                w_ih.append(array.reshape(flat[pos : pos + size], (4 * hid, self._layer_inputs(layer))))
                pos += size
        for _ in range(layers * d):
            w_hh.append(array.reshape(flat[pos : pos + 4 * hid * hid], (4 * hid, hid)))
            pos += 4 * hid * hid
        zeros = array.zeros((4 * hid,), x.dtype)
        b_ih = [
            flat[pos + k * 4 * hid : pos + (k + 1) * 4 * hid] if self.has_bias else zeros for k in range(layers * d)
        ]
        seq_length = array.fill(mstype.int32, (x.shape[1],), x.shape[0])
        reverse = (False, True)[:d]
        layer_in, h_n, c_n = x, [], []
        for layer in range(layers):
            first = layer * d
            weights = []
            for k in range(first, first + d):
                weights += [w_ih[k], w_hh[k], b_ih[k], zeros]
            state = (math.cast(h[first : first + d], x.dtype), math.cast(c[first : first + d], x.dtype))
            layer_in, h_l, c_l = apply(
                prim("RecurrentScan"), (layer_in, seq_length, *state, *weights), ("LSTM", reverse)
            )
            h_n.append(h_l)
            c_n.append(c_l)
        placeholder = array.zeros((1, 1), x.dtype)
        return layer_in, array.concat(h_n, 0), array.concat(c_n, 0), placeholder, placeholder
