"""A small transformer encoder, written with Kiln's nn and ops as a MindSpore user would write it.

The demo reads each 8x8 digit as a sequence of 8 tokens (its rows, 8 pixels each): an embedding, a learned
position table, two pre-norm encoder layers (multi-head self-attention and a GELU MLP), a final LayerNorm,
mean pooling over the tokens and a linear classifier. Each layer is a few dozen small ops, so the forward and
backward passes of a step are a few hundred; PyNative launches each one separately, Graph mode compiles the
step into one program. That is the kind of model where Graph mode pays.
"""

from __future__ import annotations

import math

from kiln import Parameter, nn, ops
from kiln.common.initializer import Normal, initializer


class SelfAttention(nn.Cell):
    """Multi-head self-attention over (batch, tokens, d_model)."""

    def __init__(self, d_model: int, heads: int) -> None:
        super().__init__()
        if d_model % heads:
            raise ValueError(f"d_model ({d_model}) must be divisible by heads ({heads}).")
        self.heads, self.head_dim = heads, d_model // heads
        self.scale = 1.0 / math.sqrt(self.head_dim)
        self.q = nn.Dense(d_model, d_model)
        self.k = nn.Dense(d_model, d_model)
        self.v = nn.Dense(d_model, d_model)
        self.out = nn.Dense(d_model, d_model)

    def _split_heads(self, x, b, t):
        return ops.transpose(x.reshape(b, t, self.heads, self.head_dim), (0, 2, 1, 3))

    def construct(self, x):
        b, t, d = x.shape
        q = self._split_heads(self.q(x), b, t)
        k = self._split_heads(self.k(x), b, t)
        v = self._split_heads(self.v(x), b, t)
        scores = ops.matmul(q, ops.transpose(k, (0, 1, 3, 2))) * self.scale
        weights = ops.softmax(scores, axis=-1)
        ctx = ops.transpose(ops.matmul(weights, v), (0, 2, 1, 3)).reshape(b, t, d)
        return self.out(ctx)


class EncoderLayer(nn.Cell):
    """Pre-norm transformer encoder layer: x + attn(ln(x)), then x + mlp(ln(x))."""

    def __init__(self, d_model: int, heads: int, d_ff: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm((d_model,), epsilon=1e-5)
        self.attn = SelfAttention(d_model, heads)
        self.norm2 = nn.LayerNorm((d_model,), epsilon=1e-5)
        self.fc1 = nn.Dense(d_model, d_ff)
        self.act = nn.GELU()
        self.fc2 = nn.Dense(d_ff, d_model)

    def construct(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(self.act(self.fc1(self.norm2(x))))


class DigitTransformer(nn.Cell):
    """Classify a (batch, tokens, features) sequence: embedding, positions, encoder layers, mean pool, head.

    Args:
        tokens: sequence length (8 rows of a digit).
        features: features per token (8 pixels).
        num_class: classes.
        d_model, heads, d_ff, layers: the encoder's width, attention heads, MLP width and depth.
    """

    def __init__(
        self,
        tokens: int = 8,
        features: int = 8,
        num_class: int = 10,
        d_model: int = 64,
        heads: int = 4,
        d_ff: int = 128,
        layers: int = 2,
    ) -> None:
        super().__init__()
        self.embed = nn.Dense(features, d_model)
        self.pos = Parameter(initializer(Normal(0.02), (1, tokens, d_model)), name="pos")
        self.layers = nn.CellList([EncoderLayer(d_model, heads, d_ff) for _ in range(layers)])
        self.norm = nn.LayerNorm((d_model,), epsilon=1e-5)
        self.head = nn.Dense(d_model, num_class)

    def construct(self, x):
        h = self.embed(x) + self.pos
        for layer in self.layers:
            h = layer(h)
        return self.head(ops.mean(self.norm(h), 1))
