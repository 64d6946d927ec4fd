"""`nn.ForwardValueAndGrad`: a Cell returning a network's output and its gradients (MindSpore's wrap cell)."""

from __future__ import annotations

from kiln import ops
from kiln._core.tensor import Parameter, ParameterTuple
from kiln.nn.cell import Cell

__all__ = ["ForwardValueAndGrad"]


class ForwardValueAndGrad(Cell):
    """`(network(*inputs), gradients)`, the gradients chosen as `GradOperation(get_all, get_by_list, sens_param)`
    chooses them (inputs, `weights`, or both; with `sens_param` the last input is the output sensitivity)."""

    def __init__(self, network, weights=None, get_all=False, get_by_list=False, sens_param=False) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell) and not callable(network):
            raise TypeError(f"ForwardValueAndGrad: 'network' must be a Cell, but got {type(network).__name__}.")
        if get_by_list and weights is None:
            raise TypeError("ForwardValueAndGrad: 'weights' must be given when 'get_by_list' is True.")
        if weights is not None and not isinstance(weights, (ParameterTuple, list, tuple, Parameter)):
            raise TypeError(f"ForwardValueAndGrad: 'weights' must be Parameters, but got {type(weights).__name__}.")
        self.network = network
        object.__setattr__(self, "weights", weights)
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        object.__setattr__(self, "_grad", ops.GradOperation(get_all, get_by_list, sens_param))

    def construct(self, *inputs):
        value = self.network(*(inputs[:-1] if self.sens_param else inputs))
        grad_fn = self._grad(self.network, self.weights) if self.get_by_list else self._grad(self.network)
        return value, grad_fn(*inputs)
