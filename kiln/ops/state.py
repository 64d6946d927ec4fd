"""State ops: `ops.assign`, `ops.assign_add`, `ops.assign_sub`, and the optimizer Primitives.

Assignments dispatch a "write0" primitive: the new value lands in the Parameter
itself. The optimizer primitives (ApplyMomentum, Adam, SGD) update several
state tensors at once; `write_back` stores their results.
"""

from __future__ import annotations

from kiln._compiler.ir import graph as G
from kiln._core.dtype import promote
from kiln._core.tensor import Parameter, Tensor, stored_value
from kiln._prims import state as S
from kiln._pynative import tape
from kiln.ops._helpers import apply, op_error, write_back
from kiln.ops.primitive import Primitive

__all__ = ["Adam", "ApplyMomentum", "Assign", "AssignAdd", "AssignSub", "SGD", "assign", "assign_add", "assign_sub"]


def _check_target(op: str, variable) -> None:
    # A plain Tensor is written in place too, as MindSpore 2.10 does in both modes (its other aliases see it).
    if not isinstance(variable, Tensor):
        raise op_error(op, f"'variable' must be a Parameter or a Tensor, but got {type(variable).__name__}.",
                       TypeError)  # fmt: skip


def _check_value(op: str, value) -> None:
    if not isinstance(value, (Tensor, int, float, bool)):
        raise op_error(op, f"'value' must be a Tensor or a number, but got {type(value).__name__}.", TypeError)


def check_no_conversion(op: str, variable: Tensor, value) -> None:
    """TypeError when `value` (a Tensor) would promote `variable`'s dtype to another: a written target keeps it."""
    # MindSpore 2.10 refuses a Tensor value whose promotion with the variable's dtype is another dtype (an int16 300
    # into int8 wrapped to 44 silently): the target keeps its dtype, so the user casts the value.
    if isinstance(value, Tensor) and (wider := promote(variable.dtype, value.dtype)) != variable.dtype:
        raise op_error(
            op,
            f"'variable' ({variable.dtype}) cannot be converted to {wider}, the dtype it would share with 'value' "
            f"({value.dtype}): a Parameter or a Tensor written in place keeps its dtype; cast 'value' first.",
            TypeError,
        )


def store(variable: Tensor, value) -> Tensor:
    """Write `value` into `variable` in place, cast to its dtype: Kiln's own updates (the state-updating Primitives,
    scatter into a Parameter) store results computed in a wider dtype, which the public `assign` refuses.

    Args:
        variable (Union[Parameter, Tensor]): the target.
        value (Union[Tensor, number]): the new value.

    Returns:
        Tensor, the new value of `variable`.
    """
    return apply(S.Assign, (variable, value))


def assigned_in_graph(param: Tensor, value) -> bool:
    """Write `value` into Parameter `param` as an Assign when a graph is being recorded and `value` is a Tensor of
    the Parameter's shape and dtype; whether it was written so. What reads the Parameter after the write then reads
    a leaf holding the new value, as in PyNative (no gradient flows into `value`): `p[i] = v`, `self.p = v` and
    `p.assign_value(v)` in a compiled `construct`."""
    if not (isinstance(param, Parameter) and isinstance(value, Tensor) and G.current() is not None):
        return False
    if value.shape != param.shape or value.dtype != param.dtype:
        return False
    apply(S.Assign, (param, value))
    return True


def _stores_as_is(variable: Tensor, value) -> bool:
    """Whether PyNative's Assign of `value` into `variable` is the value's own array (a Parameter of its shape and
    dtype, no graph recorded, no gradient taken): stored without the Assign kernel, which would only broadcast and
    cast, and compiled once per shape (the zoo's WGAN clips its discriminator's weights with `ops.assign`: 6 kernels
    compiled in its first step). The value is still computed at this line, so an error is raised here as before."""
    return (
        isinstance(variable, Parameter)
        and isinstance(value, Tensor)
        and G.current() is None
        and not tape.recording
        and value.shape == variable.shape
        and value.dtype == variable.dtype
    )


def _assignment(prim, name: str, summary: str, value_meaning: str):
    """The functional face `name` of the write primitive `prim`: the operands checked, the result stored in the
    Parameter (assign, assign_add and assign_sub differ only in their primitive and their words)."""

    def face(variable: Tensor, value) -> Tensor:
        _check_target(prim.name, variable)
        _check_value(prim.name, value)
        check_no_conversion(prim.name, variable, value)
        if prim is S.Assign and _stores_as_is(variable, value):
            write_back((variable,), (value,))
            return Tensor._wrap(stored_value(variable))
        return apply(prim, (variable, value))

    face.__name__ = face.__qualname__ = name
    face.__doc__ = f"""{summary} (value broadcast to the variable's shape, cast to its dtype).

    A Tensor value whose dtype promotes the variable's to another is a TypeError, as in MindSpore.

    Args:
        variable (Union[Parameter, Tensor]): the target, written in place.
        value (Union[Tensor, number]): {value_meaning}.

    Returns:
        Tensor, the new value of `variable`.
    """
    return face


