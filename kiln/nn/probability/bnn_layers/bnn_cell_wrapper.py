"""`WithBNNLossCell`: a backbone's loss plus the KL losses of its Bayesian layers."""

from __future__ import annotations

from kiln.nn.cell import Cell
from kiln.nn.probability.bnn_layers._variational import _Variational

__all__ = ["WithBNNLossCell"]


def _factor(name, v):
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"'{name}' must be an int or float, but got {type(v).__name__}.")
    if v < 0:
        raise ValueError(f"'{name}' must be >= 0, but got {v}.")


class WithBNNLossCell(Cell):
    """loss = loss_fn(backbone(x), label) * dnn_factor + sum of the Bayesian layers' KL losses * bnn_factor."""

    def __init__(self, backbone, loss_fn, dnn_factor=1, bnn_factor=1):
        super().__init__(auto_prefix=False)
        _factor("dnn_factor", dnn_factor)
        _factor("bnn_factor", bnn_factor)
        self._backbone = backbone
        self._loss_fn = loss_fn
        self.dnn_factor = dnn_factor
        self.bnn_factor = bnn_factor
        self._bnn_layers = [c for _, c in backbone.cells_and_names() if isinstance(c, _Variational)]

    @property
    def backbone_network(self):
        return self._backbone

    def construct(self, x, label):
        loss = self._loss_fn(self._backbone(x), label) * self.dnn_factor
        kl = 0.0
        for layer in self._bnn_layers:
            kl = kl + layer.compute_kl_loss()
        return loss + kl * self.bnn_factor
