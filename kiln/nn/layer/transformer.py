"""Attention and Transformer layers: `nn.MultiheadAttention`, `nn.TransformerEncoderLayer`, ... (MindSpore 2.x).

Parameter names, shapes and initialisers are MindSpore's (`in_proj_weight` (3E, E), `in_proj_bias`, `out_proj`,
`q/k/v_proj_weight` when the key or value width differs), so checkpoints carry over.
"""

from __future__ import annotations

import copy
import math

from kiln import ops
from kiln._core import dtype as mstype
from kiln._core.tensor import Parameter, Tensor
from kiln.common.initializer import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from kiln.nn.cell import Cell, CellList
from kiln.nn.layer.basic import Dropout
from kiln.nn.layer.dense import Dense
from kiln.nn.layer.normalization import LayerNorm

__all__ = [
    "MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerEncoderLayer",
]  # fmt: skip


def _linear(x, weight, bias):
    out = ops.matmul(x, ops.transpose(weight, (1, 0)))
    return out if bias is None else out + bias


def _merge_masks(attn_mask, key_padding_mask, bsz, num_heads, tgt_len, src_len, dtype):
    """One additive float mask broadcastable to (bsz * num_heads, tgt_len, src_len), or None.

    As MindSpore 2.10 combines them: a boolean `attn_mask` is or-ed with a boolean padding mask; a float
    `attn_mask` gets the padding mask added (a boolean one as 0/1); what is still boolean then becomes -inf/0.
    """
    mask = None
    if attn_mask is not None:
        if attn_mask.dtype == mstype.uint8:
            attn_mask = ops.cast(attn_mask, mstype.bool_)
        elif attn_mask.dtype != mstype.bool_ and not attn_mask.dtype.is_floating:
            raise ValueError(f"attn_mask only supports float, byte and bool types, but got {attn_mask.dtype}.")
        if attn_mask.ndim == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise ValueError(f"The shape of the 2D attn_mask should be {(tgt_len, src_len)}, "
                                 f"but got {tuple(attn_mask.shape)}.")  # fmt: skip
            attn_mask = ops.expand_dims(attn_mask, 0)
        elif attn_mask.ndim == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise ValueError(f"The shape of the 3D attn_mask should be {(bsz * num_heads, tgt_len, src_len)}, "
                                 f"but got {tuple(attn_mask.shape)}.")  # fmt: skip
        else:
            raise ValueError(f"The ndim of attn_mask must be 2 or 3, but got {attn_mask.ndim}.")
        mask = attn_mask
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise ValueError(f"key_padding_mask has shape {tuple(key_padding_mask.shape)}; it masks keys per batch "
                             f"row, so its shape is (batch, key length) = {(bsz, src_len)}.")  # fmt: skip
        kpm = ops.reshape(ops.tile(ops.reshape(key_padding_mask, (bsz, 1, 1, src_len)), (1, num_heads, 1, 1)),
                          (bsz * num_heads, 1, src_len))  # fmt: skip
        if mask is None:
            mask = kpm
        elif mask.dtype == mstype.bool_:
            mask = ops.logical_or(mask, kpm)
        else:
            mask = mask + ops.cast(kpm, mask.dtype)
    if mask is not None and mask.dtype == mstype.bool_:
        mask = ops.masked_fill(ops.zeros(mask.shape, dtype), mask, float("-inf"))
    return mask


