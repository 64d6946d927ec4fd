"""Ascend's fused recurrent Primitives: `DynamicRNN` (an LSTM over a sequence) and `DynamicGRUV2` (a GRU).

MindSpore runs them on Ascend only: its CPU and GPU builds construct them, checking the arguments, and refuse the
kernel when one is called. Zoo networks build them in `__init__` on every device and call nn.LSTM or nn.GRU off
Ascend (the official CTPN's BiLSTM builds two DynamicRNNs beside the nn.LSTM its CPU/GPU branch runs), so they
construct here too, with the same argument checks; a call raises NotImplementedError naming the layer to use.
"""

from __future__ import annotations

from typing import NoReturn

from kiln.ops.primitive import Primitive

__all__ = ["DynamicGRUV2", "DynamicRNN"]


def _typed(op: str, name: str, value, kind: type):
    """`value` if it is a `kind` (a bool is no int and an int no float, as MindSpore checks them), else TypeError."""
    if not isinstance(value, kind) or (kind is not bool and isinstance(value, bool)):
        raise TypeError(f"{op}: '{name}' must be a {kind.__name__}, but got {type(value).__name__} {value!r}.")
    return value


def _one_of(op: str, name: str, value, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{op}: '{name}' must be one of {list(allowed)}, but got {value!r}.")
    return value


class _AscendRecurrent(Primitive):
    """A fused recurrent Primitive: it constructs (its attributes checked and recorded); calling it raises."""

    __kiln_unavailable__ = "it is Ascend's fused recurrent kernel, which MindSpore runs on Ascend only"
    _instead = ""

    def _record(self, **attrs) -> None:
        for name, value in attrs.items():
            self.add_prim_attr(name, value)

    def __call__(self, *args: object) -> NoReturn:
        raise NotImplementedError(
            f"ops.{self.name} is not available in Kiln: {self.__kiln_unavailable__} (its CPU and GPU builds refuse "
            f"the kernel too); use {self._instead}."
        )


class DynamicRNN(_AscendRecurrent):
    """Ascend's fused LSTM over a time-major sequence (not available in Kiln: it constructs, with MindSpore's
    argument checks, and raises NotImplementedError when called; nn.LSTM computes an LSTM on every device).

    Args:
        cell_type (str): 'LSTM', the only kind. Default: 'LSTM'.
        direction (str): 'UNIDIRECTIONAL', the only direction. Default: 'UNIDIRECTIONAL'.
        cell_depth (int): the cell depth. Default: 1.
        use_peephole (bool): peephole connections. Default: False.
        keep_prob (float): the keep probability, in [0, 1]. Default: 1.0.
        cell_clip (float): the cell clip. Default: -1.0.
        num_proj (int): the projection size, >= 0. Default: 0.
        time_major (bool): the input is (steps, batch, features); True is the only layout. Default: True.
        activation (str): 'tanh', the only activation. Default: 'tanh'.
        forget_bias (float): added to the forget gate. Default: 0.0.
        is_training (bool): training mode. Default: True.
    """

    _instead = "nn.LSTM"

    def __init__(
        self,
        cell_type: str = "LSTM",
        direction: str = "UNIDIRECTIONAL",
        cell_depth: int = 1,
        use_peephole: bool = False,
        keep_prob: float = 1.0,
        cell_clip: float = -1.0,
        num_proj: int = 0,
        time_major: bool = True,
        activation: str = "tanh",
        forget_bias: float = 0.0,
        is_training: bool = True,
    ) -> None:
        super().__init__()
        op = self.name
        for name, value, kind in (
            ("cell_depth", cell_depth, int),
            ("use_peephole", use_peephole, bool),
            ("keep_prob", keep_prob, float),
            ("cell_clip", cell_clip, float),
            ("num_proj", num_proj, int),
            ("time_major", time_major, bool),
            ("forget_bias", forget_bias, float),
            ("is_training", is_training, bool),
        ):
            _typed(op, name, value, kind)
        if not 0.0 <= keep_prob <= 1.0:
            raise ValueError(f"{op}: 'keep_prob' must be in [0, 1], but got {keep_prob}.")
        if num_proj < 0:
            raise ValueError(f"{op}: 'num_proj' must be >= 0, but got {num_proj}.")
        if not time_major:
            raise ValueError(f"{op}: 'time_major' must be True (the only layout it takes), but got False.")
        self._record(
            cell_type=_one_of(op, "cell_type", cell_type, ("LSTM",)),
            direction=_one_of(op, "direction", direction, ("UNIDIRECTIONAL",)),
            cell_depth=cell_depth,
            use_peephole=use_peephole,
            keep_prob=keep_prob,
            cell_clip=cell_clip,
            num_proj=num_proj,
            time_major=time_major,
            activation=_one_of(op, "activation", activation, ("tanh",)),
            forget_bias=forget_bias,
            is_training=is_training,
        )


class DynamicGRUV2(_AscendRecurrent):
    """Ascend's fused GRU over a time-major sequence (not available in Kiln: it constructs, with MindSpore's argument
    checks, and raises NotImplementedError when called; nn.GRU computes a GRU on every device).

    Args:
        direction (str): 'UNIDIRECTIONAL', the only direction. Default: 'UNIDIRECTIONAL'.
        cell_depth (int): the cell depth. Default: 1.
        keep_prob (float): the keep probability. Default: 1.0.
        cell_clip (float): the cell clip. Default: -1.0.
        num_proj (int): the projection size, >= 0. Default: 0.
        time_major (bool): the input is (steps, batch, features). Default: True.
        activation (str): 'tanh', the only activation. Default: 'tanh'.
        gate_order (str): the gates' order in the weights and biases, 'rzh' or 'zrh'. Default: 'rzh'.
        reset_after (bool): apply the reset gate after the hidden product. Default: True.
        is_training (bool): training mode. Default: True.
    """

    _instead = "nn.GRU"

    def __init__(
        self,
        direction: str = "UNIDIRECTIONAL",
        cell_depth: int = 1,
        keep_prob: float = 1.0,
        cell_clip: float = -1.0,
        num_proj: int = 0,
        time_major: bool = True,
        activation: str = "tanh",
        gate_order: str = "rzh",
        reset_after: bool = True,
        is_training: bool = True,
    ) -> None:
        super().__init__()
        op = self.name
        for name, value, kind in (
            ("cell_depth", cell_depth, int),
            ("keep_prob", keep_prob, float),
            ("cell_clip", cell_clip, float),
            ("num_proj", num_proj, int),
            ("time_major", time_major, bool),
            ("reset_after", reset_after, bool),
            ("is_training", is_training, bool),
        ):
            _typed(op, name, value, kind)
        if num_proj < 0:
            raise ValueError(f"{op}: 'num_proj' must be >= 0, but got {num_proj}.")
        self._record(
            direction=_one_of(op, "direction", direction, ("UNIDIRECTIONAL",)),
            cell_depth=cell_depth,
            keep_prob=keep_prob,
            cell_clip=cell_clip,
            num_proj=num_proj,
            time_major=time_major,
            activation=_one_of(op, "activation", activation, ("tanh",)),
            gate_order=_one_of(op, "gate_order", gate_order, ("zrh", "rzh")),
            reset_after=reset_after,
            is_training=is_training,
        )
