"""Wrapper cells: WithLossCell, WithEvalCell, WithGradCell, ForwardValueAndGrad, TrainOneStepCell and
VirtualDatasetCellTriple (MindSpore's `nn.wrap.cell_wrapper`).

`TrainOneStepCell.construct` is the whole training step: forward, gradients of
the loss with respect to the optimizer's parameters, and the optimizer update.
Because it is called through `Cell.__call__`, in GRAPH_MODE the step is handed
to the graph compiler and runs as one compiled executable; in PyNative mode it
runs op by op with the tape.
"""

from __future__ import annotations

import os
import warnings

from kiln import ops
from kiln._core.tensor import Parameter, ParameterTuple
from kiln._parallel import context as PC
from kiln._parallel.batch import shards_optimizer_state, spans_processes
from kiln._parallel.pipeline import refuse_unstaged_step
from kiln.nn.cell import Cell
from kiln.nn.layer.basic import Identity
from kiln.nn.wrap.grad_reducer import data_parallel_reducer, spread_batch, spreads_batches

__all__ = [
    "ForwardValueAndGrad", "TrainOneStepCell", "VirtualDatasetCellTriple", "WithEvalCell", "WithGradCell",
    "WithLossCell",
]  # fmt: skip


class WithLossCell(Cell):
    """`loss_fn(backbone(data), label)`.

    Args:
        backbone: the network.
        loss_fn: the loss, called as `loss_fn(logits, label)`.

    Inputs:
        data, label (Tensor).

    Outputs:
        Tensor, the loss.
    """

    def __init__(self, backbone: Cell, loss_fn: Cell) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(backbone, Cell):
            raise TypeError(f"WithLossCell: 'backbone' must be a Cell, but got {type(backbone).__name__}.")
        if not callable(loss_fn):
            raise TypeError(f"WithLossCell: 'loss_fn' must be a Cell or function, but got {type(loss_fn).__name__}.")
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        out = self._backbone(data)
        return self._loss_fn(out, label)

    @property
    def backbone_network(self) -> Cell:
        """The wrapped network."""
        return self._backbone


class WithEvalCell(Cell):
    """Evaluation outputs `(loss, logits, label)` for metrics.

    Args:
        network: the network.
        loss_fn: the loss, called as `loss_fn(logits, label)`.
        add_cast_fp32: cast the logits, and a floating-point label, to float32 before the loss (an integer label,
            a sparse loss's class indices, is left as it is).

    Inputs:
        data, label (Tensor).

    Outputs:
        (loss, logits, label).
    """

    def __init__(self, network: Cell, loss_fn: Cell, add_cast_fp32: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data, label):
        outputs = self._network(data)
        if self.add_cast_fp32:
            label = ops.mixed_precision_cast("float32", label)
            outputs = ops.cast(outputs, "float32")
        loss = self._loss_fn(outputs, label)
        return loss, outputs, label


class WithGradCell(Cell):
    """The gradients of the loss with respect to the network's trainable parameters.

    Args:
        network: the network (returns the loss itself when `loss_fn` is None).
        loss_fn: the loss, applied as `loss_fn(network(data), label)`.
        sens: the scale of the loss gradient (None: 1).

    Attributes (as MindSpore's, for subclasses): `network` (the given network), `loss_fn`, `network_with_loss`
    (what is differentiated), `weights` (its trainable parameters), `grad` (a `GradOperation` over `weights`,
    taking the sensitivity as its last input when `sens` is given) and `sens`.

    Inputs:
        The inputs of the network (and the label when `loss_fn` is given).

    Outputs:
        tuple of Tensors, one gradient per trainable parameter.
    """

    def __init__(self, network: Cell, loss_fn=None, sens: float | None = None) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_grad()
        self.weights = ParameterTuple(network.trainable_params())  # registered under their own names, as in MindSpore
        self.grad = ops.GradOperation(get_by_list=True, sens_param=sens is not None)
        self.sens = sens
        object.__setattr__(self, "_grad_fn", ops.grad(self.network_with_loss, None, self.weights))

    def construct(self, *inputs):
        grads = self._grad_fn(*inputs)
        if self.sens is not None and self.sens != 1.0:
            # The gradient is linear in the output sensitivity, so scaling afterwards is exact.
            grads = tuple(g * self.sens for g in grads)
        return grads