def multi_head_attention_forward(
    query, key, value, embed_dim, num_heads, in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
    dropout_p, out_proj_weight, out_proj_bias, training=True, key_padding_mask=None, need_weights=True,
    attn_mask=None, use_separate_proj_weight=False, q_proj_weight=None, k_proj_weight=None, v_proj_weight=None,
    average_attn_weights=True,
):  # fmt: skip
    """Multi-head attention of (L, N, E) queries over (S, N, E_k) keys and (S, N, E_v) values (or unbatched)."""
    batched = query.ndim == 3
    if not batched:
        query, key, value = (ops.expand_dims(t, 1) for t in (query, key, value))
        if key_padding_mask is not None:
            key_padding_mask = ops.expand_dims(key_padding_mask, 0)
    tgt_len, bsz, _ = query.shape
    head_dim = embed_dim // num_heads
    if use_separate_proj_weight:
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = ops.split(in_proj_bias, embed_dim)
        q, k, v = _linear(query, q_proj_weight, bq), _linear(key, k_proj_weight, bk), _linear(value, v_proj_weight, bv)
    else:
        wq, wk, wv = ops.split(in_proj_weight, embed_dim)
        bq = bk = bv = None
        if in_proj_bias is not None:
            bq, bk, bv = ops.split(in_proj_bias, embed_dim)
        q, k, v = _linear(query, wq, bq), _linear(key, wk, bk), _linear(value, wv, bv)
    dtype = q.dtype
    if bias_k is not None and bias_v is not None:
        k = ops.concat((k, ops.broadcast_to(bias_k, (1, bsz, embed_dim))), 0)
        v = ops.concat((v, ops.broadcast_to(bias_v, (1, bsz, embed_dim))), 0)
        if attn_mask is not None:
            attn_mask = ops.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = ops.pad(key_padding_mask, (0, 1))
    # (L, N, E) -> (N * heads, L, head_dim)
    q = ops.transpose(ops.reshape(q, (tgt_len, bsz * num_heads, head_dim)), (1, 0, 2))
    k = ops.transpose(ops.reshape(k, (k.shape[0], bsz * num_heads, head_dim)), (1, 0, 2))
    v = ops.transpose(ops.reshape(v, (v.shape[0], bsz * num_heads, head_dim)), (1, 0, 2))
    if add_zero_attn:
        k = ops.concat((k, ops.zeros((bsz * num_heads, 1, head_dim), dtype)), 1)
        v = ops.concat((v, ops.zeros((bsz * num_heads, 1, head_dim), dtype)), 1)
        if attn_mask is not None:
            attn_mask = ops.pad(attn_mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = ops.pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    mask = _merge_masks(attn_mask, key_padding_mask, bsz, num_heads, tgt_len, src_len, dtype)
    scores = ops.bmm(q * (1.0 / math.sqrt(head_dim)), ops.transpose(k, (0, 2, 1)))
    if mask is not None:
        scores = scores + mask
    weights = ops.softmax(scores, -1)
    if training and dropout_p > 0.0:
        weights = ops.dropout(weights, dropout_p)
    out = ops.bmm(weights, v)  # (N * heads, L, head_dim)
    out = ops.reshape(ops.transpose(out, (1, 0, 2)), (tgt_len * bsz, embed_dim))
    out = ops.reshape(_linear(out, out_proj_weight, out_proj_bias), (tgt_len, bsz, embed_dim))
    weights = ops.reshape(weights, (bsz, num_heads, tgt_len, src_len))
    if average_attn_weights:
        weights = ops.mean(weights, 1)
    if not batched:
        out = ops.squeeze(out, 1)
        weights = ops.squeeze(weights, 0)
    return out, (weights if need_weights else None)


class MultiheadAttention(Cell):
    """Multi-head attention (Attention Is All You Need): `Concat(head_1..head_h) W^O`, heads over split E.

    Args:
        embed_dim (int): model width E (split over the heads).
        num_heads (int): number of heads; must divide `embed_dim`.
        dropout (float): dropout probability on the attention weights. Default: 0.0.
        has_bias (bool): biases in the input and output projections. Default: True.
        add_bias_kv (bool): learnable bias rows appended to keys and values. Default: False.
        add_zero_attn (bool): a zero row appended to keys and values. Default: False.
        kdim, vdim (int): key and value widths (default: `embed_dim`).
        batch_first (bool): inputs are (N, L, E) instead of (L, N, E). Default: False.
        dtype: parameter dtype. Default: float32.

    Inputs:
        query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None, average_attn_weights=True.

    Outputs:
        `(attn_output, attn_weights)`, or `(attn_output,)` when `need_weights` is False.
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, dtype=mstype.float32, bias=None):  # fmt: skip
        super().__init__()
        if bias is not None:  # MindSpore's coming name of `has_bias`
            has_bias = bias
        if not isinstance(embed_dim, int) or not isinstance(num_heads, int) or embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"'embed_dim' and 'num_heads' must be positive ints, got {embed_dim!r}, {num_heads!r}.")
        self.embed_dim = embed_dim
        # Keys and values default to the query width; one packed projection serves all three when they agree.
        self.kdim, self.vdim = (embed_dim if d is None else d for d in (kdim, vdim))
        self._qkv_same_embed_dim = embed_dim == self.kdim == self.vdim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise ValueError(
                f"embed_dim={embed_dim} does not split into num_heads={num_heads} equal heads; "
                "choose a num_heads that divides embed_dim."
            )
        dtype = dtype or mstype.float32
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(
                initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype), "in_proj_weight"
            )
            self.q_proj_weight = self.k_proj_weight = self.v_proj_weight = None
        else:
            self.q_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, embed_dim), dtype), "q_proj_weight")
            self.k_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, self.kdim), dtype), "k_proj_weight")
            self.v_proj_weight = Parameter(initializer(XavierUniform(), (embed_dim, self.vdim), dtype), "v_proj_weight")
            self.in_proj_weight = None
        if has_bias:
            self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype), "in_proj_bias")
        else:
            self.in_proj_bias = None
        out_init = {"weight_init": HeUniform(math.sqrt(5)), "bias_init": Uniform(1 / math.sqrt(embed_dim))}
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=has_bias, dtype=dtype, **out_init)
        if add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype), "bias_v")
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                  average_attn_weights=True):  # fmt: skip
        if key_padding_mask is not None and (
            not isinstance(key_padding_mask, Tensor)
            or (key_padding_mask.dtype != mstype.bool_ and not key_padding_mask.dtype.is_floating)
        ):
            raise ValueError(f"key_padding_mask is {key_padding_mask.dtype}; give a bool mask or a float additive one.")
        batched = query.ndim == 3
        if self.batch_first and batched:
            query, key, value = (ops.swapaxes(x, 0, 1) for x in (query, key, value))
        out, weights = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight, self.in_proj_bias, self.bias_k,
            self.bias_v, self.add_zero_attn, self.dropout, self.out_proj.weight, self.out_proj.bias,
            training=self.training, key_padding_mask=key_padding_mask, need_weights=need_weights,
            attn_mask=attn_mask, use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight, v_proj_weight=self.v_proj_weight,
            average_attn_weights=average_attn_weights,
        )  # fmt: skip
        if self.batch_first and batched:
            out = ops.swapaxes(out, 0, 1)
        if need_weights:
            return out, weights
        return (out,)


def _activation(activation):
    if callable(activation):
        return activation
    if activation == "relu":
        return ops.relu
    if activation == "gelu":
        return ops.gelu
    raise ValueError(f"The argument 'activation' must be 'relu', 'gelu' or a callable, but got {activation!r}.")


class _TransformerLayer(Cell):
    """What the encoder and decoder layers share: the constructor and the self-attention and feed-forward blocks.
    `_attentions` is 1 for an encoder layer, 2 for a decoder layer (self-attention and attention over memory)."""

    _attentions = 1

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation="relu", layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=mstype.float32):  # fmt: skip
        # the sub-Cells in MindSpore's order (which fixes the order of the parameters): attentions,
        # feed-forward, norms, dropouts, activation
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, dtype=dtype)
        if self._attentions == 2:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                     dtype=dtype)  # fmt: skip
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm_first = norm_first
        for i in range(1, self._attentions + 2):
            setattr(self, f"norm{i}", LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for i in range(1, self._attentions + 2):
            setattr(self, f"dropout{i}", Dropout(p=dropout))
        self.activation = _activation(activation)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _feed_forward(self, x):
        """The feed-forward block before its last dropout (dropout2 in an encoder, dropout3 in a decoder)."""
        return self.dense2(self.dropout(self.activation(self.dense1(x))))


class TransformerEncoderLayer(_TransformerLayer):
    """One encoder layer: self-attention and a feed-forward block, each with dropout, a residual and LayerNorm."""

    _attentions = 1

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _ff_block(self, x):
        return self.dropout2(self._feed_forward(x))


class TransformerDecoderLayer(_TransformerLayer):
    """One decoder layer: self-attention, attention over the encoder's memory, and a feed-forward block."""

    _attentions = 2

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):  # fmt: skip
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _mha_block(self, x, mem, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]  # fmt: skip
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self._feed_forward(x))