assign = _assignment(S.Assign, "assign", "Set `variable` to `value`", "the new value")
assign_add = _assignment(S.AssignAdd, "assign_add", "`variable += value` in place", "the increment")
assign_sub = _assignment(S.AssignSub, "assign_sub", "`variable -= value` in place", "the decrement")


class Assign(Primitive):
    """`Assign()(variable, value)`: see `assign`."""

    def __call__(self, variable, value) -> Tensor:
        return assign(variable, value)


class AssignAdd(Primitive):
    """`AssignAdd()(variable, value)`: see `assign_add`."""

    def __call__(self, variable, value) -> Tensor:
        return assign_add(variable, value)


class AssignSub(Primitive):
    """`AssignSub()(variable, value)`: see `assign_sub`."""

    def __call__(self, variable, value) -> Tensor:
        return assign_sub(variable, value)


class ApplyMomentum(Primitive):
    """Momentum update of `variable` and `accumulation` in place.

    accumulation = accumulation * momentum + gradient;
    variable -= lr * accumulation, or with Nesterov
    variable -= lr * gradient + lr * momentum * accumulation.

    Args:
        use_nesterov (bool): Nesterov momentum. Default: False.
        use_locking (bool): kept for compatibility. Default: False.
        gradient_scale (float): multiplies the gradient first. Default: 1.0.

    Inputs: variable (Parameter), accumulation (Parameter), learning_rate, gradient (Tensor), momentum.
    Outputs: Tensor, the updated variable.
    """

    def __init__(self, use_nesterov: bool = False, use_locking: bool = False, gradient_scale: float = 1.0) -> None:
        super().__init__()
        self.add_prim_attr("use_nesterov", bool(use_nesterov))
        self.add_prim_attr("use_locking", bool(use_locking))
        self.add_prim_attr("gradient_scale", float(gradient_scale))

    def __call__(self, variable, accumulation, learning_rate, gradient, momentum) -> Tensor:
        _check_target(self.name, variable)
        if not isinstance(accumulation, Parameter):
            raise op_error(self.name, f"'accumulation' must be a Parameter, but got {type(accumulation).__name__}.",
                           TypeError)  # fmt: skip
        var, acc = apply(
            S.ApplyMomentum,
            (variable, accumulation, learning_rate, gradient, momentum),
            (self.use_nesterov, self.gradient_scale),
        )
        write_back((variable, accumulation), (var, acc))
        return var


class Adam(Primitive):
    """Adam update of `var`, `m` and `v` in place (bias correction from beta1_power, beta2_power).

    Args:
        use_locking (bool): kept for compatibility. Default: False.
        use_nesterov (bool): Nesterov-style first moment. Default: False.

    Inputs: var, m, v (Parameters), beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient.
    Outputs: (var, m, v), the updated values.
    """

    def __init__(self, use_locking: bool = False, use_nesterov: bool = False) -> None:
        super().__init__()
        self.add_prim_attr("use_locking", bool(use_locking))
        self.add_prim_attr("use_nesterov", bool(use_nesterov))

    def __call__(self, var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient):
        for name, x in (("var", var), ("m", m), ("v", v)):
            if not isinstance(x, Parameter):
                raise op_error(self.name, f"'{name}' must be a Parameter, but got {type(x).__name__}.", TypeError)
        out = apply(
            S.Adam, (var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, gradient), (self.use_nesterov,)
        )
        write_back((var, m, v), out)
        return out


class SGD(Primitive):
    """SGD with momentum, dampening, weight decay and Nesterov, updating `parameters` in place.

    Args:
        dampening (float): Default: 0.0.
        weight_decay (float): Default: 0.0.
        nesterov (bool): Default: False.

    Inputs: parameters, gradient, learning_rate, accum, momentum, stat (accum and stat are Parameters;
        stat > 0 marks the first step, where the momentum buffer starts at the gradient).
    Outputs: Tensor, the updated parameters.
    """

    def __init__(self, dampening: float = 0.0, weight_decay: float = 0.0, nesterov: bool = False) -> None:
        super().__init__()
        if nesterov and dampening != 0.0:
            raise op_error("SGD", f"with 'nesterov' the 'dampening' must be 0, but got {dampening}.")
        self.add_prim_attr("dampening", float(dampening))
        self.add_prim_attr("weight_decay", float(weight_decay))
        self.add_prim_attr("nesterov", bool(nesterov))

    def __call__(self, parameters, gradient, learning_rate, accum, momentum, stat) -> Tensor:
        _check_target(self.name, parameters)
        p, a, s = apply(
            S.SGD,
            (parameters, gradient, learning_rate, accum, momentum, stat),
            (self.dampening, self.weight_decay, self.nesterov),
        )
        write_back((parameters, accum, stat), (p, a, s))
        return p
