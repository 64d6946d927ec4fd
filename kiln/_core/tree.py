"""The one flatten/unflatten of nested values holding Tensors (Kiln's pytrees).

A template records a value's structure with Tensors taken out as leaves:

- `LEAF` (`("t",)`): the next leaf;
- `("c", value)`: a constant, given back as it is;
- `("s", type, children)`: a tuple or list (rebuilt by calling `type` on the children);
- `("n", type, children)`: a namedtuple (its fields as arguments);
- `("d", keys, children)`: a dict (`("d", keys, children, type)` for a dict subclass to rebuild);
- `("o", object, {attribute: child})`: an object of a user class whose attributes hold Tensors (a shallow copy);
- `("f", pieces)`: a str formatted from Tensors (a graph's f-string of run-time values): each piece is text or
  `(child, conversion, spec)`, the child formatted as an f-string field (`conversion`: the code point of `s`,
  `r` or `a`, -1 for none). `flatten` never makes it; the compiler writes it for such a str.

Graph recording (`_pynative.nested`, the compiler's branches and exits), the compile cache's argument
templates (`_compiler.cache.memory`) and the function transforms (`ops.transforms`) use these; the bytecode
frontend's frame-state encoder (`_compiler/frontend/bytecode/state.py`) keeps its own walk because it tracks
aliasing, paths and frame objects (cells, iterators, bound methods), not just containers.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from kiln._core.tensor import Tensor

LEAF = ("t",)


def _data(t: Tensor):
    return t._data


def flatten(value, leaves: list, take: Callable = _data) -> tuple:
    """A template of `value` with each Tensor's data (or `take(tensor)`) appended to `leaves`.

    Tensors, tuples (named ones too), lists and dicts are walked; so is an object of a user class whose
    attributes hold Tensors (it comes back as a shallow copy with the new Tensors). Anything else is a
    constant of the template.

    Args:
        value: the nested value.
        leaves: receives the Tensors' data, in walking order.
        take: what of each Tensor goes to `leaves`: its backend data by default (the Tensor itself for a
            caller that needs the objects, e.g. to record them on the tape).

    Returns:
        The template (see the module docstring).
    """
    if isinstance(value, Tensor):
        leaves.append(take(value))
        return LEAF
    if isinstance(value, (tuple, list)):
        kind = "n" if isinstance(value, tuple) and hasattr(value, "_fields") else "s"
        return (kind, type(value), tuple(flatten(v, leaves, take) for v in value))
    if isinstance(value, dict):
        return ("d", tuple(value), tuple(flatten(v, leaves, take) for v in value.values()))
    attrs = getattr(value, "__dict__", None)
    if type(attrs) is dict and not isinstance(value, type) and _holds_tensors(attrs):
        return ("o", value, {k: flatten(v, leaves, take) for k, v in attrs.items()})
    return ("c", value)


def _same(x):
    return x


def tensor_leaves(value) -> list[Tensor]:
    """The Tensors of a nested value themselves (not their data), in `flatten`'s walking order.

    Args:
        value: the nested value.

    Returns:
        The list of Tensors.
    """
    tensors: list = []
    flatten(value, tensors, _same)
    return tensors


def _holds_tensors(attrs: dict) -> bool:
    return any(isinstance(v, (Tensor, tuple, list, dict)) and _leaves_in(v) for v in attrs.values())


def _leaves_in(v) -> bool:
    if isinstance(v, Tensor):
        return True
    if isinstance(v, (tuple, list)):
        return any(_leaves_in(x) for x in v)
    if isinstance(v, dict):
        return any(_leaves_in(x) for x in v.values())
    return False


def unflatten(template, it, wrap: Callable = Tensor._wrap):
    """The value of `template` with `wrap` of the next items of `it` at the leaves.

    Args:
        template: a template made by `flatten` (or of the same form).
        it: an iterator over the leaf values, in walking order.
        wrap: what each leaf value becomes (a Tensor by default).

    Returns:
        The rebuilt value.
    """
    kind = template[0]
    if kind == "t":
        return wrap(next(it))
    if kind == "c":
        return template[1]
    if kind == "s":
        return template[1](unflatten(t, it, wrap) for t in template[2])
    if kind == "n":
        return template[1](*(unflatten(t, it, wrap) for t in template[2]))
    if kind == "o":
        obj = copy.copy(template[1])
        obj.__dict__.update({k: unflatten(t, it, wrap) for k, t in template[2].items()})
        return obj
    if kind == "f":
        return "".join(
            p if isinstance(p, str) else format_field(unflatten(p[0], it, wrap), p[1], p[2]) for p in template[1]
        )
    kind_of_dict = template[3] if len(template) > 3 else dict  # a dict subclass the template names (mutable's)
    return kind_of_dict(zip(template[1], (unflatten(t, it, wrap) for t in template[2]), strict=True))


_CONVERT = {115: str, 114: repr, 97: ascii}


def format_field(value, conversion: int, spec: str) -> str:
    """One f-string field, as Python formats `f"{value!conversion:spec}"`.

    Args:
        value: the field's value.
        conversion: the code point of `s`, `r` or `a` (`!s`, `!r`, `!a`), or -1 for none.
        spec: the format spec.

    Returns:
        The formatted text.
    """
    convert = _CONVERT.get(conversion)
    return format(convert(value) if convert is not None else value, spec)


__all__ = ["LEAF", "flatten", "format_field", "tensor_leaves", "unflatten"]