class TrainOneStepCell(Cell):
    """One training step: the loss, its gradients for the optimizer's parameters, the update.

    Args:
        network: a cell returning the loss (e.g. a WithLossCell).
        optimizer: an `nn.Optimizer`; its `parameters` are differentiated.
        sens: the scale of the loss gradient (None: 1; 0 is a ValueError).
        return_grad: also return the gradients `(loss, {name: grad})`.

    Attributes (as MindSpore's, for subclasses that write their own `construct`): `network`, `optimizer`,
    `weights` (the optimizer's parameters), `grad` (`GradOperation(get_by_list=True, sens_param=True)`: call
    `self.grad(self.network, self.weights)(*inputs, sens)`), `grad_no_sens` (the same without the
    sensitivity), `sens` (1.0 when not given) and `sense_flag` (whether it was given), `reducer_flag` (whether
    gradients are all-reduced across ranks), `grad_reducer` (the reducer: a `DistributedGradReducer` Cell in
    data-parallel mode, else an `nn.Identity` Cell), `parallel_mode`, `use_graceful_exit` (False: Kiln has no
    graceful-exit protocol) and with `reducer_flag` the reducer's `mean` and `degree`.

    Inputs:
        The network's inputs.

    Outputs:
        Tensor, the loss (before the update).
    """

    def __init__(self, network: Cell, optimizer: Cell, sens: float | None = None, return_grad: bool = False) -> None:
        super().__init__(auto_prefix=False)
        if not isinstance(network, Cell):
            raise TypeError(f"TrainOneStepCell: 'network' must be a Cell, but got {type(network).__name__}.")
        weights = getattr(optimizer, "parameters", None)
        if weights is None:
            raise TypeError(
                f"TrainOneStepCell: 'optimizer' must be an nn.Optimizer (with .parameters), "
                f"but got {type(optimizer).__name__}."
            )
        if sens is not None and (isinstance(sens, bool) or not isinstance(sens, (int, float))):
            raise TypeError(f"TrainOneStepCell: 'sens' must be a float or None, but got {type(sens).__name__}.")
        if sens == 0:
            raise ValueError("TrainOneStepCell: 'sens' is 0, which would make every gradient 0; pass None for 1.")
        refuse_unstaged_step(network)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        # Registered under their own names, as in MindSpore: its parameter traversal then meets them here first,
        # so a parent that prefixes this cell names them `<prefix>.<name>`, not by their path in the network.
        self.weights = ParameterTuple(weights)
        self.grad = ops.GradOperation(get_by_list=True, sens_param=True)
        self.grad_no_sens = ops.GradOperation(get_by_list=True)
        self.sense_flag = sens is not None
        self.sens = 1.0 if sens is None else sens
        self.return_grad = return_grad
        if return_grad:
            self.weights_name = [w.name for w in self.weights]
        object.__setattr__(self, "_value_and_grad", ops.value_and_grad(network, None, self.weights))
        # As in MindSpore: data-parallel mode all-reduces the gradients across ranks; a subclass may assign its own.
        self.parallel_mode = PC.parallel_mode()
        reducer = data_parallel_reducer(self.weights)
        self.reducer_flag = reducer is not None
        self.grad_reducer = Identity() if reducer is None else reducer
        if reducer is not None:
            self.mean, self.degree = reducer.mean, reducer._divisor
        self.use_graceful_exit = False
        if os.environ.get("MS_ENABLE_GRACEFUL_EXIT") == "1":
            warnings.warn(
                "TrainOneStepCell: MS_ENABLE_GRACEFUL_EXIT=1 asks for MindSpore's exit-on-request protocol between "
                "ranks, which Kiln does not have; the steps run without it (use_graceful_exit is False).",
                stacklevel=2,
            )
        if spreads_batches():
            self.register_forward_pre_hook(spread_batch)
        if spans_processes() or shards_optimizer_state():  # a compiled step reads arrays already placed
            self.__dict__["_graph_entry_hook"] = spread_batch

    def construct(self, *inputs):
        loss, grads = self._value_and_grad(*inputs)
        if self.sens != 1.0:
            # The gradient is linear in the output sensitivity, so scaling afterwards is exact.
            grads = tuple(g * self.sens for g in grads)
        grads = self.grad_reducer(grads)
        self.optimizer(grads)
        if self.return_grad:
            return loss, {w.name: g for w, g in zip(self.weights, grads)}
        return loss


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
        self.weights = weights  # a ParameterTuple is registered under its Parameters' own names, as in MindSpore
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        self.grad = ops.GradOperation(get_all, get_by_list, sens_param)

    def construct(self, *inputs):
        value = self.network(*(inputs[:-1] if self.sens_param else inputs))
        grad_fn = self.grad(self.network, self.weights) if self.get_by_list else self.grad(self.network)
        return value, grad_fn(*inputs)


class VirtualDatasetCellTriple(Cell):
    """Wrap a three-input network (the data-parallel dataset marker; a pass-through in one process)."""

    def __init__(self, backbone) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, a, b, c):
        return self._backbone(a, b, c)


class _VirtualDatasetCell(Cell):
    """Wrap a network of any number of inputs with the data-parallel dataset marker (a pass-through in one
    process). Private in MindSpore, but model-zoo scripts import it from `nn.wrap.cell_wrapper`."""

    def __init__(self, backbone) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone

    def construct(self, *inputs):
        return self._backbone(*inputs)