class _LayerStack(Cell):
    """`num_layers` deep copies of one layer (`layers`), then `norm` (if given): the encoder's and decoder's stack."""

    def __init__(self, layer, num_layers: int, norm) -> None:
        super().__init__()
        self.layers = CellList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm


class TransformerEncoder(_LayerStack):
    """`num_layers` deep copies of `encoder_layer`, then `norm` (if given)."""

    def __init__(self, encoder_layer, num_layers: int, norm=None) -> None:
        super().__init__(encoder_layer, num_layers, norm)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(_LayerStack):
    """`num_layers` deep copies of `decoder_layer`, then `norm` (if given)."""

    def __init__(self, decoder_layer, num_layers: int, norm=None) -> None:
        super().__init__(decoder_layer, num_layers, norm)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):  # fmt: skip
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask)  # fmt: skip
        return self.norm(out) if self.norm is not None else out


def _default_stack(stack_cls: type, layer_cls: type, num_layers: int, layer_args: dict) -> Cell:
    """Transformer's own encoder or decoder: `num_layers` copies of `layer_cls(**layer_args)`, then a LayerNorm."""
    layer = layer_cls(**layer_args)
    norm = LayerNorm((layer_args["d_model"],), epsilon=layer_args["layer_norm_eps"], dtype=layer_args["dtype"])
    return stack_cls(layer, num_layers, norm)


class Transformer(Cell):
    """An encoder-decoder Transformer (d_model wide, nhead heads), PyTorch's and MindSpore's layout."""

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6, num_decoder_layers: int = 6,
                 dim_feedforward: int = 2048, dropout: float = 0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps: float = 1e-5, batch_first: bool = False,
                 norm_first: bool = False, dtype=mstype.float32):  # fmt: skip
        super().__init__()
        layer_args = dict(d_model=d_model, nhead=nhead, dim_feedforward=dim_feedforward, dropout=dropout,
                          activation=activation, layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                          norm_first=norm_first, dtype=dtype)  # fmt: skip
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = _default_stack(TransformerEncoder, TransformerEncoderLayer, num_encoder_layers, layer_args)
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = _default_stack(TransformerDecoder, TransformerDecoderLayer, num_decoder_layers, layer_args)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        # every matrix of the model (custom stacks included) is drawn again from Xavier-uniform
        for p in self.get_parameters():
            if p.ndim > 1:
                p.set_data(initializer(XavierUniform(), p.shape, p.dtype))

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):  # fmt: skip
        memory = self.encoder(src, src_mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)  # fmt: skip
