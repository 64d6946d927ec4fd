"""Eager dispatch: every primitive call runs one cached, jitted backend function.

The cache key is (primitive, attribute values); the backend caches again on
input shapes and dtypes, so a repeated call costs one lookup and one launch.
"""

from __future__ import annotations

from kiln import _backend as B
from kiln._core.primitive import PrimitiveDef, op_error
from kiln._core.tensor import Tensor
from kiln._pynative import tape

_compiled: dict[tuple, object] = {}


def _compile(prim: PrimitiveDef, attrs: tuple):
    kw = prim.attrs_dict(attrs)
    impl = prim.impl
    fn = B.jit(lambda *xs: impl(*xs, **kw)) if kw else B.jit(impl)
    _compiled[(prim, attrs)] = fn
    return fn


def apply(prim: PrimitiveDef, args: tuple, attrs: tuple = ()):
    """Run `prim` on `args` (Tensors, Python scalars, None) and wrap the result."""
    fn = _compiled.get((prim, attrs))
    if fn is None:
        fn = _compile(prim, attrs)
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    if prim.check_eagerly:
        prim.check(*(_abstract(a) for a in args), **prim.attrs_dict(attrs))
    try:
        result = fn(*arrays)
    except Exception as err:  # the backend's message is rewritten in the op's terms
        raise diagnose(prim, args, attrs, err) from None
    if prim.multiple_results:
        out = tuple(Tensor._wrap(r) for r in result)
    else:
        out = Tensor._wrap(result)
    if prim.effect == "write0":
        target = args[0]
        target._data = result
    if tape.recording:
        tape.record(prim, attrs, args, out)
    return out


def _abstract(x):
    return x._data if isinstance(x, Tensor) else x


def describe(args) -> str:
    parts = []
    for a in args:
        if isinstance(a, Tensor):
            parts.append(f"Tensor[{a.dtype}]{list(a.shape)}")
        else:
            parts.append(repr(a))
    return ", ".join(parts)


def diagnose(prim: PrimitiveDef, args: tuple, attrs: tuple, err: Exception) -> Exception:
    """Turn a backend failure into an error that names the op and the input shapes."""
    if prim.check is not None:
        try:
            prim.check(*(_abstract(a) for a in args), **prim.attrs_dict(attrs))
        except (TypeError, ValueError) as checked:
            return checked
    detail = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    kind = TypeError if isinstance(err, TypeError) else ValueError
    return op_error(prim.name, f"the inputs ({describe(args)}) are not valid: {detail}", kind)
