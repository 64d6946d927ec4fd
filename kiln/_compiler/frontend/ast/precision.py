"""Mixed precision in a compiled graph, as MindSpore 2.10's GRAPH_MODE runs it (PyNative's rule, every op casting
its inputs, is `dispatch.running_in`'s).

Inside the construct of a Cell flagged by `to_float` or an fp16/fp32/bf16 flag (and the Cell's own methods it
calls; `Context.amp_dtype`), MindSpore's GRAPH_MODE casts to the flag's dtype:
  - the Cell's floating-point inputs, at its call (`calls.call_cell`), a library Cell's too (so an nn.Dropout or
    nn.Identity that returns a float32 value computed inside returns it in float16);
  - a floating-point Tensor constant (a Cell attribute, a global), where the code reads it;
  - a Parameter, where the code hands it to an operator (`+`, `*`, ...), a Primitive instance's call or a tuple or
    list display, not where it passes it to a functional op or a function (graphs of their own) or returns it.
A value computed inside (an op's result, a user's `ops.cast(x, float32)`) is never cast: it keeps its dtype, and
a float32 value meeting a float16 one promotes. A plain function called from the construct runs uncast. Measured
differences left: MindSpore casts a Parameter some Tensor methods take (`p.exp()`, not `p.sum()`), Kiln none. Both
refuse `ops.matmul(float16 input, float32 Parameter)` (TypeError: MatMul, Dense, BiasAdd and the convolutions convert
no input, `_prims/_checks.same_float_dtype`).
Kiln's library Cells (nn.Dense, nn.LayerNorm, ...) run their construct as Python on the symbolic Tensors, not
through this frontend: after the cast of their inputs at the call, they keep PyNative's per-op casts, the same values
where their code computes nothing in float32 on purpose.
"""

from __future__ import annotations

from kiln._core import dtype as mstype
from kiln._core.primitive import REGISTRY
from kiln._core.tensor import Parameter, Tensor
from kiln._pynative.dispatch import apply


def cast(value, dt: mstype.DType):
    """`value` cast to `dt` when it is a floating-point Tensor of another dtype; any other value as it is."""
    if isinstance(value, Tensor):
        have = value.dtype
        if have != dt and have.is_floating:
            return apply(REGISTRY["Cast"], (value,), (dt.np,))
    return value


def arguments_cast(dt: mstype.DType, args, kwargs: dict | None) -> tuple[list, dict | None]:
    """A flagged Cell's call arguments (positional, keyword) with each floating-point Tensor cast to `dt`."""
    return [cast(v, dt) for v in args], ({n: cast(v, dt) for n, v in kwargs.items()} if kwargs else kwargs)


def parameters_cast(dt: mstype.DType, values, keep: frozenset = frozenset()) -> list:
    """`values` with each Parameter cast to `dt` (the operands an operator or a Primitive takes), except at the
    positions in `keep`."""
    return [cast(v, dt) if isinstance(v, Parameter) and i not in keep else v for i, v in enumerate(values)]


def primitive_arguments_cast(dt: mstype.DType, primitive, args) -> list:
    """A Primitive instance's arguments with each Parameter cast to `dt`, except the state its definition declares
    it updates (`PrimitiveDef.amp_keep`: an optimizer's variables, BatchNorm's moving statistics, an Assign's
    target), which it must write in their own dtype, as MindSpore's signatures mark them written."""
    definition = REGISTRY.get(getattr(primitive, "name", None))
    return parameters_cast(dt, args, frozenset() if definition is None else _kept(definition, primitive))


def _kept(definition, primitive) -> frozenset:
    """The positions `definition.amp_keep` declares for a call of `primitive`; when they depend on the attributes
    (BatchNorm's is_training), those the instance recorded under the declaration's names, the defaults elsewhere."""
    if type(definition.amp_keep) is frozenset:
        return definition.amp_keep
    given = getattr(primitive, "attrs", {})
    names, defaults = definition.attr_names, definition.attr_defaults
    return definition.amp_kept(tuple(given.get(n, d) for n, d in zip(names, defaults, strict=True)))


def constant_cast(dt: mstype.DType | None, value):
    """A Tensor constant read inside a flagged construct (`dt` not None), cast; a Parameter or other value kept."""
    if dt is None or not isinstance(value, Tensor) or isinstance(value, Parameter):
        return value
    return cast(value, dt)


def is_primitive(fn) -> bool:
    """Whether `fn` is a Primitive instance (`ops.MatMul()`), known by its class: the compiler does not import ops."""
    return any(c.__name__ == "Primitive" and c.__module__ == "kiln.ops.primitive" for c in type(fn).__mro__)
